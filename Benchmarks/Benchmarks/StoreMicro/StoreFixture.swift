import BenchCommon
import Dispatch
import Foundation
import OfflineODataEngine
import OfflineODataFixtures
import OfflineODataModel
import OfflineODataStore
import QueryBenchKit

/// A small store the OData-layer micro-benchmarks share, built once on first use: the query
/// benchmark's data (`QueryDataSet`, the same generator seed, all five sets) at 2,000 SalesOrders
/// (11,000 entities), loaded like `query-bench`'s `ours` peer (JSON → `ODataJSONReader` →
/// `EntityStorage.apply`), encrypted with a raw key, durability `.relaxed`, with the same
/// secondary indexes (`SecondaryIndex.all`).
final class StoreFixture: @unchecked Sendable {
    static let orders = 2000
    static let key = [UInt8](repeating: 0x5A, count: 32)
    /// SalesOrders JSON (entity properties) used by the parse, encode and decode benchmarks.
    static let sampleCount = 100

    private static let lock = NSLock()
    nonisolated(unsafe) private static var cached: StoreFixture?

    /// The fixture, built on first use (a failure is rethrown to every benchmark that needs it).
    static func shared() throws -> StoreFixture {
        try lock.withLock {
            if let cached { return cached }
            let fixture = try StoreFixture()
            cached = fixture
            return fixture
        }
    }

    let directory: String
    let engine: StorageEngine
    let storage: EntityStorage
    let model: ServiceModel
    let jsonReader: ODataJSONReader
    let data: QueryDataSet
    /// `sampleCount` SalesOrders: their OData JSON, the parsed entities, their records in the
    /// set's stored layout and those records encoded (`EntityCodec`).
    let sampleJSON: [[UInt8]]
    let sampleEntities: [ODataEntity]
    let sampleRecords: [EntityRecord]
    let sampleEncoded: [[UInt8]]
    let codec: EntityCodec
    /// Keys of every stored SalesOrder (point reads cycle through them).
    let orderKeys: [[ODataValue]]

    private init() throws {
        directory = NSTemporaryDirectory() + "offline-odata-store-micro-\(getpid())"
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // package-benchmark runs every benchmark in its own process: remove this one's store when it exits.
        removeAtExit(directory)
        data = QueryDataSet(orders: Self.orders)
        model = try ServiceModel.parse(metadata: Array(data.generator.metadataXML().utf8))
        var options = EngineOptions(encryption: .key(Self.key))
        options.durability = .relaxed
        options.cacheSize = 64 << 20
        engine = try StorageEngine.open(path: directory + "/store", options: options)
        storage = try EntityStorage(engine: engine, model: model)
        jsonReader = ODataJSONReader(model: model)
        for index in SecondaryIndex.all
        where !(try storage.indexes(of: index.set.name)).contains(where: { $0.definition.properties == [index.property] }) {
            try Self.declare(storage, IndexDefinition(name: index.name, entitySet: index.set.name, properties: [index.property]))
        }
        let reader = jsonReader, storage = storage
        try data.forEachBatch { batch in
            var entities: [ODataEntity] = []
            entities.reserveCapacity(batch.entities.count)
            for json in batch.entities { entities.append(try reader.readEntity(json, entitySet: batch.set.name)) }
            try storage.apply(entities: entities, to: batch.set.name)
        }
        let generator = data.generator
        let json = (0..<Self.sampleCount).compactMap { generator.entityProperties(set: .salesOrders, index: $0 * 7) }
        sampleJSON = json
        sampleEntities = try json.map { try reader.readEntity($0, entitySet: "SalesOrders") }
        let layout = try storage.layout(of: "SalesOrders")
        codec = EntityCodec(layout: layout)
        let records = sampleEntities.map { Self.record($0, layout: layout) }
        sampleRecords = records
        let codec = codec
        sampleEncoded = try records.map { try codec.encode($0) }
        orderKeys = (0..<Self.orders).map { [.string("05" + String(format: "%08d", $0))] }
        guard try storage.reader().entity(in: "SalesOrders", key: orderKeys[Self.orders / 2]) != nil else {
            throw BenchError("fixture: SalesOrder \(orderKeys[Self.orders / 2]) not found")
        }
    }

    /// The entity's declared properties in the layout's order (what the store's entity
    /// conversion hands the codec).
    static func record(_ entity: ODataEntity, layout: EntityLayout) -> EntityRecord {
        var values = [ODataValue?](repeating: nil, count: layout.properties.count)
        var dynamic: [ODataProperty] = []
        for property in entity.properties {
            if let i = layout.index(of: property.name), values[i] == nil { values[i] = property.value } else { dynamic.append(property) }
        }
        return EntityRecord(values: values, dynamicProperties: dynamic)
    }

    /// Declares an index on the (still empty) store and waits for it.
    static func declare(_ storage: EntityStorage, _ definition: IndexDefinition) throws {
        let done = Completion()
        Task {
            do { _ = try await storage.declareIndex(definition); done.signal(nil) } catch { done.signal(error) }
        }
        if let error = done.wait() { throw error }
    }
}

/// Waits for a task from synchronous code.
final class Completion: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private var error: (any Error)?

    func signal(_ error: (any Error)?) {
        self.error = error
        semaphore.signal()
    }

    func wait() -> (any Error)? {
        semaphore.wait()
        return error
    }
}

/// Thrown inside `EntityStorage.write` to discard the batch (the encode benchmark measures
/// `EntityWriteBatch.put` without committing).
let discardBatch = ODataError(.invalidInput, name: "benchDiscard", code: 0, message: "discard the batch (benchmark)")

/// Where the next iteration's run of point reads starts.
final class Cursor: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    func advance(by n: Int) -> Int {
        lock.withLock {
            defer { next &+= n }
            return next
        }
    }
}

/// Directories removed when the process exits (`atexit` takes no context, so they live here).
nonisolated(unsafe) private var directoriesToRemove: [String] = []
private let exitHookInstalled: Bool = {
    atexit {
        for directory in directoriesToRemove { try? FileManager.default.removeItem(atPath: directory) }
    }
    return true
}()

func removeAtExit(_ directory: String) {
    _ = exitHookInstalled
    directoriesToRemove.append(directory)
}
