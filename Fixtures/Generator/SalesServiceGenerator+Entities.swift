/// Writing each entity type's properties, in the order `metadataXML()` declares them.
extension SalesServiceGenerator {
    func writeAddress(country: CountryProfile, rng: inout SplitMix64, into writer: inout JSONWriter) {
        let city = rng.pick(country.cities, or: CityProfile(name: "Walldorf", postalPattern: "69190", streets: ["Hauptstraße"]))
        writer.name("Address")
        writer.beginObject()
        writer.name("City")
        writer.string(city.name)
        writer.name("PostalCode")
        writer.filledPattern(city.postalPattern, &rng)
        writer.name("Street")
        writer.string(rng.pick(city.streets, or: "Hauptstraße"))
        writer.name("Building")
        var building = String(rng.int(in: 1...250))
        if rng.chance(8) { building += ["a", "b", "c"][rng.int(below: 3)] }
        writer.string(building)
        writer.name("Country")
        writer.string(country.code)
        writer.name("AddressType")
        writer.string(rng.chance(85) ? "02" : "01")
        writer.endObject()
    }

    func writeBusinessPartner(_ index: Int, into writer: inout JSONWriter, quoted: Bool) {
        let facts = partnerFacts(index)
        var rng = stream(.businessPartners, index, 1)
        writer.beginObject()
        writer.name("BusinessPartnerID")
        writer.string(businessPartnerID(index))
        writer.name("CompanyName")
        writer.string(facts.companyName)
        writer.name("EmailAddress")
        writer.string(rng.pick(Vocabulary.emailUsers, or: "info") + "@" + facts.domain)
        writer.name("PhoneNumber")
        if rng.chance(10) {
            writer.null()
        } else {
            writer.filledPattern(facts.country.phonePattern, &rng)
        }
        writer.name("CurrencyCode")
        writer.string(facts.country.currency)
        writer.name("BusinessPartnerRole")
        writer.string(isSupplier(index) ? "01" : "02")
        writeAddress(country: facts.country, rng: &rng, into: &writer)
        writer.name("CreatedAt")
        let created = (Self.partnerEpochDays + Int64(rng.int(below: 1_461))) * CivilTime.millisPerDay
            + Int64(rng.int(below: Int(CivilTime.millisPerDay)))
        writer.dateTimeOffset(millis: created, offsetMinutes: 0)
        writer.endObject()
    }

    func writeContact(_ index: Int, into writer: inout JSONWriter, quoted: Bool) {
        let partner = businessPartner(ofContact: index)
        let facts = partnerFacts(partner)
        let country = facts.country
        var rng = stream(.contacts, index, 0)
        let male = rng.chance(50)
        let names = male ? country.maleNames : country.femaleNames
        let first = rng.pick(names, or: "Alex")
        let last = rng.pick(country.lastNames, or: "Smith")
        let middle: String? = rng.chance(30) ? rng.pick(names, or: "Lee") : nil
        writer.beginObject()
        writer.name("ContactGuid")
        writer.string(contactGuid(index))
        writer.name("BusinessPartnerID")
        writer.string(businessPartnerID(partner))
        writer.name("FirstName")
        writer.string(first)
        writer.name("MiddleName")
        writer.string(middle)
        writer.name("LastName")
        writer.string(last)
        writer.name("Sex")
        writer.string(male ? "M" : "F")
        writer.name("PhoneNumber")
        writer.filledPattern(country.phonePattern, &rng)
        writer.name("EmailAddress")
        writer.string(TextFormatting.asciiSlug(first) + "." + TextFormatting.asciiSlug(last) + "@" + facts.domain)
        writer.name("DateOfBirth")
        if rng.chance(10) {
            writer.null()
        } else {
            let born = CivilTime.days(year: 1955, month: 1, day: 1) + Int64(rng.int(below: 49 * 365))
            writer.date(days: born)
        }
        writeAddress(country: country, rng: &rng, into: &writer)
        writer.endObject()
    }

    func writeProduct(_ index: Int, into writer: inout JSONWriter, quoted: Bool) {
        let facts = productFacts(index)
        let category = facts.category
        var rng = stream(.products, index, 1)
        writer.beginObject()
        writer.name("ProductID")
        writer.string(productID(index))
        writer.name("TypeCode")
        writer.string(rng.chance(95) ? "PR" : "AD")
        writer.name("Category")
        writer.string(category.name)
        writer.name("Name")
        let variant = rng.pick(category.variants, or: "")
        let stem = rng.pick(category.stems, or: category.name)
        let name = variant.isEmpty ? stem : stem + " " + variant
        writer.string(name)
        writer.name("Description")
        if rng.chance(10) {
            writer.null()
        } else {
            // 1 to 5 distinct fragments: consecutive ones from a random start.
            var description = name
            let fragments = category.fragments
            let start = rng.int(below: fragments.count)
            for step in 0..<Swift.min(fragments.count, rng.int(in: 1...5)) {
                let fragment = fragments[(start + step) % fragments.count]
                let separator = description == name ? " with " : ", "
                // UTF-8 length bounds the character count, so MaxLength 255 holds.
                if description.utf8.count + separator.utf8.count + fragment.utf8.count > 255 { break }
                description += separator + fragment
            }
            writer.string(description)
        }
        writer.name("SupplierID")
        writer.string(businessPartnerID(facts.supplier))
        writer.name("TaxTarifCode")
        writer.int(facts.taxTarifCode)
        writer.name("MeasureUnit")
        writer.string("EA")
        let grams = rng.int(in: category.weightGrams)
        writer.name("WeightMeasure")
        writer.decimal(Int64(grams < 1000 ? grams * 1000 : grams), scale: 3, quoted: quoted)
        writer.name("WeightUnit")
        writer.string(grams < 1000 ? "G" : "KG")
        writer.name("CurrencyCode")
        writer.string(rng.chance(50) ? "EUR" : "USD")
        writer.name("Price")
        writer.decimal(facts.priceMilli, scale: 3, quoted: quoted)
        let hasDimensions = !rng.chance(10)
        for (property, range) in [("Width", category.widthMM), ("Depth", category.depthMM), ("Height", category.heightMM)] {
            writer.name(property)
            // millimetres → centimetres with 3 decimals: 1 mm = 0.100 cm = 100 units.
            writer.decimal(hasDimensions ? Int64(rng.int(in: range)) * 100 : nil, scale: 3, quoted: quoted)
        }
        writer.name("DimUnit")
        writer.string(hasDimensions ? "CM" : nil)
        writer.name("CreatedAt")
        let created = (Self.productEpochDays + Int64(rng.int(below: 1_095))) * CivilTime.millisPerDay
            + Int64(rng.int(below: Int(CivilTime.millisPerDay)))
        writer.dateTimeOffset(millis: created, offsetMinutes: 0)
        writer.endObject()
    }

    func writeSalesOrder(_ index: Int, into writer: inout JSONWriter, quoted: Bool) {
        var facts = orderFacts(index)
        let customer = partnerFacts(facts.customer)
        let totals = orderTotals(index)
        let id = salesOrderID(index)
        writer.beginObject()
        writer.name("SalesOrderID")
        writer.string(id)
        writer.name("Note")
        if facts.rng.chance(10) {
            writer.null()
        } else if facts.rng.chance(30) {
            writer.string("EPM DG: SO ID " + id + " Deliver as fast as possible")
        } else {
            writer.string(facts.rng.pick(Vocabulary.notes, or: ""))
        }
        writer.name("CustomerID")
        writer.string(businessPartnerID(facts.customer))
        writer.name("CustomerName")
        writer.string(customer.companyName)
        writer.name("CurrencyCode")
        writer.string(customer.country.currency)
        writer.name("GrossAmount")
        writer.decimal(totals.net + totals.tax, scale: 3, quoted: quoted)
        writer.name("NetAmount")
        writer.decimal(totals.net, scale: 3, quoted: quoted)
        writer.name("TaxAmount")
        writer.decimal(totals.tax, scale: 3, quoted: quoted)
        let ageDays = Self.nowDays - CivilTime.floorDiv(facts.createdMillis, CivilTime.millisPerDay)
        let lifecycle: String
        if ageDays > 60 {
            lifecycle = ["C", "X", "P"][facts.rng.weighted([85, 5, 10])]
        } else {
            lifecycle = ["N", "P", "C"][facts.rng.weighted([40, 50, 10])]
        }
        let (billing, delivery): (String, String)
        switch lifecycle {
        case "C": (billing, delivery) = ("P", "D")
        case "P": (billing, delivery) = (facts.rng.chance(50) ? "P" : "N", facts.rng.chance(50) ? "D" : "N")
        default: (billing, delivery) = ("N", "N")
        }
        writer.name("LifecycleStatus")
        writer.string(lifecycle)
        writer.name("BillingStatus")
        writer.string(billing)
        writer.name("DeliveryStatus")
        writer.string(delivery)
        writer.name("CreatedAt")
        writer.dateTimeOffset(millis: facts.createdMillis, offsetMinutes: 0)
        writer.name("ChangedAt")
        // About 40% of the orders were last changed in the customer's local time zone.
        let offset = facts.rng.chance(40) ? customer.country.utcOffsetMinutes : 0
        writer.dateTimeOffset(millis: facts.changedMillis, offsetMinutes: offset)
        writer.name("DeliveryDate")
        writer.date(days: facts.deliveryDays)
        writer.endObject()
    }

    func writeSalesOrderItem(_ index: Int, into writer: inout JSONWriter, quoted: Bool) {
        var facts = itemFacts(index)
        let order = orderFacts(facts.salesOrder)
        let customerCountry = partnerCountry(order.customer)
        writer.beginObject()
        writer.name("SalesOrderID")
        writer.string(salesOrderID(facts.salesOrder))
        writer.name("ItemPosition")
        writer.string(itemPosition(ordinal: facts.ordinal))
        writer.name("ProductID")
        writer.string(productID(facts.product))
        writer.name("Note")
        switch facts.rng.weighted([10, 60, 30]) {
        case 0: writer.null()
        case 1: writer.string("")
        default: writer.string(facts.rng.pick(Vocabulary.notes, or: ""))
        }
        writer.name("CurrencyCode")
        writer.string(customerCountry.currency)
        writer.name("GrossAmount")
        writer.decimal(facts.grossMilli, scale: 3, quoted: quoted)
        writer.name("NetAmount")
        writer.decimal(facts.netMilli, scale: 3, quoted: quoted)
        writer.name("TaxAmount")
        writer.decimal(facts.taxMilli, scale: 3, quoted: quoted)
        writer.name("Quantity")
        writer.decimal(facts.quantity * 1000, scale: 3, quoted: quoted)
        writer.name("QuantityUnit")
        writer.string("EA")
        writer.name("DeliveryDate")
        writer.date(days: order.deliveryDays)
        writer.endObject()
    }
}
