/// The engine benchmark's data set: `count` records with 16-byte random-looking unique keys
/// (UUID-like) and ~420-byte sales-order-item JSON values, fully determined by `seed`.
///
/// Mirrors the fixtures generator's `EngineWorkload` (issue 2); switch to
/// `OfflineODataFixtures.EngineWorkload` when that lands so the benchmark and the fixtures share
/// one definition. Record `i` is computed on its own (no state carried between records), so a
/// benchmark can regenerate any key for lookups without holding the data set in memory.
public struct Workload: Sendable, Hashable {
    public let count: Int
    public let seed: UInt64

    public init(count: Int, seed: UInt64 = 0x0D47A_2026) {
        self.count = count
        self.seed = seed
    }

    /// The key of record `index`. Bytes 0…7 are a bijective mix of the index (so keys are unique
    /// for every index), bytes 8…15 pseudo-random; the order of keys is unrelated to `index`.
    public func key(_ index: Int) -> [UInt8] {
        let a = Self.mix(UInt64(truncatingIfNeeded: index) ^ seed)
        var rng = SplitMix64(state: a ^ 0x5851_F42D_4C95_7F2D)
        let b = rng.next()
        var k = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 {
            k[i] = UInt8(truncatingIfNeeded: a >> (56 - 8 * UInt64(i)))
            k[8 + i] = UInt8(truncatingIfNeeded: b >> (56 - 8 * UInt64(i)))
        }
        // RFC 4122 variant bits, as a UUID's 9th byte has them (the unique half is untouched).
        k[8] = (k[8] & 0x3F) | 0x80
        return k
    }

    /// The value of record `index`: a compact OData JSON sales-order item.
    public func value(_ index: Int) -> [UInt8] {
        var rng = SplitMix64(state: Self.mix(UInt64(truncatingIfNeeded: index) &+ seed &* 0x9E37_79B9_7F4A_7C15))
        var out = [UInt8]()
        out.reserveCapacity(600)
        func put(_ s: String) { out.append(contentsOf: s.utf8) }
        func field(_ name: String, _ text: String, last: Bool = false) {
            put("\"\(name)\":\"\(text)\"")
            if !last { put(",") }
        }
        let order = 500_000_000 + Int(rng.next() % 99_999_999)
        let position = (Int(rng.next() % 40) + 1) * 10
        let product = Self.products[Int(rng.next() % UInt64(Self.products.count))]
        let quantity = Int(rng.next() % 250) + 1
        let cents = Int(rng.next() % 400_000) + 99
        let net = quantity * cents
        let tax = net * 19 / 100
        let currency = Self.currencies[Int(rng.next() % UInt64(Self.currencies.count))]
        let day = Int(rng.next() % 28) + 1, month = Int(rng.next() % 12) + 1
        let date = "2025-\(pad(month, 2))-\(pad(day, 2))"
        put("{\"@odata.etag\":\"W/\\\"datetime'\(date)T\(pad(Int(rng.next() % 24), 2))%3A\(pad(Int(rng.next() % 60), 2))%3A00'\\\"\",")
        field("SalesOrderID", pad(order, 10))
        field("ItemPosition", pad(position, 10))
        field("ProductID", product)
        // Optional fields vary the shape from record to record, as real entity sets do.
        if rng.next() % 2 == 0 {
            field("Note", Self.notes[Int(rng.next() % UInt64(Self.notes.count))])
        }
        field("CurrencyCode", currency)
        field("GrossAmount", money(net + tax))
        field("NetAmount", money(net))
        field("DeliveryDate", date)
        field("Quantity", "\(quantity)")
        field("QuantityUnit", Self.units[Int(rng.next() % UInt64(Self.units.count))])
        if rng.next() % 3 == 0 {
            field("DiscountPercent", "\(rng.next() % 30).00")
        }
        if rng.next() % 2 == 0 {
            field("ShipToCity", Self.cities[Int(rng.next() % UInt64(Self.cities.count))])
        }
        field("CreatedByUser", Self.users[Int(rng.next() % UInt64(Self.users.count))])
        field("CreatedAt", "\(date)T\(pad(Int(rng.next() % 24), 2)):\(pad(Int(rng.next() % 60), 2)):\(pad(Int(rng.next() % 60), 2))Z")
        field("ItemStatus", Self.statuses[Int(rng.next() % UInt64(Self.statuses.count))])
        put("\"ProductName\":\"\(Self.productNames[Int(rng.next() % UInt64(Self.productNames.count))])\"}")
        return out
    }

    /// Sum of key and value bytes of the whole data set (the "bytes of data" that write
    /// amplification is measured against). Computed by generating every record.
    public func dataBytes() -> UInt64 {
        var total: UInt64 = 0
        for i in 0..<count { total += UInt64(16 + value(i).count) }
        return total
    }

    static func mix(_ x: UInt64) -> UInt64 {
        // SplitMix64's finalizer: a bijection on UInt64.
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    static let products = (0..<400).map { "HT-\(1000 + $0 * 7)" }
    static let currencies = ["EUR", "USD", "GBP", "JPY", "CHF", "INR"]
    static let units = ["EA", "PC", "KG", "BOX", "L"]
    static let statuses = ["A", "B", "C", "D", "X"]
    static let users = ["ANZEIGER", "SAPUSER01", "MUSTERMANN", "JDOE", "EPM_DEMO", "SCHMIDT_K", "O_BRIEN"]
    static let cities = ["Walldorf", "Palo Alto", "Bangalore", "São Paulo", "Tokyo", "Zürich", "Newtown Square", "Dublin"]
    static let productNames = ["Notebook Basic 15", "Notebook Professional 17", "Ergo Screen E-I", "Flat XL",
                               "Laser Professional Eco", "Multi Color", "Comfort Easy", "Smart Design",
                               "Astro Laptop 1516", "ITelO Vault", "Beam Breaker B-1", "Cepat Tablet 10.5"]
    static let notes = [
        "Deliver to the loading dock at the rear entrance; call ahead.",
        "Customer requested gift wrapping.",
        "Partial delivery accepted",
        "Price agreed with key account manager for the Q3 framework contract, see ticket 4711.",
        "",
        "Express shipping",
        "Replacement for damaged item from previous order; no charge for shipping.",
        "Bitte Lieferschein beilegen.",
    ]
}

@inline(__always) func pad(_ n: Int, _ width: Int) -> String {
    let s = String(n)
    return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
}

@inline(__always) func money(_ cents: Int) -> String {
    "\(cents / 100).\(pad(cents % 100, 2))"
}

/// A small, fast, deterministic PRNG (Steele, Lea, Flood: SplitMix64).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64
    public init(state: UInt64) { self.state = state }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
