import OfflineODataModel
import PropertyBased
import Testing
@testable import OfflineODataStore

/// A small model with indexed properties of several kinds.
enum IndexTestModel {
    static let body = """
    <ComplexType Name="Address"><Property Name="City" Type="Edm.String"/><Property Name="Zip" Type="Edm.String"/></ComplexType>
    <EntityType Name="Item">
      <Key><PropertyRef Name="Id"/></Key>
      <Property Name="Id" Type="Edm.Int32" Nullable="false"/>
      <Property Name="Name" Type="Edm.String"/>
      <Property Name="Price" Type="Edm.Decimal" Scale="variable"/>
      <Property Name="Qty" Type="Edm.Int64"/>
      <Property Name="Address" Type="T.Address"/>
    </EntityType>
    """
    static let container = #"<EntitySet Name="Items" EntityType="T.Item"/>"#

    static func model() throws -> ServiceModel { try StorageFixtures.model(body, container: container) }

    struct Row: Hashable {
        var name: String?
        var price: EdmDecimal?
        var qty: Int64?
        var city: String?
    }

    static let names = ["", "a", "ab", "abc", "abd", "b", "ba", "a\u{0}b", "a\u{0}", "é", "ä\u{1F600}"]

    static func entity(_ id: Int32, _ row: Row) -> ODataEntity {
        var props: [ODataProperty] = [ODataProperty("Id", .int32(id))]
        props.append(ODataProperty("Name", row.name.map { .string($0) } ?? .null))
        props.append(ODataProperty("Price", row.price.map { .decimal($0) } ?? .null))
        props.append(ODataProperty("Qty", row.qty.map { .int64($0) } ?? .null))
        props.append(ODataProperty("Address", .complex(ODataComplexValue(typeName: "T.Address", [
            ("City", row.city.map { .string($0) } ?? .null), ("Zip", .string("z")),
        ]))))
        return ODataEntity(typeName: "T.Item", properties: props)
    }
}

struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite struct IndexModelTests {
    static func randomRow(_ rng: inout SplitMix64) -> IndexTestModel.Row {
        func maybe<T>(_ v: T) -> T? { Int.random(in: 0..<5, using: &rng) == 0 ? nil : v }
        // Decimals with varying scale: 1.5 and 1.50 are the same value.
        let cents = Int64.random(in: -3...3, using: &rng)
        let scale = Int.random(in: 0...2, using: &rng)
        let price = (try? EdmDecimal(isNegative: cents < 0, digits: Array(String(abs(cents) * 10).utf8.map { $0 - 48 })
                                     + [UInt8](repeating: 0, count: scale), scale: 1 + scale)) ?? EdmDecimal(0)
        return IndexTestModel.Row(
            name: maybe(IndexTestModel.names.randomElement(using: &rng) ?? ""),
            price: maybe(price),
            qty: maybe(Int64.random(in: -3...3, using: &rng)),
            city: maybe(["Rome", "Riga", "Oslo", "R"].randomElement(using: &rng) ?? "R"))
    }

    @Test("random puts/updates/deletes: every index scan equals a filter over a model")
    func indexesMatchModel() async throws {
        let model = try IndexTestModel.model()
        await propertyCheck(count: 12, input: Gen.int(in: 0...Int(Int32.max))) { seedValue in
            let seed = UInt64(seedValue)
            print("index model test seed \(seed)")
            let harness = try StorageHarness(model: model, label: "indexmodel")
            let storage = harness.storage
            try await storage.declareIndex(IndexDefinition(name: "byName", entitySet: "Items", properties: ["Name"]))
            try await storage.declareIndex(IndexDefinition(name: "byCityPrice", entitySet: "Items", properties: ["Address/City", "Price"]))
            try await storage.declareIndex(IndexDefinition(name: "byQty", entitySet: "Items", properties: ["Qty"]))
            var rng = SplitMix64(state: seed)
            var rows: [Int32: IndexTestModel.Row] = [:]
            for step in 0..<25 {
                try storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
                    for _ in 0..<Int.random(in: 1...6, using: &rng) {
                        let id = Int32.random(in: 0..<12, using: &rng)
                        if Int.random(in: 0..<4, using: &rng) == 0 {
                            let existed = try batch.delete(key: [.int32(id)], in: "Items")
                            #expect(existed == (rows[id] != nil), "seed \(seed) step \(step)")
                            rows[id] = nil
                        } else {
                            let row = Self.randomRow(&rng)
                            try batch.put(IndexTestModel.entity(id, row), in: "Items")
                            rows[id] = row
                        }
                    }
                }
                try Self.check(try storage.reader(), rows, seed: seed, step: step, rng: &rng)
            }
        }
    }

    static func check(_ reader: EntityReader, _ rows: [Int32: IndexTestModel.Row], seed: UInt64, step: Int,
                      rng: inout SplitMix64) throws {
        let context = "seed \(seed) step \(step)"
        func ids(_ keys: [[ODataValue]]) -> [Int32] {
            keys.map { if case .int32(let v)? = $0.first { return v } else { return -1 } }
        }
        // Full scans hold one entry per entity.
        for index in ["byName", "byCityPrice", "byQty"] {
            #expect(Set(ids(try reader.indexKeys(index))) == Set(rows.keys), "\(context) \(index)")
            #expect(try reader.indexKeys(index).count == rows.count, "\(context) \(index)")
        }
        // Equality on Name (null included).
        let name: String? = Int.random(in: 0..<6, using: &rng) == 0 ? nil : IndexTestModel.names.randomElement(using: &rng)
        let eq = IndexBound.equal([name.map { .string($0) } ?? .null])
        let expectedName = rows.filter { $0.value.name == name }.map(\.key)
        #expect(Set(ids(try reader.indexKeys("byName", lower: eq.lower, upper: eq.upper))) == Set(expectedName), "\(context) Name eq \(String(describing: name))")
        // startswith on Name, including prefixes with a NUL and the empty prefix.
        let prefix = ["", "a", "ab", "a\u{0}", "b", "é", "z"].randomElement(using: &rng) ?? "a"
        let sw = IndexBound.startsWith(prefix: prefix)
        let expectedPrefix = rows.filter { $0.value.name.map { Array($0.utf8).starts(with: Array(prefix.utf8)) } ?? false }.map(\.key)
        #expect(Set(ids(try reader.indexKeys("byName", lower: sw.lower, upper: sw.upper))) == Set(expectedPrefix), "\(context) startswith \(prefix)")
        // Qty ranges with bounds of other numeric kinds.
        let low = Int64.random(in: -4...4, using: &rng)
        let high = Int64.random(in: -4...4, using: &rng)
        let lowInclusive = Bool.random(using: &rng)
        let highInclusive = Bool.random(using: &rng)
        let lowValue: ODataValue = [.int32(Int32(low)), .double(Double(low)), .decimal(EdmDecimal(low))].randomElement(using: &rng) ?? .int64(low)
        let highValue: ODataValue = [.int16(Int16(high)), .double(Double(high) + 0.5), .int64(high)].randomElement(using: &rng) ?? .int64(high)
        let lower = IndexBound([lowValue], inclusive: lowInclusive)
        let upper = IndexBound([highValue], inclusive: highInclusive)
        let highNumber: Double = if case .double(let d) = highValue { d } else { Double(high) }
        let expectedRange = rows.filter { _, row in
            guard let q = row.qty else { return false }
            let aboveLow = lowInclusive ? q >= low : q > low
            let belowHigh = highInclusive ? Double(q) <= highNumber : Double(q) < highNumber
            return aboveLow && belowHigh
        }.map(\.key)
        let range = try reader.indexKeys("byQty", lower: lower, upper: upper)
        #expect(Set(ids(range)) == Set(expectedRange), "\(context) Qty \(lowValue) \(lowInclusive) .. \(highValue) \(highInclusive)")
        // The index order is the numeric order of Qty; reverse is the mirror.
        let ordered = try reader.indexKeys("byQty", lower: IndexBound([.null], inclusive: false))
        let qtys = ids(ordered).compactMap { rows[$0]?.qty }
        #expect(qtys == qtys.sorted(), "\(context) Qty order")
        #expect(try reader.indexKeys("byQty", lower: IndexBound([.null], inclusive: false), reverse: true) == ordered.reversed())
        // City equality + Price range on the composite index; 1.5 equals 1.50.
        let city = ["Rome", "Riga", "Oslo", "R"].randomElement(using: &rng) ?? "R"
        let price = EdmDecimal(Int64.random(in: -3...3, using: &rng))
        let composite = try reader.indexKeys("byCityPrice", lower: IndexBound([.string(city), .decimal(price)]),
                                             upper: IndexBound([.string(city)]))
        let expectedComposite = rows.filter { _, row in
            row.city == city && (row.price.map { $0 >= price } ?? false)
        }.map(\.key)
        #expect(Set(ids(composite)) == Set(expectedComposite), "\(context) City=\(city) Price>=\(price)")
        // startswith on the city column: "R" matches Rome, Riga and R.
        let rPrefix = IndexBound.startsWith(prefix: "R")
        let expectedR = rows.filter { $0.value.city?.hasPrefix("R") ?? false }.map(\.key)
        #expect(Set(ids(try reader.indexKeys("byCityPrice", lower: rPrefix.lower, upper: rPrefix.upper))) == Set(expectedR), "\(context)")
        // Index values decode to the normalized column values.
        var cursor = try reader.indexScan("byCityPrice")
        while let entry = try cursor.next() {
            let values = try entry.indexValues()
            guard case .int32(let id)? = try entry.primaryKey().first, let row = rows[id] else {
                Issue.record("\(context): entry for a missing entity")
                continue
            }
            #expect(values.count == 2)
            #expect(values.first == (row.city.map { .string($0) } ?? .null), "\(context)")
            #expect(values.last == (row.price.map { .decimal($0) } ?? .null), "\(context)")
        }
    }
}
