import BenchCommon
import Foundation

/// The engine benchmark's workload on one store, run once in a fresh worker process (the
/// engine-bench driver starts `engine-bench worker` for ours and SQLite, `sqlcipher-worker` for
/// SQLCipher), so that peak RSS and I/O counters describe this store alone. Every store runs
/// exactly this code; only `open` differs. Prints `METRIC name value` lines.
public struct KVWorker {
    public let dataPath: String
    public let records: Int
    public let lookups: Int
    public let seed: UInt64
    /// Only the insert workload (the durable pairs: reads do not depend on durability).
    public let insertOnly: Bool
    /// The directory whose files' sizes are summed after the clean close.
    public let sizePath: String
    /// Opens the store with `cache` bytes of cache (nil: the store's default).
    public let open: (_ cache: Int?) throws -> Peer

    /// A cache that holds the whole decoded working set (≈ 1.1 × the data bytes at 1M records).
    public static let bigCache = 1 << 30
    /// Our engine's default cache; the "default cache" lookups give SQLite the same budget.
    public static let defaultCache = 32 << 20

    public init(dataPath: String, records: Int, lookups: Int, seed: UInt64, insertOnly: Bool,
                sizePath: String, open: @escaping (_ cache: Int?) throws -> Peer) {
        self.dataPath = dataPath
        self.records = records
        self.lookups = lookups
        self.seed = seed
        self.insertOnly = insertOnly
        self.sizePath = sizePath
        self.open = open
    }

    public func emit(_ name: String, _ value: Double) {
        FileHandle.standardOutput.write(Data("METRIC \(name) \(value)\n".utf8))
    }

    /// Insert, reopen, lookups (big and default cache) and scan; `extra` runs after them (ours:
    /// compaction and the reads after it), before the final peak-RSS reading.
    public func run(extra: () throws -> Void = {}) throws {
        let workload = Workload(count: records, seed: seed)
        emit("rss_start", Double(ProcStats.rss))

        // Insert: batches of 1,000 records, one transaction / commit each, then a clean close.
        // Every store uses its default cache here (ours 32 MiB, SQLite 2,000 KiB).
        let reader = try DataSetFile.Reader(path: dataPath)
        let io0 = ProcStats.io
        var peer = try open(nil)
        var inserted = 0
        let t0 = now()
        while true {
            let batch = reader.next(1000)
            if batch.isEmpty { break }
            try peer.insert(batch)
            inserted += batch.count
        }
        let t1 = now()
        try peer.close()
        let t2 = now()
        let io1 = ProcStats.io
        guard inserted == records else { throw BenchError("inserted \(inserted) of \(records) records") }
        emit("insert_s", t1 - t0)
        emit("close_s", t2 - t1)
        emit("peak_rss_insert", Double(ProcStats.peakRSS))
        emit("wchar_insert", Double(io1.wchar - io0.wchar))
        emit("disk_write_insert", Double(io1.writeBytes &- io0.writeBytes))
        emit("size_closed", Double(directorySize(sizePath)))
        if insertOnly { return }

        // Reopen to first read after a clean close (median of 5; OS page cache warm).
        var opens: [Double] = []
        let firstKey = workload.key(records / 2)
        for _ in 0..<5 {
            let a = now()
            let p = try open(nil)
            guard let v = try p.get(firstKey), !v.isEmpty else { throw BenchError("first read found nothing") }
            let b = now()
            try p.close()
            opens.append(b - a)
        }
        emit("reopen_first_read_s", opens.sorted()[opens.count / 2])

        // Point lookups and full scan with a cache that holds the working set.
        peer = try open(Self.bigCache)
        emit("lookup_big_s", try timedLookups(peer))
        let (scanTime, scanned, scanBytes) = try Self.timedScan(peer)
        guard scanned == records else { throw BenchError("scan saw \(scanned) of \(records) records") }
        emit("scan_s", scanTime)
        emit("scan_bytes", Double(scanBytes))
        try peer.close()

        // Point lookups with the default 32 MiB cache (SQLite: cache_size 32 MiB).
        peer = try open(Self.defaultCache)
        emit("lookup_default_s", try timedLookups(peer))
        try peer.close()

        try extra()
        emit("peak_rss_end", Double(ProcStats.peakRSS))
    }

    /// Seconds per lookup of `lookups` random existing keys, after one untimed pass over a
    /// different random sample (warm cache). A sample is checked against the generator.
    public func timedLookups(_ peer: Peer) throws -> Double {
        let workload = Workload(count: records, seed: seed)
        let (warm, indices, keys) = Self.lookupKeys(records: records, lookups: lookups, seed: seed)
        for k in warm { _ = try peer.get(k) }
        var total = 0
        let a = now()
        for k in keys { total &+= try peer.get(k)?.count ?? -1_000_000 }
        let b = now()
        guard total > 0 else { throw BenchError("lookups found missing keys") }
        for i in indices.prefix(500) where try peer.get(workload.key(i)) != workload.value(i) {
            throw BenchError("lookup of record \(i) returned a wrong value")
        }
        return (b - a) / Double(lookups)
    }

    /// The lookup workload's keys: `lookups` random existing keys to warm the cache, and a
    /// different sample to time (with their record indices, to check values against the generator).
    public static func lookupKeys(records: Int, lookups: Int, seed: UInt64) -> (warm: [[UInt8]], indices: [Int], keys: [[UInt8]]) {
        let workload = Workload(count: records, seed: seed)
        func sample(_ s: UInt64) -> [Int] {
            var rng = SplitMix64(state: s)
            return (0..<lookups).map { _ in Int(rng.next() % UInt64(records)) }
        }
        let indices = sample(seed ^ 0x5555)
        return (sample(seed ^ 0xAAAA).map { workload.key($0) }, indices, indices.map { workload.key($0) })
    }

    /// A full scan in key order reading (owning) every key and value.
    public static func timedScan(_ peer: Peer) throws -> (Double, Int, UInt64) {
        var n = 0
        var bytes: UInt64 = 0
        var previous: [UInt8] = []
        var ordered = true
        let a = now()
        try peer.scan { k, v in
            n += 1
            bytes &+= UInt64(k.count + v.count)
            if !previous.lexicographicallyPrecedes(k) { ordered = false }
            previous = k
            return true
        }
        let b = now()
        guard ordered else { throw BenchError("scan returned keys out of order") }
        return (b - a, n, bytes)
    }
}

/// The `worker` command line shared by `engine-bench worker` and `sqlcipher-worker worker`:
/// `--config NAME --data FILE --records N --dir DIR [--lookups N]`.
public struct WorkerArguments {
    public let config: String
    public let dataPath: String
    public let records: Int
    public let directory: String
    public let lookups: Int

    public static func option(_ args: [String], _ name: String) -> String? {
        guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
        return args[i + 1]
    }

    public init(_ args: [String]) throws {
        guard let config = Self.option(args, "--config") else { throw BenchError("worker needs --config NAME") }
        guard let data = Self.option(args, "--data"), let dir = Self.option(args, "--dir"),
              let records = Self.option(args, "--records").flatMap(Int.init), records > 0 else {
            throw BenchError("worker needs --data FILE --dir DIR --records N")
        }
        self.config = config
        dataPath = data
        self.records = records
        directory = dir
        lookups = Self.option(args, "--lookups").flatMap(Int.init) ?? 200_000
    }
}
