import BenchCommon
import Foundation
import OfflineODataEngine
import OfflineODataFixtures
import OfflineODataModel
import OfflineODataQuery
import OfflineODataStore
import QueryBenchKit

/// Our store: the storage engine (encrypted with a raw 256-bit key, so no key derivation is
/// timed; durability `.relaxed`, the counterpart of WAL + synchronous=NORMAL; 256 MiB cache like
/// the SQLite peers), entities in `EntityStorage` with the same secondary indexes, queries through
/// `QueryExecutor` from the OData URL. Every result entity is decoded completely. `oursPlain`
/// (`ours-plain`) is the same store opened with the explicit `.unencrypted` opt-out: the two give
/// the encryption overhead.
class ours: QueryPeer {
    class var name: String { "ours" }
    class var summary: String {
        "our store: encrypted (AES-256-GCM or XChaCha20, raw key), durability .relaxed, 256 MiB cache, `EntityStorage` + secondary indexes, queries from the OData URL (parsed and bound once per process, like the SQLite peers' prepared statements) through `QueryExecutor`"
    }
    class var encryption: EngineOptions.Encryption { .key(key) }
    static let key = [UInt8](repeating: 0x5A, count: 32)

    let engine: StorageEngine
    let storage: EntityStorage
    let model: ServiceModel
    let jsonReader: ODataJSONReader
    /// Each workload's URL parsed and bound once per process (`QueryExecutor.execute(_:BoundRequest)`),
    /// the counterpart of the SQLite peers' statements prepared once per process; planning and
    /// execution run on every call.
    var prepared: [String: BoundRequest] = [:]
    /// Key property names per entity set, looked up once.
    static let keyNames: [String: [String]] = Dictionary(uniqueKeysWithValues: SalesEntitySet.allCases.map { ($0.name, $0.keyProperties) })

    required init(directory: String, creating: Bool) throws {
        let generator = SalesServiceGenerator(seed: 1, scale: .tiny)
        model = try ServiceModel.parse(metadata: Array(generator.metadataXML().utf8))
        var options = EngineOptions(encryption: Self.encryption)
        options.durability = .relaxed
        options.cacheSize = QueryWorkload.cacheKiB * 1024
        engine = try StorageEngine.open(path: directory + "/ours", options: options)
        storage = try EntityStorage(engine: engine, model: model)
        jsonReader = ODataJSONReader(model: model)
        if creating {
            for index in SecondaryIndex.all where !(try storage.indexes(of: index.set.name)).contains(where: { $0.definition.properties == [index.property] }) {
                try Self.declare(storage, IndexDefinition(name: index.name, entitySet: index.set.name, properties: [index.property]))
            }
        }
    }

    /// Declares an index on the (still empty) store and waits for it.
    static func declare(_ storage: EntityStorage, _ definition: IndexDefinition) throws {
        let done = DispatchSemaphoreBox()
        Task {
            do { _ = try await storage.declareIndex(definition); done.signal(nil) } catch { done.signal(error) }
        }
        if let error = done.wait() { throw error }
    }

    func load(_ batch: EntityBatch) throws {
        var entities: [ODataEntity] = []
        entities.reserveCapacity(batch.entities.count)
        for json in batch.entities { entities.append(try jsonReader.readEntity(json, entitySet: batch.set.name)) }
        try storage.apply(entities: entities, to: batch.set.name)
    }

    /// Merges every run into one, as a store that has settled after its download would be (the
    /// counterpart of the SQLite peers' `ANALYZE`). Without it the encrypted and unencrypted
    /// stores compared different run layouts (whatever the background merges left when the load
    /// ended), and the "encryption overhead" swung from −27 % to +24 % between loads.
    func finishLoad() throws {
        try engine.compactNow()
    }

    func run(_ workload: QueryWorkload) throws -> QueryOutcome {
        var sum = ResultChecksum(ordered: workload.ordered)
        let request: BoundRequest
        if let bound = prepared[workload.id] {
            request = bound
        } else {
            request = try RequestBinder(model: model).bind(try ODataURLParser.parse(workload.url))
            prepared[workload.id] = request
        }
        let executor = QueryExecutor(reader: try storage.reader(), model: model)
        let result = try executor.execute(request)
        switch result.payload {
        case .count(let n):
            return QueryOutcome(rows: n, checksum: UInt64(n))
        default:
            let names = Self.keyNames[result.entitySet ?? ""] ?? []
            let childNames = Self.keyNames["SalesOrderItems"] ?? []
            // By index, like the SQLite peers read their rows: iterating would copy each entity.
            // Read in place (an unsafe buffer and a borrowing parameter): a subscript of the
            // array copied each entity, a retain and release of every reference in it.
            result.entities.withUnsafeBufferPointer { entities in
                for index in entities.indices {
                    sum.add(key: Self.keyText(entities[index], names: names))
                    for navigation in entities[index].navigation {
                        if case .entities(let children, _, _) = navigation.content {
                            children.withUnsafeBufferPointer { children in
                                for child in children.indices { sum.add(key: Self.keyText(children[child], names: childNames)) }
                            }
                        }
                    }
                }
            }
        }
        return sum.outcome
    }

    /// The key as the SQLite peers build it: the key properties' text joined by ",".
    static func keyText(_ entity: borrowing ODataEntity, names: [String]) -> String {
        var key = ""
        for (i, name) in names.enumerated() {
            if i > 0 { key += "," }
            if case .string(let s)? = entity[property: name] { key += s }
        }
        return key
    }

    func close() throws {
        try engine.close()
    }
}

/// Our store unencrypted (`EngineOptions(encryption: .unencrypted)`, the explicit opt-out),
/// otherwise identical to `ours`: same durability, cache, indexes, load and queries.
final class oursPlain: ours {
    override class var name: String { "ours-plain" }
    override class var summary: String {
        "our store unencrypted (explicit `.unencrypted` opt-out), otherwise identical to `ours`: durability .relaxed, 256 MiB cache, same indexes, load and queries"
    }
    override class var encryption: EngineOptions.Encryption { .unencrypted }
}

/// Waits for a task from synchronous code (index declaration happens before any load).
final class DispatchSemaphoreBox: @unchecked Sendable {
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
