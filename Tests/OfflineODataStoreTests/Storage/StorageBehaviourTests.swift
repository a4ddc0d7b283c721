import Foundation
import OfflineODataEngine
import OfflineODataModel
import Testing
@testable import OfflineODataStore

@Suite struct StorageBehaviourTests {
    static func items(_ range: Range<Int32>) -> [ODataEntity] {
        range.map { id in
            IndexTestModel.entity(id, IndexTestModel.Row(name: "n\(id % 7)", price: EdmDecimal(Int64(id)), qty: Int64(id % 5),
                                                         city: id % 2 == 0 ? "Rome" : "Oslo"))
        }
    }

    @Test("a set's indexes are listed by name, whatever order they were declared and dropped in")
    func indexesAreListedByName() async throws {
        let harness = try StorageHarness(model: try IndexTestModel.model(), label: "index-order")
        try harness.storage.apply(entities: Self.items(0..<10), to: "Items")
        for (name, property) in [("zeta", "Qty"), ("alpha", "Name"), ("mid", "Address/City"), ("beta", "Price")] {
            try await harness.storage.declareIndex(IndexDefinition(name: name, entitySet: "Items", properties: [property]))
        }
        #expect(try harness.storage.reader().indexes(of: "Items").map(\.definition.name) == ["alpha", "beta", "mid", "zeta"])
        try harness.storage.dropIndex(named: "mid")
        try await harness.storage.declareIndex(IndexDefinition(name: "gamma", entitySet: "Items", properties: ["Address/City"]))
        #expect(try harness.storage.reader().indexes(of: "Items").map(\.definition.name) == ["alpha", "beta", "gamma", "zeta"])
    }

    @Test("an index declared after the data exists is backfilled in batches, with progress")
    func backfill() async throws {
        let harness = try StorageHarness(model: try IndexTestModel.model(), label: "backfill")
        try harness.storage.apply(entities: Self.items(0..<100), to: "Items")
        let seen = ProgressLog()
        try await harness.storage.declareIndex(IndexDefinition(name: "byQty", entitySet: "Items", properties: ["Qty"]),
                                               batchSize: 16, progress: { seen.add($0) })
        let reader = try harness.storage.reader()
        #expect(try reader.indexKeys("byQty").count == 100)
        let eq = IndexBound.equal([.int32(3)])
        #expect(Set(try reader.indexKeys("byQty", lower: eq.lower, upper: eq.upper)) ==
                Set((0..<100).filter { $0 % 5 == 3 }.map { [ODataValue.int32(Int32($0))] }))
        let log = seen.all
        #expect(log.count == 7)
        #expect(log.last?.entitiesIndexed == 100 && log.last?.entitiesTotal == 100)
        #expect(try reader.indexes(of: "Items").contains { $0.definition.name == "byQty" && $0.isReady })
        // Declaring it again is a no-op; another definition under the name conflicts.
        try await harness.storage.declareIndex(IndexDefinition(name: "byQty", entitySet: "Items", properties: ["Qty"]))
        await expectAsyncError("indexConflict", 3009) {
            try await harness.storage.declareIndex(IndexDefinition(name: "byQty", entitySet: "Items", properties: ["Name"]))
        }
        // Dropped: gone, entries removed, the name is free again.
        try harness.storage.dropIndex(named: "byQty")
        expectStoreError("unknownIndex", 3007) { _ = try harness.storage.reader().indexScan("byQty") }
        #expect(try harness.storage.engine.snapshot().count(in: try harness.storage.engine.tree("odata.i.byQty")) == 0)
        try await harness.storage.declareIndex(IndexDefinition(name: "byQty", entitySet: "Items", properties: ["Name"]))
        #expect(try harness.storage.reader().indexKeys("byQty").count == 100)
    }

    @Test("a cancelled backfill leaves the index unusable, kept current by writes; declaring again finishes it")
    func cancelledBackfill() async throws {
        let model = try IndexTestModel.model()
        let harness = try StorageHarness(model: model, label: "cancel")
        try harness.storage.apply(entities: Self.items(0..<60), to: "Items")
        let definition = IndexDefinition(name: "byName", entitySet: "Items", properties: ["Name"])
        let storage = harness.storage
        // Its own task, cancelled from inside once two batches are done.
        let task = Task {
            try await storage.declareIndex(definition, batchSize: 5, progress: { p in
                if p.entitiesIndexed >= 10 { withUnsafeCurrentTask { $0?.cancel() } }
            })
        }
        await expectAsyncError("cancelled", 3016) { try await task.value }
        expectStoreError("indexNotReady", 3010) { _ = try harness.storage.reader().indexScan("byName") }
        #expect(try harness.storage.indexes(of: "Items").first { $0.definition.name == "byName" }?.isReady == false)
        // Writes while it is not ready: an update, a delete, a new entity.
        try harness.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
            try batch.put(IndexTestModel.entity(1, IndexTestModel.Row(name: "changed")), in: "Items")
            _ = try batch.delete(key: [.int32(2)], in: "Items")
            try batch.put(IndexTestModel.entity(500, IndexTestModel.Row(name: "new")), in: "Items")
        }
        try harness.reopen(model: model)
        expectStoreError("indexNotReady", 3010) { _ = try harness.storage.reader().indexScan("byName") }
        try await harness.storage.declareIndex(definition, batchSize: 7)
        let reader = try harness.storage.reader()
        #expect(try reader.indexKeys("byName").count == 60)
        let changed = IndexBound.equal([.string("changed")])
        #expect(try reader.indexKeys("byName", lower: changed.lower, upper: changed.upper) == [[.int32(1)]])
        let old = IndexBound.equal([.string("n1")])
        #expect(try !reader.indexKeys("byName", lower: old.lower, upper: old.upper).contains([.int32(1)]))
        let two = IndexBound.equal([.string("n2")])
        #expect(try !reader.indexKeys("byName", lower: two.lower, upper: two.upper).contains([.int32(2)]))
    }

    @Test("additive metadata: a model that appends a property reads old entities with it absent")
    func additiveMetadata() throws {
        let v1 = try IndexTestModel.model()
        let harness = try StorageHarness(model: v1, label: "additive")
        try harness.storage.apply(entities: Self.items(0..<10), to: "Items")
        let v2Body = IndexTestModel.body.replacingOccurrences(
            of: #"<Property Name="Address" Type="T.Address"/>"#,
            with: #"<Property Name="Address" Type="T.Address"/><Property Name="Rating" Type="Edm.Int16"/>"#)
        let v2 = try StorageFixtures.model(v2Body, container: IndexTestModel.container)
        try harness.reopen(model: v2)
        let layout = try harness.storage.layout(of: "Items")
        #expect(layout.properties.map(\.name) == ["Id", "Name", "Price", "Qty", "Address", "Rating"])
        let reader = try harness.storage.reader()
        let old = try #require(try reader.entity(in: "Items", key: [.int32(3)]))
        #expect(try old.value(named: "Rating") == nil)
        #expect(try old.value(named: "Name") == .string("n3"))
        #expect(try old.toODataEntity()[property: "Rating"] == nil)
        var entity = IndexTestModel.entity(3, IndexTestModel.Row(name: "x"))
        entity.properties.append(ODataProperty("Rating", .int16(5)))
        try harness.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in try batch.put(entity, in: "Items") }
        #expect(try harness.storage.reader().entity(in: "Items", key: [.int32(3)])?.value(named: "Rating") == .int16(5))
        // Inserting a property in the middle of the model keeps the stored order (appended).
        let v3Body = v2Body.replacingOccurrences(
            of: #"<Property Name="Name" Type="Edm.String"/>"#,
            with: #"<Property Name="Name" Type="Edm.String"/><Property Name="Code" Type="Edm.String"/>"#)
        try harness.reopen(model: try StorageFixtures.model(v3Body, container: IndexTestModel.container))
        #expect(try harness.storage.layout(of: "Items").properties.map(\.name) == ["Id", "Name", "Price", "Qty", "Address", "Rating", "Code"])
        #expect(try harness.storage.reader().entity(in: "Items", key: [.int32(3)])?.value(named: "Rating") == .int16(5))
        // Removing or retyping a stored property is refused.
        try harness.engine.close()
        let removed = IndexTestModel.body.replacingOccurrences(of: #"<Property Name="Qty" Type="Edm.Int64"/>"#, with: "")
        let retyped = IndexTestModel.body.replacingOccurrences(of: #"Name="Qty" Type="Edm.Int64""#, with: #"Name="Qty" Type="Edm.String""#)
        for body in [removed, retyped] {
            let engine = try StorageEngine.open(path: harness.dir.path, options: .storageTest)
            expectStoreError("incompatibleMetadata", 3006) {
                _ = try EntityStorage(engine: engine, model: try StorageFixtures.model(body, container: IndexTestModel.container))
            }
            try engine.close()
        }
        harness.engine = try StorageEngine.open(path: harness.dir.path, options: .storageTest)
    }

    @Test("a set that leaves the model keeps its data and indexes for when it comes back")
    func setLeavesModel() async throws {
        let model = try IndexTestModel.model()
        let harness = try StorageHarness(model: model, label: "setleaves")
        try await harness.storage.declareIndex(IndexDefinition(name: "byQty", entitySet: "Items", properties: ["Qty"]))
        try harness.storage.apply(entities: Self.items(0..<10), to: "Items")
        let other = try StorageFixtures.model(IndexTestModel.body, container: #"<EntitySet Name="Others" EntityType="T.Item"/>"#)
        try harness.reopen(model: other)
        expectStoreError("unknownEntitySet", 3001) { _ = try harness.storage.reader().count("Items") }
        expectStoreError("unknownIndex", 3007) { _ = try harness.storage.reader().indexScan("byQty") }
        try harness.reopen(model: model)
        #expect(try harness.storage.reader().indexKeys("byQty").count == 10)
    }

    @Test("reopen: entities, ETags, flags, derived types, indexes and links persist")
    func reopen() async throws {
        let model = try IndexTestModel.model()
        let harness = try StorageHarness(model: model, label: "reopen")
        try await harness.storage.declareIndex(IndexDefinition(name: "byCity", entitySet: "Items", properties: ["Address/City"]))
        try harness.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
            for e in Self.items(0..<20) { try batch.put(e, in: "Items", etag: "W/\"\(e[property: "Id"].map { "\($0)" } ?? "")\"", flags: .pending) }
            try batch.putSystem(tree: "queue", key: [0, 1], value: [9, 9, 9])
        }
        try harness.reopen(model: model)
        let reader = try harness.storage.reader()
        #expect(try reader.count("Items") == 20)
        let e = try #require(try reader.entity(in: "Items", key: [.int32(4)]))
        #expect(e.etag == "W/\"int32(4)\"" && e.flags == .pending)
        let rome = IndexBound.equal([.string("Rome")])
        #expect(try reader.indexKeys("byCity", lower: rome.lower, upper: rome.upper).count == 10)
        #expect(try harness.storage.engine.get([0, 1], in: try harness.storage.engine.tree("odata.s.queue")) == [9, 9, 9])
    }

    @Test("a reader keeps its point in time while writes go on")
    func snapshotIsolation() async throws {
        let harness = try StorageHarness(model: try IndexTestModel.model(), label: "isolation")
        try await harness.storage.declareIndex(IndexDefinition(name: "byName", entitySet: "Items", properties: ["Name"]))
        try harness.storage.apply(entities: Self.items(0..<50), to: "Items")
        let before = try harness.storage.reader()
        for round in 0..<5 {
            try harness.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
                for id in Int32(round * 10)..<Int32(round * 10 + 10) {
                    if id % 2 == 0 { _ = try batch.delete(key: [.int32(id)], in: "Items") } else {
                        try batch.put(IndexTestModel.entity(id, IndexTestModel.Row(name: "v\(round)")), in: "Items")
                    }
                }
            }
        }
        #expect(try before.count("Items") == 50)
        #expect(try before.all("Items").count == 50)
        #expect(try before.entity(in: "Items", key: [.int32(2)])?.value(named: "Name") == .string("n2"))
        #expect(try before.indexKeys("byName").count == 50)
        let after = try harness.storage.reader()
        #expect(try after.count("Items") == 25)
        #expect(try after.indexKeys("byName").count == 25)
        #expect(try after.entity(in: "Items", key: [.int32(2)]) == nil)
        #expect(after.sequence > before.sequence)
    }

    @Test("system records commit with the data, are seen by their batch and read back in order")
    func systemRecords() throws {
        let harness = try StorageHarness(model: try IndexTestModel.model(), label: "system")
        let reader0 = try harness.storage.reader()
        #expect(try reader0.systemValue(tree: "queue", key: [1]) == nil)
        var empty = try reader0.systemScan(tree: "queue")
        #expect(try empty.next() == nil)
        try harness.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
            try batch.put(IndexTestModel.entity(1, IndexTestModel.Row(name: "a")), in: "Items")
            for i: UInt8 in [3, 1, 2] { try batch.putSystem(tree: "queue", key: [i], value: [i, i]) }
            #expect(try batch.systemValue(tree: "queue", key: [2]) == [2, 2])
            try batch.deleteSystem(tree: "queue", key: [2])
            #expect(try batch.systemValue(tree: "queue", key: [2]) == nil)
            #expect(try batch.entity(in: "Items", key: [.int32(1)])?.value(named: "Name") == .string("a"))
        }
        // A failing batch leaves neither entities nor system records.
        expectStoreError("nullKeyProperty", 3003) {
            try harness.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
                try batch.putSystem(tree: "queue", key: [9], value: [9])
                _ = try batch.delete(key: [.null], in: "Items")
            }
        }
        let reader = try harness.storage.reader()
        var cursor = try reader.systemScan(tree: "queue")
        var seen: [[UInt8]] = []
        while let (key, value) = try cursor.next() {
            seen.append(key)
            #expect(value == key + key)
        }
        #expect(seen == [[1], [3]])
        var reverse = try reader.systemScan(tree: "queue", reverse: true)
        #expect(try reverse.next()?.key == [3])
        #expect(try reader0.systemValue(tree: "queue", key: [1]) == nil)
    }

    @Test("readers running beside a writer see entities and index entries of one commit")
    func concurrentReaders() async throws {
        let harness = try StorageHarness(model: try IndexTestModel.model(), label: "concurrent")
        try await harness.storage.declareIndex(IndexDefinition(name: "byName", entitySet: "Items", properties: ["Name"]))
        let storage = harness.storage
        try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                for round in 0..<40 {
                    try storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
                        for id in Int32(0)..<20 where (Int(id) + round) % 3 != 0 {
                            try batch.put(IndexTestModel.entity(id, IndexTestModel.Row(name: "r\(round)")), in: "Items")
                        }
                        for id in Int32(0)..<20 where (Int(id) + round) % 3 == 0 { _ = try batch.delete(key: [.int32(id)], in: "Items") }
                    }
                }
                return 0
            }
            for _ in 0..<2 {
                group.addTask {
                    var checks = 0
                    for _ in 0..<40 {
                        let reader = try storage.reader()
                        let entities = try reader.all("Items")
                        let entries = try reader.indexKeys("byName")
                        #expect(entries.count == entities.count)
                        #expect(Set(entries) == Set(try entities.map { try $0.key() }))
                        // One commit: every entity has the name of one round.
                        let names = Set(try entities.map { try $0.value(named: "Name") })
                        #expect(names.count <= 1)
                        checks += 1
                    }
                    return checks
                }
            }
            var total = 0
            for try await n in group { total += n }
            #expect(total == 80)
        }
    }

    @Test("a batch sees its own writes: put twice, put then delete, delete then put")
    func batchSeesItsWrites() async throws {
        let harness = try StorageHarness(model: try IndexTestModel.model(), label: "ownwrites")
        try await harness.storage.declareIndex(IndexDefinition(name: "byName", entitySet: "Items", properties: ["Name"]))
        try harness.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
            try batch.put(IndexTestModel.entity(1, IndexTestModel.Row(name: "a")), in: "Items")
            try batch.put(IndexTestModel.entity(1, IndexTestModel.Row(name: "b")), in: "Items")
            try batch.put(IndexTestModel.entity(2, IndexTestModel.Row(name: "a")), in: "Items")
            #expect(try batch.delete(key: [.int32(2)], in: "Items"))
            #expect(try !batch.delete(key: [.int32(2)], in: "Items"))
            try batch.put(IndexTestModel.entity(3, IndexTestModel.Row(name: "c")), in: "Items")
        }
        try harness.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
            #expect(try batch.delete(key: [.int32(3)], in: "Items"))
            try batch.put(IndexTestModel.entity(3, IndexTestModel.Row(name: "d")), in: "Items")
        }
        let reader = try harness.storage.reader()
        var cursor = try reader.indexScan("byName")
        var entries: [[ODataValue]] = []
        while let e = try cursor.next() { entries.append(try e.indexValues() + e.primaryKey()) }
        #expect(entries == [[.string("b"), .int32(1)], [.string("d"), .int32(3)]])
    }
}

final class ProgressLog: @unchecked Sendable {
    private let lock = NSLockless()
    private var entries: [IndexBuildProgress] = []
    func add(_ p: IndexBuildProgress) { lock.run { entries.append(p) } }
    var all: [IndexBuildProgress] { lock.run { entries } }
}

import Synchronization
final class NSLockless: Sendable {
    private let mutex = Mutex(0)
    func run<T>(_ body: () -> T) -> T { mutex.withLock { _ in body() } }
}

func expectAsyncError(_ name: String, _ code: Int, sourceLocation: SourceLocation = #_sourceLocation,
                      _ body: () async throws -> Void) async {
    do {
        try await body()
        Issue.record("expected \(name) (\(code)), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as ODataError {
        #expect(error.name == name && error.code == code, "got \(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected ODataError \(name), got \(error)", sourceLocation: sourceLocation)
    }
}
