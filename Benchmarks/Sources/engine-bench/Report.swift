import BenchCommon
import BenchKV
import BenchSupport
import Foundation
import OfflineODataEngine

/// Renders the engine section (Benchmarks/results/engine.md; `scripts/bench.sh` assembles it into
/// BENCHMARKS.md, copying the rows between the `goals` markers into the summary table) from the medians. Every ratio is oriented so that > 1 means we are
/// better (throughput: ours / peer; time, size, memory, bytes: peer / ours), the peer being SQLite
/// or SQLCipher.
struct Report {
    let results: [ScaleResult]
    let driver: Driver
    let sqlcipher: SQLCipherPeer
    let command: String
    let output: String

    typealias C = Configuration
    static let encR = C(engine: .ours, encrypted: true, durability: .relaxed, insertOnly: false)
    static let plainR = C(engine: .ours, encrypted: false, durability: .relaxed, insertOnly: false)
    static let sqlN = C(engine: .sqlite, encrypted: false, durability: .relaxed, insertOnly: false)
    static let encF = C(engine: .ours, encrypted: true, durability: .full, insertOnly: true)
    static let plainF = C(engine: .ours, encrypted: false, durability: .full, insertOnly: true)
    static let sqlF = C(engine: .sqlite, encrypted: false, durability: .full, insertOnly: true)
    static let cipherN = C(engine: .sqlcipher, encrypted: true, durability: .relaxed, insertOnly: false)
    static let cipherF = C(engine: .sqlcipher, encrypted: true, durability: .full, insertOnly: true)

    enum Better { case higher, lower }

    /// A measured quantity: how to compute it from one round's metrics, and how to print it.
    struct Quantity {
        var label: String
        var better: Better
        var format: (Double) -> String
        /// The CSV's unit and the conversion of a computed value into it (`--csv`).
        var unit: String = ""
        var inUnit: (Double) -> Double = { $0 }
        var compute: ([String: Double]) -> Double?
    }

    /// The CSV rows (`--csv`), filled while the tables render.
    let csv = CSVSink()

    /// Collects `ResultsCSV` rows from the non-mutating rendering functions.
    final class CSVSink {
        var rows = ResultsCSV()
    }

    /// Peer ids in the CSV.
    static func peerID(_ c: C) -> String {
        switch c.engine {
        case .ours: c.encrypted ? "ours-enc" : "ours-plain"
        case .sqlite: "sqlite"
        case .sqlcipher: "sqlcipher"
        }
    }

    /// `relaxed vs WAL+NORMAL, through close` → `relaxed-vs-wal-normal-through-close`.
    static func slug(_ label: String) -> String {
        var out = ""
        for ch in label.lowercased() {
            if ch.isLetter || ch.isNumber { out.append(ch) } else if !out.isEmpty, out.last != "-" { out.append("-") }
        }
        while out.last == "-" { out.removeLast() }
        return out
    }

    /// Median over rounds of a quantity derived per round.
    func value(_ r: ScaleResult, _ c: C, _ q: Quantity) -> Double? {
        guard let metrics = r.samples[c.name] else { return nil }
        let rounds = metrics.values.map(\.count).max() ?? 0
        var xs: [Double] = []
        for i in 0..<rounds {
            var m: [String: Double] = [:]
            for (k, v) in metrics where i < v.count { m[k] = v[i] }
            if let x = q.compute(m), x.isFinite { xs.append(x) }
        }
        guard !xs.isEmpty else { return nil }
        xs.sort()
        return xs.count % 2 == 1 ? xs[xs.count / 2] : (xs[xs.count / 2 - 1] + xs[xs.count / 2]) / 2
    }

    func ratio(_ ours: Double?, _ peer: Double?, _ better: Better) -> Double? {
        guard let ours, let peer, ours > 0, peer > 0 else { return nil }
        return better == .higher ? ours / peer : peer / ours
    }

    /// Encryption cost as encrypted / unencrypted time-like ratio (1.05 = 5 % slower/bigger).
    /// The median over rounds of each pair run's encrypted / unencrypted time of one workload
    /// (`pair_<workload>_enc_s` / `pair_<workload>_plain_s`; each round's two figures come from
    /// one process: `PairWorker`).
    func pairedOverhead(_ r: ScaleResult, _ workload: String) -> Double? {
        guard let m = r.samples[Driver.pairName], let enc = m["pair_\(workload)_enc_s"], let plain = m["pair_\(workload)_plain_s"],
              !enc.isEmpty, enc.count == plain.count else { return nil }
        let ratios = zip(enc, plain).compactMap { e, p in p > 0 ? e / p : nil }.sorted()
        guard !ratios.isEmpty else { return nil }
        return ratios.count % 2 == 1 ? ratios[ratios.count / 2] : (ratios[ratios.count / 2 - 1] + ratios[ratios.count / 2]) / 2
    }

    func overhead(_ enc: Double?, _ plain: Double?, _ better: Better) -> Double? {
        guard let enc, let plain, enc > 0, plain > 0 else { return nil }
        return better == .higher ? plain / enc : enc / plain
    }

    // MARK: Quantities

    func rowsPerSecond(_ label: String, _ r: ScaleResult, _ seconds: @escaping ([String: Double]) -> Double?) -> Quantity {
        let n = Double(r.records)
        return Quantity(label: label, better: .higher, format: { Self.grouped($0) + " rows/s" }, unit: "rows/s") { m in
            seconds(m).map { n / $0 }
        }
    }

    func micro(_ label: String, _ key: String) -> Quantity {
        Quantity(label: label, better: .lower, format: { String(format: "%.2f µs", $0 * 1e6) }, unit: "us", inUnit: { $0 * 1e6 }) { $0[key] }
    }

    func mib(_ label: String, _ key: String) -> Quantity {
        Quantity(label: label, better: .lower, format: { String(format: "%.1f MB", $0 / 1e6) }, unit: "MB", inUnit: { $0 / 1e6 }) { $0[key] }
    }

    func perData(_ label: String, _ key: String, _ r: ScaleResult) -> Quantity {
        let data = Double(r.dataBytes)
        return Quantity(label: label, better: .lower, format: { String(format: "%.2f", $0) }, unit: "ratio") { m in m[key].map { $0 / data } }
    }

    // MARK: Rendering

    static func grouped(_ x: Double) -> String {
        let n = Int(x.rounded())
        let s = String(n)
        var out = ""
        for (i, ch) in s.reversed().enumerated() {
            if i > 0 && i % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        return String(out.reversed())
    }

    static func x(_ v: Double?) -> String { v.map { String(format: "%.2fx", $0) } ?? "n/a" }

    /// Columns: ours encrypted, ours unencrypted, SQLite, SQLCipher (n/a when not measured), then
    /// the ratios (> 1 = ours better) and our encryption cost.
    func table(_ r: ScaleResult, section: String, _ rows: [(Quantity, C, C, C, C)]) -> String {
        var s = "| measure | ours encrypted | ours unencrypted | SQLite | SQLCipher | ours enc vs SQLite (>1 = ours better) "
        s += "| ours unenc vs SQLite | ours enc vs SQLCipher | encryption cost (enc / unenc) |\n"
        s += "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
        for (q, e, p, sq, sc) in rows {
            let ve = value(r, e, q), vp = value(r, p, q), vs = value(r, sq, q), vc = value(r, sc, q)
            for (c, v) in [(e, ve), (p, vp), (sq, vs), (sc, vc)] {
                csv.rows.add("\(section).\(Self.slug(q.label))", scale: r.records, peer: Self.peerID(c), value: v.map(q.inUnit), unit: q.unit)
            }
            s += "| \(q.label) | \(ve.map(q.format) ?? "n/a") | \(vp.map(q.format) ?? "n/a") | \(vs.map(q.format) ?? "n/a") | "
            s += "\(vc.map(q.format) ?? "n/a") | \(Self.x(ratio(ve, vs, q.better))) | \(Self.x(ratio(vp, vs, q.better))) | "
            s += "\(Self.x(ratio(ve, vc, q.better))) | \(Self.x(overhead(ve, vp, q.better))) |\n"
        }
        return s
    }

    func sections(_ r: ScaleResult) -> String {
        let relaxed = (Self.encR, Self.plainR, Self.sqlN, Self.cipherN)
        let full = (Self.encF, Self.plainF, Self.sqlF, Self.cipherF)
        func row(_ q: Quantity, _ t: (C, C, C, C)) -> (Quantity, C, C, C, C) { (q, t.0, t.1, t.2, t.3) }
        var s = ""
        s += "#### Batched insert (\(Self.grouped(Double(r.records))) records, 1,000 per commit/transaction)\n\n"
        s += "Commits only: time from the first commit to the last one returning. Through close: plus a clean "
        s += "close (ours flushes the memtable into a run; SQLite and SQLCipher checkpoint the WAL into the database).\n\n"
        s += table(r, section: "insert", [
            row(rowsPerSecond("relaxed vs WAL+NORMAL, commits only", r) { $0["insert_s"] }, relaxed),
            row(rowsPerSecond("relaxed vs WAL+NORMAL, through close", r) { m in m["insert_s"].flatMap { a in m["close_s"].map { a + $0 } } }, relaxed),
            row(rowsPerSecond("full vs WAL+FULL, commits only", r) { $0["insert_s"] }, full),
            row(rowsPerSecond("full vs WAL+FULL, through close", r) { m in m["insert_s"].flatMap { a in m["close_s"].map { a + $0 } } }, full),
        ])
        s += "\n#### Random point lookups by key (\(Self.grouped(Double(min(driver.lookups, r.records * 2)))) lookups of existing keys, warm)\n\n"
        s += "Warm: one untimed pass over a different random sample first. Big cache: ours `cacheSize` 1 GiB, "
        s += "SQLite's and SQLCipher's `cache_size` 1 GiB (all hold the whole working set). Default cache: ours 32 MiB (the default), "
        s += "SQLite's and SQLCipher's `cache_size` 32 MiB. The store as left by the insert (several runs), and ours after `compactNow()` (one run).\n\n"
        s += table(r, section: "lookup", [
            row(micro("big cache, as inserted", "lookup_big_s"), relaxed),
            row(micro("default 32 MiB cache, as inserted", "lookup_default_s"), relaxed),
            row(Quantity(label: "big cache, ours after compactNow()", better: .lower, format: { String(format: "%.2f µs", $0 * 1e6) },
                          unit: "us", inUnit: { $0 * 1e6 }) {
                $0["lookup_compacted_s"] ?? $0["lookup_big_s"]
            }, relaxed),
        ])
        s += "\n(SQLite and SQLCipher have no compaction step: their columns repeat their one figure against our compacted store.)\n"
        s += "\n#### Full scan in key order, reading every key and value (owned copies)\n\n"
        s += table(r, section: "scan", [
            row(rowsPerSecond("as inserted, big cache", r) { $0["scan_s"] }, relaxed),
            row(rowsPerSecond("ours after compactNow()", r) { $0["scan_compacted_s"] ?? $0["scan_s"] }, relaxed),
        ])
        s += "\n#### File size on disk after a clean close\n\n"
        s += table(r, section: "size", [
            row(mib("as inserted (no explicit compaction)", "size_closed"), relaxed),
            row(Quantity(label: "ours after compactNow()", better: .lower, format: { String(format: "%.1f MB", $0 / 1e6) },
                          unit: "MB", inUnit: { $0 / 1e6 }) {
                $0["size_compacted"] ?? $0["size_closed"]
            }, relaxed),
        ])
        s += "\nData: \(String(format: "%.1f", Double(r.dataBytes) / 1e6)) MB of keys and values. "
        s += "Ours `compactNow()` took \(value(r, Self.encR, Quantity(label: "", better: .lower, format: { "\($0)" }) { $0["compact_s"] }).map { String(format: "%.2f s", $0) } ?? "n/a") encrypted, "
        s += "\(value(r, Self.plainR, Quantity(label: "", better: .lower, format: { "\($0)" }) { $0["compact_s"] }).map { String(format: "%.2f s", $0) } ?? "n/a") unencrypted.\n"
        s += "\n#### Reopen to first read after a clean close (median of 5 opens per process)\n\n"
        s += "Ours with `.key(32 bytes)` encryption (no Argon2id key derivation; `.passphrase` adds the KDF's cost, "
        s += "≈ 60 ms at `.interactive`). Open + first `get` of an existing key; OS page cache warm.\n\n"
        s += table(r, section: "reopen", [
            row(Quantity(label: "open + first read", better: .lower, format: { String(format: "%.2f ms", $0 * 1e3) },
                         unit: "ms", inUnit: { $0 * 1e3 }) { $0["reopen_first_read_s"] }, relaxed),
        ])
        s += "\n#### Peak resident memory of the inserting process (VmHWM, fresh process per configuration)\n\n"
        s += table(r, section: "rss", [
            row(Quantity(label: "relaxed vs WAL+NORMAL", better: .lower, format: { String(format: "%.1f MiB", $0 / 1048576) }, unit: "MiB", inUnit: { $0 / 1048576 }) { $0["peak_rss_insert"] }, relaxed),
            row(Quantity(label: "full vs WAL+FULL", better: .lower, format: { String(format: "%.1f MiB", $0 / 1048576) }, unit: "MiB", inUnit: { $0 / 1048576 }) { $0["peak_rss_insert"] }, full),
            row(Quantity(label: "process at start (baseline)", better: .lower, format: { String(format: "%.1f MiB", $0 / 1048576) }, unit: "MiB", inUnit: { $0 / 1048576 }) { $0["rss_start"] }, relaxed),
        ])
        s += "\n#### Bytes written per byte of data during insert + close\n\n"
        s += "`wchar`: bytes passed to write calls (/proc/self/io). `disk`: `write_bytes − cancelled_write_bytes` "
        s += "(bytes sent to the block layer; files deleted before writeback are not counted).\n\n"
        s += table(r, section: "written", [
            row(perData("wchar, relaxed vs WAL+NORMAL", "wchar_insert", r), relaxed),
            row(perData("disk, relaxed vs WAL+NORMAL", "disk_write_insert", r), relaxed),
            row(perData("wchar, full vs WAL+FULL", "wchar_insert", r), full),
            row(perData("disk, full vs WAL+FULL", "disk_write_insert", r), full),
        ])
        return s
    }

    func goals(_ r: ScaleResult, small: ScaleResult?) -> String {
        func status(_ v: Double?, bar: Double, goal: Double, higher: Bool = true) -> String {
            guard let v else { return "not measured" }
            let meets = { (t: Double) in higher ? v >= t : v <= t }
            return meets(goal) ? "goal met" : meets(bar) ? "bar met, goal not met" : "not met"
        }
        let insertFull = rowsPerSecond("", r) { m in m["insert_s"].flatMap { a in m["close_s"].map { a + $0 } } }
        let insertRatio = ratio(value(r, Self.encF, insertFull), value(r, Self.sqlF, insertFull), .higher)
        let lookupQ = micro("", "lookup_big_s")
        let lookupRatio = ratio(value(r, Self.encR, lookupQ), value(r, Self.sqlN, lookupQ), .lower)
        let scanQ = rowsPerSecond("", r) { $0["scan_s"] }
        let scanRatio = ratio(value(r, Self.encR, scanQ), value(r, Self.sqlN, scanQ), .higher)
        let cipherInsertRatio = ratio(value(r, Self.encF, insertFull), value(r, Self.cipherF, insertFull), .higher)
        let cipherScanRatio = ratio(value(r, Self.encR, scanQ), value(r, Self.cipherN, scanQ), .higher)
        let sizeQ = mib("", "size_closed")
        let sizeCQ = mib("", "size_compacted")
        let sizeOurs = value(r, Self.encR, sizeQ), sizeSQL = value(r, Self.sqlN, sizeQ)
        let sizeFrac = sizeOurs.flatMap { o in sizeSQL.map { o / $0 } }
        let sizeCFrac = value(r, Self.encR, sizeCQ).flatMap { o in sizeSQL.map { o / $0 } }
        let waQ = perData("", "wchar_insert", r)
        let waDiskQ = perData("", "disk_write_insert", r)
        let wa = value(r, Self.encF, waQ), waDisk = value(r, Self.encF, waDiskQ)
        let encIns = overhead(value(r, Self.encF, insertFull), value(r, Self.plainF, insertFull), .higher)
        // Lookups: the pair run (both stores in one process, alternating batches) when it ran;
        // the separate workers' medians are shown beside it.
        let encLookupSeparate = overhead(value(r, Self.encR, lookupQ), value(r, Self.plainR, lookupQ), .lower)
        let encLookupPaired = pairedOverhead(r, "lookup")
        let encLookup = encLookupPaired ?? encLookupSeparate
        // Scans likewise: the warm scan (the scan workload) and a cold one (32 MiB cache, every
        // block decrypted) from the pair run; both count.
        let encScanSeparate = overhead(value(r, Self.encR, scanQ), value(r, Self.plainR, scanQ), .higher)
        let encScanPaired = pairedOverhead(r, "scan")
        let encScanCold = pairedOverhead(r, "scan_cold")
        let encScan = encScanPaired ?? encScanSeparate
        let worstEnc = [encIns, encLookup, encScan, encScanCold].compactMap { $0 }.max()
        let openQ = Quantity(label: "", better: .lower, format: { "\($0)" }) { $0["reopen_first_read_s"] }
        let open = value(r, Self.encR, openQ).map { $0 * 1e3 }
        let rssQ = Quantity(label: "", better: .lower, format: { "\($0)" }) { $0["peak_rss_insert"] }
        let rss = value(r, Self.encF, rssQ)
        let rssSmall = small.flatMap { value($0, Self.encF, rssQ) }
        let pct = { (v: Double?) in v.map { String(format: "%+.1f%%", ($0 - 1) * 100) } ?? "n/a" }

        var s = "| workload (DESIGN.md §5) | bar | goal | measured (ours encrypted) | status |\n| --- | --- | --- | --- | --- |\n"
        s += "<!-- goals:begin -->\n"
        s += "| batched durable insert, \(Self.grouped(Double(r.records))) records (ours `.full` vs SQLite WAL+FULL, through close; no secondary indexes in this benchmark) | ≥ 3x SQLite | ≥ 6x SQLite | \(Self.x(insertRatio)) | \(status(insertRatio, bar: 3, goal: 6)) |\n"
        s += "| random point read by key, warm cache | ≥ 3x SQLite | ≥ 4x SQLite | \(Self.x(lookupRatio)) | \(status(lookupRatio, bar: 3, goal: 4)) |\n"
        s += "| full scan with decode | ≥ 1x SQLite | ≥ 1x SQLite | \(Self.x(scanRatio)) | \(status(scanRatio, bar: 1, goal: 1)) |\n"
        // DESIGN.md §5 sets these two against SQLCipher as goals only (no bar).
        let cipherMissing = sqlcipher.worker == nil ? SQLCipherPeer.missing : nil
        s += "| batched durable insert, \(Self.grouped(Double(r.records))) records (ours `.full` vs SQLCipher WAL+FULL, through close; no secondary indexes) "
        s += "| (none) | ≥ 10x SQLCipher | \(cipherMissing ?? Self.x(cipherInsertRatio)) | \(cipherMissing == nil ? status(cipherInsertRatio, bar: 10, goal: 10) : "not measured") |\n"
        s += "| full scan with decode (ours vs SQLCipher) | (none) | ≥ 4x SQLCipher | \(cipherMissing ?? Self.x(cipherScanRatio)) "
        s += "| \(cipherMissing == nil ? status(cipherScanRatio, bar: 4, goal: 4) : "not measured") |\n"
        s += "| store size, as inserted | ≤ 0.5x SQLite | ≤ 0.4x SQLite | \(sizeFrac.map { String(format: "%.2fx", $0) } ?? "n/a") | \(status(sizeFrac, bar: 0.5, goal: 0.4, higher: false)) |\n"
        s += "| store size, after compactNow() | ≤ 0.5x SQLite | ≤ 0.4x SQLite | \(sizeCFrac.map { String(format: "%.2fx", $0) } ?? "n/a") | \(status(sizeCFrac, bar: 0.5, goal: 0.4, higher: false)) |\n"
        s += "| bytes written per byte of data (durable ingest, `wchar`; no indexes) | ≤ 4x | ≤ 2x | \(wa.map { String(format: "%.2f", $0) } ?? "n/a") (disk: \(waDisk.map { String(format: "%.2f", $0) } ?? "n/a")) | \(status(wa, bar: 4, goal: 2, higher: false)) |\n"
        let lookupText = encLookupPaired == nil ? "lookup \(pct(encLookup))"
            : "lookup \(pct(encLookup)) (both stores in one process, alternating; separate processes \(pct(encLookupSeparate)))"
        let scanText = encScanPaired == nil ? "scan \(pct(encScan))"
            : "warm scan \(pct(encScan)), cold scan \(pct(encScanCold)) (each both stores in one process, alternating; warm scan in separate processes \(pct(encScanSeparate)))"
        s += "| encryption overhead vs our unencrypted store (worst of durable insert \(pct(encIns)), \(lookupText), \(scanText)) | ≤ 10% | ≤ 5% | \(pct(worstEnc)) | \(status(worstEnc, bar: 1.10, goal: 1.05, higher: false)) |\n"
        s += "| open + first query after clean close (excluding KDF) | ≤ 10 ms | ≤ 2 ms | \(open.map { String(format: "%.2f ms", $0) } ?? "n/a") | \(status(open, bar: 10, goal: 2, higher: false)) |\n"
        if let rss {
            let growth = rssSmall.map { rss / $0 }
            let mibs = rss / 1048576
            let st: String
            if let growth {
                st = (growth <= 1.2 ? "bar met" : "bar not met") + ", " + (mibs <= 64 ? "goal met" : "goal not met")
            } else {
                st = "bar not measured (no smaller scale in this run), " + (mibs <= 64 ? "goal met" : "goal not met")
            }
            s += "| peak memory during the durable insert (whole process, VmHWM) | ≤ 1.2x the figure at \(small.map { Self.grouped(Double($0.records)) } ?? "100k") | ≤ 64 MiB | \(String(format: "%.1f MiB", mibs))\(growth.map { String(format: " (%.2fx the smaller scale)", $0) } ?? "") | \(st) |\n"
        }
        s += "<!-- goals:end -->\n"
        return s
    }

    func markdown() -> String {
        let cpu = ProcStats.read("/proc/cpuinfo").split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { String($0.split(separator: ":", maxSplits: 1).last ?? "").trimmingCharacters(in: .whitespaces) } ?? "unknown"
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let memory = Double(ProcessInfo.processInfo.physicalMemory) / 1073741824
        let commit = Workers.measuredCommit
        let date = ISO8601DateFormatter().string(from: Date())
        let uname = Workers.shell("/bin/uname", ["-a"])
        let swift = Workers.shell("/usr/bin/env", ["swift", "--version"]).split(separator: "\n").first.map(String.init) ?? "unknown"
        // Goals at the largest scale; the memory bar compares it with the next smaller one.
        let main = results.max { $0.records < $1.records }
        let small = main.flatMap { m in results.filter { $0.records < m.records }.max { $0.records < $1.records } }

        var s = "## Storage engine benchmark: OfflineODataEngine vs SQLite and SQLCipher\n\n"
        s += "Generated by `engine-bench` (Benchmarks/); do not edit by hand — rerun `\(command)`.\n\n"
        s += "- Machine: `\(uname)`\n- CPU: \(cpu), \(cores) cores; memory \(String(format: "%.1f", memory)) GiB\n"
        s += "- Commit: `\(commit)`; date: \(date)\n- Toolchain: \(swift); release build\n"
        s += "- SQLite \(SQLiteStore.version) (system libsqlite3); our cipher: \(CipherSuite.preferred) (libsodium), LZ4 on\n"
        s += "- SQLCipher: \(sqlcipher.description)\n"
        s += "- Method: every configuration runs its whole workload once per round in a fresh child process; "
        s += "\(driver.rounds) rounds, interleaved (all configurations in round 1, then round 2, …; the order rotates by one each round; "
        s += "`sync()` before each worker so earlier write-back does not overlap it); each figure is the median of the rounds. "
        s += "The encryption overhead of lookups comes from one more process per round (`engine-bench pair`): it opens that round's "
        s += "encrypted and unencrypted relaxed stores (both compacted by their workers), warms both with the lookup workload's warm-up keys, "
        s += "then times the same \(Self.grouped(Double(driver.lookups))) keys (fewer at small scales) in \(PairWorker.batches) batches on each store in turn, "
        s += "the first store alternating; then scans each store fully \(PairWorker.scanRepeats) times, alternating, with the big cache (warm, "
        s += "as the scan workload) and again after reopening both with the default 32 MiB cache (cold: every block read, decrypted and "
        s += "decompressed wherever the decoded data exceeds that cache: 442 MB at 1,000,000 records); each figure is the median over rounds of encrypted / unencrypted. Between two processes, "
        s += "warm lookups and scans of identical code differ by up to ±20 % (the unencrypted scan alone by up to 50 %), which the "
        s += "separate workers' medians cannot tell from encryption.\n"
        let loads = results.flatMap { r in r.samples.values.flatMap { ($0["loadavg_before"] ?? []) + ($0["loadavg_after"] ?? []) } }.sorted()
        if let lo = loads.first, let hi = loads.last {
            s += "- Machine load (1-minute load average around each worker, \(cores) cores): min \(String(format: "%.2f", lo)), "
            s += "median \(String(format: "%.2f", loads[loads.count / 2])), max \(String(format: "%.2f", hi)). "
            s += "Above \(cores), other processes competed for the cores and slowed that round; compare the rounds in the raw samples.\n"
        }
        s += "\n"
        s += "Reproduce: `\(command)` (= `swift build -c release --package-path Benchmarks && "
        s += "Benchmarks/.build/release/engine-bench run --records \(results.map { String($0.records) }.joined(separator: ",")) "
        s += "--rounds \(driver.rounds) --lookups \(driver.lookups) --out \(output)`).\n\n"

        if let main {
            s += "### Goals (DESIGN.md §5) at \(Self.grouped(Double(main.records))) records\n\n"
            s += goals(main, small: small) + "\n"
        }
        s += "### Data and peer settings\n\n"
        if let main {
            let others = results.filter { $0.records != main.records }.map { Self.grouped(Double($0.records)) }.joined(separator: ", ")
        s += "- Data: \(Self.grouped(Double(main.records))) records\(others.isEmpty ? "" : " (and \(others) below)"), "
            s += "16-byte random UUID-like keys (unique, inserted in random order), sales-order-item JSON values averaging "
            s += "\(String(format: "%.0f", main.valueBytesAverage)) bytes with varying optional fields; deterministic from a fixed seed "
            s += "(`Benchmarks/Sources/BenchKV/Workload.swift`). Records are read from a pre-generated file during the insert, "
            s += "so generation is not timed.\n"
        }
        s += "- Batches: 1,000 records per commit (ours: one `write { batch.put }` per batch; SQLite: `BEGIN` … 1,000 × prepared `INSERT` … `COMMIT`).\n"
        s += "- SQLite: `\(SQLiteStore.schema.replacingOccurrences(of: "IF NOT EXISTS ", with: ""))`, `journal_mode=WAL`, "
        s += "`synchronous=NORMAL` (paired with our `.relaxed`: no fsync per commit) or `synchronous=FULL` (paired with our `.full`: "
        s += "fsync per commit); page size 4,096 (default); mmap off (default); cache: default (2,000 KiB) for the insert, 1 GiB or 32 MiB "
        s += "for lookups and scans as stated; prepared statements (`SQLITE_PREPARE_PERSISTENT`), blobs bound without copies; values copied out as Swift arrays.\n"
        if sqlcipher.worker != nil {
            s += "- SQLCipher (issue 6; `sqlcipher-worker`, a separate executable: libsqlcipher and libsqlite3 export the same `sqlite3_*` "
            s += "symbols): the same schema, pragmas, statements and workload code as SQLite (the same Swift source compiled against "
            s += "libsqlcipher, with `sqlite3_prepare_v2`: SQLCipher 3.4's SQLite predates `prepare_v3`), keyed with the same 32 bytes "
            s += "as ours through the raw-key form `PRAGMA key = \"x'…'\"` (no PBKDF2: no KDF cost in any timing), AES-256-CBC with a "
            s += "per-page HMAC (HMAC-SHA1: SQLCipher 3.x has no other), `cipher_page_size` 4,096 (SQLCipher 4's default and the SQLite "
            s += "peer's page size, and what DESIGN.md §4 measured; 3.4's own default is 1,024). Note it runs on an older SQLite (see "
            s += "above) than the SQLite peer, so not every difference between the two columns is the cipher's. SQLCipher decrypts a page "
            s += "when it enters the page cache and keeps it decrypted there: with the 1 GiB cache, after the warm-up, lookups and the scan "
            s += "read decrypted pages (as ours reads decoded blocks from its cache).\n"
        }
        s += "- Ours: `EngineOptions` defaults except encryption and durability: encryption `.key(32 bytes)` (AES-256-GCM) or `.unencrypted`; "
        s += "memtable 8 MiB, block 16 KiB, LZ4 on, automatic compaction on; cache 32 MiB (default) for the insert, 1 GiB or 32 MiB for lookups and scans as stated.\n"
        s += "- File sizes: the sum of the store's files after close (SQLite's WAL is checkpointed and removed by the last close).\n\n"
        for r in results {
            s += "### \(Self.grouped(Double(r.records))) records\n\n" + sections(r) + "\n"
        }
        s += "### Raw samples (one per round)\n\n"
        for r in results {
            for name in Configuration.all.map(\.name) + [Driver.pairName] {
                guard let m = r.samples[name] else { continue }
                s += "- \(Self.grouped(Double(r.records))) `\(name)`: "
                s += m.keys.sorted().map { k in "\(k) " + (m[k] ?? []).map { String(format: "%.6g", $0) }.joined(separator: "/") }.joined(separator: "; ")
                s += "\n"
            }
        }
        return s
    }
}
