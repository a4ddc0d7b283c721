import BenchCommon
import Foundation
import QueryBenchKit

/// The store section (Benchmarks/results/store.md) and its CSV twin: per size a table with every
/// peer, the ratios to ours encrypted and ours' encryption overhead; the DESIGN.md §5 goals.
struct StoreReport {
    let driver: StoreDriver
    var sections = ""
    var goals: [String] = []
    var csv = ResultsCSV()
    /// The previous size's entities and our peak RSS (the memory bar compares against it).
    var smaller: (entities: Int, rss: Double)?

    init(driver: StoreDriver) { self.driver = driver }

    /// One row of a size's table: how to read the figure from a peer's medians and whether
    /// lower is better.
    struct Measure {
        let title: String
        let lowerIsBetter: Bool
        let value: (_ m: (String) -> Double?) -> Double?
        let format: (Double) -> String
        /// CSV workload id and unit, and the factor from `value` to that unit.
        let csv: (id: String, unit: String, factor: Double)?
    }

    static func fmt(_ v: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", v) }

    static func duration(_ seconds: Double) -> String {
        seconds >= 1 ? fmt(seconds) + " s" : (seconds >= 0.001 ? fmt(seconds * 1000) + " ms" : fmt(seconds * 1_000_000, 1) + " µs")
    }

    static func median(_ values: [Double]) -> Double? { values.isEmpty ? nil : TypedStoreWorker.percentile(values, 0.5) }

    static func percent(_ v: Double?) -> String {
        guard let v else { return "—" }
        return (v < 0 ? "−" : "+") + String(format: "%.1f %%", abs(v) * 100)
    }

    var measures: [Measure] {
        func ratio(_ a: Double?, _ b: Double?) -> Double? {
            guard let a, let b, a > 0, b > 0 else { return nil }
            return a / b
        }
        return [
            Measure(title: "download apply (wall)", lowerIsBetter: true, value: { $0("download_s") }, format: Self.duration,
                    csv: ("download.apply", "s", 1)),
            Measure(title: "download throughput", lowerIsBetter: false, value: { ratio($0("download_entities"), $0("download_s")) },
                    format: { "\(Int($0).formatted()) entities/s" }, csv: ("download.rate", "entities/s", 1)),
            Measure(title: "download cost per entity", lowerIsBetter: true, value: { ratio($0("download_s"), $0("download_entities")) },
                    format: { Self.fmt($0 * 1e6, 1) + " µs" }, csv: ("download.us-per-entity", "us", 1e6)),
            Measure(title: "local update with queueing: median latency per durable commit", lowerIsBetter: true,
                    value: { $0("update_median_s") }, format: Self.duration, csv: ("update.median", "ms", 1e3)),
            Measure(title: "local update with queueing: p99 latency", lowerIsBetter: true, value: { $0("update_p99_s") },
                    format: Self.duration, csv: ("update.p99", "ms", 1e3)),
            Measure(title: "local updates: total for \(updates)", lowerIsBetter: true, value: { $0("update_total_s") },
                    format: Self.duration, csv: nil),
            Measure(title: "updates per second", lowerIsBetter: false, value: { m in m("update_total_s").flatMap { $0 > 0 ? Double(updates) / $0 : nil } },
                    format: { Self.fmt($0, 0) }, csv: ("update.rate", "updates/s", 1)),
            Measure(title: "local create with queueing (POST of a SalesOrder): median latency per durable commit", lowerIsBetter: true,
                    value: { $0("create_median_s") }, format: Self.duration, csv: ("create.median", "ms", 1e3)),
            Measure(title: "local create with queueing: p99 latency", lowerIsBetter: true, value: { $0("create_p99_s") },
                    format: Self.duration, csv: ("create.p99", "ms", 1e3)),
            Measure(title: "local delete with queueing (DELETE of a downloaded SalesOrder): median latency per durable commit", lowerIsBetter: true,
                    value: { $0("delete_median_s") }, format: Self.duration, csv: ("delete.median", "ms", 1e3)),
            Measure(title: "local delete with queueing: p99 latency", lowerIsBetter: true, value: { $0("delete_p99_s") },
                    format: Self.duration, csv: ("delete.p99", "ms", 1e3)),
            Measure(title: "sync floor: \(SyncFloor.writeBytes)-byte `pwrite` + `fdatasync` into a synced, preallocated file beside the store, median (each worker measures its own; not a store figure)", lowerIsBetter: true,
                    value: { $0("sync_floor_median_s") }, format: Self.duration, csv: ("sync-floor.median", "ms", 1e3)),
            Measure(title: "reopen to first query (close → open → one key read; median of 9; ours takes the model parsed from the same `$metadata` by the first open)", lowerIsBetter: true,
                    value: { $0("reopen_first_query_s") }, format: Self.duration, csv: ("reopen.first-query", "ms", 1e3)),
            Measure(title: "peak RSS of the worker after the download", lowerIsBetter: true, value: { $0("download_rss") },
                    format: { Self.fmt($0 / 1_048_576, 1) + " MiB" }, csv: ("download.peak-rss", "MiB", 1 / 1_048_576)),
            Measure(title: "store size after the run", lowerIsBetter: true, value: { $0("size_bytes") },
                    format: { Self.fmt($0 / 1_000_000, 1) + " MB" }, csv: ("size.after-run", "MB", 1e-6)),
            // Ours only: the reopens above take the model parsed from the same `$metadata` by an
            // earlier open of the process; the first open of a process parses it.
            Measure(title: "open + first query in a new process (ours: parses `$metadata` too; once)", lowerIsBetter: true,
                    value: { $0("reopen_cold_s") }, format: Self.duration, csv: ("reopen.new-process", "ms", 1e3)),
            Measure(title: "burst: \(TypedStoreWorker.burstUpdates) updates with queueing issued at once from \(TypedStoreWorker.burstThreads) threads, each acknowledged once durable (wall, all of them)",
                    lowerIsBetter: true, value: { $0("burst_s") }, format: Self.duration, csv: ("burst.wall", "ms", 1e3)),
            Measure(title: "burst: log syncs (`fdatasync`) for the \(TypedStoreWorker.burstUpdates) (ours; SQLite in WAL with synchronous=FULL syncs at every commit)",
                    lowerIsBetter: true, value: { $0("burst_syncs") }, format: { Self.fmt($0, 0) }, csv: ("burst.syncs", "syncs", 1)),
        ]
    }

    /// Both values, or nil.
    func zip2(_ a: Double?, _ b: Double?) -> (Double, Double)? {
        guard let a, let b, a > 0, b > 0 else { return nil }
        return (a, b)
    }

    /// > 1 = ours better: peer / ours for lower-is-better figures, ours / peer otherwise.
    static func advantage(_ measure: Measure, ours: Double?, peer: Double?) -> Double? {
        guard let ours, let peer, ours > 0, peer > 0 else { return nil }
        return measure.lowerIsBetter ? peer / ours : ours / peer
    }

    /// Encryption overhead (> 0 = encrypted worse): ours / plain − 1, or plain / ours − 1 for
    /// higher-is-better figures.
    static func overhead(_ measure: Measure, ours: Double?, plain: Double?) -> Double? {
        advantage(measure, ours: plain, peer: ours).map { $0 - 1 }
    }

    mutating func add(orders: Int, scale: Int, results: [StorePeer: [String: [Double]]]) {
        let peers = driver.peers
        func reader(_ peer: StorePeer) -> (String) -> Double? { { key in Self.median(results[peer]?[key] ?? []) } }
        let entities = peers.lazy.compactMap { reader($0)("download_entities") }.first ?? 0
        var s = "### \(orders.formatted()) SalesOrders (\(Int(entities).formatted()) entities)\n\n"
        var header = ["measure"], align = ["---"]
        for peer in peers {
            header.append(peer.label)
            align.append("---:")
            if peer == .oursPlain { header.append("encryption overhead (ours / plain − 1)"); align.append("---:") }
            else if peer != .ours { header.append("\(peer.label) / ours (> 1 = ours better)"); align.append("---:") }
        }
        s += "| " + header.joined(separator: " | ") + " |\n| " + align.joined(separator: " | ") + " |\n"
        for measure in measures {
            let o = measure.value(reader(.ours))
            var cells = [measure.title]
            for peer in peers {
                let v = measure.value(reader(peer))
                cells.append(v.map(measure.format) ?? "—")
                if peer == .oursPlain { cells.append(Self.percent(Self.overhead(measure, ours: o, plain: v))) }
                else if peer != .ours { cells.append(Self.advantage(measure, ours: o, peer: v).map { Self.fmt($0) + "x" } ?? "—") }
                if let c = measure.csv, let v { csv.add(c.id, scale: scale, peer: peer.csvID, value: v * c.factor, unit: c.unit) }
            }
            s += "| " + cells.joined(separator: " | ") + " |\n"
        }
        sections += s + "\n"
        addGoals(orders: orders, entities: Int(entities), scale: scale, reader: reader)
    }

    mutating func addGoals(orders: Int, entities: Int, scale: Int, reader: (StorePeer) -> (String) -> Double?) {
        let label = "\(entities.formatted()) entities (\(orders.formatted()) SalesOrders)"
        let ours = reader(.ours)
        if let reopen = ours("reopen_first_query_s") {
            let ms = reopen * 1000
            // A reopen in the process takes the model an earlier open parsed; the first open of
            // a new process (parsing `$metadata`, first use of everything) is shown beside it.
            let cold = ours("reopen_cold_s").map { "; first open of a new process, parsing `$metadata`: \(Self.fmt($0 * 1000)) ms" } ?? ""
            goals.append("| open + first query after clean close (excluding KDF), offline store, \(label) | ≤ 10 ms | ≤ 2 ms | \(Self.fmt(ms)) ms (reopen in the process\(cold)) | \(ms <= 2 ? "goal met" : (ms <= 10 ? "bar met, goal not met" : "not met")) |")
        }
        if let rss = ours("download_rss") {
            if let s = smaller, s.entities >= entities { smaller = nil }
            let growth = smaller.map { rss / max($0.rss, 1) }
            let rssStatus = (growth.map { $0 <= 1.2 ? "bar met" : "bar not met" } ?? "bar not measured (no smaller size)") + ", " + (rss <= 64 * 1_048_576 ? "goal met" : "goal not met")
            goals.append("| peak memory during the download (worker VmHWM), \(entities.formatted()) entities | ≤ 1.2x the figure at \(smaller.map { $0.entities.formatted() + " entities" } ?? "the smaller size") | ≤ 64 MiB | \(Self.fmt(rss / 1_048_576, 1)) MiB\(growth.map { " (" + Self.fmt($0) + "x)" } ?? "") | \(rssStatus) |")
            smaller = (entities, rss)
        }
        // Issue 34: a burst of concurrent updates is group-committed.
        if let syncs = ours("burst_syncs"), let wall = ours("burst_s") {
            let peer = reader(.sqliteTyped)("burst_s").map { "; SQLite \(Self.fmt($0 * 1000)) ms (\(Self.fmt($0 / wall))x ours)" } ?? ""
            goals.append("| burst of \(TypedStoreWorker.burstUpdates) updates with queueing from \(TypedStoreWorker.burstThreads) threads, \(label) | fewer log syncs than updates, each acknowledged once durable | | \(Self.fmt(syncs, 0)) syncs for \(TypedStoreWorker.burstUpdates) updates, \(Self.fmt(wall * 1000)) ms\(peer) | \(syncs < Double(TypedStoreWorker.burstUpdates) ? "bar met" : "not met") |")
        }
        // Issue 34: every local write is a durable commit close to one sync, and no slower than
        // SQLite's; reopen at least as fast; the store at most twice SQLite's size.
        let sqlite = reader(.sqliteTyped)
        if let floor = ours("sync_floor_median_s") {
            for (name, key) in [("update", "update"), ("create", "create"), ("delete", "delete")] {
                guard let median = ours(key + "_median_s") else { continue }
                let times = median / floor
                let vsMedian = sqlite(key + "_median_s").map { $0 / median }
                let vsP99 = zip2(sqlite(key + "_p99_s"), ours(key + "_p99_s")).map { $0 / $1 }
                let met = times <= 1.2 && (vsMedian ?? 0) >= 1 && (vsP99 ?? 0) >= 1
                goals.append("| local \(name) with queueing, one durable commit (issue 34), \(label) | median ≤ 1.2x one `fdatasync` of the same run, ≥ 1x SQLite; p99 ≥ 1x SQLite | | median \(Self.duration(median)) = \(Self.fmt(times))x the sync floor (\(Self.duration(floor))); vs SQLite: median \(vsMedian.map { Self.fmt($0) + "x" } ?? "—"), p99 \(vsP99.map { Self.fmt($0) + "x" } ?? "—") | \(met ? "met" : "not met") |")
            }
        }
        if let reopen = ours("reopen_first_query_s"), let peer = sqlite("reopen_first_query_s") {
            goals.append("| reopen to first query vs SQLite (issue 34), \(label) | ≥ 1x SQLite | | \(Self.duration(reopen)) against \(Self.duration(peer)): \(Self.fmt(peer / reopen))x | \(peer / reopen >= 1 ? "met" : "not met") |")
        }
        if let size = ours("size_bytes"), let peer = sqlite("size_bytes") {
            goals.append("| store size after the run vs SQLite (issue 34), \(label) | ≥ 0.5x SQLite (at most twice its size) | | \(Self.fmt(size / 1_000_000, 1)) MB against \(Self.fmt(peer / 1_000_000, 1)) MB: \(Self.fmt(peer / size))x | \(peer / size >= 0.5 ? "met" : "not met") |")
        }
        // §5 "batched durable insert, encrypted, with indexes": the store's download apply is that
        // workload through the OData layer (durable: .full vs WAL + synchronous=FULL).
        let download = measures[0]
        let vsSQLite = Self.advantage(download, ours: ours("download_s"), peer: reader(.sqliteTyped)("download_s"))
        let vsCipher = Self.advantage(download, ours: ours("download_s"), peer: reader(.sqlcipherTyped)("download_s"))
        if vsSQLite != nil || vsCipher != nil {
            let bar = vsSQLite.map { $0 >= 3 }
            let goal: Bool? = vsSQLite.map { s in s >= 6 && (vsCipher.map { $0 >= 10 } ?? false) }
            let status = bar == nil ? "not measured" : (goal == true ? "goal met" : (bar == true ? "bar met, goal not met" : "not met"))
            let measured = "\(vsSQLite.map { Self.fmt($0) + "x" } ?? "—") vs SQLite, \(vsCipher.map { Self.fmt($0) + "x" } ?? "— (not measured)") vs SQLCipher"
            goals.append("| batched durable insert, encrypted, with indexes: download apply (wall), \(label) | ≥ 3x SQLite | ≥ 6x SQLite, ≥ 10x SQLCipher | \(measured) | \(status) |")
        }
        // §5 "encryption overhead vs our own unencrypted store": the worst of the store workloads.
        let plain = reader(.oursPlain)
        let checked: [(String, Measure)] = [("download apply", measures[0]), ("update median", measures[3]), ("reopen", measures.first { $0.csv?.id == "reopen.first-query" } ?? measures[7])]
        let per = checked.compactMap { name, m -> (String, Double)? in
            Self.overhead(m, ours: m.value(ours), plain: m.value(plain)).map { (name, $0) }
        }
        let title = "encryption overhead vs our unencrypted store (ours / ours-plain − 1: download apply, update median latency, reopen), \(label)"
        if let worst = per.max(by: { $0.1 < $1.1 }) {
            let status = worst.1 <= 0.05 ? "goal met" : (worst.1 <= 0.10 ? "bar met, goal not met" : "not met")
            goals.append("| \(title) | ≤ 10 % | ≤ 5 % | worst \(Self.percent(worst.1)) (\(worst.0)); " + per.map { "\($0.0) \(Self.percent($0.1))" }.joined(separator: ", ") + " | \(status) |")
            for (name, v) in per {
                let id = ["download apply": "download", "update median": "update-median", "reopen": "reopen"][name] ?? name
                csv.add("enc-overhead.\(id)", scale: scale, peer: StorePeer.ours.csvID, value: v * 100, unit: "%")
            }
        } else {
            goals.append("| \(title) | ≤ 10 % | ≤ 5 % | — (needs peers ours and ours-plain) | not measured |")
        }
    }

    func markdown() -> String {
        var r = "## Store benchmark: download apply, queued durable updates, reopen (issues 5 and 6)\n\n"
        r += "Generated by `store-bench` (Benchmarks/); rerun with `\(driver.command)`.\n\n"
        r += "- Commit: `\(Workers.measuredCommit)`; date: \(ISO8601DateFormatter().string(from: Date())); round(s) per size: \(driver.sizes.map { "\(driver.rounds(orders: $0)) at \($0) SalesOrders" }.joined(separator: ", ")) (`--rounds` \(driver.rounds), more for the small sizes), medians, peers' order rotated each round; SQLite \(SQLiteConnection.version).\n"
        r += "- Peers: \(driver.peers.map { "`\($0.rawValue)`" }.joined(separator: ", ")) (`--peers`).\n"
        let cache = "\(cacheBytes >> 20) MiB"
        for peer in driver.peers {
            switch peer {
            case .ours:
                r += "- `ours`: `OfflineStore` encrypted with a raw 256-bit key (no KDF in any timing), durability `.full` (each commit fdatasync'd), \(cache) cache (`cacheSize`, our default), indexes `SalesOrders.LifecycleStatus`, `SalesOrders.GrossAmount` (the items' foreign key is indexed by the store); the download is `applyDownload` per defining query (one per entity set), each atomic (one commit up to `downloadBatchBytes` = its default, 1 MiB of JSON, beyond that staged and applied in bounded commits, docs/OfflineStore.md §7.1, and a staged download into a set that holds nothing yet, here every staged one, loaded in bulk: written straight into run files and installed in one step, §7.4); an update is `execute(.patch, …)`: entity, request-queue row and server image in one commit; a create `execute(.post, \"SalesOrders\", …)` of an existing order's properties under a new key `09…`, a delete `execute(.delete, …)` of a downloaded order, each with its queue row in one commit.\n"
            case .oursPlain:
                r += "- `ours-plain`: the same store opened with the explicit `.unencrypted` opt-out; everything else as `ours` (durability `.full`, \(cache) cache, indexes, download, updates).\n"
            case .sqliteTyped:
                r += "- `sqlite-typed`: typed tables (`TypedSchema`, as in the query benchmark) with the same indexes, WAL + `synchronous=FULL`, \(cache) page cache (`cache_size`), the download one transaction per 1,000-entity page (each entity's JSON parsed with our `JSONReader`), an update is `UPDATE` + `INSERT INTO RequestQueue` in one transaction, a create `INSERT` (the same order's JSON parsed with our `JSONReader`) and a delete `DELETE`, each with its queue row in one transaction (`TypedStoreWorker`).\n"
            case .sqlcipherTyped:
                r += "- `sqlcipher-typed`: the `sqlite-typed` peer's exact code (`TypedStoreWorker`, compiled against libsqlcipher in QueryBenchCipherKit, run by `sqlcipher-worker store`): same tables, indexes, transactions, WAL + `synchronous=FULL`, \(cache) page cache; `PRAGMA key` = a raw 256-bit key (`x'…'`, no PBKDF2), `cipher_page_size` 4096; \(driver.sqlcipher.description).\n"
            }
        }
        for (peer, why) in driver.notMeasured.sorted(by: { $0.key.rawValue < $1.key.rawValue }) { r += "- `\(peer.rawValue)`: \(why).\n" }
        r += "- Same data: `SalesServiceGenerator(seed: 0x0D47A_2026, scale: .entities(salesOrders: N))`, all five sets (5.5 N entities), OData JSON pages of 1,000 entities generated into a file before the clock starts and read back one page at a time (so no peer holds the whole download in memory). \(updates) updates, \(updates) creates and \(updates) deletes per run, then the sync floor (`SyncFloor`: \(SyncFloor.writeBytes)-byte `pwrite` + `fdatasync`, 500 times, in the peer's folder).\n\n"
        r += "Ratios: > 1 = ours (encrypted) better; encryption overhead: ours encrypted against ours unencrypted, > 0 = encryption costs that much.\n\n"
        r += sections
        r += "### Goals (DESIGN.md §5)\n\n| workload | bar | goal | measured | status |\n| --- | --- | --- | --- | --- |\n<!-- goals:begin -->\n"
        r += goals.joined(separator: "\n") + "\n<!-- goals:end -->\n"
        return r
    }
}
