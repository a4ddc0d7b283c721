import ArgumentParser
import Foundation
import OfflineODataEngine
import OfflineODataFixtures

/// Quick single-configuration engine measurement for development (`BENCHMARKS.md` comes from
/// the Benchmarks package, not from this).
struct EngineProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "engine-probe", abstract: "Time insert, point reads and a scan for one configuration.",
        shouldDisplay: false)

    @Option var records = 200_000
    @Option var cacheMB = 32
    @Option var memtableMB = 8
    @Flag var relaxed = false
    @Flag var unencrypted = false
    @Flag var noCompression = false
    @Flag var compactFirst = false
    @Option(help: "Extra borrowed scans (for profiling).") var scans = 0

    func run() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("probe-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var o = EngineOptions(encryption: unencrypted ? .unencrypted : .key([UInt8](repeating: 9, count: 32)))
        o.durability = relaxed ? .relaxed : .full
        o.cacheSize = cacheMB << 20
        o.memTableSize = memtableMB << 20
        o.compression = !noCompression
        let w = EngineWorkload(seed: 1)
        let keys = (0..<records).map { w.key($0) }
        let values = (0..<records).map { w.value($0) }
        let db = try StorageEngine.open(path: dir, options: o)
        let t = try db.tree("t")
        var start = Date()
        var i = 0
        while i < records {
            let end = min(records, i + 1000)
            var b = WriteBatch()
            for n in i..<end { b.put(keys[n], values[n], in: t) }
            try db.commit(b)
            i = end
        }
        let insert = Date().timeIntervalSince(start)
        print(String(format: "insert: %.0f rows/s (%.2f s)", Double(records) / insert, insert))
        if compactFirst {
            start = Date()
            try db.compactNow()
            print(String(format: "compact: %.2f s", Date().timeIntervalSince(start)))
        }
        let s = try db.stats()
        print("runs: \(s.runs.count) \(s.runs.map { $0.entries }), files \(s.fileBytes / 1_000_000) MB")
        var rng = DemoRandom(seed: 5)
        // warm
        for _ in 0..<min(records, 100_000) { _ = try db.get(keys[Int(rng.next() % UInt64(records))], in: t) }
        start = Date()
        let n = 100_000
        for _ in 0..<n { _ = try db.get(keys[Int(rng.next() % UInt64(records))], in: t) }
        print(String(format: "point read: %.2f µs", Date().timeIntervalSince(start) * 1e6 / Double(n)))
        start = Date()
        var count = 0
        try db.snapshot().scan(in: t) { _, _ in count += 1; return true }
        let scan = Date().timeIntervalSince(start)
        print(String(format: "scan (copies): %.0f rows/s", Double(count) / scan))
        start = Date()
        var bytes = 0
        try db.snapshot().forEach(in: t) { _, v in bytes += v.count; return true }
        print(String(format: "scan (borrowed): %.0f rows/s", Double(count) / Date().timeIntervalSince(start)))
        for _ in 0..<scans {
            start = Date()
            try db.snapshot().forEach(in: t) { _, v in bytes += v.count; return true }
            print(String(format: "scan (borrowed, again): %.0f rows/s", Double(count) / Date().timeIntervalSince(start)))
        }
        try db.close()
    }
}
