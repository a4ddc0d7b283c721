import Foundation
import Synchronization
import Testing
@testable import OfflineODataEngine

/// A file system that fails on command: ENOSPC after a byte budget (writing a torn prefix
/// first), EIO on sync. Wraps the real one, and counts the reads of each file (to see which
/// runs a read touches).
final class FaultyFileSystem: FileSystem, @unchecked Sendable {
    let base = PosixFileSystem()
    struct Faults {
        var writeBudget: Int?  // bytes still writable before ENOSPC
        var failSyncs = false
    }
    let faults = Mutex(Faults())
    /// Reads by path.
    let reads = Mutex<[String: Int]>([:])

    func open(_ path: String, writable: Bool) throws(EngineError) -> any EngineFile {
        FaultyFile(base: try base.open(path, writable: writable), fs: self, path: path)
    }
    func create(_ path: String) throws(EngineError) -> any EngineFile {
        FaultyFile(base: try base.create(path), fs: self, path: path)
    }
    func remove(_ path: String) throws(EngineError) { try base.remove(path) }
    func rename(_ from: String, to: String) throws(EngineError) { try base.rename(from, to: to) }
    func list(_ directory: String) throws(EngineError) -> [String] { try base.list(directory) }
    func makeDirectory(_ path: String) throws(EngineError) { try base.makeDirectory(path) }
    func syncDirectory(_ path: String) throws(EngineError) {
        if faults.withLock({ $0.failSyncs }) { throw EngineError(.ioError, "injected fsync failure", file: path, errno: EIO) }
        try base.syncDirectory(path)
    }
    func kind(of path: String) -> FileKind? { base.kind(of: path) }
    func lock(_ path: String) throws(EngineError) -> any EngineFile { try base.lock(path) }
}

final class FaultyFile: EngineFile, @unchecked Sendable {
    let base: any EngineFile
    let fs: FaultyFileSystem
    let path: String
    init(base: any EngineFile, fs: FaultyFileSystem, path: String) {
        self.base = base
        self.fs = fs
        self.path = path
    }
    func read(at offset: UInt64, count: Int) throws(EngineError) -> [UInt8] {
        fs.reads.withLock { $0[path, default: 0] += 1 }
        return try base.read(at: offset, count: count)
    }
    func write(_ bytes: [UInt8], at offset: UInt64) throws(EngineError) {
        let allowed: Int? = fs.faults.withLock { f in
            guard let budget = f.writeBudget else { return nil }
            f.writeBudget = max(0, budget - bytes.count)
            return budget
        }
        if let allowed, allowed < bytes.count {
            if allowed > 0 { try base.write(Array(bytes.prefix(allowed)), at: offset) }  // torn write
            throw EngineError(.ioError, "injected ENOSPC: no space left on device", file: path, errno: ENOSPC)
        }
        try base.write(bytes, at: offset)
    }
    func sync() throws(EngineError) {
        if fs.faults.withLock({ $0.failSyncs }) { throw EngineError(.ioError, "injected fsync failure", file: path, errno: EIO) }
        try base.sync()
    }
    func size() throws(EngineError) -> UInt64 { try base.size() }
    func truncate(to size: UInt64) throws(EngineError) { try base.truncate(to: size) }
    func close() { base.close() }
}

@Suite struct FaultInjectionTests {
    /// Commits `count` single-key batches, returning the model.
    func commit(_ db: StorageEngine, _ t: Tree, from: Int, count: Int) throws -> [Int: [UInt8]] {
        var model: [Int: [UInt8]] = [:]
        for i in from..<(from + count) {
            let v = bytes("value-\(i)-" + String(repeating: "x", count: i % 50))
            try db.write { b in
                b.put(key(i), v, in: t)
                b.put(key(i + 100_000), v, in: t)  // two keys per commit: atomicity is checkable
            }
            model[i] = v
        }
        return model
    }

    func expectState(_ db: StorageEngine, _ t: Tree, _ model: [Int: [UInt8]], maybe extra: Int? = nil,
                     sourceLocation: SourceLocation = #_sourceLocation) throws {
        for (i, v) in model {
            #expect(try db.get(key(i), in: t) == v, "commit \(i) lost", sourceLocation: sourceLocation)
        }
        if let extra {
            let a = try db.get(key(extra), in: t), b = try db.get(key(extra + 100_000), in: t)
            #expect((a == nil) == (b == nil), "commit \(extra) half-applied", sourceLocation: sourceLocation)
        }
        #expect(try db.check().isClean, sourceLocation: sourceLocation)
    }

    @Test func failedFsyncIsTypedAndTheStoreReopensAtTheLastGoodCommit() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let fs = FaultyFileSystem()
        var o = EngineOptions.quick()
        o.fileSystem = fs
        let db = try StorageEngine.open(path: dir.store, options: o)
        let t = try db.tree("t")
        let model = try commit(db, t, from: 0, count: 30)
        fs.faults.withLock { $0.failSyncs = true }
        do {
            try db.write { $0.put(key(30), bytes("x"), in: t); $0.put(key(100_030), bytes("x"), in: t) }
            Issue.record("expected the commit to fail")
        } catch {
            let e = try #require(error as? EngineError)
            #expect(e.kind == .ioError)
            #expect(e.errno == EIO)
        }
        fs.faults.withLock { $0.failSyncs = false }
        // After an fsync failure the store refuses writes until reopened (the page cache can't be trusted).
        #expect(throws: EngineError.self) { try db.write { $0.put(key(31), bytes("y"), in: t) } }
        db.simulateCrash()
        let reopened = try StorageEngine.open(path: dir.store, options: .quick())
        try expectState(reopened, try reopened.tree("t"), model, maybe: 30)
        try reopened.close()
    }

    @Test func diskFullMidWriteIsTypedAndTornBytesAreDropped() throws {
        for budget in [0, 10, 17, 60, 200, 1000] {
            let dir = TempDir()
            defer { dir.cleanup() }
            let fs = FaultyFileSystem()
            var o = EngineOptions.quick()
            o.fileSystem = fs
            let db = try StorageEngine.open(path: dir.store, options: o)
            let t = try db.tree("t")
            let model = try commit(db, t, from: 0, count: 20)
            fs.faults.withLock { $0.writeBudget = budget }
            var failedAt: Int?
            for i in 20..<400 {
                do {
                    try db.write { $0.put(key(i), bytes("late-\(i)"), in: t); $0.put(key(i + 100_000), bytes("late-\(i)"), in: t) }
                } catch {
                    let e = try #require(error as? EngineError)
                    #expect(e.kind == .ioError && e.errno == ENOSPC, "\(e)")
                    failedAt = i
                    break
                }
            }
            let failed = try #require(failedAt, "budget \(budget) never ran out")
            db.simulateCrash()
            let reopened = try StorageEngine.open(path: dir.store, options: .quick())
            let rt = try reopened.tree("t")
            var expected = model
            for i in 20..<failed { expected[i] = bytes("late-\(i)") }
            try expectState(reopened, rt, expected, maybe: failed)
            try reopened.close()
        }
    }

    /// Truncates the newest log at every byte offset of its last commit, and (as a crash inside
    /// the blocks a durable log reserves ahead, which read as zeros) zeroes it from there: each
    /// time the store opens with every earlier commit, and the last one whole or not at all.
    @Test func truncationAtEveryOffsetOfTheLastCommit() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        var o = EngineOptions.quick()
        o.memTableSize = 1 << 20  // keep everything in the log
        let db = try StorageEngine.open(path: dir.store, options: o)
        let t = try db.tree("t")
        let model = try commit(db, t, from: 0, count: 10)
        let logName = try #require(files(in: dir.store).filter { $0.hasSuffix(".oolog") }.last)
        let logPath = dir.store + "/" + logName
        // Where the log's frames end (the reserved tail of zeros follows): the writer's size.
        // (Finding the last byte that is not zero was wrong when a frame's sealed bytes ended in
        // a zero, one time in 256: the cut then fell inside the commit before.)
        func framesEnd() -> Int {
            var end = 0
            db.withWriterLockUnchecked { w in end = Int(w.log?.size ?? 0) }
            return end
        }
        let sizeBefore = framesEnd()
        try db.write { $0.put(key(10), bytes("last"), in: t); $0.put(key(100_010), bytes("last"), in: t) }
        let end = framesEnd()
        db.simulateCrash()
        let full = try #require(FileManager.default.contents(atPath: logPath))
        #expect(end > sizeBefore)
        #expect(full.count >= end, "the reserved tail of a durable log")
        // Zeroing from a cut restores the file exactly when only zeros were cut off (a sealed
        // frame may end in zero bytes): the commit then survives.
        let lastNonZero = (full[sizeBefore..<end].lastIndex { $0 != 0 } ?? sizeBefore) + 1
        for cut in sizeBefore...end {
            for zeroed in [false, true] {
                let copy = TempDir("trunc")
                defer { copy.cleanup() }
                try FileManager.default.copyItem(atPath: dir.store, toPath: copy.store)
                var damaged = full.prefix(cut)
                if zeroed { damaged.append(Data(count: full.count - cut)) }
                try damaged.write(to: URL(fileURLWithPath: copy.store + "/" + logName))
                let reopened = try StorageEngine.open(path: copy.store, options: .quick())
                let rt = try reopened.tree("t")
                try expectState(reopened, rt, model, maybe: 10)
                let survives = zeroed ? cut >= lastNonZero : cut == end
                #expect((try reopened.get(key(10), in: rt) != nil) == survives, "cut at \(cut) of \(sizeBefore)…\(end), zeroed \(zeroed)")
                try reopened.close()
            }
        }
    }

    /// A log closed by a crash keeps its reserved tail: replayed as an older log too (after the
    /// next open started another and crashed again), its zeros are its end, not damage; damage
    /// before them still is.
    @Test func reservedTailOfAnOlderLog() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        var o = EngineOptions.quick()
        o.memTableSize = 1 << 20
        let db = try StorageEngine.open(path: dir.store, options: o)
        let t = try db.tree("t")
        let first = try commit(db, t, from: 0, count: 10)
        db.simulateCrash()
        let logs = files(in: dir.store).filter { $0.hasSuffix(".oolog") }
        let older = try #require(logs.last)
        let withTail = try #require(FileManager.default.contents(atPath: dir.store + "/" + older))
        let again = try StorageEngine.open(path: dir.store, options: o)
        let t2 = try again.tree("t")
        let second = try commit(again, t2, from: 10, count: 10)
        again.simulateCrash()
        // The first log as the crash left it (the open cut its tail; put it back): now not the newest.
        #expect(files(in: dir.store).filter { $0.hasSuffix(".oolog") }.count >= 2)
        try withTail.write(to: URL(fileURLWithPath: dir.store + "/" + older))
        let copy = TempDir("older-damaged")
        defer { copy.cleanup() }
        try FileManager.default.copyItem(atPath: dir.store, toPath: copy.store)
        let reopened = try StorageEngine.open(path: dir.store, options: o)
        try expectState(reopened, try reopened.tree("t"), first.merging(second) { a, _ in a }, maybe: nil)
        try reopened.close()
        // A byte of its frames damaged: the older log is corrupt, whatever follows.
        var damaged = withTail
        let end = (damaged.lastIndex { $0 != 0 } ?? 0) + 1
        damaged[end - 20] ^= 0x40
        try damaged.write(to: URL(fileURLWithPath: copy.store + "/" + older))
        #expect(throws: EngineError.self) { _ = try StorageEngine.open(path: copy.store, options: o) }
    }

    /// Flips single bits anywhere in the store's files: opening either fails with a typed error
    /// or succeeds, and then every read returns the right value or a typed corruption error —
    /// never a wrong value, never a crash.
    @Test func bitFlipsAnywhereAreDetected() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        var model: [Int: [UInt8]] = [:]
        do {
            var o = EngineOptions.quick()
            o.memTableSize = 4096
            let db = try StorageEngine.open(path: dir.store, options: o)
            let t = try db.tree("t")
            model = try commit(db, t, from: 0, count: 120)  // most in runs, the rest in the log
            let extra = try commit(db, t, from: 120, count: 5)
            model.merge(extra) { a, _ in a }
            db.simulateCrash()
        }
        // An undamaged copy of the crashed store opens with everything.
        do {
            let copy = TempDir("flip")
            defer { copy.cleanup() }
            try FileManager.default.copyItem(atPath: dir.store, toPath: copy.store)
            let db = try StorageEngine.open(path: copy.store, options: .quick())
            try expectState(db, try db.tree("t"), model)
            db.simulateCrash()
        }
        var rng = SplitMix(seed: 2024)
        let names = files(in: dir.store).filter { $0 != "LOCK" }
        var opened = 0, refused = 0, readErrors = 0
        for trial in 0..<300 {
            let name = names[trial % names.count]
            let original = try #require(FileManager.default.contents(atPath: dir.store + "/" + name))
            guard !original.isEmpty else { continue }
            let copy = TempDir("flip")
            defer { copy.cleanup() }
            try FileManager.default.copyItem(atPath: dir.store, toPath: copy.store)
            var damaged = [UInt8](original)
            let bit = Int(rng.next() % UInt64(damaged.count * 8))
            damaged[bit / 8] ^= UInt8(1 << (bit % 8))
            try Data(damaged).write(to: URL(fileURLWithPath: copy.store + "/" + name))
            let db: StorageEngine
            do {
                db = try StorageEngine.open(path: copy.store, options: .quick())
            } catch {
                refused += 1
                if refused < 4 { print("flip in \(name) at bit \(bit): \(error)") }
                #expect([.corruption, .notAStore, .wrongPassphrase, .unsupportedFormatVersion].contains(error.kind),
                        "\(name) bit \(bit): \(error)")
                continue
            }
            opened += 1
            let t = try db.tree("t")
            var missingLast = 0
            for (i, v) in model {
                do {
                    let got = try db.get(key(i), in: t)
                    if got == nil && i >= 120 { missingLast += 1; continue }  // the torn-tail rule may drop the tail
                    #expect(got == v, "\(name) bit \(bit): commit \(i) reads a wrong value")
                } catch {
                    #expect(error.kind == .corruption, "\(name) bit \(bit): \(error)")
                    readErrors += 1
                }
            }
            try? db.close()
        }
        print("bit flips: \(opened) opened (\(readErrors) reads reported corruption), \(refused) refused with typed errors")
        #expect(opened + refused > 0)
    }
}

@Suite struct ConcurrencyTests {
    /// A writer rewrites every key with the same version in each commit while compactions run;
    /// readers must always see one version across all keys of a snapshot.
    @Test func readersSeeConsistentSnapshotsWhileWritingAndCompacting() async throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let db = try StorageEngine.open(path: dir.store, options: .quick())
        let t = try db.tree("t")
        let keys = 200
        try db.write { b in for k in 0..<keys { b.put(key(k), bytes("v0"), in: t) } }
        try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                for version in 1...60 {
                    try db.write { b in for k in 0..<keys { b.put(key(k), bytes("v\(version)"), in: t) } }
                    if version % 15 == 0 { try db.compactNow() }
                }
                return 0
            }
            for _ in 0..<3 {
                group.addTask {
                    var checks = 0
                    for _ in 0..<40 {
                        let snap = try db.snapshot()
                        var versions = Set<[UInt8]>()
                        var count = 0
                        try snap.scan(in: t) { _, v in versions.insert(v); count += 1; return true }
                        #expect(versions.count == 1, "a snapshot mixed versions: \(versions.map { String(decoding: $0, as: UTF8.self) })")
                        #expect(count == keys)
                        checks += 1
                    }
                    return checks
                }
            }
            var total = 0
            for try await n in group { total += n }
            #expect(total == 120)
        }
        try db.close()
    }

    /// `check` while a writer keeps flushing (a 4 KiB memtable): a flush that retires and deletes
    /// a log after `check` listed the directory is not damage. (The model-based test found
    /// `check` reporting "open failed: No such file" for such a log, about once in 400 runs.)
    @Test func checkIsCleanWhileFlushesRetireLogs() async throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        var options = EngineOptions.quick()
        options.memTableSize = 4096
        options.blockSize = 512
        let db = try StorageEngine.open(path: dir.store, options: options)
        let t = try db.tree("t")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for round in 0..<400 {
                    try db.write { b in for k in 0..<8 { b.put(key(round * 8 + k), [UInt8](repeating: 7, count: 200), in: t) } }
                }
            }
            group.addTask {
                for _ in 0..<150 {
                    let report = try db.check()
                    #expect(report.isClean, "check while flushing: \(report.problems)")
                }
            }
            try await group.waitForAll()
        }
        #expect(try db.check().isClean)
        try db.close()
    }

    @Test func concurrentCommittersAreGroupedAndAllDurable() async throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let db = try StorageEngine.open(path: dir.store, options: .quick())
        let t = try db.tree("t")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for w in 0..<4 {
                group.addTask {
                    for i in 0..<100 { try db.write { $0.put(key(w * 1000 + i), bytes("w\(w)"), in: t) } }
                }
            }
            try await group.waitForAll()
        }
        db.simulateCrash()
        let reopened = try StorageEngine.open(path: dir.store, options: .quick())
        #expect(try reopened.snapshot().count(in: try reopened.tree("t")) == 400)
        try reopened.close()
    }
}
