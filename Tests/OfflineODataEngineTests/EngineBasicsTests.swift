import Foundation
import Testing
@testable import OfflineODataEngine

@Suite struct EngineBasicsTests {
    @Test func putGetDeleteAcrossReopen() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        do {
            let db = try StorageEngine.open(path: dir.store, options: .quick())
            let t = try db.tree("orders")
            try db.write { b in
                b.put(bytes("a"), bytes("1"), in: t)
                b.put(bytes("b"), bytes("2"), in: t)
                b.put(bytes("c"), bytes("3"), in: t)
            }
            try db.write { b in b.delete(bytes("b"), in: t) }
            #expect(try db.get(bytes("a"), in: t) == bytes("1"))
            #expect(try db.get(bytes("b"), in: t) == nil)
            try db.close()
        }
        let db = try StorageEngine.open(path: dir.store, options: .quick())
        let t = try #require(try db.existingTree("orders"))
        #expect(try db.get(bytes("a"), in: t) == bytes("1"))
        #expect(try db.get(bytes("b"), in: t) == nil)
        #expect(try db.get(bytes("c"), in: t) == bytes("3"))
        try db.close()
    }

    @Test func treesAreSeparateKeyspaces() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let db = try StorageEngine.open(path: dir.store, options: .quick())
        let a = try db.tree("a"), b = try db.tree("b")
        try db.write { w in
            w.put(bytes("k"), bytes("in a"), in: a)
            w.put(bytes("k"), bytes("in b"), in: b)
        }
        #expect(try db.get(bytes("k"), in: a) == bytes("in a"))
        #expect(try db.get(bytes("k"), in: b) == bytes("in b"))
        #expect(try db.snapshot().count(in: a) == 1)
        #expect(try db.treeNames() == ["a", "b"])
        try db.close()
    }

    @Test func manyWritesFlushIntoRunsAndScanInOrderBothWays() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let db = try StorageEngine.open(path: dir.store, options: .quick())
        let t = try db.tree("t")
        var rng = SplitMix(seed: 7)
        var model: [Int: [UInt8]] = [:]
        for _ in 0..<40 {
            try db.write { b in
                for _ in 0..<100 {
                    let i = Int(rng.next() % 3000)
                    if rng.next() % 5 == 0 {
                        b.delete(key(i), in: t)
                        model[i] = nil
                    } else {
                        let v = bytes(String(repeating: "v\(i)-", count: Int(rng.next() % 20) + 1))
                        b.put(key(i), v, in: t)
                        model[i] = v
                    }
                }
            }
        }
        try db.compactNow()
        let stats = try db.stats()
        #expect(stats.runs.count == 1)
        let sorted = model.keys.sorted()
        var forward: [[UInt8]] = []
        try db.snapshot().scan(in: t) { k, _ in forward.append(k); return true }
        #expect(forward == sorted.map(key))
        var backward: [[UInt8]] = []
        try db.snapshot().scan(in: t, reverse: true) { k, _ in backward.append(k); return true }
        #expect(backward == sorted.reversed().map(key))
        for (i, v) in model { #expect(try db.get(key(i), in: t) == v) }
        #expect(try db.check().isClean)
        try db.close()
    }

    @Test func snapshotIgnoresLaterWritesAndCompaction() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let db = try StorageEngine.open(path: dir.store, options: .quick())
        let t = try db.tree("t")
        try db.write { b in for i in 0..<500 { b.put(key(i), bytes("old"), in: t) } }
        let snap = try db.snapshot()
        try db.write { b in for i in 0..<500 { b.put(key(i), bytes("new"), in: t) } }
        try db.write { b in for i in 0..<250 { b.delete(key(i), in: t) } }
        try db.compactNow()
        #expect(try snap.get(key(10), in: t) == bytes("old"))
        #expect(try snap.count(in: t) == 500)
        #expect(try db.get(key(10), in: t) == nil)
        #expect(try db.get(key(300), in: t) == bytes("new"))
        #expect(try db.snapshot().count(in: t) == 250)
        try db.close()
    }

    @Test func cleanCloseLeavesNothingToReplayAndFilesAre0600() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let db = try StorageEngine.open(path: dir.store, options: .quick())
        let t = try db.tree("t")
        for i in 0..<50 { try db.write { $0.put(key(i), bytes("value \(i)"), in: t) } }
        #expect(files(in: dir.store).contains { $0.hasSuffix(".oolog") })
        try db.close()
        // Everything is in runs: the next open reads the manifest and run footers, not a log.
        #expect(!files(in: dir.store).contains { $0.hasSuffix(".oolog") })
        for name in files(in: dir.store) where name != "LOCK" {
            let attributes = try FileManager.default.attributesOfItem(atPath: dir.store + "/" + name)
            #expect((attributes[.posixPermissions] as? Int) == 0o600, "\(name) is not 0600")
        }
        let dirAttributes = try FileManager.default.attributesOfItem(atPath: dir.store)
        #expect((dirAttributes[.posixPermissions] as? Int) == 0o700)
        let reopened = try StorageEngine.open(path: dir.store, options: .quick())
        #expect(try reopened.get(key(49), in: try reopened.tree("t")) == bytes("value 49"))
        try reopened.close()
    }

    @Test func largeCommitSpansSeveralFramesAndStaysAtomic() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        var o = EngineOptions.quick()
        o.memTableSize = 64 << 20
        let db = try StorageEngine.open(path: dir.store, options: o)
        let t = try db.tree("t")
        let big = [UInt8](repeating: 7, count: 1 << 20)
        try db.write { b in for i in 0..<10 { b.put(key(i), big, in: t) } }  // > 4 MiB: several frames
        db.simulateCrash()
        // Cut inside the last frame: none of the commit may survive.
        let logName = try #require(files(in: dir.store).filter { $0.hasSuffix(".oolog") }.last)
        let log = try #require(FileManager.default.contents(atPath: dir.store + "/" + logName))
        let copy = TempDir("multiframe")
        defer { copy.cleanup() }
        try FileManager.default.copyItem(atPath: dir.store, toPath: copy.store)
        // The frames end where the log's reserved (zero) tail starts.
        let end = (log.lastIndex { $0 != 0 } ?? 0) + 1
        try log.prefix(end - 1000).write(to: URL(fileURLWithPath: copy.store + "/" + logName))
        let cut = try StorageEngine.open(path: copy.store, options: .quick())
        let ct = try cut.tree("t")
        for i in 0..<10 { #expect(try cut.get(key(i), in: ct) == nil, "part of a torn multi-frame commit survived") }
        try cut.close()
        let reopened = try StorageEngine.open(path: dir.store, options: .quick())
        let rt = try reopened.tree("t")
        for i in 0..<10 { #expect(try reopened.get(key(i), in: rt) == big) }
        try reopened.close()
    }
}
