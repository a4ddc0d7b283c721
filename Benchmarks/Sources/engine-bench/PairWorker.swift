import BenchCommon
import BenchKV
import BenchSupport
import OfflineODataEngine

/// `engine-bench pair`: the encryption overhead of warm point lookups and of warm and cold full
/// scans, measured in one process.
/// Opens the round's encrypted and unencrypted stores (both left compacted by their workers,
/// so their layouts are the same), warms both, then times batches of the same random keys on
/// each store in turn, the first store alternating from batch to batch. Heap layout, CPU
/// frequency and the rest of the machine's state are then shared by both sides; between two
/// worker processes they moved warm-cache lookups by up to ±20 % (BENCHMARKS.md, engine raw
/// samples), more than the 10 % the overhead bar allows.
struct PairWorker {
    let encryptedPath: String
    let plainPath: String
    let records: Int
    let lookups: Int
    let seed: UInt64
    /// Batches per store: each store's time is the sum of its batches.
    static let batches = 20

    func emit(_ name: String, _ value: Double) { print("METRIC \(name) \(value)") }

    func run() throws {
        let workload = Workload(count: records, seed: seed)
        // Both stores (encrypted first) opened with `cache` for `body`, closed after it.
        func withStores<T>(cache: Int, _ body: ([Peer]) throws -> T) throws -> T {
            func options(_ encrypted: Bool) -> EngineOptions {
                var o = EngineOptions(encryption: encrypted ? .key(benchmarkKey) : .unencrypted)
                o.durability = .relaxed
                o.cacheSize = cache
                return o
            }
            let stores = [try OursStore(path: encryptedPath, options: options(true)).peer,
                          try OursStore(path: plainPath, options: options(false)).peer]
            defer { for store in stores { try? store.close() } }
            return try body(stores)
        }
        try withStores(cache: KVWorker.bigCache) { stores in
            // The same warm-up and timed keys as KVWorker.timedLookups.
            let (warm, indices, keys) = KVWorker.lookupKeys(records: records, lookups: lookups, seed: seed)
            for store in stores { for k in warm { _ = try store.get(k) } }
            var seconds = [0.0, 0.0]
            let size = (keys.count + Self.batches - 1) / Self.batches
            for batch in 0..<Self.batches {
                let slice = keys[min(batch * size, keys.count)..<min((batch + 1) * size, keys.count)]
                for side in batch % 2 == 0 ? [0, 1] : [1, 0] {
                    var total = 0
                    let a = now()
                    for k in slice { total &+= try stores[side].get(k)?.count ?? -1_000_000 }
                    seconds[side] += now() - a
                    guard total >= 0 else { throw BenchError("pair lookups found missing keys") }
                }
            }
            for (side, store) in stores.enumerated() {
                for i in indices.prefix(500) where try store.get(workload.key(i)) != workload.value(i) {
                    throw BenchError("pair lookup of record \(i) returned a wrong value (\(side == 0 ? "encrypted" : "unencrypted") store)")
                }
            }
            emit("pair_lookup_enc_s", seconds[0] / Double(keys.count))
            emit("pair_lookup_plain_s", seconds[1] / Double(keys.count))
            // Warm scans: the worker's scan workload (big cache, after the lookups), on each store
            // in turn. Blocks are cached decoded, so both sides run the same code.
            let warmScans = try alternatingScans(stores)
            emit("pair_scan_enc_s", warmScans[0])
            emit("pair_scan_plain_s", warmScans[1])
        }
        // Cold scans: both stores reopened with the default 32 MiB cache, far smaller than the
        // decoded data at 1M records, so every scan reads, decrypts (or, unencrypted, checks) and
        // decompresses every block (from the OS page cache; one untimed scan each first).
        try withStores(cache: KVWorker.defaultCache) { stores in
            for store in stores { _ = try KVWorker.timedScan(store) }
            let coldScans = try alternatingScans(stores)
            emit("pair_scan_cold_enc_s", coldScans[0])
            emit("pair_scan_cold_plain_s", coldScans[1])
        }
    }

    /// Scans per store: the median of `scanRepeats` full scans of each store, the first store
    /// alternating.
    static let scanRepeats = 3

    func alternatingScans(_ stores: [Peer]) throws -> [Double] {
        var times: [[Double]] = [[], []]
        for repeat_ in 0..<Self.scanRepeats {
            for side in repeat_ % 2 == 0 ? [0, 1] : [1, 0] {
                let (t, n, _) = try KVWorker.timedScan(stores[side])
                guard n == records else { throw BenchError("pair scan saw \(n) of \(records) records") }
                times[side].append(t)
            }
        }
        return times.map { $0.sorted()[$0.count / 2] }
    }
}
