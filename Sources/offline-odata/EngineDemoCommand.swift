import ArgumentParser
import Foundation
import OfflineODataEngine
import OfflineODataFixtures

/// The storage engine's own tour (the README's main job before the OfflineStore existed; also
/// `demo --engine`): raw records, snapshots, compaction, rekey, with timings.
struct EngineDemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "engine-demo", abstract: "Tour of the storage engine alone (records, snapshots, compaction, rekey), with timings.")

    @Option(help: "How many sales-order-item records to write.")
    var records = 100_000

    @Option(help: "Store directory (default: a fresh temporary directory, removed afterwards).")
    var path: String?

    @Option(help: "Workload seed.")
    var seed: UInt64 = 42

    func run() throws {
        do {
            try tour()
        } catch {
            reportAndExit(error)
        }
    }

    private func step(_ title: String) { print("\n== \(title)") }

    private func ms(_ since: Date) -> String { String(format: "%.1f ms", Date().timeIntervalSince(since) * 1000) }

    private func tour() throws {
        let keep = path != nil
        let dir = path ?? FileManager.default.temporaryDirectory.appendingPathComponent("offline-odata-demo-\(UUID().uuidString)").path
        defer { if !keep { try? FileManager.default.removeItem(atPath: dir) } }
        let passphrase = "demo passphrase: correct horse battery staple"
        let workload = EngineWorkload(seed: seed)
        let averageSize = (0..<100).reduce(0) { $0 + workload.value($1).count } / 100
        print("OfflineOData engine demo: \(records) sales records (EPM-like JSON, ~\(averageSize) B each) into \(dir)")

        step("1. Create an encrypted store (Argon2id key derivation, \(CipherSuite.preferred))")
        var t = Date()
        var db = try StorageEngine.open(path: dir, options: EngineOptions(encryption: .passphrase(passphrase)))
        let items = try db.tree("SalesOrderItems")
        print("opened in \(ms(t))")

        step("2. Insert \(records) records, 1,000 per durable commit")
        t = Date()
        var i = 0
        while i < records {
            let end = min(records, i + 1000)
            try db.write { b in
                for n in i..<end { b.put(workload.key(n), workload.value(n), in: items) }
            }
            i = end
        }
        let insertSeconds = Date().timeIntervalSince(t)
        print(String(format: "%d records in %.2f s: %.0f records/s", records, insertSeconds, Double(records) / insertSeconds))

        step("3. Random point reads")
        t = Date()
        var rng = DemoRandom(seed: seed ^ 0xABCDEF)
        let lookups = min(records, 20_000)
        var found = 0
        for _ in 0..<lookups where try db.get(workload.key(Int(rng.next() % UInt64(records))), in: items) != nil { found += 1 }
        print(String(format: "%d lookups, %d found, %.2f µs each", lookups, found, Date().timeIntervalSince(t) * 1e6 / Double(lookups)))

        step("4. A snapshot keeps its point in time while writes go on")
        let snapshot = try db.snapshot()
        try db.write { b in for n in 0..<(records / 10) { b.delete(workload.key(n), in: items) } }
        print("snapshot still sees \(try snapshot.count(in: items)) records; the store now has \(try db.snapshot().count(in: items))")

        step("5. Ordered scan with decoding of every value")
        t = Date()
        var scanned = 0
        var scannedBytes = 0
        try db.snapshot().scan(in: items) { _, v in
            scanned += 1
            scannedBytes += v.count
            return true
        }
        print("\(scanned) records, \(scannedBytes) bytes in \(ms(t))")

        step("6. Compaction drops superseded data (online; reads and writes continue)")
        let before = try db.stats()
        t = Date()
        try db.compactNow()
        let after = try db.stats()
        print("\(before.fileBytes / 1024) KiB → \(after.fileBytes / 1024) KiB on disk in \(ms(t)); "
              + "garbage \(Int(before.garbageRatio * 100))% → \(Int(after.garbageRatio * 100))%")
        print(after)

        step("7. Close, reopen, first read")
        try db.close()
        t = Date()
        db = try StorageEngine.open(path: dir, options: EngineOptions(encryption: .passphrase(passphrase)))
        let reopenedItems = try db.tree("SalesOrderItems")
        let first = try db.get(workload.key(records - 1), in: reopenedItems)
        print("reopened and read \(first?.count ?? 0) bytes in \(ms(t)) (including key derivation)")

        step("8. Check every checksum and authentication tag")
        t = Date()
        print(try db.check(), "in \(ms(t))")

        step("9. Rekey: a new passphrase rewraps the data key; no data is rewritten")
        try db.rekey(to: .passphrase("a brand new passphrase"))
        try db.close()
        do {
            _ = try StorageEngine.open(path: dir, options: EngineOptions(encryption: .passphrase(passphrase)))
            print("unexpected: the old passphrase still opens the store")
        } catch {
            print("old passphrase → \(error)")
        }
        db = try StorageEngine.open(path: dir, options: EngineOptions(encryption: .passphrase("a brand new passphrase")))
        print("new passphrase opens it: \(try db.snapshot().count(in: try db.tree("SalesOrderItems"))) records")
        try db.close()

        step("10. Nothing written is readable on disk")
        let needle = Array(workload.value(records - 1).prefix(24))
        var leaks = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: dir) {
            guard let data = FileManager.default.contents(atPath: dir + "/" + name) else { continue }
            if [UInt8](data).firstRange(of: needle) != nil { leaks += 1 }
        }
        print("searched every file for \"\(String(decoding: needle, as: UTF8.self))\": found in \(leaks) file(s)")
        print("\ndone.")
    }
}

struct DemoRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
