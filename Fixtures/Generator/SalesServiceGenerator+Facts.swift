/// The facts one entity's neighbours need (a partner's name and currency for its orders, a
/// product's price for the items, an order's dates for its items), each computed from its own
/// random stream so that no other entity has to be generated first.
extension SalesServiceGenerator {
    /// Reference instants: partners are created in 2018–2021, products in 2019–2021, orders in
    /// 2022–2025; "now" (for order status) is 2026-01-01.
    static let partnerEpochDays = CivilTime.days(year: 2018, month: 1, day: 1)
    static let productEpochDays = CivilTime.days(year: 2019, month: 1, day: 1)
    static let orderEpochDays = CivilTime.days(year: 2022, month: 1, day: 1)
    static let orderSpanDays: Int64 = 1_461
    static let nowDays = CivilTime.days(year: 2026, month: 1, day: 1)

    // MARK: Identifiers

    static let contactGuidSalt: UInt64 = 0xC0_47AC7

    /// `0100000000` + index. (These ID helpers never trap; outside `0..<count(of:)` their
    /// text is meaningless.)
    public func businessPartnerID(_ index: Int) -> String {
        "01" + TextFormatting.pad(index, 8)
    }

    /// `HT-1000` + index.
    public func productID(_ index: Int) -> String {
        "HT-" + String(1000 &+ index)
    }

    /// `0500000000` + index.
    public func salesOrderID(_ index: Int) -> String {
        "05" + TextFormatting.pad(index, 8)
    }

    /// `0000000010`, `0000000020`, … for the 0-based position of an item within its order.
    public func itemPosition(ordinal: Int) -> String {
        TextFormatting.pad((ordinal &+ 1) &* 10, 10)
    }

    /// The lower-case GUID key of contact `index` (unique per index: its first 64 bits are a
    /// bijection of the index).
    public func contactGuid(_ index: Int) -> String {
        let high = SplitMix64.mix(UInt64(bitPattern: Int64(index)) ^ SplitMix64.mix(seed ^ Self.contactGuidSalt))
        let low = SplitMix64.mix(high ^ seed)
        return TextFormatting.uuidText(TextFormatting.uuidBytes(high: high, low: low))
    }

    /// The items of sales order `index`, as indices into `SalesOrderItems` (empty when `index`
    /// is out of range).
    public func itemRange(ofSalesOrder index: Int) -> Range<Int> {
        itemDistribution.childRange(ofParent: index)
    }

    /// The contacts of business partner `index`, as indices into `Contacts` (empty when `index`
    /// is out of range).
    public func contactRange(ofBusinessPartner index: Int) -> Range<Int> {
        contactDistribution.childRange(ofParent: index)
    }

    /// The sales order of item `index` and the item's 0-based position in it (`(0, 0)` when
    /// `index` is out of range).
    public func salesOrder(ofItem index: Int) -> (salesOrder: Int, ordinal: Int) {
        let found = itemDistribution.parent(ofChild: index)
        return (found.parent, found.ordinal)
    }

    /// The business partner of contact `index` (0 when `index` is out of range).
    public func businessPartner(ofContact index: Int) -> Int {
        contactDistribution.parent(ofChild: index).parent
    }

    /// Partners whose index is a multiple of 4 are suppliers (role `01`); the others are
    /// customers (role `02`).
    func isSupplier(_ partner: Int) -> Bool { partner % 4 == 0 }

    var supplierCount: Int { (scale.businessPartners + 3) / 4 }
    var customerCount: Int { scale.businessPartners - supplierCount }

    /// The `rank`-th customer (the `rank`-th index that is not a multiple of 4).
    func customerIndex(rank: Int) -> Int { rank + rank / 3 + 1 }

    func stream(_ set: SalesEntitySet, _ index: Int, _ purpose: UInt64) -> SplitMix64 {
        SplitMix64.derive(seed: seed, set: set.streamTag, index: UInt64(bitPattern: Int64(index)), purpose: purpose)
    }

    // MARK: Business partners

    struct PartnerFacts {
        var index: Int
        var country: CountryProfile
        var companyName: String
        /// The words the web domain is made of (folded to ASCII only when needed).
        var domainWords: String

        /// `<ascii-slug><index % 97>.<tld>`, e.g. `mueller17.de`.
        var domain: String {
            var slug = TextFormatting.asciiSlug(domainWords)
            if slug.isEmpty { slug = "company" }
            return slug + String(index % 97) + "." + country.topLevelDomain
        }
    }

    /// The country of a partner: the first draw of its fact stream, so this agrees with
    /// `partnerFacts(index).country` without building names.
    func partnerCountry(_ index: Int) -> CountryProfile {
        var rng = stream(.businessPartners, index, 0)
        return Self.drawCountry(&rng)
    }

    static func drawCountry(_ rng: inout SplitMix64) -> CountryProfile {
        let countries = Vocabulary.countries
        return countries[rng.weighted(Vocabulary.countryWeights) % countries.count]
    }

    func partnerFacts(_ index: Int) -> PartnerFacts {
        var rng = stream(.businessPartners, index, 0)
        let country = Self.drawCountry(&rng)
        let lastName = rng.pick(country.lastNames, or: "Becker")
        let stem = rng.pick(Vocabulary.companyStems, or: "Pear")
        let name: String
        let domainWords: String
        switch rng.int(below: 4) {
        case 0:
            name = stem + " " + rng.pick(Vocabulary.companyNouns, or: "Systems")
            domainWords = stem
        case 1:
            name = lastName + " " + rng.pick(country.companyWords, or: "Systems") + " "
                + rng.pick(country.legalForms, or: "Ltd.")
            domainWords = lastName
        case 2:
            let partner = rng.pick(country.lastNames, or: "Brown")
            name = lastName + " & " + partner + " " + rng.pick(country.legalForms, or: "Ltd.")
            domainWords = lastName + partner
        default:
            name = stem + " " + rng.pick(country.companyWords, or: "Trading")
            domainWords = stem
        }
        return PartnerFacts(index: index, country: country, companyName: name, domainWords: domainWords)
    }

    // MARK: Products

    struct ProductFacts {
        var category: ProductCategory
        /// Price in 1/1000 of the currency unit.
        var priceMilli: Int64
        var taxTarifCode: Int
        var supplier: Int
    }

    func productFacts(_ index: Int) -> ProductFacts {
        var rng = stream(.products, index, 0)
        let categories = Vocabulary.categories
        let category = categories[rng.int(below: categories.count)]
        var cents = rng.int(in: category.priceCents)
        // Shop prices: …9.00, …9.90 or …x.99.
        switch rng.int(below: 3) {
        case 0: cents = cents / 100 * 100
        case 1: cents = cents / 10 * 10
        default: cents = cents / 100 * 100 + 99
        }
        // Tax tariff 1 (19%) for 80%, 2 (7%) for 15%, 3 (0%) for 5% of the products.
        let taxRoll = rng.int(below: 100)
        let taxCode = taxRoll < 80 ? 1 : taxRoll < 95 ? 2 : 3
        let supplier = 4 * rng.int(below: Swift.max(1, supplierCount))
        return ProductFacts(category: category, priceMilli: Int64(cents) * 10, taxTarifCode: taxCode, supplier: supplier)
    }

    static func taxPercent(code: Int) -> Int64 {
        switch code {
        case 1: 19
        case 2: 7
        default: 0
        }
    }

    // MARK: Sales orders

    struct OrderFacts {
        var customer: Int
        var createdMillis: Int64
        var changedMillis: Int64
        var deliveryDays: Int64
        var rng: SplitMix64
    }

    func orderFacts(_ index: Int) -> OrderFacts {
        var rng = stream(.salesOrders, index, 0)
        let customer = customerIndex(rank: rng.skewed(below: Swift.max(1, customerCount)))
        let spanSeconds = Self.orderSpanDays * 86_400
        let orders = Int64(Swift.max(1, scale.salesOrders))
        let offsetSeconds = Int64(index) * spanSeconds / orders
        let created = (Self.orderEpochDays * 86_400 + offsetSeconds) * 1000
            + Int64(rng.int(below: 3_600_000))
        let changed = created + Int64(rng.int(below: 30 * 86_400)) * 1000 + Int64(rng.int(below: 1000))
        let deliveryDays = CivilTime.floorDiv(created, CivilTime.millisPerDay) + Int64(rng.int(in: 3...30))
        return OrderFacts(
            customer: customer, createdMillis: created, changedMillis: changed, deliveryDays: deliveryDays, rng: rng)
    }

    // MARK: Items

    struct ItemFacts {
        var salesOrder: Int
        var ordinal: Int
        var product: Int
        /// Quantity in whole units.
        var quantity: Int64
        var netMilli: Int64
        var taxMilli: Int64
        var rng: SplitMix64
        var grossMilli: Int64 { netMilli + taxMilli }
    }

    func itemFacts(_ index: Int) -> ItemFacts {
        let (order, ordinal) = salesOrder(ofItem: index)
        return itemFacts(index, order: order, ordinal: ordinal)
    }

    /// Item facts when the order and position are already known (saves the block lookup).
    func itemFacts(_ index: Int, order: Int, ordinal: Int) -> ItemFacts {
        var rng = stream(.salesOrderItems, index, 0)
        let product = rng.skewed(below: Swift.max(1, scale.products))
        // 1–3 units for 60% of the items, 4–10 for 30%, 11–50 for 10%.
        let quantityRoll = rng.int(below: 100)
        let quantity = Int64(rng.int(in: quantityRoll < 60 ? 1...3 : quantityRoll < 90 ? 4...10 : 11...50))
        let facts = productFacts(product)
        let net = facts.priceMilli * quantity
        let tax = (net * Self.taxPercent(code: facts.taxTarifCode) + 50) / 100
        return ItemFacts(
            salesOrder: order, ordinal: ordinal, product: product, quantity: quantity, netMilli: net, taxMilli: tax,
            rng: rng)
    }

    /// Net and tax totals of an order: the sums over its items, so that
    /// `GrossAmount = NetAmount + TaxAmount` holds for every order and every item.
    func orderTotals(_ index: Int) -> (net: Int64, tax: Int64) {
        var net: Int64 = 0
        var tax: Int64 = 0
        let items = itemRange(ofSalesOrder: index)
        for item in items {
            let facts = itemFacts(item, order: index, ordinal: item - items.lowerBound)
            net += facts.netMilli
            tax += facts.taxMilli
        }
        return (net, tax)
    }
}
