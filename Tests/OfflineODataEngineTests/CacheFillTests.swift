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

    /// `Snapshot.getUncached` (a delta's stored versions): the same answers as `get`, newer
    /// versions in the memtable first and deletions honoured, nothing added to the cache; a leaf
    /// already cached is used instead of read again.
    @Test func uncachedPointReadsAnswerAsGetAndLeaveTheCacheAlone() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        try storeWithOneRun(dir)
        let fs = FaultyFileSystem()
        var options = EngineOptions.quick()
        options.fileSystem = fs
        let db = try StorageEngine.open(path: dir.store, options: options)
        defer { try? db.close() }
        let t = try db.tree("t")
        try db.write { b in
            b.put(key(5), [9, 9], in: t)     // newer than the run's
            b.delete(key(6), in: t)
            b.put(key(30_000), [7], in: t)   // only in the memtable
        }
        let before = db.cache.usedBytes
        let snapshot = try db.snapshot()
        for i in stride(from: 0, to: 20_000, by: 97) + [5, 6, 20_000, 30_000] {
            #expect(try snapshot.getUncached(key(i), in: t) == snapshot.get(key(i), in: t), "key \(i)")
        }
        let cachedByGets = db.cache.usedBytes
        #expect(cachedByGets > before, "the plain gets cached nothing")
        // A leaf no get read: each uncached read goes to the file again, and caches nothing.
        let run = try #require(try FileManager.default.contentsOfDirectory(atPath: dir.store).first { $0.hasSuffix(".oorun") })
        let path = dir.store + "/" + run
        func reads() -> Int { fs.reads.withLock { $0[path] ?? 0 } }
        let start = reads()
        #expect(try snapshot.getUncached(key(19_999), in: t) == [UInt8](repeating: UInt8(19_999 % 251), count: 100))
        let once = reads()
        #expect(once > start)
        #expect(try snapshot.getUncached(key(19_999), in: t) != nil)
        #expect(reads() > once, "the second uncached read of a leaf found it cached")
        #expect(db.cache.usedBytes == cachedByGets, "uncached reads cached \(db.cache.usedBytes - cachedByGets) bytes")
        // A leaf a get cached is used: no read of the file.
        _ = try snapshot.get(key(10_001), in: t)
        let cached = reads()
        #expect(try snapshot.getUncached(key(10_002), in: t) == [UInt8](repeating: UInt8(10_002 % 251), count: 100))
        #expect(reads() == cached)
    }
}
