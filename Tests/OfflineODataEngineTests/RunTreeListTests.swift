import Foundation
import Testing
@testable import OfflineODataEngine

/// The tree list in a run's footer (docs/StorageFormat.md, "Run files"): reads of a tree that a
/// run does not hold skip it without reading its filter or blocks, even when the tree lies inside
/// the run's key range.
@Suite struct RunTreeListTests {
    /// Values that do not compress, so the runs span many blocks.
    func value(_ tree: String, _ i: Int) -> [UInt8] {
        var random = SplitMix(seed: UInt64(i) &* 31 &+ UInt64(tree.utf8.first ?? 0))
        return Array("\(tree)-\(i)-".utf8) + (0..<40).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    @Test func aReadOfATreeTheRunDoesNotHoldReadsNothingOfIt() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let fs = FaultyFileSystem()
        var options = EngineOptions.quick()
        options.fileSystem = fs
        do {
            let db = try StorageEngine.open(path: dir.store, options: options)
            let a = try db.tree("a"), b = try db.tree("b"), c = try db.tree("c")
            #expect(a.id < b.id && b.id < c.id)
            try db.write { batch in
                for i in 0..<3_000 {
                    batch.put(key(i), value("a", i), in: a)
                    batch.put(key(i), value("c", i), in: c)
                }
            }
            try db.compactNow()
            // A later run that holds only `b`: its key range lies inside the first run's.
            try db.write { batch in for i in 0..<10 { batch.put(key(i), value("b", i), in: b) } }
            try db.close()
        }
        fs.reads.withLock { $0 = [:] }
        let db = try StorageEngine.open(path: dir.store, options: options)
        defer { try? db.close() }
        let a = try db.tree("a"), b = try db.tree("b"), c = try db.tree("c")
        // The large run holds `a` and `c` (and the engine's catalog); `b`, whose keys sort between
        // theirs, is in the small run the close flushed. Reading `b`, present keys or absent ones,
        // point reads or a scan, reads nothing of the large run.
        let runs = try FileManager.default.contentsOfDirectory(atPath: dir.store).filter { $0.hasSuffix(".oorun") }
        func size(_ name: String) -> Int {
            let attributes = try? FileManager.default.attributesOfItem(atPath: dir.store + "/" + name)
            return (attributes?[.size] as? NSNumber)?.intValue ?? 0
        }
        let large = try #require(runs.max { size($0) < size($1) })
        #expect(size(large) > 4 * RunFile.openReadBytes, "the large run is \(size(large)) bytes")
        let largePath = dir.store + "/" + large
        fs.reads.withLock { $0 = [:] }
        for i in 0..<2_000 { #expect(try db.get(key(i), in: b) == (i < 10 ? value("b", i) : nil)) }
        var seen = 0
        try db.snapshot().scan(in: b) { _, _ in
            seen += 1
            return true
        }
        #expect(seen == 10)
        let reads = fs.reads.withLock { $0 }
        #expect(reads[largePath] == nil, "reads of the run that holds no key of b: \(reads)")
        // Reads of `a` do read it (keys away from the first leaf, which the open's catalog
        // lookups read).
        for i in 1_500..<1_510 { #expect(try db.get(key(i), in: a) == value("a", i)) }
        #expect(fs.reads.withLock { $0[largePath] ?? 0 } > 0, "reads: \(fs.reads.withLock { $0 }), large run \(largePath) of \(runs)")
        // Every key of every tree reads back.
        for i in 0..<3_000 {
            #expect(try db.get(key(i), in: a) == value("a", i))
            #expect(try db.get(key(i), in: c) == value("c", i))
        }
        let report = try db.check()
        #expect(report.problems.isEmpty, "\(report.problems)")
    }

    @Test func footersRoundTripTheirTreeListAndRefuseABadOne() throws {
        var info = RunInfo(fileNumber: 3, fileSize: 10_000, entryCount: 5, tombstoneCount: 0, leafCount: 1, rawBytes: 100,
                           height: 1, minKey: [0, 0, 0, 2, 9], maxKey: [0, 0, 1, 0, 1], rootOffset: 48, rootLength: 100)
        // Without a list: what runs written before it have.
        #expect(try RunInfo.decodeFooter(info.encodeFooter(), fileNumber: 3, fileSize: 10_000, file: "r").trees == [])
        info.trees = [2, 7, 256]
        #expect(try RunInfo.decodeFooter(info.encodeFooter(), fileNumber: 3, fileSize: 10_000, file: "r") == info)
        let bad: [[UInt32]] = [[2, 2, 256], [2, 300, 256], [3, 256], [2, 7]]
        for trees in bad {
            var broken = info
            broken.trees = trees
            #expect(throws: EngineError.self, "trees \(trees)") {
                try RunInfo.decodeFooter(broken.encodeFooter(), fileNumber: 3, fileSize: 10_000, file: "r")
            }
        }
        // A count that does not match the bytes that follow.
        var cut = info.encodeFooter()
        cut.removeLast(2)
        #expect(throws: EngineError.self) { try RunInfo.decodeFooter(cut, fileNumber: 3, fileSize: 10_000, file: "r") }
    }

    @Test func aRunOfMoreTreesThanAListHoldsHasNoListAndIsStillRead() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        let fs = EngineOptions.quick().fileSystem
        let keys = KeyRing(suite: .none, dataKey: nil)
        for (number, treeCount) in [(UInt32(5), RunInfo.maxListedTrees), (UInt32(6), RunInfo.maxListedTrees + 1)] {
            let writer = try RunWriter(fs: fs, directory: dir.path, fileNumber: number, keys: keys, compress: true,
                                       blockSize: 4096, expectedEntries: treeCount * 2)
            var all: [[UInt8]] = []
            for t in 0..<treeCount {
                for k in 0..<2 {
                    let key: [UInt8] = [0, 0, UInt8(t >> 8), UInt8(t & 0xFF), UInt8(k)]
                    try writer.add(key: key, value: key)
                    all.append(key)
                }
            }
            let info = try writer.finish()
            #expect(info.trees.count == (treeCount <= RunInfo.maxListedTrees ? treeCount : 0))
            let run = try RunFile.open(fs: fs, directory: dir.path, fileNumber: number, keys: keys, cache: BlockCache(capacity: 1 << 20))
            #expect(run.info.trees == info.trees)
            #expect(try all.allSatisfy { try run.mayContain($0) })
        }
    }
}
