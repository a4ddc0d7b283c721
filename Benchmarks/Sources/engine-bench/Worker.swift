import BenchCommon
import BenchKV
import BenchSupport
import OfflineODataEngine

/// `engine-bench worker`: ours or SQLite through the shared `KVWorker` workload (SQLCipher runs
/// the same workload in the separate `sqlcipher-worker` executable), plus, for ours, full
/// compaction and the reads after it.
struct Worker {
    let config: Configuration
    let arguments: WorkerArguments
    let seed: UInt64

    var storePath: String { arguments.directory + "/" + (config.engine == .sqlite ? "kv.sqlite" : "store") }

    func oursOptions(cache: Int) -> EngineOptions {
        var o = EngineOptions(encryption: config.encrypted ? .key(benchmarkKey) : .unencrypted)
        o.durability = config.durability == .full ? .full : .relaxed
        o.cacheSize = cache
        return o
    }

    /// The store under test, opened with `cache` bytes of cache (nil: the store's default).
    func open(cache: Int?) throws -> Peer {
        switch config.engine {
        case .ours:
            return try OursStore(path: storePath, options: oursOptions(cache: cache ?? KVWorker.defaultCache)).peer
        case .sqlite:
            return try SQLiteStore(path: storePath, synchronous: config.durability == .full ? .full : .normal,
                                   cacheKiB: cache.map { $0 >> 10 }).peer
        case .sqlcipher:
            throw BenchError("\(config.name) runs in sqlcipher-worker, not engine-bench")
        }
    }

    func run() throws {
        let kv = KVWorker(
            dataPath: arguments.dataPath, records: arguments.records, lookups: arguments.lookups, seed: seed,
            insertOnly: config.insertOnly, sizePath: config.engine == .ours ? storePath : arguments.directory,
            open: open(cache:)
        )
        try kv.run {
            // Ours: full compaction, size after it, lookups and scan on the compacted store.
            guard config.engine == .ours else { return }
            let store = try OursStore(path: storePath, options: oursOptions(cache: KVWorker.defaultCache))
            let c0 = now()
            try store.compact()
            kv.emit("compact_s", now() - c0)
            try store.close()
            kv.emit("size_compacted", Double(directorySize(storePath)))
            let peer = try open(cache: KVWorker.bigCache)
            kv.emit("lookup_compacted_s", try kv.timedLookups(peer))
            let (t, n, _) = try KVWorker.timedScan(peer)
            guard n == arguments.records else { throw BenchError("scan after compaction saw \(n) of \(arguments.records)") }
            kv.emit("scan_compacted_s", t)
            try peer.close()
        }
    }
}
