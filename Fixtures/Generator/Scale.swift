/// How many entities the generated service holds.
///
/// Sales orders drive everything: there are about `salesOrders / 10` business partners,
/// `salesOrders / 5` products, exactly `4 × salesOrders` items (1 to ~12 per order, 4 on
/// average) and exactly `2 × businessPartners` contacts (at least 1 per partner, 2 on average).
public struct Scale: Sendable, Hashable, CustomStringConvertible {
    /// Items per sales order, on average (exact over the whole set).
    public static let itemsPerOrder = 4
    /// Contacts per business partner, on average (exact over the whole set).
    public static let contactsPerPartner = 2
    /// The largest number of sales orders: IDs are `05` + 8 digits.
    public static let maxSalesOrders = 40_000_000
    /// The largest number of business partners: IDs are `01` + 8 digits.
    public static let maxBusinessPartners = 40_000_000
    /// The largest number of products: IDs are `HT-` + at most 7 digits, starting at 1000.
    public static let maxProducts = 8_000_000

    public let businessPartners: Int
    public let products: Int
    public let salesOrders: Int

    public var contacts: Int { businessPartners * Self.contactsPerPartner }
    public var salesOrderItems: Int { salesOrders * Self.itemsPerOrder }
    public var totalEntities: Int {
        businessPartners + contacts + products + salesOrders + salesOrderItems
    }

    /// Explicit counts, validated: none negative, within the ID formats, and at least 2
    /// partners (one supplier, one customer) and 1 product when there are sales orders, and at
    /// least 2 partners when there are products.
    public init(businessPartners: Int, products: Int, salesOrders: Int) throws(FixtureError) {
        guard businessPartners >= 0, products >= 0, salesOrders >= 0 else {
            throw .invalidScale(
                "counts must not be negative (businessPartners \(businessPartners), products \(products), salesOrders \(salesOrders))")
        }
        guard businessPartners <= Self.maxBusinessPartners, products <= Self.maxProducts,
            salesOrders <= Self.maxSalesOrders
        else {
            throw .invalidScale(
                "counts exceed the ID formats (businessPartners \(businessPartners) > \(Self.maxBusinessPartners), products \(products) > \(Self.maxProducts) or salesOrders \(salesOrders) > \(Self.maxSalesOrders))")
        }
        if salesOrders > 0, businessPartners < 2 || products < 1 {
            throw .invalidScale(
                "\(salesOrders) sales orders need at least 2 business partners and 1 product (have \(businessPartners) and \(products))")
        }
        if products > 0, businessPartners < 1 {
            throw .invalidScale("\(products) products need at least 1 business partner as supplier")
        }
        self.businessPartners = businessPartners
        self.products = products
        self.salesOrders = salesOrders
    }

    private init(unchecked partners: Int, products: Int, orders: Int) {
        self.businessPartners = partners
        self.products = products
        self.salesOrders = orders
    }

    /// `n` sales orders (clamped to `0...maxSalesOrders`) with the other sets proportional:
    /// `max(2, n / 10)` partners and `max(1, n / 5)` products.
    public static func entities(salesOrders n: Int) -> Scale {
        let orders = Swift.min(Swift.max(n, 0), maxSalesOrders)
        return Scale(unchecked: Swift.max(2, orders / 10), products: Swift.max(1, orders / 5), orders: orders)
    }

    /// 20 orders, 2 partners, 4 products, 80 items, 4 contacts (110 entities): unit tests.
    public static let tiny = entities(salesOrders: 20)
    /// 500 orders (2,750 entities): demos and exhaustive tests.
    public static let small = entities(salesOrders: 500)
    /// 18,182 orders: exactly 100,000 entities.
    public static let medium = entities(salesOrders: 18_182)
    /// 181,818 orders: 999,996 entities (about one million).
    public static let large = entities(salesOrders: 181_818)

    public func count(of set: SalesEntitySet) -> Int {
        switch set {
        case .businessPartners: businessPartners
        case .contacts: contacts
        case .products: products
        case .salesOrders: salesOrders
        case .salesOrderItems: salesOrderItems
        }
    }

    public var description: String {
        "Scale(businessPartners: \(businessPartners), contacts: \(contacts), products: \(products), salesOrders: \(salesOrders), salesOrderItems: \(salesOrderItems))"
    }
}
