import Dispatch

/// Cancellation flag for long operations, set from any thread.
final class CancelFlag: @unchecked Sendable {
    // A benign race: a stale read only delays the stop by one check.
    nonisolated(unsafe) var isCancelled = false
}

/// Progress of a compaction.
public struct CompactionProgress: Sendable {
    public var entriesWritten: UInt64
    public var entriesTotal: UInt64
    public var fraction: Double { entriesTotal == 0 ? 1 : min(1, Double(entriesWritten) / Double(entriesTotal)) }
}

extension StorageEngine {
    /// How many of the newest runs to merge with incoming data of `incoming` raw bytes:
    /// a run is merged while the data gathered so far is at least half its size, which keeps
    /// about log2(size / memtable) runs and rewrites each byte about that many times.
    /// Garbage rule: when tombstones exceed a quarter of the entries, merge everything, which
    /// drops them (docs/StorageFormat.md, "Compaction").
    static func mergePolicy(runs: [RunInfo], incoming: UInt64, full: Bool, auto: Bool) -> Int {
        if full { return runs.count }
        if !auto { return 0 }
        let entries = runs.reduce(0) { $0 + $1.entryCount }
        let tombstones = runs.reduce(0) { $0 + $1.tombstoneCount }
        if entries > 0 && tombstones * 4 > entries { return runs.count }
        var gathered = incoming
        var k = 0
        for r in runs {
            guard gathered * 2 >= r.rawBytes else { break }
            gathered += r.rawBytes
            k += 1
        }
        return k
    }

    /// Flush, as a numbered recipe (runs on the flush queue, one at a time):
    /// 1. choose the runs to merge with the frozen memtable;
    /// 2. merge them into a new run file, synced (tombstones dropped when the oldest run is merged);
    /// 3. write a new manifest naming the new run list and the first log still needed; synced and
    ///    renamed into place — the commit point;
    /// 4. publish the new runs to readers and drop the frozen memtable;
    /// 5. delete the files the new manifest no longer names.
    /// A crash before 3 leaves the old manifest in charge (the new run is an orphan, removed on
    /// open); after 3 the new one is; either way every commit is in a run or a replayed log.
    /// `ingested`: a bulk load's runs (newest first), named in the same manifest as newer than
    /// the flushed run (`install`).
    func runFlush(frozen: MemTable, boundary: UInt32, full: Bool, ingested: [RunFile] = [], cancel: CancelFlag?,
                  progress: (@Sendable (CompactionProgress) -> Void)?) throws(EngineError) {
        // 1.
        let (runs, manifest, frozenSequence) = state.withLock { s in (s.runs, s.manifest, s.frozenSequence) }
        let mergeCount = Self.mergePolicy(runs: runs.map(\.info), incoming: UInt64(frozen.byteSize), full: full,
                                          auto: options.autoCompaction)
        let merged = Array(runs.prefix(mergeCount))
        let kept = Array(runs.dropFirst(mergeCount))
        let isBottom = kept.isEmpty
        // 2.
        var newRun: RunFile?
        if !frozen.isEmpty || mergeCount > 0 {
            newRun = try mergeIntoRun(frozen: frozen, runs: merged, dropTombstones: isBottom, cancel: cancel, progress: progress)
        }
        // 3.
        var next = manifest
        next.number = allocateFileNumber()
        next.sequence = frozenSequence
        next.logStart = max(manifest.logStart, boundary)
        let published = ingested + [newRun].compactMap { $0 } + kept
        next.runs = published.map { .init(fileNumber: $0.number, fileSize: $0.info.fileSize) }
        next.nextFileNumber = fileNumbers.withLock { $0 }
        do throws(EngineError) {
            try next.write(fs: fs, directory: directory, keys: keys)
        } catch {
            if let newRun { try? fs.remove(directory + "/" + newRun.name) }
            throw error
        }
        // 4.
        state.withLock { s in
            s.runs = published
            s.frozen = nil
            s.manifest = next
            s.statistics.flushes += 1
            if mergeCount > 0 { s.statistics.compactions += 1 }
        }
        // 5. Failures here leave only garbage that the next open removes.
        try? fs.remove(directory + "/" + FileNames.manifest(manifest.number))
        for r in merged {
            cache.removeFile(r.number)
            try? fs.remove(directory + "/" + r.name)
        }
        removeObsoleteLogs(before: next.logStart)
    }

    func removeObsoleteLogs(before logStart: UInt32) {
        guard let names = try? fs.list(directory) else { return }
        for name in names {
            if case .log(let n) = FileNames.parse(name), n < logStart {
                try? fs.remove(directory + "/" + name)
            }
        }
    }

    /// Writes every entry of `merge`, from its first, to `writer`; `every4096` is called with the
    /// count after each 4,096 entries (cancellation, progress). Returns the count.
    static func copy(_ merge: inout MergeCursor, to writer: RunWriter, from start: [UInt8] = [], to end: [UInt8]? = nil,
                     every4096: ((UInt64) throws(EngineError) -> Void)? = nil) throws(EngineError) -> UInt64 {
        try merge.seek(start, end: end)
        var written: UInt64 = 0
        while merge.isValid {
            if let end, merge.withEntry({ k, _ in end.withUnsafeBytes { compareBytes(k, $0) } }) >= 0 { break }
            let added: Result<Void, EngineError> = merge.withKey { k in
                merge.withValue { v in Result { () throws(EngineError) in try writer.add(key: k, value: v) } }
            }
            try added.get()
            written += 1
            if written & 4095 == 0 { try every4096?(written) }
            try merge.next()
        }
        return written
    }

    private func mergeIntoRun(frozen: MemTable, runs: [RunFile], dropTombstones: Bool, cancel: CancelFlag?,
                              progress: (@Sendable (CompactionProgress) -> Void)?) throws(EngineError) -> RunFile? {
        let total = UInt64(frozen.count) + runs.reduce(0) { $0 + $1.info.entryCount }
        let sources: [SourceCursor] = [.mem(frozen.cursor())] + runs.map { .run(RunCursor(run: $0, fillCache: false)) }
        var merge = MergeCursor(sources: sources, forward: true, includeTombstones: !dropTombstones)
        let writer = try RunWriter(fs: fs, directory: directory, fileNumber: allocateFileNumber(), keys: keys,
                                   compress: options.compression, blockSize: options.blockSize,
                                   expectedEntries: Int(min(total, UInt64(Int32.max))))
        do throws(EngineError) {
            let written = try Self.copy(&merge, to: writer) { (written: UInt64) throws(EngineError) in
                if cancel?.isCancelled == true { throw EngineError(.cancelled, "compaction was cancelled") }
                progress?(CompactionProgress(entriesWritten: written, entriesTotal: total))
            }
            if writer.entryCount == 0 {
                writer.abandon()
                return nil
            }
            let info = try writer.finish()
            progress?(CompactionProgress(entriesWritten: written, entriesTotal: total))
            return try RunFile.open(fs: fs, directory: directory, fileNumber: info.fileNumber, keys: keys, cache: cache)
        } catch {
            writer.abandon()
            throw error
        }
    }

    /// Merges everything (memory and every run) into one run, dropping superseded versions and
    /// tombstones. Online: reads and commits continue meanwhile. Cancellable; a cancelled
    /// compaction leaves the store exactly as it was.
    public func compact(progress: (@Sendable (CompactionProgress) -> Void)? = nil) async throws {
        let flag = CancelFlag()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                DispatchQueue.global().async {
                    do {
                        try self.compactNow(cancel: flag, progress: progress)
                        continuation.resume()
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        } onCancel: {
            flag.isCancelled = true
        }
    }

    /// Synchronous form of `compact()`.
    public func compactNow(progress: (@Sendable (CompactionProgress) -> Void)? = nil) throws(EngineError) {
        try compactNow(cancel: nil, progress: progress)
    }

    func compactNow(cancel: CancelFlag?, progress: (@Sendable (CompactionProgress) -> Void)?) throws(EngineError) {
        try flushNow(full: true, ingest: nil, cancel: cancel, progress: progress)
    }

    /// A flush now, waited for: everything (`full`, a compaction) or by the merge policy. With
    /// `ingest` (`install`): a bulk load's runs, made on the flush queue once the memtable is
    /// frozen, published in the same manifest; when `ingest` took the frozen memtable into its
    /// oldest run (`absorbed`), no run of its own is written for it.
    func flushNow(full: Bool, ingest: ((MemTable) throws(EngineError) -> (runs: [RunFile], absorbed: Bool))?, cancel: CancelFlag?,
                  progress: (@Sendable (CompactionProgress) -> Void)?) throws(EngineError) {
        // Freeze whatever is in memory (briefly holding the writer lock), then merge in the
        // background queue's order without blocking commits.
        let boundary: UInt32 = try withWriterLock { w throws(EngineError) -> UInt32 in
            flushGroup.wait()
            if let failure = state.withLock({ $0.failure }) { throw failure }
            // After close the key material is wiped: nothing may be written.
            if state.withLock({ $0.closed }) { throw EngineError(.storeClosed, "the store is closed") }
            let boundary = allocateFileNumber()
            if let log = w.log {
                // Unsynced commits (`commit(_:durable: false)`) reach the disk before the next log.
                if options.durability == .relaxed || w.unsynced {
                    try log.sync()
                    w.unsynced = false
                }
                if options.durability == .full { w.syncedSequence = state.withLock { $0.sequence } }
                log.close()
                w.log = nil
            }
            state.withLock { s in
                s.frozen = s.active
                s.frozenSequence = s.sequence
                s.active = MemTable()
            }
            flushGroup.enter()
            return boundary
        }
        let frozen = state.withLock { $0.frozen ?? MemTable() }
        var outcome: Result<Void, EngineError> = .success(())
        flushQueue.sync {
            do throws(EngineError) {
                var ingested: [RunFile] = []
                var flushed = frozen
                if let ingest {
                    let made = try ingest(frozen)
                    ingested = made.runs
                    if made.absorbed { flushed = MemTable() }
                }
                try runFlush(frozen: flushed, boundary: boundary, full: full, ingested: ingested, cancel: cancel, progress: progress)
            } catch {
                outcome = .failure(error)
            }
        }
        if case .failure(let error) = outcome {
            // Keep the frozen data readable and writable: put it back in front of the active one.
            state.withLock { s in
                if let f = s.frozen {
                    var merged = f
                    let c = s.active.cursor()
                    c.seekToFirst()
                    while c.isValid {
                        merged.set(c.key, c.value)
                        c.next()
                    }
                    s.active = merged
                    s.frozen = nil
                }
            }
            flushGroup.leave()
            throw error
        }
        flushGroup.leave()
    }
}
