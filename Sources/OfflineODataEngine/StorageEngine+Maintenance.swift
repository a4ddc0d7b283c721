/// What `stats` reports.
public struct EngineStats: Sendable, CustomStringConvertible {
    public struct RunStats: Sendable {
        public var file: String
        public var fileBytes: UInt64
        public var entries: UInt64
        public var tombstones: UInt64
        public var rawBytes: UInt64
        public var height: Int
        public var leafBlocks: UInt64
    }

    public struct TreeStats: Sendable {
        public var name: String
        public var entries: UInt64
        public var keyBytes: UInt64
        public var valueBytes: UInt64
    }

    public var cipher: CipherSuite
    public var sequence: UInt64
    public var runs: [RunStats]
    public var trees: [TreeStats]
    public var logBytes: UInt64
    public var fileBytes: UInt64
    /// Key and value bytes of the visible entries.
    public var liveBytes: UInt64
    /// Raw bytes stored that a full compaction would drop: superseded versions, tombstones and
    /// the logs of data already held in memory.
    public var garbageBytes: UInt64
    public var memTableBytes: Int
    /// Leaves in the block cache.
    public var cacheBytes: Int
    /// Index blocks and Bloom filters of the open runs (counted against the cache size).
    public var pinnedBytes: Int
    public var commits: UInt64
    /// Syncs of the log (`fdatasync`): fewer than the durable commits when commits are grouped.
    public var logSyncs: UInt64 = 0
    public var flushes: UInt64
    public var compactions: UInt64

    public var garbageRatio: Double {
        let total = liveBytes + garbageBytes
        return total == 0 ? 0 : Double(garbageBytes) / Double(total)
    }

    public var description: String {
        var lines = ["cipher: \(cipher)   last commit: \(sequence)",
                     "files: \(fileBytes) bytes (logs \(logBytes))",
                     "live: \(liveBytes) bytes   garbage: \(garbageBytes) bytes (\(Int(garbageRatio * 100))%)",
                     "memtable: \(memTableBytes) bytes   block cache: \(cacheBytes) bytes (+ \(pinnedBytes) pinned index/filter)",
                     "commits: \(commits)   flushes: \(flushes)   compactions: \(compactions)",
                     "runs (newest first):"]
        for r in runs {
            lines.append("  \(r.file): \(r.fileBytes) bytes, \(r.entries) entries (\(r.tombstones) tombstones), height \(r.height), \(r.leafBlocks) leaves")
        }
        lines.append("trees:")
        for t in trees { lines.append("  \(t.name): \(t.entries) entries, keys \(t.keyBytes) B, values \(t.valueBytes) B") }
        return lines.joined(separator: "\n")
    }
}

/// What `check` found.
public struct CheckReport: Sendable, CustomStringConvertible {
    public var filesChecked = 0
    public var framesVerified = 0
    public var entriesChecked: UInt64 = 0
    public var problems: [EngineError] = []
    public var isClean: Bool { problems.isEmpty }

    public var description: String {
        var s = "checked \(filesChecked) files, \(framesVerified) frames, \(entriesChecked) entries: "
        s += isClean ? "clean" : "\(problems.count) problem(s)"
        for p in problems { s += "\n  " + p.description }
        return s
    }
}

extension StorageEngine {
    /// Sizes, entry counts and garbage, computed by a merged scan of a snapshot.
    public func stats() throws(EngineError) -> EngineStats {
        let snapshot = try snapshot()
        let (memBytes, counters, names) = state.withLock { s in (s.active.byteSize + (s.frozen?.byteSize ?? 0), s.statistics, s.trees) }
        var runs: [EngineStats.RunStats] = []
        var stored: UInt64 = 0
        for r in snapshot.runs {
            runs.append(.init(file: r.name, fileBytes: r.info.fileSize, entries: r.info.entryCount, tombstones: r.info.tombstoneCount,
                              rawBytes: r.info.rawBytes, height: r.info.height, leafBlocks: r.info.leafCount))
            stored += r.info.rawBytes
        }
        for m in snapshot.mems {
            let c = m.cursor()
            c.seekToFirst()
            while c.isValid {
                stored += UInt64(c.key.count + (c.value?.count ?? 0))
                c.next()
            }
        }
        var live: UInt64 = 0
        var trees: [EngineStats.TreeStats] = []
        let byID = Dictionary(names.map { ($0.value, $0.key) }, uniquingKeysWith: { a, _ in a })
        var merge = snapshot.mergeCursor(forward: true)
        try merge.seek([])
        while merge.isValid {
            let k = merge.key
            let v = merge.value?.count ?? 0
            live += UInt64(k.count + v)
            let id = k.count >= 4 ? UInt32(k[0]) << 24 | UInt32(k[1]) << 16 | UInt32(k[2]) << 8 | UInt32(k[3]) : 0
            let name = id == 0 ? Tree.catalog.name : byID[id] ?? "#\(id)"
            if trees.last?.name != name { trees.append(.init(name: name, entries: 0, keyBytes: 0, valueBytes: 0)) }
            trees[trees.count - 1].entries += 1
            trees[trees.count - 1].keyBytes += UInt64(k.count - 4)
            trees[trees.count - 1].valueBytes += UInt64(v)
            try merge.next()
        }
        var logBytes: UInt64 = 0
        var fileBytes: UInt64 = 0
        for name in (try? fs.list(directory)) ?? [] {
            guard let f = try? fs.open(directory + "/" + name, writable: false) else { continue }
            let size = (try? f.size()) ?? 0
            f.close()
            fileBytes += size
            if case .log = FileNames.parse(name) { logBytes += size }
        }
        var stats = EngineStats(cipher: keys.suite, sequence: snapshot.sequence, runs: runs, trees: trees, logBytes: logBytes,
                                fileBytes: fileBytes, liveBytes: live, garbageBytes: stored > live ? stored - live : 0,
                                memTableBytes: memBytes, cacheBytes: cache.usedBytes, pinnedBytes: cache.pinned, commits: counters.commits,
                                flushes: counters.flushes, compactions: counters.compactions)
        stats.logSyncs = counters.logSyncs
        return stats
    }

    /// Walks every run block by block (checksums, tags, key order, index consistency, counts)
    /// and every log frame. Problems are collected, not thrown.
    public func check() throws(EngineError) -> CheckReport {
        let snapshot = try snapshot()
        var report = CheckReport()
        for run in snapshot.runs {
            report.filesChecked += 1
            do throws(EngineError) {
                try checkRun(run, &report)
            } catch {
                report.problems.append(error)
            }
        }
        let logStart = state.withLock { $0.manifest.logStart }
        let logs = ((try? fs.list(directory)) ?? []).compactMap { name -> UInt32? in
            if case .log(let n) = FileNames.parse(name), n >= logStart { return n }
            return nil
        }.sorted()
        for (i, n) in logs.enumerated() {
            report.filesChecked += 1
            do throws(EngineError) {
                let result = try LogReplay.replay(fs: fs, directory: directory, fileNumber: n, keys: keys,
                                                  isLast: i == logs.count - 1) { _, records in
                    report.entriesChecked += UInt64(records.count)
                }
                report.framesVerified += result.commits
            } catch {
                // A flush that finished after the listing retires its logs and deletes them: a log
                // below the store's log start now holds nothing the store needs, so its vanishing
                // (or being cut short while deleted) is not damage.
                if state.withLock({ $0.manifest.logStart }) > n {
                    report.filesChecked -= 1
                    continue
                }
                report.problems.append(error)
            }
        }
        return report
    }

    private func checkRun(_ run: RunFile, _ report: inout CheckReport) throws(EngineError) {
        var entries: UInt64 = 0
        var tombstones: UInt64 = 0
        var lastKey: [UInt8]?
        func walk(_ pointer: (offset: UInt64, length: Int), depth: Int, upperKey: [UInt8]?) throws(EngineError) {
            let isLeaf = depth == run.info.height - 1
            let block = try run.block(at: pointer.offset, length: pointer.length, leaf: isLeaf, fillCache: false)
            report.framesVerified += 1
            for i in 0..<block.count {
                let k = block.key(i)
                if isLeaf {
                    if let lastKey, compareBytes(lastKey, k) >= 0 {
                        throw .corrupt("keys out of order across leaves", file: run.name, offset: pointer.offset)
                    }
                    lastKey = k
                    entries += 1
                    // A filter or a tree list that misses a key would hide it from point reads.
                    guard try run.mayContain(k, fillCache: false) else {
                        throw .corrupt("the run's Bloom filter or tree list does not hold a key of the run", file: run.name, offset: pointer.offset)
                    }
                    if block.isTombstone(i) { tombstones += 1 }
                } else {
                    try walk(block.child(i), depth: depth + 1, upperKey: k)
                    if lastKey != k {
                        throw .corrupt("index key does not match the last key of its child", file: run.name, offset: pointer.offset)
                    }
                }
            }
            if let upperKey, isLeaf, lastKey != upperKey {
                throw .corrupt("leaf's last key does not match its index entry", file: run.name, offset: pointer.offset)
            }
        }
        try walk(run.root, depth: 0, upperKey: nil)
        report.entriesChecked += entries
        guard entries == run.info.entryCount, tombstones == run.info.tombstoneCount else {
            throw .corrupt("footer says \(run.info.entryCount) entries, found \(entries)", file: run.name, offset: nil)
        }
        if let lastKey, lastKey != run.info.maxKey {
            throw .corrupt("footer's max key does not match the last entry", file: run.name, offset: nil)
        }
    }
}

/// Debug listing of a file's records (`offline-odata dump`).
public enum EngineDump {
    /// Lines describing each frame (and, for logs, each record) of one file in a store.
    /// Needs the store's keys, so it is a method of an open engine.
    public static func describe(_ engine: StorageEngine, file name: String, limit: Int = 1000) throws(EngineError) -> [String] {
        var lines: [String] = []
        switch FileNames.parse(name) {
        case .log(let n):
            lines.append("log \(name)")
            _ = try LogReplay.replay(fs: engine.fs, directory: engine.directory, fileNumber: n, keys: engine.keys, isLast: true) { seq, records in
                guard lines.count < limit else { return }
                lines.append("commit \(seq): \(records.count) record(s)")
                for r in records.prefix(20) {
                    lines.append("  \(r.value == nil ? "del" : "put") \(hex(r.key))" + (r.value.map { " = \($0.count) bytes: \(preview($0))" } ?? ""))
                }
            }
        case .run(let n):
            let run = try RunFile.open(fs: engine.fs, directory: engine.directory, fileNumber: n, keys: engine.keys, cache: engine.cache)
            lines.append("run \(name): \(run.info.entryCount) entries, height \(run.info.height), root at \(run.info.rootOffset)")
            let c = RunCursor(run: run)
            try c.seekToFirst()
            while c.isValid && lines.count < limit {
                lines.append("  \(hex(c.key))" + (c.value.map { " = \($0.count) bytes: \(preview($0))" } ?? " (tombstone)"))
                try c.next()
            }
        default:
            throw EngineError(.invalidArgument, "dump reads log-*.oolog and run-*.oorun files, not \(name)")
        }
        return lines
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.prefix(48).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }) + (bytes.count > 48 ? "…" : "")
    }

    static func preview(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.prefix(60).map { $0 >= 32 && $0 < 127 ? $0 : UInt8(ascii: ".") }, as: UTF8.self)
    }
}
