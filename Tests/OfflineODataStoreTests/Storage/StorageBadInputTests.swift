import OfflineODataEngine
import OfflineODataModel
import Testing
@testable import OfflineODataStore

@Suite struct StorageBadInputTests {
    let harness: StorageHarness

    init() throws {
        harness = try StorageHarness(model: try IndexTestModel.model(), label: "badinput")
        try harness.storage.apply(entities: [IndexTestModel.entity(1, IndexTestModel.Row(name: "one"))], to: "Items")
    }

    func put(_ entity: ODataEntity, in set: String = "Items") throws {
        try harness.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
            try batch.put(entity, in: set)
        }
    }

    @Test("unknown sets, missing/null/mistyped keys and values are typed errors; nothing is written")
    func entityInput() throws {
        let good = IndexTestModel.entity(7, IndexTestModel.Row(name: "x"))
        expectStoreError("unknownEntitySet", 3001) { try put(good, in: "Nope") }
        expectStoreError("unknownEntitySet", 3001) { _ = try harness.storage.reader().entity(in: "Nope", key: [.int32(1)]) }
        expectStoreError("unknownEntitySet", 3001) { _ = try harness.storage.reader().scan("Nope") }
        var missing = good
        missing.properties.removeAll { $0.name == "Id" }
        expectStoreError("missingKeyProperty", 3002) { try put(missing) }
        var nullKey = good
        nullKey.properties[0] = ODataProperty("Id", .null)
        expectStoreError("nullKeyProperty", 3003) { try put(nullKey) }
        var wrongKind = good
        wrongKind.properties[1] = ODataProperty("Name", .int32(5))
        expectStoreError("wrongValueKind", 3004) { try put(wrongKind) }
        var wrongKeyKind = good
        wrongKeyKind.properties[0] = ODataProperty("Id", .string("7"))
        expectStoreError("wrongValueKind", 3004) { try put(wrongKeyKind) }
        expectStoreError("wrongValueKind", 3004) { _ = try harness.storage.reader().entity(in: "Items", key: [.double(1.5)]) }
        expectStoreError("wrongValueKind", 3004) { _ = try harness.storage.reader().entity(in: "Items", key: [.int64(1 << 40)]) }
        expectStoreError("wrongKeyCount", 3021) { _ = try harness.storage.reader().entity(in: "Items", key: [.int32(1), .int32(2)]) }
        var wrongType = good
        wrongType.typeName = "T.Other"
        expectStoreError("typeNotInSet", 3022) { try put(wrongType) }
        // A failing put in the middle of a batch: the whole batch is dropped.
        expectStoreError("nullKeyProperty", 3003) {
            try harness.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
                try batch.put(IndexTestModel.entity(8, IndexTestModel.Row(name: "y")), in: "Items")
                try batch.put(nullKey, in: "Items")
            }
        }
        #expect(try harness.storage.reader().count("Items") == 1)
        // An equivalent key of another numeric kind finds the entity.
        #expect(try harness.storage.reader().entity(in: "Items", key: [.int64(1)]) != nil)
        #expect(try harness.storage.reader().entity(in: "Items", key: [.decimal(EdmDecimal(1))]) != nil)
    }

    @Test("null in a non-nullable property and too-long keys are refused")
    func layoutAndLength() throws {
        let model = try StorageFixtures.salesModel()
        let sales = try StorageHarness(model: model, label: "badsales")
        let partner = try #require(try StorageFixtures.salesEntities(.businessPartners, model: model).first)
        var nullName = partner
        if let i = nullName.properties.firstIndex(where: { $0.name == "CompanyName" }) { nullName.properties[i].value = .null }
        expectStoreError("valueRejected", 3023) {
            try sales.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in _ = try batch.put(nullName, in: "BusinessPartners") }
        }
        var long = partner
        if let i = long.properties.firstIndex(where: { $0.name == "BusinessPartnerID" }) {
            long.properties[i].value = .string(String(repeating: "k", count: 5000))
        }
        expectStoreError("keyTooLong", 3005) {
            try sales.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in _ = try batch.put(long, in: "BusinessPartners") }
        }
        expectStoreError("valueTooLong", 3020) {
            try sales.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
                _ = try batch.put(partner, in: "BusinessPartners", etag: String(repeating: "e", count: 70_000))
            }
        }
    }

    @Test("index declarations and bounds are validated")
    func indexInput() async throws {
        let storage = harness.storage
        await expectAsyncError("invalidIndexProperty", 3008) {
            try await storage.declareIndex(IndexDefinition(name: "x", entitySet: "Items", properties: ["Nope"]))
        }
        await expectAsyncError("invalidIndexProperty", 3008) {
            try await storage.declareIndex(IndexDefinition(name: "x", entitySet: "Items", properties: ["Address"]))
        }
        await expectAsyncError("invalidIndexProperty", 3008) {
            try await storage.declareIndex(IndexDefinition(name: "x", entitySet: "Items", properties: ["Address/Nope"]))
        }
        await expectAsyncError("invalidIndexProperty", 3008) {
            try await storage.declareIndex(IndexDefinition(name: "x", entitySet: "Items", properties: ["Name/Inner"]))
        }
        await expectAsyncError("unknownEntitySet", 3001) {
            try await storage.declareIndex(IndexDefinition(name: "x", entitySet: "Nope", properties: ["Name"]))
        }
        await expectAsyncError("indexConflict", 3009) {
            try await storage.declareIndex(IndexDefinition(name: "$mine", entitySet: "Items", properties: ["Name"]))
        }
        #expect(try storage.indexes(of: "Items").isEmpty)
        try await storage.declareIndex(IndexDefinition(name: "byQty", entitySet: "Items", properties: ["Qty"]))
        let reader = try storage.reader()
        expectStoreError("unknownIndex", 3007) { _ = try reader.indexScan("nope") }
        expectStoreError("invalidIndexBound", 3018) { _ = try reader.indexScan("byQty", lower: IndexBound([.int32(1), .int32(2)])) }
        expectStoreError("invalidIndexBound", 3018) { _ = try reader.indexScan("byQty", lower: IndexBound([], stringPrefix: "a")) }
        expectStoreError("unknownIndex", 3007) { try storage.dropIndex(named: "nope") }
    }

    @Test("navigation, link and system-tree input is validated")
    func linkInput() throws {
        let model = try StorageFixtures.salesModel()
        let sales = try StorageHarness(model: model, label: "badlinks")
        expectStoreError("unknownNavigation", 3012) {
            _ = try sales.storage.reader().navigationTargets(from: "SalesOrders", key: [.string("1")], navigation: "Nope")
        }
        expectStoreError("invalidLink", 3013) {
            try sales.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
                // The source order does not exist.
                try batch.link(from: "SalesOrders", key: [.string("x")], navigation: "ToItems", to: [.string("x"), .string("10")])
            }
        }
        var order = ODataEntity(typeName: "EPM.Sales.SalesOrder", properties: [ODataProperty("SalesOrderID", .string("o1"))])
        order.navigation = [ODataNavigationValue("ToCustomer", .bind("Products('P1')"))]
        expectStoreError("invalidLink", 3013) {
            try sales.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
                _ = try batch.put(order, in: "SalesOrders")
            }
        }
        expectStoreError("invalidSystemTree", 3017) {
            try sales.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in try batch.putSystem(tree: "", key: [1], value: []) }
        }
        expectStoreError("invalidSystemTree", 3017) {
            try sales.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in try batch.putSystem(tree: "q", key: [], value: []) }
        }
    }

    @Test("corrupt stored bytes and a newer catalog format are reported, not trapped")
    func corruption() throws {
        let tree = try harness.engine.tree("odata.e.Items")
        for garbage: [UInt8] in [[], [1], [0, 0, 0, 0, 0, 1], [1, 2, 3, 0xFF, 0xFF, 0, 0, 0, 1], [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 1]] {
            try harness.engine.write { $0.put([0x20, 0x99], garbage, in: tree) }
            do {
                var cursor = try harness.storage.reader().scan("Items")
                while let e = try cursor.next() { _ = try e.record() }
                Issue.record("garbage \(garbage) read without error")
            } catch {
                #expect(error.code == 3014 || (1410...1413).contains(error.code), "\(error)")
            }
        }
        let catalog = try harness.engine.tree("odata.catalog")
        try harness.engine.write { $0.put(Array("format".utf8), [9], in: catalog) }
        try harness.engine.close()
        let engine = try StorageEngine.open(path: harness.dir.path, options: .storageTest)
        harness.engine = engine
        expectStoreError("unsupportedStoreFormat", 3015) { _ = try EntityStorage(engine: engine, model: try IndexTestModel.model()) }
    }
}
