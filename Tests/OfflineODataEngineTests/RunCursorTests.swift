import Testing
@testable import OfflineODataEngine

/// A run cursor stepping across leaf and index-block boundaries, both ways, against the sorted
/// keys. The run is tall (512-byte blocks: height ≥ 3), so steps climb more than one level,
/// and each walk changes direction and runs off both ends.
@Suite struct RunCursorTests {
    @Test func stepsAcrossLeavesAndIndexLevelsBothWays() throws {
        let dir = TempDir("runcursor")
        defer { dir.cleanup() }
        var options = EngineOptions.quick(.unencrypted)
        options.blockSize = 512
        let db = try StorageEngine.open(path: dir.store, options: options)
        let tree = try db.tree("t")
        let count = 6_000
        for start in stride(from: 0, to: count, by: 1_000) {
            try db.write { b in
                for i in start..<(start + 1_000) { b.put(key(i * 2), bytes("value \(i * 2)"), in: tree) }
            }
        }
        try db.compactNow()
        let snapshot = try db.snapshot()
        let run = try #require(snapshot.runs.first)
        #expect(snapshot.runs.count == 1)
        #expect(run.info.height >= 3, "the run must have two index levels, has height \(run.info.height)")
        // The run holds the catalog's entry for tree "t" (tree 0 sorts first), then t's keys.
        let prefix = tree.internalKey([])
        let keys = [Tree.catalog.internalKey(bytes("t"))] + (0..<count).map { prefix + key($0 * 2) }
        func value(_ i: Int) -> [UInt8]? { i == 0 ? nil : bytes("value \((i - 1) * 2)") }

        let cursor = RunCursor(run: run)
        var rng = SplitMix(seed: 11)
        for walk in 0..<40 {
            // Seek to an existing key, or to a missing one between two (odd numbers).
            let target = Int(rng.next() % UInt64(count * 2 + 2))
            try cursor.seek(prefix + key(target))
            var expected = keys.firstIndex { $0.lexicographicallyPrecedes(prefix + key(target)) == false } ?? keys.count
            #expect(cursor.isValid == (expected < keys.count), "walk \(walk): seek to \(target)")
            // Forward, then backward, each far enough to cross leaves and index blocks and
            // sometimes to run off an end.
            for (direction, steps) in [(1, Int(rng.next() % 700)), (-1, Int(rng.next() % 1_400))] {
                guard cursor.isValid else { break }
                for _ in 0..<steps {
                    #expect(cursor.key == keys[expected], "walk \(walk) at \(expected)")
                    if expected > 0 { #expect(cursor.value == value(expected)) }
                    if direction > 0 { try cursor.next() } else { try cursor.previous() }
                    expected += direction
                    if expected < 0 || expected >= keys.count {
                        #expect(!cursor.isValid, "walk \(walk): stepped past the end but still valid")
                        // Off the end, further steps leave it there.
                        try cursor.next()
                        try cursor.previous()
                        #expect(!cursor.isValid)
                        break
                    }
                    #expect(cursor.isValid)
                }
            }
        }

        // seekForPrev: the last key ≤ the target; seekToFirst / seekToLast.
        try cursor.seekForPrev(prefix + key(1_001))
        #expect(cursor.key == prefix + key(1_000))
        try cursor.previous()
        #expect(cursor.key == prefix + key(998))
        try cursor.seekToLast()
        #expect(cursor.key == keys[keys.count - 1])
        try cursor.next()
        #expect(!cursor.isValid)
        try cursor.seekToFirst()
        #expect(cursor.key == keys[0])
        try cursor.previous()
        #expect(!cursor.isValid)
        try db.close()
    }
}
