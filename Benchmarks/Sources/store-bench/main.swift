// store-bench: the offline store against SQLite (issue 5). Per size and round, one worker process
// per peer runs, on the same generated sales service (Fixtures, all five sets):
//   1. download apply: the OData JSON pages (1,000 entities each) parsed and stored
//      (ours: `OfflineStore.applyDownload` per defining query, one atomic step each; SQLite typed:
//      every entity's JSON parsed and inserted, one transaction per page), with the same
//      secondary indexes; wall time, entities/s, peak RSS of the worker;
//   2. local update with queueing: PATCH of one order's Note, each its own durable commit
//      (ours: `OfflineStore.execute(.patch, …)` with durability .full, which writes the entity, its
//      request-queue row and its server image in one commit; SQLite: UPDATE + INSERT into a
//      RequestQueue table in one transaction, WAL + synchronous=FULL); median and p99 latency,
//      updates/s;
//   3. reopen to first query: close, then open (raw key for ours, no KDF) and read one order by
//      key; wall time.
// Results: Markdown (`--out`) and, with `--csv FILE`, the tables' figures as `workload,scale,peer,value,unit`
// rows (ResultsCSV); the rows between `<!-- goals:begin -->`/`<!-- goals:end -->` feed the
// summary of BENCHMARKS.md.
import BenchCommon
import Foundation
import OfflineODataEngine
import OfflineODataFixtures
import OfflineODataModel
import OfflineODataStore
import QueryBenchKit

let arguments = Array(CommandLine.arguments.dropFirst())

func option(_ name: String, _ fallback: String) -> String {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return fallback }
    return arguments[i + 1]
}

let seed: UInt64 = 0x0D47A_2026
/// Page/block cache of both peers: our store's default (32 MiB), so the peak RSS of a download
/// measures the download, not a cache sized for the query benchmark. `STORE_BENCH_CACHE_BYTES`
/// overrides it.
let cacheBytes = Int(ProcessInfo.processInfo.environment["STORE_BENCH_CACHE_BYTES"] ?? "") ?? 32 << 20
let updates = Int(option("--updates", "500")) ?? 500

func generator(_ orders: Int) -> SalesServiceGenerator {
    SalesServiceGenerator(seed: seed, scale: .entities(salesOrders: orders))
}

func metric(_ name: String, _ value: Double) { print("METRIC \(name) \(value)") }

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
}

// MARK: ours

func oursWorker(orders: Int, dir: String) async throws {
    let g = generator(orders)
    let metadata = Array(g.metadataXML().utf8)
    let indexes = SecondaryIndex.all.filter { $0.set != .salesOrderItems }.map {
        IndexDefinition(name: $0.name, entitySet: $0.set.name, properties: [$0.property])
    }
    let parameters = OfflineStoreParameters(
        storeName: "bench", storePath: dir, encryption: .key([UInt8](repeating: 0x5A, count: 32)),
        definingQueries: SalesEntitySet.allCases.map { DefiningQuery(name: $0.name, url: $0.name) },
        durability: .full, cacheSize: cacheBytes,
        indexes: indexes, keyDerivation: .minimum,
        downloadBatchBytes: Int(ProcessInfo.processInfo.environment["STORE_BENCH_DOWNLOAD_BATCH_BYTES"] ?? "") ?? 4 << 20)
    // The pages first, so the peak RSS of the download is not the generator's.
    let files = try SalesEntitySet.allCases.map { try PageFile.write(g, $0, to: dir + "-pages-\($0.name).bin") }
    defer { for file in files { try? FileManager.default.removeItem(atPath: file.path) } }
    metric("generated_rss", Double(ProcStats.peakRSS))
    var store = try await OfflineStore.open(metadata: metadata, parameters: parameters)
    // 1. Download apply (pages are generated before the clock starts).
    var total = 0.0
    var entities = 0
    for (set, body) in zip(SalesEntitySet.allCases, files) {
        let start = now()
        let summary = try await store.applyDownload(definingQuery: set.name, pages: body)
        total += now() - start
        entities += summary.entitiesApplied
        if ProcessInfo.processInfo.environment["STORE_BENCH_TRACE"] != nil { FileHandle.standardError.write(Data("after \(set.name): \(summary.entitiesApplied) entities, peak RSS \(ProcStats.peakRSS / 1_048_576) MiB\n".utf8)) }
    }
    metric("download_s", total)
    metric("download_entities", Double(entities))
    metric("download_rss", Double(ProcStats.peakRSS))
    // 2. Local updates with queueing, one durable commit each.
    var latencies: [Double] = []
    let updateStart = now()
    for i in 0..<updates {
        let id = String(format: "05%08d", (i * 7919) % orders)
        let t = now()
        let response = try store.execute(.patch, "SalesOrders('\(id)')", body: #"{"Note":"bench \#(i)"}"#)
        latencies.append(now() - t)
        guard response.status == 204 || response.status == 200 else { throw BenchError("PATCH returned \(response.status)") }
    }
    metric("update_total_s", now() - updateStart)
    metric("update_median_s", percentile(latencies, 0.5))
    metric("update_p99_s", percentile(latencies, 0.99))
    metric("queue_rows", Double(try store.service.requestQueue().count))
    // 3. Reopen to first query.
    try store.close()
    let reopen = now()
    store = try await OfflineStore.open(metadata: metadata, parameters: parameters)
    let first = try store.query("SalesOrders('05\(String(format: "%08d", orders / 2))')")
    metric("reopen_first_query_s", now() - reopen)
    guard first.entities.count == 1 else { throw BenchError("first query found \(first.entities.count) entities") }
    try store.close()
    metric("size_bytes", Double(directorySize(dir)))
}

// MARK: SQLite

func sqliteWorker(orders: Int, dir: String) throws {
    let g = generator(orders)
    let path = dir + "/store.sqlite"
    var db = try SQLiteConnection(path: path, cacheKiB: cacheBytes / 1024)
    try db.exec("PRAGMA synchronous=FULL")
    for set in SalesEntitySet.allCases { try db.exec(TypedSchema.createTable(set)) }
    for index in SecondaryIndex.all where index.needsTypedIndex {
        try db.exec("CREATE INDEX \(index.name) ON \(index.set.name)(\(index.property))")
    }
    try db.exec("CREATE TABLE RequestQueue(RequestID INTEGER PRIMARY KEY, Method TEXT, URL TEXT, Body TEXT, EntitySet TEXT, EntityKey TEXT)")
    var total = 0.0
    var entities = 0
    for set in SalesEntitySet.allCases {
        let body = try PageFile.write(g, set, to: dir + "-pages-\(set.name).bin")
        defer { try? FileManager.default.removeItem(atPath: body.path) }
        let columns = TypedSchema.columns(of: set)
        let insert = try db.prepare(TypedSchema.insert(set))
        let start = now()
        for page in body {
            guard case .object(let root) = try JSONReader.parse(page), case .array(let values)? = root["value"] else {
                throw BenchError("page without value")
            }
            try db.exec("BEGIN")
            for case .object(let object) in values {
                try TypedSchema.bind(object, columns: columns, to: insert)
                try insert.run()
                entities += 1
            }
            try db.exec("COMMIT")
        }
        total += now() - start
        insert.finalize()
    }
    metric("download_s", total)
    metric("download_entities", Double(entities))
    metric("download_rss", Double(ProcStats.peakRSS))
    let update = try db.prepare("UPDATE SalesOrders SET Note = ?1 WHERE SalesOrderID = ?2")
    let queue = try db.prepare("INSERT INTO RequestQueue(Method, URL, Body, EntitySet, EntityKey) VALUES('PATCH', ?1, ?2, 'SalesOrders', ?3)")
    var latencies: [Double] = []
    let updateStart = now()
    for i in 0..<updates {
        let id = String(format: "05%08d", (i * 7919) % orders)
        let t = now()
        try db.exec("BEGIN")
        try update.bind(1, "bench \(i)")
        try update.bind(2, id)
        try update.run()
        try queue.bind(1, "SalesOrders('\(id)')")
        try queue.bind(2, #"{"Note":"bench \#(i)"}"#)
        try queue.bind(3, id)
        try queue.run()
        try db.exec("COMMIT")
        latencies.append(now() - t)
    }
    metric("update_total_s", now() - updateStart)
    metric("update_median_s", percentile(latencies, 0.5))
    metric("update_p99_s", percentile(latencies, 0.99))
    update.finalize()
    queue.finalize()
    try db.close()
    let reopen = now()
    db = try SQLiteConnection(path: path, cacheKiB: cacheBytes / 1024)
    let select = try db.prepare("SELECT * FROM SalesOrders WHERE SalesOrderID = ?1")
    try select.bind(1, "05" + String(format: "%08d", orders / 2))
    guard try select.step() else { throw BenchError("first query found nothing") }
    metric("reopen_first_query_s", now() - reopen)
    select.finalize()
    try db.close()
    metric("size_bytes", Double(directorySize(dir)))
}

// MARK: driver

func fmt(_ v: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", v) }

func duration(_ seconds: Double) -> String {
    seconds >= 1 ? fmt(seconds) + " s" : (seconds >= 0.001 ? fmt(seconds * 1000) + " ms" : fmt(seconds * 1_000_000, 1) + " µs")
}

func median(_ values: [Double]) -> Double { percentile(values, 0.5) }

func run() async throws {
    // Sizes in entities (`--entities`, all five sets: 5.5 per SalesOrder) or in SalesOrders (`--orders`).
    let entitySizes = option("--entities", "").split(separator: ",").compactMap { Int($0) }
    let sizes = entitySizes.isEmpty ? option("--orders", "10000,100000").split(separator: ",").compactMap { Int($0) }
                                    : entitySizes.map { max(1, ($0 * 2 + 10) / 11) }
    let rounds = Int(option("--rounds", "3")) ?? 3
    let work = option("--work-dir", NSTemporaryDirectory() + "offline-odata-store-bench")
    let out = option("--out", "store.md")
    let command = option("--command", "make bench-store")
    let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
    var report = "## Store benchmark: download apply, queued durable updates, reopen (issue 5)\n\n"
    report += "Generated by `store-bench` (Benchmarks/); rerun with `\(command)`.\n\n"
    report += "- Commit: `\(Workers.shell("/usr/bin/git", ["rev-parse", "--short", "HEAD"]))`; date: \(ISO8601DateFormatter().string(from: Date())); \(rounds) round(s), medians; SQLite \(SQLiteConnection.version).\n"
    report += "- ours: `OfflineStore` encrypted with a raw 256-bit key (no KDF in any timing), durability `.full` (each commit fdatasync'd), 32 MiB cache (`cacheSize`, our default), indexes `SalesOrders.LifecycleStatus`, `SalesOrders.GrossAmount` (the items' foreign key is indexed by the store); the download is `applyDownload` per defining query (one per entity set), each atomic (one commit up to `downloadBatchBytes` = 4 MiB of JSON, beyond that staged and applied in bounded commits, docs/OfflineStore.md §7.1); an update is `execute(.patch, …)`: entity, request-queue row and server image in one commit.\n"
    report += "- SQLite: typed tables (`TypedSchema`, as in the query benchmark) with the same indexes, WAL + `synchronous=FULL`, 32 MiB page cache (`cache_size`), the download one transaction per 1,000-entity page (each entity's JSON parsed with our `JSONReader`), an update is `UPDATE` + `INSERT INTO RequestQueue` in one transaction.\n"
    report += "- Same data: `SalesServiceGenerator(seed: 0x0D47A_2026, scale: .entities(salesOrders: N))`, all five sets (5.5 N entities), OData JSON pages of 1,000 entities generated into a file before the clock starts and read back one page at a time (so no peer holds the whole download in memory). \(updates) updates per run.\n\n"
    var goals: [String] = []
    var csv = ResultsCSV()
    var smaller: (orders: Int, rss: Double)?
    for (index, orders) in sizes.enumerated() {
        // The CSV's scale: the nominal entity count when sizes were given in entities.
        let scale = entitySizes.isEmpty ? orders : entitySizes[index]
        var results: [String: [String: [Double]]] = ["ours": [:], "sqlite": [:]]
        for round in 0..<rounds {
            for peer in (round % 2 == 0 ? ["ours", "sqlite"] : ["sqlite", "ours"]) {
                let dir = "\(work)/\(peer)-\(orders)-\(round)"
                try? FileManager.default.removeItem(atPath: dir)
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
                FileHandle.standardError.write(Data("store-bench: \(orders) round \(round + 1)/\(rounds) \(peer)\n".utf8))
                let metrics = try Workers.spawn(me, ["worker", peer, String(orders), dir, "--updates", String(updates)])
                try? FileManager.default.removeItem(atPath: dir)
                for (k, v) in metrics { results[peer, default: [:]][k, default: []].append(v) }
            }
        }
        func m(_ peer: String, _ key: String) -> Double { median(results[peer]?[key] ?? []) }
        let entities = m("ours", "download_entities")
        report += "### \(orders.formatted()) SalesOrders (\(Int(entities).formatted()) entities)\n\n"
        report += "| measure | ours | SQLite | ratio (> 1 = ours better) |\n| --- | ---: | ---: | ---: |\n"
        let rows: [(String, String, Bool)] = [
            ("download apply (wall)", "download_s", false), ("local update with queueing: median latency per durable commit", "update_median_s", false),
            ("local update with queueing: p99 latency", "update_p99_s", false), ("local updates: total for \(updates)", "update_total_s", false),
            ("reopen to first query (close → open → one key read)", "reopen_first_query_s", false),
        ]
        for (title, key, _) in rows {
            let o = m("ours", key), s = m("sqlite", key)
            report += "| \(title) | \(duration(o)) | \(duration(s)) | \(fmt(s / max(o, 1e-9)))x |\n"
        }
        let oRate = entities / max(m("ours", "download_s"), 1e-9), sRate = m("sqlite", "download_entities") / max(m("sqlite", "download_s"), 1e-9)
        report += "| download throughput | \(Int(oRate).formatted()) entities/s | \(Int(sRate).formatted()) entities/s | \(fmt(oRate / sRate))x |\n"
        report += "| updates per second | \(fmt(Double(updates) / m("ours", "update_total_s"), 0)) | \(fmt(Double(updates) / m("sqlite", "update_total_s"), 0)) | \(fmt(m("sqlite", "update_total_s") / m("ours", "update_total_s")))x |\n"
        report += "| peak RSS of the worker after the download | \(fmt(m("ours", "download_rss") / 1_048_576, 1)) MiB | \(fmt(m("sqlite", "download_rss") / 1_048_576, 1)) MiB | \(fmt(m("sqlite", "download_rss") / max(m("ours", "download_rss"), 1)))x |\n"
        report += "| store size after the run | \(fmt(m("ours", "size_bytes") / 1_000_000, 1)) MB | \(fmt(m("sqlite", "size_bytes") / 1_000_000, 1)) MB | \(fmt(m("sqlite", "size_bytes") / max(m("ours", "size_bytes"), 1)))x |\n\n"
        for peer in ["ours", "sqlite"] {
            let id = peer == "ours" ? "ours-enc" : "sqlite"
            let download = m(peer, "download_s"), count = m(peer, "download_entities")
            csv.add("download.apply", scale: scale, peer: id, value: download, unit: "s")
            csv.add("download.rate", scale: scale, peer: id, value: count / max(download, 1e-9), unit: "entities/s")
            csv.add("download.us-per-entity", scale: scale, peer: id, value: download / max(count, 1) * 1e6, unit: "us")
            csv.add("download.peak-rss", scale: scale, peer: id, value: m(peer, "download_rss") / 1_048_576, unit: "MiB")
            csv.add("update.median", scale: scale, peer: id, value: m(peer, "update_median_s") * 1e3, unit: "ms")
            csv.add("update.p99", scale: scale, peer: id, value: m(peer, "update_p99_s") * 1e3, unit: "ms")
            csv.add("update.rate", scale: scale, peer: id, value: Double(updates) / max(m(peer, "update_total_s"), 1e-9), unit: "updates/s")
            csv.add("reopen.first-query", scale: scale, peer: id, value: m(peer, "reopen_first_query_s") * 1e3, unit: "ms")
            csv.add("size.after-run", scale: scale, peer: id, value: m(peer, "size_bytes") / 1e6, unit: "MB")
        }
        let reopenMs = m("ours", "reopen_first_query_s") * 1000
        goals.append("| open + first query after clean close (excluding KDF), offline store, \(Int(entities).formatted()) entities (\(orders.formatted()) SalesOrders) | ≤ 10 ms | ≤ 2 ms | \(fmt(reopenMs)) ms | \(reopenMs <= 2 ? "goal met" : (reopenMs <= 10 ? "bar met, goal not met" : "not met")) |")
        let rss = m("ours", "download_rss")
        if let s = smaller, s.orders >= Int(entities) { smaller = nil }
        let growth = smaller.map { rss / max($0.rss, 1) }
        let rssStatus = (growth.map { $0 <= 1.2 ? "bar met" : "bar not met" } ?? "bar not measured (no smaller size)") + ", " + (rss <= 64 * 1_048_576 ? "goal met" : "goal not met")
        goals.append("| peak memory during the download (worker VmHWM), \(Int(entities).formatted()) entities | ≤ 1.2x the figure at \(smaller.map { $0.orders.formatted() + " entities" } ?? "the smaller size") | ≤ 64 MiB | \(fmt(rss / 1_048_576, 1)) MiB\(growth.map { " (" + fmt($0) + "x)" } ?? "") | \(rssStatus) |")
        smaller = (Int(entities), rss)
    }
    report += "### Goals (DESIGN.md §5)\n\n| workload | bar | goal | measured | status |\n| --- | --- | --- | --- | --- |\n<!-- goals:begin -->\n"
    report += goals.joined(separator: "\n") + "\n<!-- goals:end -->\n"
    try report.write(toFile: out, atomically: true, encoding: .utf8)
    FileHandle.standardError.write(Data("store-bench: wrote \(out)\n".utf8))
    let csvPath = option("--csv", "")
    if !csvPath.isEmpty { try csv.write(to: csvPath) }
}

do {
    if arguments.first == "worker", arguments.count >= 4, let orders = Int(arguments[2]) {
        if arguments[1] == "ours" { try await oursWorker(orders: orders, dir: arguments[3]) } else { try sqliteWorker(orders: orders, dir: arguments[3]) }
    } else if arguments.first == "run" {
        try await run()
    } else {
        FileHandle.standardError.write(Data("store-bench: usage: store-bench run [--orders 10000,100000 | --entities 10000,100000,1000000] [--rounds 3] [--updates 500] [--work-dir DIR] [--out FILE] [--csv FILE]\n".utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("store-bench: \(error)\n".utf8))
    exit(2)
}
