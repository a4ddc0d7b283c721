import Foundation
import Testing
@testable import OfflineODataEngine

/// Partitioned Bloom filters (format version 2) and reading a version 1 store.
@Suite struct FormatCompatibilityTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    func key(_ i: Int) -> [UInt8] { Array("key-\(i * 7919 % 100_003)".utf8) }

    /// More keys than one partition: every key is found by point reads after a reopen, absent keys
    /// are not, the filter is not read by `open` (nothing pinned); a small run answers its first
    /// probes through the cache and then pins its whole filter with the index (a larger run's
    /// partitions always go through the cache).
    @Test func partitionedFiltersFindEveryKeyAndAreReadOnDemand() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let count = BloomFilter.partitionKeys * 2 + 1_000
        do {
            let db = try StorageEngine.open(path: dir.store, options: .quick())
            let t = try db.tree("t")
            for start in stride(from: 0, to: count, by: 1_000) {
                try db.write { b in for i in start..<min(count, start + 1_000) { b.put(key(i), Array("v\(i)".utf8), in: t) } }
            }
            try db.compactNow()
            try db.close()
        }
        let db = try StorageEngine.open(path: dir.store, options: .quick())
        defer { try? db.close() }
        // A whole-run filter would pin 1.25 bytes per key at open; opening reads at most the
        // filter index and index blocks on the path of the engine's own catalog lookups, and
        // holds the run's last `RunFile.openReadBytes` until those are read.
        #expect(db.cache.pinned < count / 2 + RunFile.openReadBytes, "opening pinned \(db.cache.pinned) bytes for \(count) keys")
        let t = try db.tree("t")
        #expect(try db.get(key(1), in: t) == Array("v1".utf8))
        // A run whose partitions take at most `RunFile.pinnedFilterLimit` (this one) answers its
        // first probes a partition at a time through the block cache: the first read after an
        // open pins the filter index, not the filter.
        let first = db.cache.pinned
        #expect(first < count, "after the first read: pinned \(first) bytes for \(count) keys")
        for i in 0..<count { #expect(try db.get(key(i), in: t) == Array("v\(i)".utf8)) }
        // After `RunFile.probesBeforePinning` probes it has read all partitions and pinned them:
        // about 1.25 bytes per key.
        let pinned = db.cache.pinned
        #expect(pinned >= first + count, "after reading every key: pinned \(pinned) bytes for \(count) keys (first \(first))")
        for i in count..<(count + 2_000) { #expect(try db.get(Array("absent-\(i)".utf8), in: t) == nil) }
        // The whole filter and the B-tree's index blocks; the partitions were not read again.
        #expect(db.cache.pinned < count * 5 / 2, "pinned \(db.cache.pinned) bytes for \(count) keys")
        let report = try db.check()
        #expect(report.problems.isEmpty, "\(report.problems)")
    }

    @Test func writerCutsPartitionsAndRejectsAbsentKeys() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        let fs = EngineOptions.quick().fileSystem
        let keys = KeyRing(suite: .none, dataKey: nil)
        let writer = try RunWriter(fs: fs, directory: dir.path, fileNumber: 7, keys: keys, compress: true,
                                   blockSize: 4096, expectedEntries: 10_000)
        let sorted = (0..<10_000).map { Array("k\(String(format: "%06d", $0))".utf8) }
        for k in sorted { try writer.add(key: k, value: k) }
        let info = try writer.finish()
        #expect(info.filterLength > 0)
        let run = try RunFile.open(fs: fs, directory: dir.path, fileNumber: 7, keys: keys, cache: BlockCache(capacity: 1 << 20))
        #expect(try sorted.allSatisfy { try run.mayContain($0) })
        // Keys inside the run's range but absent: about 1% pass the filter.
        let absent = (0..<10_000).map { Array("k\(String(format: "%06d", $0))x".utf8) }
        let falsePositives = try absent.filter { try run.mayContain($0) }.count
        #expect(falsePositives < 300, "false positives: \(falsePositives) of 10,000")
        // Outside the key range: no filter needed.
        #expect(try !run.mayContain(Array("a".utf8)))
        #expect(try !run.mayContain(Array("z".utf8)))
        // The same run with its partitions through the block cache (a run over the pinning limit)
        // answers exactly the same.
        let cached = try RunFile.open(fs: fs, directory: dir.path, fileNumber: 7, keys: keys, cache: BlockCache(capacity: 1 << 20),
                                      pinFilterBytes: 0)
        #expect(try sorted.allSatisfy { try cached.mayContain($0) })
        #expect(try absent.filter { try cached.mayContain($0) }.count == falsePositives)
        #expect(try cached.get(sorted[1234]) == .value(sorted[1234]))
        #expect(try cached.get(absent[1234]) == .absent)
    }

    /// A store written by format version 1 (Fixtures/format-v1-store): opened, read through point
    /// reads (its whole-run filters), checked, then compacted into version 2 runs.
    @Test func versionOneStoreOpensReadsAndCompactsToVersionTwo() throws {
        let fixture = Self.repositoryRoot + "/Fixtures/format-v1-store"
        let dir = TempDir()
        defer { dir.cleanup() }
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture, toPath: dir.store)
        try? FileManager.default.removeItem(atPath: dir.store + "/README.md")
        func runVersions() throws -> [UInt16] {
            try FileManager.default.contentsOfDirectory(atPath: dir.store).filter { $0.hasSuffix(".oorun") }.map { name in
                let bytes = [UInt8](try #require(FileManager.default.contents(atPath: dir.store + "/" + name)))
                return UInt16(bytes[8]) | UInt16(bytes[9]) << 8
            }
        }
        #expect(try runVersions() == [1])
        let options = EngineOptions(encryption: .passphrase("a brand new passphrase"))
        var records: [[UInt8]: [UInt8]] = [:]
        do {
            let db = try StorageEngine.open(path: dir.store, options: options)
            for name in ["SalesOrderItems"] {
                let t = try db.tree(name)
                var n = 0
                try db.snapshot().scan(in: t) { k, v in
                    records[[UInt8](name.utf8) + [0] + k] = v
                    n += 1
                    return true
                }
                #expect(n > 0, "tree \(name) is empty")
                try db.snapshot().scan(in: t) { k, v in
                    #expect((try? db.get(k, in: t)) == v)
                    return true
                }
                #expect(try db.get(Array("no such key".utf8), in: t) == nil)
            }
            #expect(try db.check().problems.isEmpty)
            try db.compactNow()
            try db.close()
        }
        #expect(try runVersions().allSatisfy { $0 == Format.formatVersion })
        let db = try StorageEngine.open(path: dir.store, options: options)
        defer { try? db.close() }
        var after = 0
        for name in ["SalesOrderItems"] {
            let t = try db.tree(name)
            try db.snapshot().scan(in: t) { k, v in
                #expect(records[[UInt8](name.utf8) + [0] + k] == v)
                #expect((try? db.get(k, in: t)) == v)
                after += 1
                return true
            }
        }
        #expect(after == records.count)
        #expect(try db.check().problems.isEmpty)
    }
}
