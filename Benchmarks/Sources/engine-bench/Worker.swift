import BenchCommon
import BenchSupport
import Foundation
import OfflineODataEngine

/// One configuration's full workload, run once in a fresh process (the driver starts it), so
/// that peak RSS and I/O counters describe this configuration alone. Prints `METRIC name value`.
struct Worker {
    let config: Configuration
    let dataPath: String
    let records: Int
    let directory: String
    let lookups: Int
    let seed: UInt64

    /// Ours: 1 GiB of block cache holds the whole decoded working set (≈ 1.1 × the data bytes
    /// at 1M records). SQLite gets the same budget as page cache.
    static let bigCache = 1 << 30
    static let defaultCache = 32 << 20

    var storePath: String { directory + "/" + (config.engine == .sqlite ? "kv.sqlite" : "store") }

    func emit(_ name: String, _ value: Double) {
        FileHandle.standardOutput.write(Data("METRIC \(name) \(value)\n".utf8))
    }

    func oursOptions(cache: Int) -> EngineOptions {
        var o = EngineOptions(encryption: config.encrypted ? .key(benchmarkKey) : .unencrypted)
        o.durability = config.durability == .full ? .full : .relaxed
        o.cacheSize = cache
        return o
    }

    /// The engine under test behind two closures, opened with `cache` bytes of cache
    /// (nil: the engine's default).
    func open(cache: Int?) throws -> Peer {
        switch config.engine {
        case .ours:
            return Peer(ours: try OursStore(path: storePath, options: oursOptions(cache: cache ?? Self.defaultCache)))
        case .sqlite:
            return Peer(sqlite: try SQLiteStore(path: storePath, synchronous: config.durability == .full ? .full : .normal,
                                                cacheKiB: cache.map { $0 >> 10 }))
        }
    }

    func run() throws {
        let workload = Workload(count: records, seed: seed)
        emit("rss_start", Double(ProcStats.rss))

        // Insert: batches of 1,000 records, one transaction / commit each, then a clean close.
        // Both sides use their default cache here (ours 32 MiB, SQLite 2,000 KiB).
        let reader = try DataSetFile.Reader(path: dataPath)
        let io0 = ProcStats.io
        var peer = try open(cache: nil)
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
        emit("size_closed", Double(directorySize(config.engine == .sqlite ? directory : storePath)))
        if config.insertOnly { return }

        // Reopen to first read after a clean close (median of 5; OS page cache warm).
        var opens: [Double] = []
        let firstKey = workload.key(records / 2)
        for _ in 0..<5 {
            let a = now()
            let p = try open(cache: nil)
            guard let v = try p.get(firstKey), !v.isEmpty else { throw BenchError("first read found nothing") }
            let b = now()
            try p.close()
            opens.append(b - a)
        }
        emit("reopen_first_read_s", opens.sorted()[opens.count / 2])

        // Point lookups and full scan with a cache that holds the working set.
        peer = try open(cache: Self.bigCache)
        emit("lookup_big_s", try timedLookups(peer, workload))
        let (scanTime, scanned, scanBytes) = try timedScan(peer)
        guard scanned == records else { throw BenchError("scan saw \(scanned) of \(records) records") }
        emit("scan_s", scanTime)
        emit("scan_bytes", Double(scanBytes))
        try peer.close()

        // Point lookups with the default 32 MiB (ours) / 32 MiB (SQLite cache_size) cache.
        peer = try open(cache: Self.defaultCache)
        emit("lookup_default_s", try timedLookups(peer, workload))
        try peer.close()

        // Ours: full compaction, size after it, lookups and scan on the compacted store.
        if config.engine == .ours {
            let store = try OursStore(path: storePath, options: oursOptions(cache: Self.defaultCache))
            let c0 = now()
            try store.compact()
            emit("compact_s", now() - c0)
            try store.close()
            emit("size_compacted", Double(directorySize(storePath)))
            peer = try open(cache: Self.bigCache)
            emit("lookup_compacted_s", try timedLookups(peer, workload))
            let (t, n, _) = try timedScan(peer)
            guard n == records else { throw BenchError("scan after compaction saw \(n) of \(records)") }
            emit("scan_compacted_s", t)
            try peer.close()
        }
        emit("peak_rss_end", Double(ProcStats.peakRSS))
    }

    /// Seconds per lookup of `lookups` random existing keys, after one untimed pass over a
    /// different random sample (warm cache). A sample is checked against the generator.
    func timedLookups(_ peer: Peer, _ workload: Workload) throws -> Double {
        func sample(_ s: UInt64) -> [Int] {
            var rng = SplitMix64(state: s)
            return (0..<lookups).map { _ in Int(rng.next() % UInt64(records)) }
        }
        let warm = sample(seed ^ 0xAAAA).map { workload.key($0) }
        let indices = sample(seed ^ 0x5555)
        let keys = indices.map { workload.key($0) }
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

    /// A full scan in key order reading (owning) every key and value.
    func timedScan(_ peer: Peer) throws -> (Double, Int, UInt64) {
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

/// The two stores behind one surface.
struct Peer {
    let insert: ([([UInt8], [UInt8])]) throws -> Void
    let get: ([UInt8]) throws -> [UInt8]?
    let scan: (([UInt8], [UInt8]) -> Bool) throws -> Void
    let close: () throws -> Void

    init(ours s: OursStore) {
        insert = s.insert
        get = s.get
        scan = s.scan
        close = s.close
    }

    init(sqlite s: SQLiteStore) {
        insert = s.insert
        get = s.get
        scan = s.scan
        close = s.close
    }
}
