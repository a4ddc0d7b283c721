import OfflineODataModel
import Testing
@testable import OfflineODataStore

@Suite struct DerivedTypeTests {
    @Test("derived types and dynamic properties of open types round-trip")
    func derivedAndOpen() async throws {
        let model = try StorageFixtures.model("""
            <EntityType Name="Base" OpenType="true">
              <Key><PropertyRef Name="Id"/></Key>
              <Property Name="Id" Type="Edm.Int32" Nullable="false"/><Property Name="Name" Type="Edm.String"/>
            </EntityType>
            <EntityType Name="Derived" BaseType="T.Base"><Property Name="Extra" Type="Edm.Decimal" Scale="variable"/></EntityType>
            """, container: #"<EntitySet Name="Things" EntityType="T.Base"/>"#)
        let harness = try StorageHarness(model: model, label: "derived")
        try await harness.storage.declareIndex(IndexDefinition(name: "byName", entitySet: "Things", properties: ["Name"]))
        let price = try EdmDecimal(isNegative: false, digits: [1, 5, 0], scale: 2)
        let derived = ODataEntity(typeName: "T.Derived", properties: [
            ODataProperty("Id", .int32(1)), ODataProperty("Name", .string("d")), ODataProperty("Extra", .decimal(price)),
            ODataProperty("Dyn", .string("dynamic")),
        ])
        let base = ODataEntity(typeName: "T.Base", properties: [ODataProperty("Id", .int32(2)), ODataProperty("Name", .string("b"))])
        try harness.storage.apply(entities: [derived, base], to: "Things")
        try harness.reopen(model: model)
        let reader = try harness.storage.reader()
        let d = try #require(try reader.entity(in: "Things", key: [.int32(1)]))
        #expect(d.typeName == "T.Derived" && d.derivedTypeName == "T.Derived")
        expectSameEntity(try d.toODataEntity(), derived, "derived")
        #expect(try d.value(named: "Dyn") == .string("dynamic"))
        #expect(try d.value(named: "Extra") == .decimal(price))
        let b = try #require(try reader.entity(in: "Things", key: [.int32(2)]))
        #expect(b.typeName == "T.Base" && b.derivedTypeName == nil)
        let eq = IndexBound.equal([.string("d")])
        #expect(try reader.indexKeys("byName", lower: eq.lower, upper: eq.upper) == [[.int32(1)]])
        // A cast before a key addresses the entity only when it is of that type (URL §4.11).
        let executor = QueryExecutor(reader: try harness.storage.reader(), model: model)
        #expect(try executor.execute("Things/T.Derived(1)").entities.map { $0[property: "Name"] } == [.string("d")])
        #expect(try executor.execute("Things/T.Base(2)").entities.count == 1)
        for url in ["Things/T.Derived(2)", "Things/T.Derived(2)/Name"] {
            let error = #expect(throws: ODataError.self, "\(url) addressed a base-type entity through a cast") {
                _ = try executor.execute(url)
            }
            #expect(error?.name == "entityNotFound" && error?.category == .notFound, "\(url)")
        }
        // A type outside the set's hierarchy is refused.
        expectStoreError("typeNotInSet", 3022) {
            try harness.storage.apply(entities: [ODataEntity(typeName: "T.Nope", properties: [ODataProperty("Id", .int32(3))])], to: "Things")
        }
    }
}
