import Foundation
import PropertyBased
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

    /// After bulk loads most runs hold one key range of one tree, and a cursor leaves out the
    /// runs whose keys all lie outside its range without reading them: every range that starts
    /// or ends exactly at a run's first or last key, or between runs, forward and backward,
    /// still sees exactly the keys and newest values a model holds (through the heap merge of
    /// many sources).
    @Test("cursors bounded at runs' first and last keys see every key of their range")
    func cursorsAtRunBounds() throws {
        let dir = TempDir("bounds")
        defer { dir.cleanup() }
        let db = try StorageEngine.open(path: dir.store, options: .quick())
        let tree = try db.tree("t")
        let other = try db.tree("u")
        var model: [Int: String] = [:]
        try db.write { b in
            for i in 0..<40 { b.put(key(i), bytes("a\(i)"), in: tree) }
            for i in 0..<10 { b.put(key(i), bytes("u\(i)"), in: other) }
        }
        for i in 0..<40 { model[i] = "a\(i)" }
        try db.compactNow()
        // Enough runs that cursors merge them through a heap (`MergeCursor.heapSources`), with
        // overlapping ranges whose newer versions must win.
        let loads = [(50..<60, "b"), (20..<30, "c"), (60..<70, "d"), (70..<71, "e"), (5..<15, "f"), (12..<25, "g"),
                     (33..<37, "h"), (0..<3, "i"), (55..<66, "j")]
        for (range, tag) in loads {
            let load = try db.bulkLoad(chunkBytes: 4096)
            for i in range {
                try load.put(key(i), bytes("\(tag)\(i)"), in: tree)
                model[i] = "\(tag)\(i)"
            }
            try db.install(load)
        }
        try db.write { b in
            b.put(key(45), bytes("m45"), in: tree)
            b.delete(key(59), in: tree)
        }
        model[45] = "m45"
        model[59] = nil
        #expect(runFiles(dir).count >= MergeCursor.heapSources, "runs: \(runFiles(dir))")
        let snapshot = try db.snapshot()
        let bounds: [Int?] = [nil, 0, 1, 19, 20, 29, 30, 39, 40, 45, 46, 49, 50, 58, 59, 60, 69, 70, 71, 100]
        for start in bounds {
            for end in bounds {
                let expected = model.keys.sorted().filter { i in (start.map { i >= $0 } ?? true) && (end.map { i < $0 } ?? true) }
                for reverse in [false, true] {
                    var cursor = try snapshot.cursor(in: tree, from: start.map(key), to: end.map(key), reverse: reverse)
                    var got: [[UInt8]] = []
                    var values: [[UInt8]] = []
                    while let (k, v) = try cursor.next() {
                        got.append(k)
                        values.append(v)
                    }
                    let keys = (reverse ? Array(expected.reversed()) : expected)
                    #expect(got == keys.map(key), "from \(String(describing: start)) to \(String(describing: end)) reverse \(reverse)")
                    #expect(values == keys.map { bytes(model[$0] ?? "") })
                }
            }
        }
        var others = 0
        try snapshot.scan(in: other) { _, _ in others += 1; return true }
        #expect(others == 10)
    }
    /// A load's small runs are merged into one at install; a tree streamed whole and at least
    /// `chunkBytes` stays the run it was written as (merging it would write it twice), but not
    /// when it overlaps another run of the load.
    @Test("install merges a load's small runs and keeps a large streamed tree as written")
    func installKeepsLargeStreams() throws {
        let dir = TempDir("streams")
        defer { dir.cleanup() }
        let db = try StorageEngine.open(path: dir.store, options: .quick())
        let streamed = try db.tree("s")
        let sorted = try db.tree("t")
        let tiny = try db.tree("u")
        let big = [UInt8](repeating: 0x42, count: 600)
        let load = try db.bulkLoad(chunkBytes: 4096)
        let middle = try db.tree("m")
        for i in 0..<200 { try load.put(key(i), big, in: streamed) }  // 120 KB in key order: most of the load
        for i in 0..<20 { try load.put(key(i), big, in: middle) }  // 12 KB: under a quarter, over chunkBytes
        for i in (0..<300).reversed() { try load.put(key(i), bytes("t\(i)"), in: sorted) }  // chunks
        try load.put(key(1), bytes("u1"), in: tiny)
        try db.install(load)
        let runs = try db.snapshot().runs
        #expect(runs.count == 3, "both streamed trees, and one run merged from the chunks and the tiny tree: \(runs.map(\.info))")
        #expect(runs.contains { $0.info.entryCount == 200 && $0.info.rawBytes >= 120_000 })
        #expect(runs.contains { $0.info.entryCount == 20 && $0.info.rawBytes >= 12_000 })
        #expect(try db.get(key(19), in: middle) == big)
        #expect(try db.get(key(199), in: streamed) == big)
        #expect(try db.get(key(0), in: sorted) == bytes("t0"))
        #expect(try db.get(key(1), in: tiny) == bytes("u1"))

        // A large stream that the same tree's chunks overlap (the tree turned to sorting) is
        // merged with them: the newer chunk records must win over it.
        let again = try db.bulkLoad(chunkBytes: 4096)
        let other = try db.tree("v")
        let large = try db.tree("w")
        for i in 0..<200 { try again.put(key(i), big, in: large) }
        for i in 0..<20 { try again.put(key(i), big, in: other) }
        for i in (0..<10).reversed() { try again.put(key(i * 2), bytes("v\(i * 2)"), in: other) }
        try db.install(again)
        #expect(try db.snapshot().runs.count == 5, "the earlier three, the large tree, and one merged run")
        #expect(try db.get(key(10), in: other) == bytes("v10"))
        #expect(try db.get(key(11), in: other) == big)
        #expect(try db.check().isClean)
    }
    /// A large install merge is split at a key into two runs written at once on two threads
    /// (`parallelMergeEntries`, lowered here): every key must still read its newest value (the
    /// memtable's tombstone included), the two runs must not overlap, and a reopen agrees.
    @Test("a large install merge is written as two runs that do not overlap, with the same result")
    func splitMerge() throws {
        let dir = TempDir("split")
        defer { dir.cleanup() }
        var db = try StorageEngine.open(path: dir.store, options: .quick())
        let tree = try db.tree("t")
        var model: [Int: [UInt8]] = [:]
        try db.write { b in
            for i in stride(from: 0, to: 3000, by: 2) { b.put(key(i), bytes("old-\(i)"), in: tree) }
        }
        for i in stride(from: 0, to: 3000, by: 2) { model[i] = bytes("old-\(i)") }
        try db.compactNow()
        // Out of order: many small chunks, each spanning the key space.
        let loaded = (0..<2500).map { n in (n * 7919) % 2999 + (n % 3 == 0 ? 0 : 1) }
        // Memtable writes (older than the load) the load leaves alone, at both ends of the key
        // space, so each half of the split merge must take them.
        let untouched = stride(from: 0, to: 3000, by: 2).filter { !loaded.contains($0) }
        let gone = try #require(untouched.first), goneToo = try #require(untouched.last)
        let kept = untouched[1], keptToo = untouched[untouched.count - 2]
        try db.write { b in
            for i in [gone, goneToo] { b.delete(key(i), in: tree) }
            for i in [kept, keptToo] { b.put(key(i), bytes("memtable"), in: tree) }
        }
        for i in [gone, goneToo] { model[i] = nil }
        for i in [kept, keptToo] { model[i] = bytes("memtable") }
        let before = Set(try db.snapshot().runs.map(\.number))
        let load = try db.bulkLoad(chunkBytes: 4096)
        load.parallelMergeEntries = 100
        for (n, i) in loaded.enumerated() {
            try load.put(key(i), bytes("bulk-\(n)"), in: tree)
            model[i] = bytes("bulk-\(n)")
        }
        try db.install(load)
        let added = try db.snapshot().runs.filter { !before.contains($0.number) }
        #expect(added.count == 2, "two merged runs: \(added.map(\.info))")
        if added.count == 2 {
            let (a, b) = (added[0].info, added[1].info)
            #expect(compareBytes(a.maxKey, b.minKey) < 0 || compareBytes(b.maxKey, a.minKey) < 0, "the two runs overlap")
        }
        for db in [db] {
            var seen: [Int: [UInt8]] = [:]
            try db.snapshot().scan(in: tree) { k, v in
                seen[Int(String(decoding: k.dropFirst(4), as: UTF8.self)) ?? -1] = v
                return true
            }
            #expect(seen == model)
        }
        #expect(try db.check().isClean)
        try db.close()
        db = try StorageEngine.open(path: dir.store, options: .quick())
        defer { try? db.close() }
        #expect(try db.get(key(gone), in: tree) == nil)
        #expect(try db.get(key(goneToo), in: tree) == nil)
        for (i, v) in model { #expect(try db.get(key(i), in: tree) == v) }
    }

    /// Keys that share long prefixes, hold zero bytes, are shorter and longer than the sort's
    /// 16-byte prefix, and come more than once, in two trees, sorted in small chunks: every key
    /// reads its last value, and a scan gives each key once, in byte order.
    @Test("chunk sorting keeps byte order and the last value of a key, whatever its prefix")
    func chunkSortOrder() async throws {
        let byte = Gen.int(in: 0...3).map { [UInt8(0), 1, 0x41, 0xFF][$0] }
        let key = zip(Gen.int(in: 0...2), byte.array(of: 0...20)).map { prefix, rest -> [UInt8] in
            Array(repeating: 0x41, count: [0, 6, 14][prefix]) + rest
        }
        let input = zip(key, Gen.int(in: 0...1)).array(of: 1...300)
        await propertyCheck(count: 60, input: input) { puts in
            let dir = TempDir("bulk-sort")
            defer { dir.cleanup() }
            do {
                let db = try StorageEngine.open(path: dir.store, options: .quick())
                defer { try? db.close() }
                let trees = [try db.tree("a"), try db.tree("b")]
                let load = try db.bulkLoad(chunkBytes: 512)
                var model: [[[UInt8]: [UInt8]]] = [[:], [:]]
                for (n, (k, t)) in puts.enumerated() {
                    let value = Array("v\(n)".utf8)
                    try load.put(k, value, in: trees[t])
                    model[t][k] = value
                }
                try db.install(load)
                for t in 0..<2 {
                    var scanned: [[UInt8]] = []
                    try db.snapshot().scan(in: trees[t]) { k, v in
                        scanned.append(Array(k))
                        #expect(model[t][Array(k)] == Array(v), "key \(Array(k)): the last value put")
                        return true
                    }
                    #expect(scanned == model[t].keys.sorted { compareBytes($0, $1) < 0 }, "each key once, in byte order")
                }
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    /// A chunk is written on a thread of its own while the caller goes on: a chunk that cannot
    /// be written (the disk full) fails the load at the caller's next step (a later `put`), with
    /// the write's error, even when the disk has room again by `install`; the load then leaves
    /// no run behind, and the store keeps what it had and goes on taking commits.
    @Test("a chunk that cannot be written fails the load, which leaves no run", arguments: [0, 3_000, 40_000])
    func chunkWriteFails(budget: Int) throws {
        let dir = TempDir("bulk-fault")
        defer { dir.cleanup() }
        let fs = FaultyFileSystem()
        var options = EngineOptions.quick()
        options.fileSystem = fs
        let db = try StorageEngine.open(path: dir.store, options: options)
        defer { try? db.close() }
        let tree = try db.tree("t")
        try db.write { $0.put(key(1), bytes("committed"), in: tree) }
        let runsBefore = runFiles(dir)
        let load = try db.bulkLoad(chunkBytes: 4096)
        try load.put(key(900_000), bytes("first"), in: tree)
        fs.faults.withLock { $0.writeBudget = budget }
        var failure: EngineError?
        do {
            // Descending keys: the tree sorts, and every 4 KiB of records is a chunk. A chunk
            // starts only after the one before it is written, so a chunk that failed is
            // reported while later chunks are cut, before the disk has room again.
            for i in stride(from: 899_999, to: 890_000, by: -1) {
                try load.put(key(i), bytes(String(repeating: "v", count: 40)), in: tree)
            }
        } catch {
            failure = error
        }
        fs.faults.withLock { $0.writeBudget = nil }
        if failure == nil {
            do { try db.install(load) } catch { failure = error }
        }
        let error = try #require(failure, "a load whose chunks could not be written was installed")
        #expect(error.kind == .ioError, "\(error)")
        load.abandon()
        #expect(runFiles(dir) == runsBefore, "the failed load left runs behind")
        #expect(try db.get(key(1), in: tree) == bytes("committed"))
        #expect(try db.get(key(899_999), in: tree) == nil, "a record of the failed load is visible")
        try db.write { $0.put(key(2), bytes("after"), in: tree) }
        #expect(try db.get(key(2), in: tree) == bytes("after"))
    }
}
