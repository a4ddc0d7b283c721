import BenchCommon
import Foundation
import QueryBenchKit

/// Renders the query section (Benchmarks/results/query.md; `scripts/bench.sh` copies the rows
/// between the `goals` markers into BENCHMARKS.md's summary). Ratios are peer latency / our
/// latency, so > 1 means ours is faster.
struct Report {
    let results: [SizeResult]
    let driver: Driver
    let command: String
    let output: String

    static let ours = "ours", plain = "ours-plain", typed = SQLiteTypedPeer.name, cipher = sqlcipherTyped, json = SQLiteJSONPeer.name

    static func grouped(_ n: Int) -> String {
        var out = ""
        for (i, ch) in String(n).reversed().enumerated() {
            if i > 0 && i % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        return String(out.reversed())
    }

    static func latency(_ s: Double?) -> String {
        guard let s else { return "—" }
        if s >= 1 { return String(format: "%.2f s", s) }
        if s >= 1e-3 { return String(format: "%.2f ms", s * 1e3) }
        return String(format: "%.1f µs", s * 1e6)
    }

    static func x(_ v: Double?) -> String { v.map { String(format: "%.2fx", $0) } ?? "—" }

    static func ratio(_ peer: Double?, _ ours: Double?) -> Double? {
        guard let peer, let ours, peer > 0, ours > 0 else { return nil }
        return peer / ours
    }

    /// Differences in rows or checksum between peers (or rounds) per size and workload, and
    /// workloads a peer failed to run.
    func mismatches() -> [String] {
        var out: [String] = []
        for r in results {
            for (peer, m) in r.samples.sorted(by: { $0.key < $1.key }) {
                for key in m.keys.sorted() where key.hasSuffix(".failed") {
                    out.append("\(Self.grouped(r.orders)) \(key.dropLast(7)): \(peer) failed (see its stderr)")
                }
            }
        }
        for r in results {
            for w in QueryWorkload.all(orders: r.orders) {
                var seen: [(String, QueryOutcome)] = []
                for type in driver.peers {
                    for o in r.outcomes(type.name, w.id) ?? [] { seen.append((type.name, o)) }
                }
                if let first = seen.first, let other = seen.first(where: { $0.1 != first.1 }) {
                    out.append("\(Self.grouped(r.orders)) \(w.id): \(first.0) \(first.1) vs \(other.0) \(other.1)")
                }
            }
            // What the workloads imply about each other, per peer (catches a peer whose answers
            // agree with nobody's because it is the only one measured).
            for type in driver.peers {
                func rows(_ id: String) -> Int? { r.outcomes(type.name, id)?.first?.rows }
                let size = Self.grouped(r.orders)
                if let c = rows("count-indexed"), let e = rows("eq-indexed"), c != e {
                    out.append("\(size) \(type.name): `$count` gave \(c), the same filter returned \(e) rows")
                }
                for id in ["top-indexed", "top-nonindexed"] {
                    if let n = rows(id), n != min(20, r.orders) { out.append("\(size) \(type.name) \(id): \(n) rows, expected 20") }
                }
                if let n = rows("expand-items"), n < 200 {
                    out.append("\(size) \(type.name) expand-items: \(n) rows, expected 100 parents + at least 1 item each")
                }
            }
        }
        return out
    }

    func outcomeText(_ r: SizeResult, _ w: QueryWorkload) -> String {
        guard let o = driver.peers.lazy.compactMap({ r.outcomes($0.name, w.id)?.first }).first else { return "n/a" }
        switch w.kind {
        case .count: return "1 (count \(Self.grouped(o.rows)), \(String(format: "%.2f", 100 * Double(o.rows) / Double(r.orders))) %)"
        case .expand: return "\(Self.grouped(o.rows)) (parents + items)"
        case .orderByIndexed, .orderByNonIndexed: return "\(o.rows)"
        default: return "\(Self.grouped(o.rows)) (\(String(format: "%.2f", 100 * Double(o.rows) / Double(r.orders))) %)"
        }
    }

    /// Column label of a peer.
    static func label(_ name: String) -> String {
        switch name {
        case ours: "ours (encrypted)"
        case plain: "ours unencrypted"
        case typed: "SQLite typed"
        case cipher: "SQLCipher typed"
        case json: "SQLite JSON"
        default: name
        }
    }

    /// Short name of a peer in ratio headers.
    static func short(_ name: String) -> String {
        switch name {
        case typed: "typed"
        case cipher: "SQLCipher"
        case json: "JSON"
        case plain: "plain"
        default: name
        }
    }

    /// Encryption overhead: encrypted / unencrypted − 1 (0.05 = ours encrypted is 5 % slower).
    static func overhead(_ encrypted: Double?, _ plain: Double?) -> Double? {
        guard let encrypted, let plain, encrypted > 0, plain > 0 else { return nil }
        return encrypted / plain - 1
    }

    static func percent(_ v: Double?) -> String {
        guard let v else { return "—" }
        return (v < 0 ? "−" : "+") + String(format: "%.1f %%", abs(v) * 100)
    }

    /// The peers measured, in column order.
    var names: [String] { driver.peers.map(\.name) }

    /// Header cells of one table: per peer its figure, then (for the other peers) the ratio to
    /// ours, for ours-plain the encryption overhead.
    func headerCells(_ unit: String) -> [String] {
        var cells: [String] = []
        for name in names {
            cells.append("\(Self.label(name))\(unit)")
            if name == Self.plain { cells.append("encryption overhead (ours / plain − 1)") }
            else if name != Self.ours { cells.append("\(Self.short(name)) / ours") }
        }
        return cells
    }

    func rowCells(_ r: SizeResult, _ metric: String) -> [String] {
        var cells: [String] = []
        let o = r.median(Self.ours, metric)
        for name in names {
            let v = r.median(name, metric)
            cells.append(Self.latency(v))
            if name == Self.plain { cells.append(Self.percent(Self.overhead(o, v))) }
            else if name != Self.ours { cells.append(Self.x(Self.ratio(v, o))) }
        }
        return cells
    }

    func measuredWorkloads(_ r: SizeResult) -> [QueryWorkload] {
        QueryWorkload.all(orders: r.orders).filter { w in r.samples.values.contains { $0["\(w.id).median_s"] != nil } }
    }

    /// Two tables: median wall-clock latency, then CPU time per query (the goal status uses the
    /// CPU ratios) with the machine's idle share per peer.
    func table(_ r: SizeResult) -> String {
        let header = headerCells("")
        var s = "Wall clock, median latency per query:\n\n"
        s += "| workload | result rows (selectivity) | " + header.joined(separator: " | ") + " |\n"
        s += "| --- | ---: |" + String(repeating: " ---: |", count: header.count) + "\n"
        for w in measuredWorkloads(r) {
            s += "| `\(w.id)`: \(w.title) | \(outcomeText(r, w)) | " + rowCells(r, "\(w.id).median_s").joined(separator: " | ") + " |\n"
        }
        s += "\nCPU time per query (user + system, mean of the timed runs), and the share of all cores idle while each peer ran:\n\n"
        let cpuHeader = headerCells(" CPU")
        s += "| workload | " + cpuHeader.joined(separator: " | ") + " | machine idle: " + names.map(Self.short).joined(separator: ", ") + " |\n"
        s += "| --- |" + String(repeating: " ---: |", count: cpuHeader.count + 1) + "\n"
        for w in measuredWorkloads(r) {
            s += "| `\(w.id)` | " + rowCells(r, "\(w.id).cpu_s").joined(separator: " | ") + " | "
            s += names.map { p in r.median(p, "\(w.id).idle").map { String(format: "%.0f %%", $0 * 100) } ?? "—" }
                .joined(separator: ", ") + " |\n"
        }
        return s
    }

    func loadTable(_ r: SizeResult) -> String {
        var s = "| peer | load (entities/s) | ANALYZE / finish | store size | peak RSS while loading | loaded |\n"
        s += "| --- | ---: | ---: | ---: | ---: | --- |\n"
        for name in names {
            guard let m = r.load[name] else {
                s += "| \(name) | — | — | — | — | not loaded |\n"
                continue
            }
            let load = m["load_s"] ?? 0
            s += "| \(name) | \(String(format: "%.1f s", load)) (\(Self.grouped(Int(Double(r.entities) / max(load, 1e-9))))/s) | "
            s += "\(String(format: "%.2f s", m["finish_s"] ?? 0)) | \(String(format: "%.1f MB", (m["size_bytes"] ?? 0) / 1e6)) | "
            s += "\(String(format: "%.1f MiB", (m["peak_rss_load"] ?? 0) / 1048576)) | \(r.loadedNow[name] == true ? "this run" : "reused from an earlier run") |\n"
        }
        if let o = r.load[Self.ours]?["load_s"], let p = r.load[Self.plain]?["load_s"] {
            s += "\nLoad encryption overhead (ours / ours-plain − 1): \(Self.percent(Self.overhead(o, p))).\n"
        }
        return s
    }

    func goals(_ r: SizeResult) -> String {
        var s = ""
        let size = Self.grouped(r.orders) + " SalesOrders"
        for w in measuredWorkloads(r) {
            // Status from CPU-time ratios of each peer's fastest round (the machine is shared and
            // its noise only adds time); the ratios of the medians over rounds and the wall-clock
            // ratios beside them.
            let o = r.median(Self.ours, "\(w.id).median_s"), oc = r.lowest(Self.ours, "\(w.id).cpu_s")
            let t = Self.ratio(r.lowest(Self.typed, "\(w.id).cpu_s"), oc)
            let j = Self.ratio(r.lowest(Self.json, "\(w.id).cpu_s"), oc)
            let c = Self.ratio(r.lowest(Self.cipher, "\(w.id).cpu_s"), oc)
            let om = r.median(Self.ours, "\(w.id).cpu_s")
            let tm = Self.ratio(r.median(Self.typed, "\(w.id).cpu_s"), om)
            let jm = Self.ratio(r.median(Self.json, "\(w.id).cpu_s"), om)
            let tw = Self.ratio(r.median(Self.typed, "\(w.id).median_s"), o)
            let jw = Self.ratio(r.median(Self.json, "\(w.id).median_s"), o)
            let cw = Self.ratio(r.median(Self.cipher, "\(w.id).median_s"), o)
            let (bar, goal, barMet, goalMet): (String, String, Bool?, Bool?)
            switch w.goalClass {
            case .indexed:
                (bar, goal) = ("≥ 1x SQLite typed, same indexes", "≥ 2x SQLite typed")
                (barMet, goalMet) = (t.map { $0 >= 1 }, t.map { $0 >= 2 })
            case .nonIndexed:
                (bar, goal) = ("≥ 3x SQLite over JSON text", "≥ 1x SQLite typed columns")
                (barMet, goalMet) = (j.map { $0 >= 3 }, t.map { $0 >= 1 })
            }
            func both(_ p: String) -> String {
                "\(Self.latency(r.median(p, "\(w.id).median_s"))) (CPU \(Self.latency(r.median(p, "\(w.id).cpu_s"))))"
            }
            // SQLCipher: for information (§5 names SQLCipher for the insert and the scan only).
            let cipherText = names.contains(Self.cipher) ? "; \(Self.x(c)) vs SQLCipher typed (wall \(Self.x(cw)))" : ""
            let measured = o == nil ? "— (ours not measured; SQLite typed \(both(Self.typed)), JSON \(both(Self.json)))"
                : "CPU, fastest rounds: \(Self.x(t)) vs typed, \(Self.x(j)) vs JSON (CPU medians of rounds \(Self.x(tm)), \(Self.x(jm)); wall \(Self.x(tw)), \(Self.x(jw)))\(cipherText)"
            s += "| \(w.title) (`\(w.url)`), \(size) | \(bar) | \(goal) | \(measured) | \(Self.status(barMet, goalMet)) |\n"
        }
        s += encryptionGoal(r)
        return s
    }

    static func status(_ barMet: Bool?, _ goalMet: Bool?) -> String {
        switch (barMet, goalMet) {
        case (nil, _), (_, nil): "not measured"
        case (true?, true?): "goal met"
        case (true?, false?): "bar met, goal not met"
        default: "not met"
        }
    }

    /// DESIGN.md §5 "encryption overhead vs our own unencrypted store": ≤ 10 % (goal ≤ 5 %), per
    /// workload from the CPU medians of `ours` and `ours-plain`; the worst workload sets the status.
    func encryptionGoal(_ r: SizeResult) -> String {
        // Fastest rounds, as the query goals; the medians of rounds beside them.
        let per = measuredWorkloads(r).compactMap { w -> (String, Double, Double?)? in
            guard let cpu = Self.overhead(r.lowest(Self.ours, "\(w.id).cpu_s"), r.lowest(Self.plain, "\(w.id).cpu_s")) else { return nil }
            return (w.id, cpu, Self.overhead(r.median(Self.ours, "\(w.id).cpu_s"), r.median(Self.plain, "\(w.id).cpu_s")))
        }
        let size = Self.grouped(r.orders) + " SalesOrders"
        let title = "encryption overhead vs our unencrypted store (ours / ours-plain − 1, CPU of each one's fastest round), every query workload, \(size)"
        guard let worst = per.max(by: { $0.1 < $1.1 }) else {
            return "| \(title) | ≤ 10 % | ≤ 5 % | — (needs peers ours and ours-plain) | not measured |\n"
        }
        let list = per.map { "\($0.0) \(Self.percent($0.1))" }.joined(separator: ", ")
        let status = worst.1 <= 0.05 ? "goal met" : (worst.1 <= 0.10 ? "bar met, goal not met" : "not met")
        return "| \(title) | ≤ 10 % | ≤ 5 % | worst \(Self.percent(worst.1)) (`\(worst.0)`, fastest rounds; CPU medians of rounds \(Self.percent(worst.2))); \(list) | \(status) |\n"
    }

    /// Peer ids in the CSV (shared with the engine and store benchmarks: ours is encrypted).
    static func csvPeer(_ name: String) -> String {
        switch name {
        case ours: "ours-enc"
        case plain: "ours-plain"
        case typed: "sqlite"
        case cipher: "sqlcipher"
        default: name
        }
    }

    /// The tables' figures as CSV rows (`--csv`): per size and peer, every workload's median
    /// latency (`query.ID`, ms) and CPU time per query (`query-cpu.ID`, ms), and the load's rate,
    /// store size and peak RSS; per size, the encryption overhead (`query-enc-overhead.ID`, CPU,
    /// percent, peer `ours-enc`).
    func csv() -> ResultsCSV {
        var out = ResultsCSV()
        for r in results {
            for type in driver.peers {
                let peer = Self.csvPeer(type.name)
                for w in QueryWorkload.all(orders: r.orders) {
                    out.add("query.\(w.id)", scale: r.orders, peer: peer, value: r.median(type.name, "\(w.id).median_s").map { $0 * 1e3 }, unit: "ms")
                    out.add("query-cpu.\(w.id)", scale: r.orders, peer: peer, value: r.median(type.name, "\(w.id).cpu_s").map { $0 * 1e3 }, unit: "ms")
                }
                if let m = r.load[type.name], let load = m["load_s"], load > 0 {
                    out.add("load.rate", scale: r.orders, peer: peer, value: Double(r.entities) / load, unit: "entities/s")
                    out.add("load.size", scale: r.orders, peer: peer, value: m["size_bytes"].map { $0 / 1e6 }, unit: "MB")
                    out.add("load.peak-rss", scale: r.orders, peer: peer, value: m["peak_rss_load"].map { $0 / 1048576 }, unit: "MiB")
                }
            }
            for w in QueryWorkload.all(orders: r.orders) {
                let v = Self.overhead(r.median(Self.ours, "\(w.id).cpu_s"), r.median(Self.plain, "\(w.id).cpu_s"))
                out.add("query-enc-overhead.\(w.id)", scale: r.orders, peer: "ours-enc", value: v.map { $0 * 100 }, unit: "%")
            }
        }
        return out
    }

    func markdown() -> String {
        let uname = Workers.shell("/bin/uname", ["-srvm"])
        let cpu = ProcStats.read("/proc/cpuinfo").split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { String($0.split(separator: ":", maxSplits: 1).last ?? "").trimmingCharacters(in: .whitespaces) } ?? "unknown"
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let memory = Double(ProcessInfo.processInfo.physicalMemory) / 1073741824
        let commit = Workers.measuredCommit
        let swift = Workers.shell("/usr/bin/env", ["swift", "--version"]).split(separator: "\n").first.map(String.init) ?? "unknown"
        let date = ISO8601DateFormatter().string(from: Date())
        let main = results.max { $0.orders < $1.orders }

        var s = "## Query benchmark: OData queries, ours (encrypted and unencrypted) vs SQLite typed columns, SQLCipher and SQLite over JSON text\n\n"
        s += "Generated by `query-bench` (Benchmarks/); do not edit by hand — rerun `\(command)`.\n\n"
        s += "- Machine: `\(uname)`\n- CPU: \(cpu), \(cores) cores; memory \(String(format: "%.1f", memory)) GiB\n"
        s += "- Commit: `\(commit)`; date: \(date)\n- Toolchain: \(swift); release build\n"
        s += "- SQLite \(SQLiteConnection.version) (system libsqlite3)"
        if let c = driver.peers.first(where: { $0.name == Self.cipher }) {
            s += "; SQLCipher peer run by `\(URL(fileURLWithPath: c.executable).lastPathComponent)`"
        }
        s += "\n"
        for (name, why) in driver.notMeasured.sorted(by: { $0.key < $1.key }) { s += "- `\(name)`: \(why)\n" }
        s += "- Method: each peer's store is loaded once per size in a child process (reused by later runs while the data is the same); "
        s += "then \(driver.rounds) round(s), each starting one query process per peer (order rotated each round, `sync()` before each). "
        s += "In a query process every workload runs once untimed (warm-up; its rows and key checksum are the reference), then "
        s += "repeatedly until \(driver.minSeconds) s have passed (at least 3 runs); the figure is the median run, then the median over rounds. "
        s += "Every run fully materializes its result (SQLite typed: every column of every row decoded into a Swift value; "
        s += "SQLite JSON: every row's `doc` parsed into a `JSONValue` tree), and rows and checksums are cross-checked between peers and rounds. "
        s += "CPU time per query (user + system of the process, averaged over the timed runs) is reported beside the wall-clock median; "
        s += "the goal status uses the CPU-time ratios, since other work shares the machine (*machine idle*: share of all cores idle during "
        s += "the timed runs, ≈ 50 % when nothing else runs on 2 cores). The tables show medians over rounds; the goal status compares "
        s += "each peer's fastest round (lowest CPU time per query of its rounds), with the ratio of the medians beside it: the machine's "
        s += "noise only adds time, and every peer has rounds at about twice its best (a query process runs in a fast or a slow mode "
        s += "for its whole life, whichever peer it is), so the median of 5 rounds compares modes as often as code.\n"
        if let cpu = driver.cpu {
            s += "- Every query process (every peer) ran on CPU \(cpu) only (`taskset`; `--cpu`, `BENCH_CPU`): unpinned, the same query process "
            s += "took up to twice as long on one of the machine's two CPUs as on the other, whichever peer it was.\n"
        }
        if driver.quietWait > 0 {
            s += "- Before each query process the driver waited (at most \(String(format: "%g", driver.quietWait)) s) for one core's worth of idle CPU.\n"
        }
        let loads = results.flatMap { r in r.samples.values.flatMap { $0["loadavg"] ?? [] } }.sorted()
        if let lo = loads.first, let hi = loads.last {
            s += "- Machine load (1-minute load average after each query process, \(cores) cores): min \(String(format: "%.2f", lo)), max \(String(format: "%.2f", hi)).\n"
        }
        s += "\nReproduce: `\(command)` (= `swift build -c release --package-path Benchmarks && Benchmarks/.build/release/query-bench run "
        s += "--orders \(results.map { String($0.orders) }.joined(separator: ",")) --rounds \(driver.rounds) --peers \(names.joined(separator: ","))\(driver.quietWait > 0 ? " --quiet-wait \(String(format: "%g", driver.quietWait))" : "") --out \(output)`).\n\n"

        if let main {
            s += "### Goals (DESIGN.md §5) at \(Self.grouped(main.orders)) SalesOrders\n\n"
            s += "| workload (DESIGN.md §5) | bar | goal | measured (ours encrypted vs each peer) | status |\n| --- | --- | --- | --- | --- |\n"
            s += "<!-- goals:begin -->\n" + goals(main) + "<!-- goals:end -->\n\n"
        }
        s += "### Data and peers\n\n"
        s += "- Data: `SalesServiceGenerator(seed: 0x0D47A_2026, scale: .entities(salesOrders: N))` (OfflineODataFixtures), all five sets: "
        s += "N/10 BusinessPartners, N/5 Contacts, N/5 Products, N SalesOrders, 4N SalesOrderItems (1–12 per order). "
        s += "Loaded as each entity's OData JSON (`entityProperties`) in batches of 1,000 entities, one transaction each, "
        s += "WAL + `synchronous=NORMAL`, indexes created before the load; the load time counts only the peers' work "
        s += "(JSON parse + insert + commit), not generating the JSON; then `ANALYZE`.\n"
        s += "- Secondary indexes (every peer): " + SecondaryIndex.all.map { "`\($0.set.name).\($0.property)`" }.joined(separator: ", ")
        s += " (SQLite typed: the last is the leading column of the items' key `(SalesOrderID, ItemPosition)`, so the primary key serves).\n"
        for type in driver.peers { s += "- `\(type.name)`: \(type.summary).\n" }
        s += "- Query processes: SQLite / SQLCipher `cache_size` \(QueryWorkload.cacheKiB / 1024) MiB (ours and ours-plain: the same budget as block cache), mmap off, statements prepared once per process; "
        s += "durability while loading: WAL + `synchronous=NORMAL` (SQLite, SQLCipher), `.relaxed` (ours, ours-plain).\n\n"
        for r in results {
            s += "### \(Self.grouped(r.orders)) SalesOrders (\(Self.grouped(r.entities)) entities)\n\n"
            s += "Lower is better; ratios: peer / ours encrypted (> 1 = ours faster); encryption overhead: ours encrypted / ours unencrypted − 1.\n\n"
            s += table(r) + "\n"
            s += "Load:\n\n" + loadTable(r) + "\n"
        }
        s += "### Workloads (OData URL and SQL)\n\n"
        if let main {
            for w in QueryWorkload.all(orders: main.orders) {
                s += "- `\(w.id)` (\(w.title)): `\(w.url)`\n"
                s += "  - typed (SQLite and SQLCipher): `\(w.typedSQL)`\(w.typedChildSQL.map { "; per parent: `\($0)`" } ?? "")\n"
                s += "  - JSON: `\(w.jsonSQL)`\(w.jsonChildSQL.map { "; per parent: `\($0)`" } ?? "")\n"
                for peer in [Self.typed, Self.cipher, Self.json] {
                    if let plan = main.plans[peer]?[w.id] { s += "  - plan \(peer): " + plan.map { "`\($0)`" }.joined(separator: "; ") + "\n" }
                }
            }
        }
        let bad = mismatches()
        s += "\n### Cross-check\n\n" + (bad.isEmpty ? "Rows and key checksums identical between peers and rounds for every workload.\n"
                                           : bad.map { "- MISMATCH \($0)\n" }.joined())
        s += "\n### Raw samples (one per round)\n\n"
        for r in results {
            for type in driver.peers {
                guard let m = r.samples[type.name] else { continue }
                s += "- \(Self.grouped(r.orders)) `\(type.name)`: "
                s += m.keys.sorted().filter { $0.hasSuffix("median_s") || $0 == "open_s" || $0 == "peak_rss_query" || $0 == "loadavg" }
                    .map { k in "\(k) " + (m[k] ?? []).map { String(format: "%.4g", $0) }.joined(separator: "/") }.joined(separator: "; ")
                s += "\n"
            }
        }
        return s
    }
}
