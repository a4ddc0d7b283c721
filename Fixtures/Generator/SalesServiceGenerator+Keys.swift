/// Keys in both directions: the key predicate of an entity index, and the index of a key.
extension SalesServiceGenerator {
    /// The key predicate of an entity as it appears in a resource path:
    /// `('0500000001')`, `(SalesOrderID='0500000001',ItemPosition='0000000010')`, or
    /// `(a6287381-bcf5-4d3c-8ca2-493e30d54b28)` for a contact's GUID.
    public func keyPredicate(set: SalesEntitySet, index: Int) throws(FixtureError) -> String {
        let total = count(of: set)
        guard index >= 0, index < total else { throw .entityIndexOutOfRange(index, set: set, count: total) }
        switch set {
        case .businessPartners: return "('" + businessPartnerID(index) + "')"
        case .contacts: return "(" + contactGuid(index) + ")"
        case .products: return "('" + productID(index) + "')"
        case .salesOrders: return "('" + salesOrderID(index) + "')"
        case .salesOrderItems:
            let (order, ordinal) = salesOrder(ofItem: index)
            return "(SalesOrderID='" + salesOrderID(order) + "',ItemPosition='" + itemPosition(ordinal: ordinal) + "')"
        }
    }

    /// The index of the entity of `set` whose key properties have the given values (property
    /// name → value text as it appears in the payload, e.g. `["SalesOrderID": "0500000007"]`),
    /// or nil when no entity of this service has that key.
    public func entityIndex(set: SalesEntitySet, key: [String: String]) -> Int? {
        switch set {
        case .businessPartners:
            return key["BusinessPartnerID"].flatMap { numberedIndex($0, prefix: "01", set: set, render: businessPartnerID) }
        case .products:
            guard let text = key["ProductID"], text.hasPrefix("HT-"), let number = Int(text.dropFirst(3)) else { return nil }
            return verified(number &- 1000, set: set) { productID($0) == text }
        case .salesOrders:
            return key["SalesOrderID"].flatMap { numberedIndex($0, prefix: "05", set: set, render: salesOrderID) }
        case .salesOrderItems:
            guard let orderText = key["SalesOrderID"], let positionText = key["ItemPosition"],
                let order = numberedIndex(orderText, prefix: "05", set: .salesOrders, render: salesOrderID),
                let position = Int(positionText), position >= 10, position % 10 == 0
            else { return nil }
            let items = itemRange(ofSalesOrder: order)
            let ordinal = position / 10 - 1
            guard ordinal < items.count, itemPosition(ordinal: ordinal) == positionText else { return nil }
            return items.lowerBound + ordinal
        case .contacts:
            guard let text = key["ContactGuid"], let high = Self.guidHigh(text) else { return nil }
            let raw = SplitMix64.unmix(high) ^ SplitMix64.mix(seed ^ Self.contactGuidSalt)
            return verified(Int(truncatingIfNeeded: raw), set: set) { contactGuid($0) == text }
        }
    }

    private func numberedIndex(_ text: String, prefix: String, set: SalesEntitySet, render: (Int) -> String) -> Int? {
        guard text.hasPrefix(prefix), let number = Int(text.dropFirst(prefix.count)) else { return nil }
        return verified(number, set: set) { render($0) == text }
    }

    private func verified(_ index: Int, set: SalesEntitySet, _ matches: (Int) -> Bool) -> Int? {
        guard index >= 0, index < count(of: set), matches(index) else { return nil }
        return index
    }

    /// The 64 bits of a GUID text that `TextFormatting.uuidBytes` keeps whole (bytes 0–5, 7, 9).
    static func guidHigh(_ text: String) -> UInt64? {
        var bytes: [UInt8] = []
        var pending: UInt8? = nil
        for scalar in text.unicodeScalars {
            if scalar == "-" { continue }
            let nibble: UInt8
            switch scalar.value {
            case 0x30...0x39: nibble = UInt8(scalar.value - 0x30)
            case 0x61...0x66: nibble = UInt8(scalar.value - 0x61 + 10)
            default: return nil
            }
            if let high = pending {
                bytes.append(high << 4 | nibble)
                pending = nil
            } else {
                pending = nibble
            }
        }
        guard bytes.count == 16, pending == nil else { return nil }
        var high: UInt64 = 0
        for position in [0, 1, 2, 3, 4, 5, 7, 9] {
            high = high << 8 | UInt64(bytes[position])
        }
        return high
    }
}
