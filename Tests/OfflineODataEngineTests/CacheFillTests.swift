import Foundation
import Testing
@testable import OfflineODataEngine

/// One-pass reads (compaction, `check`, scans asked to) leave the block cache as it is.
@Suite struct CacheFillTests {
    func key(_ i: Int) -> [UInt8] { Array(String(format: "key-%06d", i).utf8) }

    func storeWithOneRun(_ dir: TempDir, count: Int = 20_000) throws {
        let db = try StorageEngine.open(path: dir.store, options: .quick())
        let t = try db.tree("t")
        for start in stride(from: 0, to: count, by: 2_000) {
            try db.write { b in for i in start..<min(count, start + 2_000) { b.put(key(i), [UInt8](repeating: UInt8(i % 251), count: 100), in: t) } }
        }
        try db.compactNow()
        try db.close()
    }

    @Test func scansAroundTheCacheLeaveItEmptyAndDefaultScansFillIt() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        try storeWithOneRun(dir)
        let db = try StorageEngine.open(path: dir.store, options: .quick())
        defer { try? db.close() }
        let t = try db.tree("t")
        // Opening read a few catalog records (through the cache, as every point read does).
        let before = db.cache.usedBytes
        var c = try db.snapshot().cursor(in: t, fillCache: false)
        var n = 0
        while try c.advance() { n += 1 }
        #expect(n == 20_000)
        #expect(db.cache.usedBytes == before, "a fillCache: false scan cached \(db.cache.usedBytes - before) bytes")
        #expect(try db.check().problems.isEmpty)
        #expect(db.cache.usedBytes == before, "check cached \(db.cache.usedBytes - before) bytes")
        #expect(try db.snapshot().count(in: t) == 20_000)
        #expect(db.cache.usedBytes > before + 100_000, "a default scan of 2 MB cached only \(db.cache.usedBytes - before) bytes")
    }

    @Test func compactionDoesNotFillTheCache() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        try storeWithOneRun(dir)
        let db = try StorageEngine.open(path: dir.store, options: .quick())
        defer { try? db.close() }
        let t = try db.tree("t")
        try db.write { b in b.put(key(20_001), [1], in: t) }
        let before = db.cache.usedBytes
        try db.compactNow()
        // The merge read the whole run: none of it entered the cache.
        #expect(db.cache.usedBytes <= before, "compaction cached \(db.cache.usedBytes - before) bytes")
        #expect(try db.get(key(7), in: t) == [UInt8](repeating: 7, count: 100))
    }
}
