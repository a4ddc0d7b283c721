import Dispatch
import Synchronization

/// An open store: an encrypted, compressed, crash-safe, append-only key-value engine with
/// named ordered trees (docs/StorageFormat.md describes every byte it writes).
///
/// Thread-safe. Many readers run concurrently with one writer at a time; commits from several
/// threads are grouped into one log write and one sync (group commit). Memtables are flushed
/// into immutable runs, and runs merged, on a background queue while reads and writes go on.
public final class StorageEngine: Sendable {
    public let directory: String
    let options: EngineOptions
    let fs: any FileSystem
    let keys: KeyRing
    let cache: BlockCache
    /// The spools (`spool-<name>.oospool`) that were in the folder when the engine opened, by
    /// name, from the listing the open made anyway: an owner that removes leftover spools of its
    /// own at open need not list the folder again.
    public let spoolsAtOpen: [String]
    let lockFile: any EngineFile

    let state: Mutex<State>
    private let writer: Mutex<WriterState>
    private let queue = Mutex<[PendingCommit]>([])
    /// Callers of `waitDurable` leaving the sync to another (group commit).
    let durableWaiters = DurableWaiters()
    let fileNumbers: Mutex<UInt32>
    let flushQueue = DispatchQueue(label: "OfflineODataEngine.flush")
    let flushGroup = DispatchGroup()

    struct State: ~Copyable {
        var active = MemTable()
        var frozen: MemTable?
        var runs: [RunFile] = []
        var manifest: ManifestData
        /// Last commit applied (visible to readers).
        var sequence: UInt64 = 0
        /// Last commit in the frozen memtable (what its flush makes durable in a run).
        var frozenSequence: UInt64 = 0
        var trees: [String: UInt32] = [:]
        var nextTreeID: UInt32 = 1
        var closed = false
        /// After a failed write or sync the store refuses writes until reopened.
        var failure: EngineError?
        var statistics = EngineCounters()
    }

    struct WriterState: ~Copyable {
        var log: LogWriter?
        /// The current log holds commits made with `durable: false` that no sync covers yet.
        var unsynced = false
        /// Every commit up to this sequence is on stable storage (`.full` durability).
        var syncedSequence: UInt64 = 0
    }

    final class PendingCommit: @unchecked Sendable {
        // Written by the group leader while it holds the writer lock; read after that.
        let records: [LogRecord]
        /// False: the commit returns without waiting for a sync of its own (see `commit(_:durable:)`).
        let durable: Bool
        var done = false
        var error: EngineError?
        var sequence: UInt64 = 0
        init(records: [LogRecord], durable: Bool = true) {
            self.records = records
            self.durable = durable
        }
    }

    init(directory: String, options: EngineOptions, keys: KeyRing, lockFile: any EngineFile, manifest: ManifestData,
         runs: [RunFile], active: MemTable, sequence: UInt64, nextFileNumber: UInt32, cache: BlockCache,
         spoolsAtOpen: [String] = []) {
        self.spoolsAtOpen = spoolsAtOpen
        self.directory = directory
        self.options = options
        self.fs = options.fileSystem
        self.keys = keys
        self.lockFile = lockFile
        self.cache = cache
        var s = State(manifest: manifest)
        s.runs = runs
        s.active = active
        s.sequence = sequence
        s.frozenSequence = sequence
        state = Mutex(s)
        writer = Mutex(WriterState())
        fileNumbers = Mutex(nextFileNumber)
    }

    func allocateFileNumber() -> UInt32 {
        fileNumbers.withLock { n in
            defer { n += 1 }
            return n
        }
    }

    // MARK: Reading

    /// A consistent view of the store as of the last completed commit.
    public func snapshot() throws(EngineError) -> Snapshot {
        try state.withLock { s throws(EngineError) -> Snapshot in
            if s.closed { throw EngineError(.storeClosed, "the store is closed") }
            var mems = [s.active]
            if let f = s.frozen { mems.append(f) }
            return Snapshot(mems: mems, runs: s.runs, sequence: s.sequence)
        }
    }

    /// Runs `body` against one snapshot.
    public func read<T>(_ body: (Snapshot) throws -> T) throws -> T {
        try body(try snapshot())
    }

    public func get(_ key: [UInt8], in tree: Tree) throws(EngineError) -> [UInt8]? {
        let k = tree.internalKey(key)
        let (active, frozen, runs) = try state.withLock { s throws(EngineError) in
            if s.closed { throw EngineError(.storeClosed, "the store is closed") }
            return (s.active, s.frozen, s.runs)
        }
        // No snapshot array: the one or two memtables are passed as they are.
        if let frozen { return try Snapshot.lookup(k, mems: [active, frozen], runs: runs) }
        return try Snapshot.lookup(k, mems: CollectionOfOne(active), runs: runs)
    }

    // MARK: Trees

    /// The tree with this name, created (durably, in its own commit) if it does not exist.
    public func tree(_ name: String) throws(EngineError) -> Tree {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 255 else {
            throw EngineError(.invalidArgument, "a tree name must be 1…255 bytes of UTF-8, got \(bytes.count)")
        }
        if let id = try existingTreeID(name) { return Tree(name: name, id: id) }
        // Serialize creation: under the writer lock, check again, then commit the catalog entry.
        return try writer.withLock { w throws(EngineError) -> Tree in
            if let id = try existingTreeID(name) { return Tree(name: name, id: id) }
            let id = state.withLock { $0.nextTreeID }
            var value = ByteWriter()
            value.u32(id)
            let pending = PendingCommit(records: [LogRecord(key: Tree.catalog.internalKey(bytes), value: value.bytes)])
            try processGroup([pending], &w)
            if let e = pending.error { throw e }
            return Tree(name: name, id: id)
        }
    }

    /// The tree with this name if it exists.
    public func existingTree(_ name: String) throws(EngineError) -> Tree? {
        try existingTreeID(name).map { Tree(name: name, id: $0) }
    }

    public func treeNames() throws(EngineError) -> [String] {
        try state.withLock { s throws(EngineError) in
            if s.closed { throw EngineError(.storeClosed, "the store is closed") }
            return s.trees.keys.sorted()
        }
    }

    private func existingTreeID(_ name: String) throws(EngineError) -> UInt32? {
        try state.withLock { s throws(EngineError) in
            if s.closed { throw EngineError(.storeClosed, "the store is closed") }
            return s.trees[name]
        }
    }

    /// Applies a catalog record to the in-memory name → id map.
    static func noteCatalog(_ record: LogRecord, into s: inout State) {
        guard record.key.count > 4, record.key[0] == 0, record.key[1] == 0, record.key[2] == 0, record.key[3] == 0,
              let v = record.value, v.count == 4 else { return }
        let id = UInt32(v[0]) | UInt32(v[1]) << 8 | UInt32(v[2]) << 16 | UInt32(v[3]) << 24
        s.trees[String(decoding: record.key[4...], as: UTF8.self)] = id
        s.nextTreeID = max(s.nextTreeID, id + 1)
    }

    // MARK: Writing

    /// Applies the writes of `body` atomically: all or none, visible to readers together.
    @discardableResult
    public func write(_ body: (inout WriteBatch) throws -> Void) throws -> UInt64 {
        var batch = WriteBatch()
        try body(&batch)
        return try commit(batch)
    }

    /// Commits a batch; returns its sequence number. With `.full` durability the batch is on
    /// stable storage when this returns.
    ///
    /// `durable: false` skips the sync of this commit even under `.full` durability: the batch
    /// is visible at once and written to the OS, and it becomes durable with the next synced
    /// commit (the log is replayed as a prefix, so a commit survives a power loss only together
    /// with every commit before it). For the staged pieces of one larger write whose last
    /// commit is synced (a media stream's chunks, docs/StoreFormat.md §11).
    @discardableResult
    public func commit(_ batch: WriteBatch, durable: Bool = true) throws(EngineError) -> UInt64 {
        try batch.validate()
        if batch.isEmpty { return state.withLock { $0.sequence } }
        if batch.records.contains(where: { $0.key.starts(with: [0, 0, 0, 0]) }) {
            throw EngineError(.invalidArgument, "the catalog tree cannot be written directly")
        }
        let pending = PendingCommit(records: batch.records, durable: durable)
        queue.withLock { $0.append(pending) }
        try writer.withLock { w throws(EngineError) in
            if pending.done { return }
            let group = queue.withLock { q in
                defer { q.removeAll(keepingCapacity: true) }
                return q
            }
            try processGroup(group, &w)
        }
        if let e = pending.error { throw e }
        return pending.sequence
    }

    /// Returns once every commit up to `sequence` is on stable storage (`.full` durability;
    /// at once otherwise): for commits made with `durable: false` by a caller that released its
    /// own locks first. Callers waiting together share one sync of the log: commits made while
    /// one sync runs are covered by the next (group commit).
    ///
    /// `leavingSyncToOthersFor`: first wait up to that long for another caller's sync to cover
    /// `sequence` (a writer known to commit next), then sync if none did.
    public func waitDurable(_ sequence: UInt64, leavingSyncToOthersFor wait: Duration? = nil) throws(EngineError) {
        guard options.durability == .full else { return }
        if let wait, durableWaiters.waitUntilSynced(sequence, for: wait) { return }
        try writer.withLock { w throws(EngineError) in
            if w.syncedSequence >= sequence { return }
            if let failure = state.withLock({ $0.failure }) { throw failure }
            guard let log = w.log else { return }   // the log was closed after a sync (rotation)
            let through = state.withLock { $0.sequence }
            do throws(EngineError) { try log.sync() } catch {
                state.withLock { $0.failure = error }
                throw error
            }
            w.unsynced = false
            w.syncedSequence = through
            state.withLock { $0.statistics.logSyncs += 1 }
            durableWaiters.synced(through: through)
        }
    }

    /// Group commit, run by the writer-lock holder:
    /// 1. refuse if the store failed or closed;
    /// 2. append every commit's frames to the log;
    /// 3. one sync for the group (`.full`);
    /// 4. apply to the memtable and publish to readers;
    /// 5. freeze and flush the memtable when it is full.
    private func processGroup(_ group: [PendingCommit], _ w: inout WriterState) throws(EngineError) {
        func finish(_ error: EngineError?) {
            for p in group {
                p.error = error
                p.done = true
            }
        }
        // 1.
        let blocked: EngineError? = state.withLock { s in
            if s.closed { return EngineError(.storeClosed, "the store is closed") }
            return s.failure
        }
        if let blocked { finish(blocked); return }
        var sequence = state.withLock { $0.sequence }
        do {
            // 2.
            let log = try currentLog(&w)
            for p in group {
                sequence += 1
                p.sequence = sequence
                try log.append(sequence: sequence, records: p.records)
            }
            // 3.
            if options.durability == .full {
                if group.contains(where: \.durable) {
                    try log.sync()
                    w.unsynced = false
                    w.syncedSequence = sequence
                    state.withLock { $0.statistics.logSyncs += 1 }
                    durableWaiters.synced(through: sequence)
                } else {
                    w.unsynced = true
                }
            }
        } catch {
            state.withLock { $0.failure = error }
            finish(error)
            return
        }
        // 4.
        let needsFlush = state.withLock { s -> Bool in
            for p in group {
                for r in p.records {
                    s.active.set(r.key, r.value)
                    if r.key.starts(with: [0, 0, 0, 0]) { Self.noteCatalog(r, into: &s) }
                }
                s.statistics.commits += 1
            }
            s.sequence = sequence
            return s.active.byteSize >= options.memTableSize
        }
        finish(nil)
        // 5.
        if needsFlush { try? freezeAndFlush(&w, full: false) }
    }

    private func currentLog(_ w: inout WriterState) throws(EngineError) -> LogWriter {
        if let log = w.log { return log }
        let log = try LogWriter(fs: fs, directory: directory, fileNumber: allocateFileNumber(), keys: keys,
                                compress: options.compression, durable: options.durability == .full)
        w.log = log
        return log
    }

    /// Moves the active memtable aside and flushes it on the background queue; later commits go
    /// to a new log. Waits first if the previous flush is still running (back-pressure).
    func freezeAndFlush(_ w: inout WriterState, full: Bool) throws(EngineError) {
        flushGroup.wait()
        if let failure = state.withLock({ $0.failure }) { throw failure }
        // The next log's number is the boundary: logs before it are covered by the flush.
        let boundary = allocateFileNumber()
        if let log = w.log {
            if options.durability == .relaxed { try? log.sync() }
            // Commits made without a sync must reach the disk before a later log can hold a
            // synced commit that depends on them (replay takes the logs in order).
            if w.unsynced {
                do throws(EngineError) { try log.sync() } catch {
                    state.withLock { $0.failure = error }
                    throw error
                }
                w.unsynced = false
                state.withLock { $0.statistics.logSyncs += 1 }
            }
            // Every commit of the log being closed is durable now (synced, or about to be in the
            // flushed run).
            if options.durability == .full {
                w.syncedSequence = state.withLock { $0.sequence }
                durableWaiters.synced(through: w.syncedSequence)
            }
            log.close()
            w.log = nil
        }
        let frozen = state.withLock { s -> MemTable in
            let f = s.active
            s.frozen = f
            s.frozenSequence = s.sequence
            s.active = MemTable()
            return f
        }
        // The flush takes the memtable out of the handoff, so it is freed (tens of thousands of
        // nodes) inside the flush, before `flushGroup.leave()`: not later on the flush thread,
        // where it would race with whoever waited for the flush (a close, then the next open).
        let handoff = FlushHandoff(frozen)
        flushGroup.enter()
        flushQueue.async { [self] in
            defer { flushGroup.leave() }
            do throws(EngineError) {
                if let frozen = handoff.take() {
                    try runFlush(frozen: frozen, boundary: boundary, full: full, cancel: nil, progress: nil)
                }
            } catch {
                state.withLock { s in
                    if s.failure == nil { s.failure = error }
                }
            }
            releaseFreeMemory()
        }
    }

    /// Hands a frozen memtable to the flush queue exactly once.
    final class FlushHandoff: @unchecked Sendable {  // set on the writer, taken once on the flush queue
        private var memTable: MemTable?
        init(_ memTable: MemTable) { self.memTable = memTable }
        func take() -> MemTable? {
            defer { memTable = nil }
            return memTable
        }
    }

    func withWriterLock<T>(_ body: (inout WriterState) throws(EngineError) -> T) throws(EngineError) -> T {
        try writer.withLock { w throws(EngineError) -> T in try body(&w) }
    }

    func withWriterLockUnchecked(_ body: (inout WriterState) -> Void) {
        writer.withLock { w in body(&w) }
    }

    /// Runs `body` holding the writer lock (without the writer's state).
    func withWriterLockUnchecked<T>(_ body: () -> T) -> T {
        writer.withLock { _ in body() }
    }

    // MARK: Lifecycle

    /// Flushes what is in memory into a run (so the next open replays nothing), waits for
    /// background work, releases the lock and wipes key material. Idempotent.
    public func close() throws(EngineError) {
        var firstError: EngineError?
        writer.withLock { w in
            let (alreadyClosed, failed, hasData) = state.withLock { s in (s.closed, s.failure != nil, !s.active.isEmpty) }
            if alreadyClosed { return }
            if hasData && !failed {
                do throws(EngineError) {
                    try freezeAndFlush(&w, full: false)
                } catch {
                    firstError = error
                }
            }
            flushGroup.wait()
            if let log = w.log {
                if !failed, options.durability == .relaxed {
                    do throws(EngineError) { try log.sync() } catch { firstError = firstError ?? error }
                }
                log.close()
                w.log = nil
            }
            state.withLock { s in
                if firstError == nil, let f = s.failure, !failed { firstError = f }
                s.closed = true
                s.runs = []
                s.frozen = nil
                s.active = MemTable()
            }
        }
        lockFile.close()
        keys.wipe()
        if let firstError { throw firstError }
    }

    /// Dropping an engine without `close()` is safe but leaves the memtable in the log (the next
    /// open replays it). Nothing here may retain `self` (no flush is started from deinit).
    deinit {
        writer.withLock { w in
            if let log = w.log {
                if options.durability == .relaxed { try? log.sync() }
                log.close()
                w.log = nil
            }
        }
        lockFile.close()
        keys.wipe()
    }

    /// Test hook: whether the data key has been wiped.
    var keyMaterialWiped: Bool { keys.isWiped }
}

/// Running totals for `stats`.
struct EngineCounters: Sendable {
    var commits: UInt64 = 0
    var logSyncs: UInt64 = 0
    var flushes: UInt64 = 0
    var compactions: UInt64 = 0
    var bytesWritten: UInt64 = 0
}

extension StorageEngine {
    /// Test hook: stops the engine the way a crash would — nothing is flushed or synced, files
    /// are closed and the lock released — so tests can reopen and inspect recovery.
    func simulateCrash() {
        withWriterLockUnchecked { w in
            flushGroup.wait()
            w.log?.abandon()
            w.log = nil
            state.withLock { s in
                s.closed = true
                s.runs = []
                s.frozen = nil
                s.active = MemTable()
            }
        }
        lockFile.close()
    }
}

/// Threads waiting for a sync of the log to cover their commit (`waitDurable`): each sync wakes
/// the ones it covers.
final class DurableWaiters: Sendable {
    private struct Waiter {
        let sequence: UInt64
        let semaphore: DispatchSemaphore
    }
    private let state = Mutex<(synced: UInt64, waiters: [Waiter])>((0, []))

    /// Waits up to `duration` for `synced(through:)` of at least `sequence`; true if it came.
    func waitUntilSynced(_ sequence: UInt64, for duration: Duration) -> Bool {
        let semaphore = DispatchSemaphore(value: 0)
        let already = state.withLock { s -> Bool in
            if s.synced >= sequence { return true }
            s.waiters.append(Waiter(sequence: sequence, semaphore: semaphore))
            return false
        }
        if already { return true }
        let nanoseconds = Int(duration.components.seconds) * 1_000_000_000 + Int(duration.components.attoseconds / 1_000_000_000)
        if semaphore.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success { return true }
        // Timed out: leave the list (a sync may have covered it meanwhile).
        return state.withLock { s -> Bool in
            s.waiters.removeAll { $0.semaphore === semaphore }
            return s.synced >= sequence
        }
    }

    /// A sync covered every commit through `sequence`.
    func synced(through sequence: UInt64) {
        let woken = state.withLock { s -> [DispatchSemaphore] in
            s.synced = max(s.synced, sequence)
            let covered = s.waiters.filter { $0.sequence <= sequence }.map(\.semaphore)
            s.waiters.removeAll { $0.sequence <= sequence }
            return covered
        }
        for semaphore in woken { semaphore.signal() }
    }
}
