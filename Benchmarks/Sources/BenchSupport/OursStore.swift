import BenchKV
import OfflineODataEngine

/// Our engine behind the same small surface as `SQLiteStore`: one tree, one commit per batch.
public final class OursStore {
    public let engine: StorageEngine
    public let tree: Tree

    public init(path: String, options: EngineOptions) throws {
        engine = try StorageEngine.open(path: path, options: options)
        tree = try engine.tree("kv")
    }

    /// One commit holding every pair.
    public func insert(_ pairs: [([UInt8], [UInt8])]) throws {
        try engine.write { batch in
            for (k, v) in pairs { batch.put(k, v, in: tree) }
        }
    }

    public func get(_ key: [UInt8]) throws -> [UInt8]? {
        try engine.get(key, in: tree)
    }

    /// Every entry in key order (owned key and value arrays); `body` returns false to stop.
    public func scan(_ body: ([UInt8], [UInt8]) -> Bool) throws {
        try engine.snapshot().scan(in: tree) { k, v in body(k, v) }
    }

    public func compact() throws { try engine.compactNow() }

    public func close() throws { try engine.close() }

    /// This store behind the workload runner's surface.
    public var peer: Peer { Peer(insert: insert, get: get, scan: scan, close: close) }
}
