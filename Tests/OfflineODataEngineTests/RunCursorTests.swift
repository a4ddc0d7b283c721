import Testing
@testable import OfflineODataEngine

/// A run cursor stepping across leaf and index-block boundaries, both ways, against the sorted
/// keys. The run is tall (512-byte blocks: height ≥ 3), so steps climb more than one level,
/// and each walk changes direction and runs off both ends.
@Suite struct RunCursorTests {
    /// An unencrypted store with 512-byte blocks, so a few thousand keys make a run of height ≥ 3.
    static func tallStore(_ dir: TempDir, memTableSize: Int? = nil) throws -> StorageEngine {
        var options = EngineOptions.quick(.unencrypted)
        options.blockSize = 512
        if let memTableSize { options.memTableSize = memTableSize }
        return try StorageEngine.open(path: dir.store, options: options)
    }

    @Test func stepsAcrossLeavesAndIndexLevelsBothWays() throws {
        let dir = TempDir("runcursor")
        defer { dir.cleanup() }
        let db = try Self.tallStore(dir)
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

    /// A seek from a positioned cursor to a target in the leaf it stands on is answered in that
    /// leaf (no descent). The answer, and every step after it across leaves and index blocks,
    /// must be those of a cursor sought from the root: targets just before and after the
    /// current position, at a leaf's first and last key, between two leaves, and far away.
    @Test func seeksFromAPositionedCursorMatchAFreshOne() throws {
        let dir = TempDir("runcursor-reseek")
        defer { dir.cleanup() }
        let db = try Self.tallStore(dir)
        let tree = try db.tree("t")
        let count = 4_000
        try db.write { b in
            for i in 0..<count { b.put(key(i * 2), bytes("value \(i * 2)"), in: tree) }
        }
        try db.compactNow()
        let run = try #require(try db.snapshot().runs.first)
        #expect(run.info.height >= 3, "the run must have two index levels, has height \(run.info.height)")
        let prefix = tree.internalKey([])

        let reused = RunCursor(run: run)
        var rng = SplitMix(seed: 29)
        var at = Int(rng.next() % UInt64(count * 2))
        try reused.seek(prefix + key(at))
        for seekNumber in 0..<2_000 {
            // Mostly near the last target (inside the leaf, at its edges, just past it), now
            // and then anywhere; odd numbers are missing keys between two stored ones.
            let near = Int(rng.next() % 41) - 20
            at = rng.next() % 8 == 0 ? Int(rng.next() % UInt64(count * 2 + 4)) : max(0, at + near)
            try reused.seek(prefix + key(at))
            let fresh = RunCursor(run: run)
            try fresh.seek(prefix + key(at))
            #expect(reused.isValid == fresh.isValid, "seek \(seekNumber) to \(at)")
            guard fresh.isValid else { continue }
            #expect(reused.key == fresh.key, "seek \(seekNumber) to \(at)")
            // Steps away from the sought position follow the same entries (the index path above
            // a leaf found without a descent must still lead to its neighbours).
            let steps = Int(rng.next() % 40)
            let forward = rng.next() % 2 == 0
            for step in 0..<steps {
                if forward { try reused.next(); try fresh.next() } else { try reused.previous(); try fresh.previous() }
                #expect(reused.isValid == fresh.isValid, "seek \(seekNumber) to \(at), step \(step)")
                guard fresh.isValid else { break }
                #expect(reused.key == fresh.key, "seek \(seekNumber) to \(at), step \(step)")
            }
            if !reused.isValid { try reused.seek(prefix + key(at)) }
        }
        try db.close()
    }

    /// `KeyValueCursor.reposition` moves a cursor to another range, forward or backward, over
    /// memtables and several runs (newer versions and tombstones shadowing older ones), and
    /// reads exactly what a new cursor over that range reads.
    @Test func repositionedCursorReadsWhatANewCursorReads() throws {
        let dir = TempDir("kvcursor-reposition")
        defer { dir.cleanup() }
        // A small memtable: several flushes, so runs and memtables both hold versions.
        let db = try Self.tallStore(dir, memTableSize: 16 << 10)
        let tree = try db.tree("t")
        let other = try db.tree("u")
        var rng = SplitMix(seed: 31)
        // Three generations, spread over runs and memtables by the small memtable.
        for generation in 0..<3 {
            try db.write { b in
                for i in 0..<1_500 where rng.next() % 3 != 0 {
                    if rng.next() % 7 == 0 { b.delete(key(i), in: tree) } else { b.put(key(i), bytes("g\(generation) \(i)"), in: tree) }
                    if i % 5 == 0 { b.put(key(i), bytes("other \(i)"), in: other) }
                }
            }
        }
        let snapshot = try db.snapshot()
        for reverse in [false, true] {
            var reused = try snapshot.cursor(in: tree, from: key(10), to: key(20), reverse: reverse)
            for reposition in 0..<300 {
                let a = Int(rng.next() % 1_600), b = a + Int(rng.next() % 60)
                let start: [UInt8]? = rng.next() % 10 == 0 ? nil : key(a)
                let end: [UInt8]? = rng.next() % 10 == 0 ? nil : key(b)
                // Read a few entries of the old range first: repositioning happens mid-range too.
                for _ in 0..<Int(rng.next() % 3) { _ = try reused.next() }
                try reused.reposition(in: tree, from: start, to: end)
                var fresh = try snapshot.cursor(in: tree, from: start, to: end, reverse: reverse)
                var read = 0
                while true {
                    let x = try reused.next(), y = try fresh.next()
                    #expect(x?.key == y?.key && x?.value == y?.value, "reverse \(reverse), reposition \(reposition) to \(a)..<\(b), entry \(read)")
                    if x == nil || y == nil || read > 80 { break }
                    read += 1
                }
            }
        }
        try db.close()
    }
}
