import Dispatch
import Synchronization
/// Many records written straight into run files, bypassing the log and the memtable, and made
/// visible all at once by `StorageEngine.install` (docs/StorageFormat.md, "Bulk load"). For a
/// large, fresh data set (a first download): every record is written once, sequentially, instead
/// of passing through the log, the memtable and the merges of every flush.
///
/// - Records of one tree that arrive in strictly increasing key order are streamed into a run of
///   their own as they come (no buffering: a download in key order, its membership rows).
/// - The first record of a tree that does not (an index on a non-key property) turns that tree
///   to *sorting*: its records go into a chunk buffer of about `chunkBytes`; a full buffer is
///   sorted and written as a run (for equal keys the record added last is kept).
/// - `install` publishes every run in one manifest, newer than everything already in the store
///   (for one tree: the chunks newest first, then the streamed run), so for equal keys the
///   record added last wins, as if the records had been committed one after the other.
///
/// Until `install`, no manifest names these runs: readers do not see them, and a crash leaves
/// files that the next open removes. `abandon` (or dropping an uninstalled load) removes them.
/// Records are puts only (no tombstones); the caller makes sure that nothing older in the store
/// needs deleting (the download uses it for entity sets that were empty when it began).
/// Used by one thread at a time.
public final class BulkLoad: @unchecked Sendable {
    private let engine: StorageEngine
    private let chunkBytes: Int
    /// LZ4 on this load's blocks (the engine's option, unless the caller knows its values do
    /// not compress: a video's or a photo's bytes).
    private let compress: Bool

    // Used by one thread at a time (see above), so the runtime exclusivity checks on these hot
    // properties are skipped (with those of `RunWriter`, about 14 % of `put` in a 1M-entity
    // download).

    /// Per tree id: its open stream, or nil once the tree is sorting.
    @exclusivity(unchecked) private var streams: [UInt32: Stream?] = [:]
    private final class Stream {
        let writer: RunWriter
        @exclusivity(unchecked) var last: [UInt8]
        init(writer: RunWriter, last: [UInt8]) {
            self.writer = writer
            self.last = last
        }
    }

    /// Runs already written: finished streams (oldest data for their tree) and chunks in the
    /// order they were written.
    @exclusivity(unchecked) private var streamRuns: [RunFile] = []
    @exclusivity(unchecked) private var chunkRuns: [RunFile] = []

    /// The chunk buffer: internal key then value, back to back, and where each record starts.
    @exclusivity(unchecked) private var arena: [UInt8] = []
    @exclusivity(unchecked) private var entries: [Entry] = []
    private struct Entry {
        var offset: Int
        var keyLength: Int32
        var valueLength: Int32
    }

    @exclusivity(unchecked) private var closed = false
    /// Records added so far.
    @exclusivity(unchecked) public private(set) var recordCount = 0

    init(engine: StorageEngine, chunkBytes: Int, compress: Bool) {
        self.engine = engine
        self.compress = compress
        self.chunkBytes = max(1, chunkBytes)
    }

    deinit { abandon() }

    /// Adds one record. Keys and values have the limits of a `WriteBatch`; the catalog tree
    /// cannot be written.
    public func put(_ key: [UInt8], _ value: [UInt8], in tree: Tree) throws(EngineError) {
        let r: Result<Void, EngineError> = key.withUnsafeBytes { k in
            value.withUnsafeBytes { v in Result { () throws(EngineError) in try put(k, v, in: tree) } }
        }
        try r.get()
    }

    /// `put` of borrowed bytes (copied before it returns).
    public func put(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, in tree: Tree) throws(EngineError) {
        guard !closed else { throw EngineError(.invalidArgument, "the bulk load was installed or abandoned") }
        if engine.state.withLock({ $0.closed }) { throw EngineError(.storeClosed, "the store is closed") }
        guard tree.id != 0 else { throw EngineError(.invalidArgument, "the catalog tree cannot be written directly") }
        guard key.count <= WriteBatch.maxKeySize else {
            throw EngineError(.invalidArgument, "key of \(key.count) bytes exceeds \(WriteBatch.maxKeySize)")
        }
        guard value.count <= WriteBatch.maxValueSize else {
            throw EngineError(.invalidArgument, "value of \(value.count) bytes exceeds \(WriteBatch.maxValueSize)")
        }
        recordCount += 1
        switch streams[tree.id] {
        case nil:
            // The first record of the tree opens its stream.
            let writer = try newWriter(expected: 4096)
            try add(key, value, in: tree, to: writer)
            streams[tree.id] = .some(Stream(writer: writer, last: Array(key)))
        case .some(let stream?):
            // One tree: comparing the user keys compares the internal keys.
            let ascending = stream.last.withUnsafeBytes { compareBytes(key, $0) > 0 }
            if !ascending {
                // Out of order: the tree sorts from here on; what it streamed so far is older.
                streamRuns.append(try finishRun(stream.writer))
                streams[tree.id] = .some(nil)
                try buffer(key, value, in: tree)
            } else {
                try add(key, value, in: tree, to: stream.writer)
                stream.last.removeAll(keepingCapacity: true)
                stream.last.append(contentsOf: key)
            }
        case .some(nil):
            try buffer(key, value, in: tree)
        }
    }

    /// The internal key is built in a buffer kept for it (no array per record).
    @exclusivity(unchecked) private var scratch: [UInt8] = []

    private func add(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, in tree: Tree, to writer: RunWriter) throws(EngineError) {
        scratch.removeAll(keepingCapacity: true)
        tree.appendPrefix(to: &scratch)
        scratch.append(contentsOf: key)
        let added: Result<Void, EngineError> = scratch.withUnsafeBytes { k in
            Result { () throws(EngineError) in try writer.add(key: k, value: value) }
        }
        try added.get()
    }

    /// Removes every file written so far; the load can no longer be used. Idempotent.
    public func abandon() {
        guard !closed else { return }
        closed = true
        if let job = inFlight {
            // The chunk being written: its run (when it was written) goes with the others.
            inFlight = nil
            job.done.wait()
            if case .success(let run)? = job.result { chunkRuns.append(run) }
        }
        spare = nil
        for case let stream?? in streams.values { stream.writer.abandon() }
        streams = [:]
        for run in streamRuns + chunkRuns { try? engine.fs.remove(engine.directory + "/" + run.name) }
        streamRuns = []
        chunkRuns = []
        arena = []
        entries = []
    }

    /// Finishes every stream and the last chunk; the runs newest first (the order of a manifest).
    /// `older`: the store's frozen memtable, older than every record of the load; taken into
    /// the load's oldest run when the load merges small runs (`absorbed`).
    func finishRuns(absorbing older: MemTable? = nil) throws(EngineError) -> (runs: [RunFile], absorbed: Bool) {
        guard !closed else { throw EngineError(.invalidArgument, "the bulk load was installed or abandoned") }
        for (id, stream) in streams {
            if let stream { streamRuns.append(try finishRun(stream.writer)) }
            streams[id] = .some(nil)
        }
        try writeChunk(wait: true)
        closed = true
        arena = []
        entries = []
        spare = nil
        let runs = chunkRuns.reversed() + streamRuns
        streamRuns = []
        chunkRuns = []
        return try mergeSmall(runs, older: older.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// Every run counts on every read until compaction merges it (a point read probes its
    /// filter, a scan seeks it), and a load makes one run per tree plus its chunks: a download
    /// made 21 runs of 383 B to 5 MB. The runs holding under a quarter of the load's bytes
    /// each, and overlapping no run that stays, are merged into one (one more pass over the
    /// small part only); the large ones, in practice the entities, stay as written. So does a
    /// run of at least `chunkBytes` that overlaps no other run of the load (a tree streamed
    /// whole, such as a download's membership rows): reads of other trees skip it by its key
    /// range, and merging it only wrote it twice (at 727k entities, 50 of the 80 MB that the
    /// merge rewrote, about 0.7 s of a download's single-threaded tail). Chunks hold about
    /// `chunkBytes` at most and overlap each other, so they are merged.
    ///
    /// The merged run is the load's oldest, so `older` (the frozen memtable, older than the
    /// whole load and newer than every run of the store) is merged into it as its oldest source,
    /// tombstones included: an install then leaves no run of a few hundred bytes behind (each
    /// was a filter read on the first query after a reopen).
    private func mergeSmall(_ runs: [RunFile], older: MemTable?) throws(EngineError) -> (runs: [RunFile], absorbed: Bool) {
        let total = runs.reduce(UInt64(0)) { $0 + $1.info.rawBytes }
        func overlap(_ a: RunFile, _ b: RunFile) -> Bool {
            compareBytes(a.info.minKey, b.info.maxKey) <= 0 && compareBytes(b.info.minKey, a.info.maxKey) <= 0
        }
        // A run that stays must overlap no merged run (their order would change): grow the
        // runs that stay until none of the others overlaps them.
        func staysAsWritten(_ run: RunFile) -> Bool {
            if run.info.rawBytes * 4 >= total { return true }
            return run.info.rawBytes >= UInt64(chunkBytes) && !runs.contains { $0.number != run.number && overlap(run, $0) }
        }
        var stays = runs.filter(staysAsWritten)
        var small = runs.filter { !staysAsWritten($0) }
        while let i = small.firstIndex(where: { run in stays.contains { overlap(run, $0) } }) {
            stays.append(small.remove(at: i))
        }
        guard small.count >= 2 || (small.count == 1 && older != nil) else { return (runs, false) }
        let expected = Int(min(small.reduce(UInt64(older?.count ?? 0)) { $0 + $1.info.entryCount }, UInt64(Int32.max)))
        // A large merge is split at a key near the middle into two runs that do not overlap,
        // written at once on two threads: the install's merge ran alone on one core while the
        // other idled (about 0.5 s of a 1M-entity download's tail, for 30 MB of index chunks).
        var split: [UInt8]?
        do throws(EngineError) {
            split = expected >= parallelMergeEntries ? try splitKey(small) : nil
        } catch {
            for run in runs { try? engine.fs.remove(engine.directory + "/" + run.name) }
            throw error
        }
        let ranges: [(from: [UInt8]?, to: [UInt8]?)] = split.map { [(nil, $0), ($0, nil)] } ?? [(nil, nil)]
        let sources = small
        let results = MergeResults(count: ranges.count)
        let group = DispatchGroup()
        for i in ranges.indices.dropFirst() {
            group.enter()
            // A serial queue runs on a thread of its own; the global queue shares its threads
            // with Swift concurrency, where the calling task blocks in `wait` below.
            DispatchQueue(label: "OfflineODataEngine.bulk.merge").async { [self] in
                results.set(i, Result { () throws(EngineError) in
                    try mergeRange(sources, older: older, from: ranges[i].from, to: ranges[i].to, expected: expected / ranges.count)
                })
                group.leave()
            }
        }
        results.set(0, Result { () throws(EngineError) in
            try mergeRange(sources, older: older, from: ranges[0].from, to: ranges[0].to, expected: expected / ranges.count)
        })
        group.wait()
        var merged: [RunFile] = []
        var failure: EngineError?
        for result in results.all {
            switch result {
            case .success(let run?): merged.append(run)
            case .success(nil): break
            case .failure(let error): failure = failure ?? error
            }
        }
        if let failure {
            for run in runs + merged { try? engine.fs.remove(engine.directory + "/" + run.name) }
            throw failure
        }
        let mergedNumbers = Set(small.map(\.number))
        for run in small { try? engine.fs.remove(engine.directory + "/" + run.name) }
        // The merged runs overlap no run that stays, nor each other, so their place among them
        // does not matter; last, they are the oldest, below the rest of the load and above the
        // store's runs.
        return (runs.filter { !mergedNumbers.contains($0.number) } + merged, older != nil)
    }

    /// Merges of at least this many entries are split in two (`mergeSmall`); below it the
    /// second thread is not worth its start.
    static let defaultParallelMergeEntries = 200_000
    /// `defaultParallelMergeEntries`; tests lower it.
    @exclusivity(unchecked) var parallelMergeEntries = BulkLoad.defaultParallelMergeEntries

    /// A key near the middle of the largest run's keys: the middle key of its root block (a
    /// separator of an index block, or a key of its only leaf); nil when that block holds one.
    private func splitKey(_ runs: [RunFile]) throws(EngineError) -> [UInt8]? {
        guard let largest = runs.max(by: { $0.info.rawBytes < $1.info.rawBytes }) else { return nil }
        // One level: the root is the run's only leaf, and its middle key serves as well.
        let root = try largest.block(at: largest.root.offset, length: largest.root.length, leaf: largest.info.height == 1,
                                     fillCache: false)
        guard root.count >= 2 else { return nil }
        // An index block's keys are its children's last keys: the middle one ends the first half.
        return root.key(largest.info.height == 1 ? root.count / 2 : (root.count - 1) / 2)
    }

    /// The keys in [`from`, `to`) of `small` (newest first) and `older` (oldest, tombstones
    /// included when present) merged into one run; nil when the range holds none.
    private func mergeRange(_ small: [RunFile], older: MemTable?, from: [UInt8]?, to end: [UInt8]?,
                            expected: Int) throws(EngineError) -> RunFile? {
        // Newest first, so the merge keeps the newest of equal keys.
        var sources: [SourceCursor] = small.map { .run(RunCursor(run: $0, fillCache: false)) }
        if let older { sources.append(.mem(older.cursor())) }
        var merge = MergeCursor(sources: sources, forward: true, includeTombstones: older != nil)
        let writer = try newWriter(expected: max(expected, 1))
        do throws(EngineError) {
            _ = try StorageEngine.copy(&merge, to: writer, from: from ?? [], to: end)
        } catch {
            writer.abandon()
            throw error
        }
        guard writer.entryCount > 0 else {
            writer.abandon()
            return nil
        }
        return try finishRun(writer)  // abandons the writer itself on failure
    }

    /// The results of a split merge's ranges, set from their threads.
    private final class MergeResults: Sendable {
        private let results: Mutex<[Result<RunFile?, EngineError>]>
        init(count: Int) { results = Mutex(Array(repeating: .success(nil), count: count)) }
        func set(_ i: Int, _ result: Result<RunFile?, EngineError>) { results.withLock { $0[i] = result } }
        var all: [Result<RunFile?, EngineError>] { results.withLock { $0 } }
    }

    // MARK: internals

    private func newWriter(expected: Int, acceleration: Int32 = 1) throws(EngineError) -> RunWriter {
        try RunWriter(fs: engine.fs, directory: engine.directory, fileNumber: engine.allocateFileNumber(), keys: engine.keys,
                      compress: compress, blockSize: engine.options.blockSize, expectedEntries: expected,
                      acceleration: acceleration)
    }

    private func finishRun(_ writer: RunWriter) throws(EngineError) -> RunFile {
        do throws(EngineError) {
            let info = try writer.finish()
            return try RunFile.open(fs: engine.fs, directory: engine.directory, fileNumber: info.fileNumber, keys: engine.keys,
                                    cache: engine.cache)
        } catch {
            writer.abandon()
            throw error
        }
    }

    private func buffer(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, in tree: Tree) throws(EngineError) {
        // Sized once: grown by doubling, the buffer would end at twice the chunk size.
        if arena.capacity == 0 { arena.reserveCapacity(chunkBytes + WriteBatch.maxKeySize + 4) }
        entries.append(Entry(offset: arena.count, keyLength: Int32(key.count + 4), valueLength: Int32(value.count)))
        tree.appendPrefix(to: &arena)
        arena.append(contentsOf: key)
        arena.append(contentsOf: value)
        if arena.count + entries.count * MemoryLayout<Entry>.stride >= chunkBytes { try writeChunk() }
    }

    /// A buffered record's place in the sort: its key's first 32 bytes as four big-endian words
    /// (zero-padded) and its index. An index entry's key is its values then the primary key, so
    /// the records of one value share long prefixes: 16 bytes still left most comparisons of a
    /// 1M download to the bytes.
    private struct SortKey {
        let w0: UInt64, w1: UInt64, w2: UInt64, w3: UInt64
        let index: Int

        init(_ key: UnsafeRawBufferPointer, index: Int) {
            self.index = index
            if key.count >= 32 {
                w0 = UInt64(bigEndian: key.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
                w1 = UInt64(bigEndian: key.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                w2 = UInt64(bigEndian: key.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
                w3 = UInt64(bigEndian: key.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
            } else {
                var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
                withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: key) }
                w0 = UInt64(bigEndian: words.0)
                w1 = UInt64(bigEndian: words.1)
                w2 = UInt64(bigEndian: words.2)
                w3 = UInt64(bigEndian: words.3)
            }
        }

        func samePrefix(_ other: SortKey) -> Bool { w0 == other.w0 && w1 == other.w1 && w2 == other.w2 && w3 == other.w3 }

        /// Whether `self` sorts before `other`; equal words compare the keys' bytes after them.
        @inline(__always)
        func precedes(_ other: SortKey, _ key: (Int) -> UnsafeRawBufferPointer) -> Bool {
            if w0 != other.w0 { return w0 < other.w0 }
            if w1 != other.w1 { return w1 < other.w1 }
            if w2 != other.w2 { return w2 < other.w2 }
            if w3 != other.w3 { return w3 < other.w3 }
            let a = key(index), b = key(other.index)
            if a.count > 32 || b.count > 32 {
                let c = compareBytes(UnsafeRawBufferPointer(rebasing: a[min(32, a.count)...]),
                                     UnsafeRawBufferPointer(rebasing: b[min(32, b.count)...]))
                if c != 0 { return c < 0 }
            } else if a.count != b.count {
                // Equal padded words and both keys within them: the shorter one first.
                return a.count < b.count
            }
            return index < other.index
        }
    }

    /// A full chunk buffer being sorted and written into a run on `chunkQueue`, while the
    /// caller fills the other buffer: sorting and writing the index chunks was about a quarter
    /// of the applying thread's samples in a 1M-entity download (perf), the thread a download
    /// waits for. At most one chunk is in flight, so chunks finish in the order they were cut
    /// (a later chunk is newer) and the load holds two chunk buffers at most. Chunks are
    /// compressed with LZ4 acceleration 8, as log frames are: they are merged at `install`
    /// unless the load is small (`mergeSmall`), so their compression ratio rarely lasts.
    private final class ChunkJob: @unchecked Sendable {  // handed over whole; `done` orders the accesses
        var arena: [UInt8]
        var entries: [Entry]
        var result: Result<RunFile, EngineError>?
        let done = DispatchSemaphore(value: 0)
        init(arena: consuming [UInt8], entries: consuming [Entry]) {
            self.arena = arena
            self.entries = entries
        }
    }
    @exclusivity(unchecked) private var inFlight: ChunkJob?
    /// The buffers of the last chunk written, emptied, kept for the next one.
    @exclusivity(unchecked) private var spare: (arena: [UInt8], entries: [Entry])?
    private lazy var chunkQueue = DispatchQueue(label: "OfflineODataEngine.bulk.chunk")

    /// Cuts the buffered records into a chunk and starts writing it on `chunkQueue` (after the
    /// previous chunk is written); `wait`: returns once it is written.
    private func writeChunk(wait: Bool = false) throws(EngineError) {
        guard !entries.isEmpty else { return try finishChunk() }
        try finishChunk()
        let job = ChunkJob(arena: arena, entries: entries)
        if let spare {
            arena = spare.arena
            entries = spare.entries
            self.spare = nil
        } else {
            arena = []
            entries = []
        }
        // The chunk joins the engine's background writes under the writer lock, which `close`
        // (and a simulated crash) holds while it waits for them and wipes the keys: a chunk is
        // either written before the store closes, which waits for it, or not at all (no file
        // written with wiped keys, or after the store's next open removed the orphans).
        let started: Bool = engine.withWriterLockUnchecked { () -> Bool in
            guard !engine.state.withLock({ $0.closed }) else { return false }
            engine.flushGroup.enter()
            return true
        }
        guard started else {
            job.result = .failure(EngineError(.storeClosed, "the store is closed"))
            job.done.signal()
            inFlight = job
            return try finishChunk()
        }
        inFlight = job
        chunkQueue.async { [self] in
            job.result = Result { () throws(EngineError) in try sortAndWrite(job.arena, job.entries) }
            // The sort's buffers and the writer's are freed by now (in this thread's arena).
            releaseFreeMemoryThrottled()
            job.done.signal()
            engine.flushGroup.leave()
        }
        if wait { try finishChunk() }
    }

    /// Waits for the chunk in flight, if any, and takes its run (or throws its error).
    private func finishChunk() throws(EngineError) {
        guard let job = inFlight else { return }
        inFlight = nil
        job.done.wait()
        job.arena.removeAll(keepingCapacity: true)
        job.entries.removeAll(keepingCapacity: true)
        spare = (job.arena, job.entries)
        if let result = job.result { chunkRuns.append(try result.get()) }
    }

    /// Sorts a chunk's records (equal keys: the one added last wins) into a run. Touches no
    /// state of the load (runs on `chunkQueue`).
    private func sortAndWrite(_ arena: [UInt8], _ entries: [Entry]) throws(EngineError) -> RunFile {
        let writer = try newWriter(expected: entries.count, acceleration: 8)
        do throws(EngineError) {
            let outcome: Result<Void, EngineError> = arena.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Result<Void, EngineError> in
                func key(_ i: Int) -> UnsafeRawBufferPointer {
                    let e = entries[i]
                    return UnsafeRawBufferPointer(rebasing: bytes[e.offset..<(e.offset + Int(e.keyLength))])
                }
                // Sorted by the first 32 bytes of each internal key, read once as big-endian
                // words (zero-padded: where two padded prefixes differ, so do the keys, the same
                // way); only equal prefixes compare the keys' bytes. The memcmp calls of a plain
                // byte comparison were most of a 1M download's chunk sorting.
                var sortable = [SortKey]()
                sortable.reserveCapacity(entries.count)
                for i in entries.indices { sortable.append(SortKey(key(i), index: i)) }
                sortable.sort { a, b in a.precedes(b, key) }
                var i = 0
                while i < sortable.count {
                    // The last of a run of equal keys is the newest (keys whose words differ
                    // differ: their bytes are compared only when the words agree).
                    var j = i
                    while j + 1 < sortable.count, sortable[j].samePrefix(sortable[j + 1]),
                          compareBytes(key(sortable[j].index), key(sortable[j + 1].index)) == 0 { j += 1 }
                    let e = entries[sortable[j].index]
                    let valueStart = e.offset + Int(e.keyLength)
                    do throws(EngineError) {
                        try writer.add(key: key(sortable[j].index),
                                       value: UnsafeRawBufferPointer(rebasing: bytes[valueStart..<(valueStart + Int(e.valueLength))]))
                    } catch {
                        return .failure(error)
                    }
                    i = j + 1
                }
                return .success(())
            }
            try outcome.get()
        } catch {
            writer.abandon()
            throw error
        }
        return try finishRun(writer)
    }
}

extension StorageEngine {
    /// Whether LZ4 saves at least 1/16 of `sample` (the test the engine applies to keep a block
    /// compressed): callers that write a long run of similar values (a stream's chunks) try a
    /// sample before choosing `bulkLoad(compress:)`.
    public static func lz4Shrinks(_ sample: [UInt8]) -> Bool {
        sample.withUnsafeBytes { LZ4.compress($0) != nil }
    }

    /// A bulk load into this store (see `BulkLoad`); nothing is visible until `install`.
    /// `chunkBytes` bounds the memory of the records it has to sort (default 8 MiB).
    /// `compress: false` writes the load's blocks without trying LZ4 (values known not to
    /// compress); by default the engine's `compression` option applies.
    public func bulkLoad(chunkBytes: Int = 8 << 20, compress: Bool? = nil) throws(EngineError) -> BulkLoad {
        if state.withLock({ $0.closed }) { throw EngineError(.storeClosed, "the store is closed") }
        return BulkLoad(engine: self, chunkBytes: chunkBytes, compress: (compress ?? true) && options.compression)
    }

    /// Publishes a bulk load's runs atomically, newer than every commit before this call: the
    /// memtable is frozen and flushed (into the load's oldest run when the load merges its small
    /// runs, else into a run of its own, as by a flush), and one manifest names the load's runs
    /// and the flushed one. On return the records are durable and visible to new snapshots. On
    /// failure the store is as before and the load's files are removed.
    public func install(_ load: BulkLoad) throws(EngineError) {
        if state.withLock({ $0.closed }) {
            load.abandon()
            throw EngineError(.storeClosed, "the store is closed")
        }
        if load.recordCount == 0 {
            load.abandon()
            return
        }
        // The load's buffers are freed by now; give the memory back (a 1M-entity download of
        // five sets otherwise kept about 13 MiB more after each set's load).
        defer { releaseFreeMemory() }
        var made: [RunFile] = []
        do throws(EngineError) {
            try flushNow(full: false, ingest: { (frozen: MemTable) throws(EngineError) -> (runs: [RunFile], absorbed: Bool) in
                let finished = try load.finishRuns(absorbing: frozen)
                made = finished.runs
                return finished
            }, cancel: nil, progress: nil)
        } catch {
            load.abandon()
            for run in made { try? fs.remove(directory + "/" + run.name) }
            throw error
        }
    }
}
