import Foundation
import Testing
@testable import OfflineODataEngine

/// Bulk loads (docs/StorageFormat.md, "Bulk load"): invisible until installed, installed newer
/// than every earlier commit and older than every later one, gone without a trace when the
/// process dies first. The model-based property test mixes them with every other operation.
@Suite struct BulkLoadTests {
    func runFiles(_ dir: TempDir) -> [String] { files(in: dir.store).filter { $0.hasSuffix(".oorun") } }

    @Test("an installed load wins over earlier commits (a tombstone in memory included) and loses to later ones")
    func installOrdersBetweenCommits() throws {
        let dir = TempDir("bulk")
        defer { dir.cleanup() }
        var db = try StorageEngine.open(path: dir.store, options: .quick())
        let tree = try db.tree("t")
        let other = try db.tree("u")
        try db.write { b in
            for i in 0..<2000 { b.put(key(i), bytes("old-\(i)"), in: tree) }
        }
        try db.compactNow()  // the old versions are in a run
        try db.write { b in
            b.delete(key(1), in: tree)  // a tombstone in the memtable
            b.put(key(2), bytes("memtable"), in: tree)
        }
        let before = try db.snapshot()
        let load = try db.bulkLoad(chunkBytes: 4096)
        // Tree t out of order (sorted in chunks), tree u in order (streamed); key 3 twice.
        for i in stride(from: 2999, through: 0, by: -1) where i % 3 != 0 || i < 10 {
            try load.put(key(i), bytes("bulk-\(i)"), in: tree)
        }
        try load.put(key(3), bytes("bulk-3-again"), in: tree)
        for i in 0..<500 { try load.put(key(i), bytes("u-\(i)"), in: other) }
        #expect(try db.get(key(1), in: tree) == nil, "not visible before install")
        try db.install(load)
        for db in [db] {
            #expect(try db.get(key(1), in: tree) == bytes("bulk-1"))
            #expect(try db.get(key(2), in: tree) == bytes("bulk-2"))
            #expect(try db.get(key(3), in: tree) == bytes("bulk-3-again"))
            #expect(try db.get(key(12), in: tree) == bytes("old-12"), "a key the load left alone")
            #expect(try db.get(key(2500), in: tree) == bytes("bulk-2500"))
            #expect(try db.get(key(499), in: other) == bytes("u-499"))
        }
        #expect(try before.get(key(2), in: tree) == bytes("memtable"), "an older snapshot keeps its view")
        try db.write { $0.put(key(2), bytes("later"), in: tree) }
        #expect(try db.get(key(2), in: tree) == bytes("later"))
        var count = 0
        try db.snapshot().scan(in: tree) { _, _ in count += 1; return true }
        #expect(count == 2667, "every key once")  // 2000 old, and the 667 keys ≥ 2000 the load put
        #expect(try db.check().isClean)
        try db.close()
        db = try StorageEngine.open(path: dir.store, options: .quick())
        defer { try? db.close() }
        #expect(try db.get(key(3), in: tree) == bytes("bulk-3-again"), "durable")
        #expect(try db.get(key(2), in: tree) == bytes("later"))
        #expect(try db.get(key(1), in: tree) == bytes("bulk-1"))
    }

    @Test("a load that is not installed leaves nothing: not after abandon, not after a crash")
    func uninstalledLoadsLeaveNothing() throws {
        let dir = TempDir("bulk")
        defer { dir.cleanup() }
        var db = try StorageEngine.open(path: dir.store, options: .quick())
        let tree = try db.tree("t")
        try db.write { $0.put(key(0), bytes("kept"), in: tree) }
        let filesBefore = runFiles(dir)
        let abandoned = try db.bulkLoad(chunkBytes: 512)
        for i in (0..<3000).reversed() { try abandoned.put(key(i), bytes("x\(i)"), in: tree) }
        #expect(runFiles(dir).count > filesBefore.count, "the load wrote runs as it went")
        abandoned.abandon()
        #expect(runFiles(dir) == filesBefore)
        #expect(throws: EngineError.self) { try abandoned.put(key(1), [], in: tree) }
        let crashed = try db.bulkLoad(chunkBytes: 512)
        for i in (0..<3000).reversed() { try crashed.put(key(i), bytes("y\(i)"), in: tree) }
        db.simulateCrash()
        db = try StorageEngine.open(path: dir.store, options: .quick())
        defer { try? db.close() }
        #expect(try db.get(key(0), in: tree) == bytes("kept"))
        #expect(try db.get(key(1), in: tree) == nil)
        #expect(runFiles(dir) == filesBefore, "the crashed load's runs are removed on open")
        _ = crashed
    }

    @Test("bad records are typed errors and the load stays usable")
    func badRecords() throws {
        let dir = TempDir("bulk")
        defer { dir.cleanup() }
        let db = try StorageEngine.open(path: dir.store, options: .quick())
        defer { try? db.close() }
        let tree = try db.tree("t")
        let load = try db.bulkLoad()
        let tooLong = [UInt8](repeating: 1, count: WriteBatch.maxKeySize + 1)
        #expect(throws: EngineError.self) { try load.put(tooLong, [], in: tree) }
        #expect(throws: EngineError.self) { try load.put(key(1), [], in: .catalog) }
        try load.put(key(1), bytes("one"), in: tree)
        try db.install(load)
        #expect(try db.get(key(1), in: tree) == bytes("one"))
        #expect(throws: EngineError.self) { try load.put(key(2), [], in: tree) }
        #expect(throws: EngineError.self) { try db.install(load) }
    }

    @Test("a load on a closed store is storeClosed, and writes nothing")
    func closedStore() throws {
        let dir = TempDir("bulk")
        defer { dir.cleanup() }
        let db = try StorageEngine.open(path: dir.store, options: .quick())
        let tree = try db.tree("t")
        let load = try db.bulkLoad(chunkBytes: 64)
        try load.put(key(1), bytes("one"), in: tree)
        try db.close()
        let filesBefore = runFiles(dir)
        #expect(throws: EngineError.self) { try load.put(key(2), bytes("two"), in: tree) }
        do {
            try db.install(load)
            Issue.record("install on a closed store succeeded")
        } catch {
            #expect(error.kind == .storeClosed, "\(error)")
        }
        #expect(throws: EngineError.self) { _ = try db.bulkLoad() }
        #expect(runFiles(dir).count <= filesBefore.count, "a closed store got a new run")
    }
}
