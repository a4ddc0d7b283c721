import BenchCommon
import CSQLite
import Foundation
import OfflineODataModel
import OfflineODataStore
import OfflineODataSync
import QueryBenchKit

// The sync benchmark (`make bench-sync`): the initial download of one defining query with
// `$expand` (`SalesOrders?$expand=ToItems`, Fixtures data, about 4 items per order) from a
// loopback HTTP server, by
//   ours-net   the provider (its default transport: CurlTransport on Linux; pages spooled, applied at once)
//   ours-mem   `applyDownload` of the same pages from memory (the store without the network)
//   sqlite     a straightforward SQLite client: URLSession, JSONSerialization, typed inserts,
//              one transaction per page, WAL + synchronous=FULL, the same indexes
//   fetch-only the same HTTP exchanges through the same transport, nothing done with the bodies
// and a 1 % delta of a plain `SalesOrders` query after its initial download (ours-delta).
// The parent process is the server; every peer runs in its own worker process, rounds
// alternate, medians are reported. Ours: encrypted (raw key), durability .full.
//
//   sync-bench run --entities 100000,1000000 --page-size 1000 --rounds 3 --out F.md --csv F.csv
//   sync-bench peer NAME --url URL --entities N --page-size P --dir D

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String, _ fallback: String) -> String {
    guard let i = arguments.firstIndex(of: "--" + name), i + 1 < arguments.count else { return fallback }
    return arguments[i + 1]
}
func metric(_ name: String, _ value: Double) { print("METRIC \(name) \(value)") }

let key = Array(repeating: UInt8(0x42), count: 32)

func storeParameters(_ dir: String) -> OfflineODataParameters {
    var parameters = OfflineODataParameters(storePath: dir, encryption: .key(key), timeout: 600, pageSize: Int(option("page-size", "1000")) ?? 1000,
                                            deltaTrust: .unfilteredSingleSet, durability: .full, keyDerivation: .minimum)
    if let cache = ProcessInfo.processInfo.environment["SYNC_BENCH_CACHE"].flatMap(Int.init) { parameters.cacheSize = cache }
    return parameters
}

func peakRSSMiB() -> Double {
    let status = ProcStats.read("/proc/self/status")
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let digits = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
        return digits / 1024
    }
    return 0
}

func runPeer(_ name: String) async throws {
    let url = option("url", "")
    let dir = option("dir", "/tmp/sync-bench")
    let entities = Int(option("entities", "100000")) ?? 100_000
    let pageSize = Int(option("page-size", "1000")) ?? 1000
    try? FileManager.default.removeItem(atPath: dir)
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    switch name {
    case "fetch-only":
        let transport = OfflineODataProvider.defaultTransport(timeout: 600)
        var next: String? = url + "SalesOrders?$expand=ToItems"
        var bytes = 0
        let start = now()
        while let link = next {
            let response = try await transport.exchange(HTTPRequest(method: "GET", url: link,
                                                                     headers: [(name: "Prefer", value: "odata.maxpagesize=\(pageSize)")]))
            let body = try await response.body.collect(upTo: 1 << 30)
            bytes += body.count
            next = nil
            if let range = String(decoding: body.suffix(200), as: UTF8.self).range(of: #""@odata.nextLink":""#) {
                let tail = String(decoding: body.suffix(200), as: UTF8.self)[range.upperBound...]
                next = url + String(tail.prefix { $0 != "\"" })
            }
        }
        metric("seconds", now() - start)
        metric("bytes", Double(bytes))
    case "ours-net":
        var parameters = storeParameters(dir)
        parameters.definingQueries = [DefiningQuery(name: "Orders", url: "SalesOrders?$expand=ToItems")]
        let provider = try OfflineODataProvider(serviceRoot: url, parameters: parameters)
        _ = ProcStats.resetPeak()
        let start = now(), cpu = cpuTime()
        try await provider.open()
        metric("seconds", now() - start)
        metric("cpu_seconds", cpuTime() - cpu)
        metric("rss_mib", peakRSSMiB())
        let stats = try provider.store.stats()
        metric("entities", Double(stats.entityCounts.values.reduce(0, +)))
        try provider.close()
    case "ours-mem":
        let pages = SyncPages(entities: entities, pageSize: pageSize)
        let all = (0..<pages.pageCount).map { pages.expandedPage($0) }
        let parameters = OfflineStoreParameters(storePath: dir, encryption: .key(key), definingQueries: [
            DefiningQuery(name: "Orders", url: "SalesOrders?$expand=ToItems"),
        ], durability: .full, keyDerivation: .minimum)
        let start = now(), cpu = cpuTime()
        let store = try await OfflineStore.open(metadata: pages.metadata, parameters: parameters)
        try await store.applyDownload(definingQuery: "Orders", pages: all)
        metric("seconds", now() - start)
        metric("cpu_seconds", cpuTime() - cpu)
        try store.close()
    case "sqlite":
        metric("seconds", try await sqliteClient(url: url, dir: dir, pageSize: pageSize))
        metric("rss_mib", peakRSSMiB())
    case "ours-delta":
        var parameters = storeParameters(dir)
        parameters.definingQueries = [DefiningQuery(name: "Orders", url: "SalesOrders")]
        let provider = try OfflineODataProvider(serviceRoot: url, parameters: parameters)
        var start = now()
        try await provider.open()
        metric("initial_seconds", now() - start)
        start = now()
        let summaries = try await provider.download()
        metric("delta_seconds", now() - start)
        metric("delta_window_monotonic", start)   // for matching profiles (perf -k CLOCK_MONOTONIC)
        metric("delta_entities", Double(summaries.first?.entitiesApplied ?? 0))
        try provider.close()
    case "upload-batch", "upload-single", "upload-batch-local":
        // 10,000 queued changes (a third each creates, updates, deletes) on a store of
        // `entities` orders, uploaded in $batch requests or one at a time.
        var parameters = storeParameters(dir)
        parameters.definingQueries = [DefiningQuery(name: "Orders", url: "SalesOrders"), DefiningQuery(name: "Customers", url: "BusinessPartners")]
        parameters.uploadBatching = name == "upload-single" ? .never : .automatic
        parameters.maxRequestsPerBatch = Int(option("batch", "100")) ?? 100
        parameters.uploadBatchFormat = .multipart   // the page server answers multipart batches
        let changes = Int(option("changes", "10000")) ?? 10_000
        // `upload-batch-local`: the same upload with the page server's answers made in this
        // process (no HTTP stack; the time making them is taken off the client's).
        let local = name == "upload-batch-local"
            ? InProcessTransport(server: PageServer(pages: SyncPages(entities: entities, pageSize: pageSize))) : nil
        let provider = try OfflineODataProvider(serviceRoot: url, parameters: parameters, transport: local)
        try await provider.open()
        let store = try provider.store
        let keys = try store.keys(of: "SalesOrders")
        let customer = try store.keys(of: "BusinessPartners", key: "BusinessPartnerID").first ?? ""
        // A created order copies an existing one (its customer is in the store) under a new key.
        let template = try JSONSerialization.jsonObject(with: Data(try store.execute(.get, "SalesOrders('\(keys[0])')").body ?? [])) as? [String: Any] ?? [:]
        guard keys.count * 3 >= changes * 2 else { throw BenchError("\(keys.count) orders are too few for \(changes) changes") }
        var used = 0
        for i in 0..<changes {
            switch i % 3 {
            case 0:
                var order = template.filter { !$0.key.hasPrefix("@") }
                order["SalesOrderID"] = "U\(i)"
                order["CustomerID"] = customer
                order["Note"] = "created offline"
                let body = String(decoding: try JSONSerialization.data(withJSONObject: order), as: UTF8.self)
                _ = try store.execute(.post, "SalesOrders", body: body)
            case 1:
                _ = try store.execute(.patch, "SalesOrders('\(keys[used])')", body: #"{"Note":"changed offline \#(i)"}"#)
                used += 1
            default:
                _ = try store.execute(.delete, "SalesOrders('\(keys[used])')")
                used += 1
            }
        }
        let cpu = cpuTime()
        let sys = systemTime()
        let answering = local?.answerSeconds ?? 0
        let start = now()
        let summary = try await provider.upload()
        let seconds = now() - start
        let cpuSeconds = cpuTime() - cpu - ((local?.answerSeconds ?? 0) - answering)
        guard summary.succeeded == changes else { throw BenchError("upload: \(summary)") }
        metric("seconds", seconds)
        metric("upload_window_monotonic", start)   // for matching profiles (perf -k CLOCK_MONOTONIC)
        metric("requests_per_second", Double(changes) / seconds)
        metric("client_cpu_us_per_request", cpuSeconds * 1e6 / Double(changes))
        metric("client_sys_us_per_request", (systemTime() - sys) * 1e6 / Double(changes))
        try provider.close()
    default:
        throw BenchError("unknown peer \(name)")
    }
}

/// Kernel CPU seconds of this process.
func systemTime() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

extension OfflineStore {
    /// Every key of a set (single string keys).
    func keys(of set: String, key: String = "SalesOrderID") throws -> [String] {
        var out: [String] = []
        var next: String? = set + "?$select=" + key
        while let url = next {
            let response = try execute(.get, url)
            guard let body = response.body, let json = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { break }
            out += (json["value"] as? [[String: Any]] ?? []).compactMap { $0[key] as? String }
            next = json["@odata.nextLink"] as? String
        }
        return out
    }
}

/// A straightforward SQLite client: each page fetched with URLSession, parsed with
/// JSONSerialization, its orders and items inserted into typed tables in one transaction.
func sqliteClient(url: String, dir: String, pageSize: Int) async throws -> Double {
    let db = try SQLiteConnection(path: dir + "/client.sqlite")
    try db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;")
    try db.exec("""
        CREATE TABLE SalesOrders(SalesOrderID TEXT PRIMARY KEY, Note TEXT, CustomerID TEXT, CustomerName TEXT, CurrencyCode TEXT,
          GrossAmount REAL, NetAmount REAL, TaxAmount REAL, LifecycleStatus TEXT, BillingStatus TEXT, DeliveryStatus TEXT,
          CreatedAt TEXT, ChangedAt TEXT, DeliveryDate TEXT, ETag TEXT);
        CREATE TABLE SalesOrderItems(SalesOrderID TEXT, ItemPosition TEXT, ProductID TEXT, Note TEXT, CurrencyCode TEXT,
          GrossAmount REAL, NetAmount REAL, TaxAmount REAL, Quantity REAL, QuantityUnit TEXT, DeliveryDate TEXT,
          PRIMARY KEY(SalesOrderID, ItemPosition));
        CREATE INDEX OrdersByCustomer ON SalesOrders(CustomerID);
        CREATE INDEX ItemsByProduct ON SalesOrderItems(ProductID);
        """)
    let orderColumns = ["SalesOrderID", "Note", "CustomerID", "CustomerName", "CurrencyCode", "GrossAmount", "NetAmount", "TaxAmount",
                        "LifecycleStatus", "BillingStatus", "DeliveryStatus", "CreatedAt", "ChangedAt", "DeliveryDate", "@odata.etag"]
    let itemColumns = ["SalesOrderID", "ItemPosition", "ProductID", "Note", "CurrencyCode", "GrossAmount", "NetAmount", "TaxAmount",
                       "Quantity", "QuantityUnit", "DeliveryDate"]
    let insertOrder = try db.prepare("INSERT OR REPLACE INTO SalesOrders VALUES (" + orderColumns.map { _ in "?" }.joined(separator: ",") + ")")
    let insertItem = try db.prepare("INSERT OR REPLACE INTO SalesOrderItems VALUES (" + itemColumns.map { _ in "?" }.joined(separator: ",") + ")")
    func bind(_ statement: SQLiteConnection.Statement, _ columns: [String], _ row: [String: Any]) throws {
        for (i, column) in columns.enumerated() {
            let index = Int32(i + 1)
            switch row[column] {
            case let text as String: try statement.bind(index, text)
            case let number as NSNumber: try statement.bind(index, number.doubleValue)
            default: try statement.bindNull(index)
            }
        }
        try statement.run()
        statement.reset()
    }
    let transport = URLSessionTransport(timeout: 600)
    var next: String? = url + "SalesOrders?$expand=ToItems"
    let start = now()
    while let link = next {
        let response = try await transport.exchange(HTTPRequest(method: "GET", url: link,
                                                                 headers: [(name: "Prefer", value: "odata.maxpagesize=\(pageSize)")]))
        let body = try await response.body.collect(upTo: 1 << 30)
        guard let page = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              let orders = page["value"] as? [[String: Any]] else { throw BenchError("not a page") }
        try db.exec("BEGIN")
        for order in orders {
            try bind(insertOrder, orderColumns, order)
            for item in order["ToItems"] as? [[String: Any]] ?? [] { try bind(insertItem, itemColumns, item) }
        }
        try db.exec("COMMIT")
        next = (page["@odata.nextLink"] as? String).map { url + $0 }
    }
    // Every commit was durable (synchronous=FULL); the connection closes with the process.
    return now() - start
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
}

/// The goal row's verdict for one size: every bar of the issue that applies to it (the peak RSS
/// bar is for 1M entities), and which ones it misses.
func downloadStatus(entities: Int, network: Double, sqlite: Double, rss: Double, delta: Double) -> String {
    var missed: [String] = []
    if network > 1.15 { missed.append(String(format: "network %.3fx > 1.15x", network)) }
    if sqlite < 3 { missed.append(String(format: "%.3fx SQLite < 3x", sqlite)) }
    if entities >= 1_000_000, rss > 64 { missed.append(String(format: "RSS %.1f > 64 MiB", rss)) }
    if delta > 0.05 { missed.append(String(format: "delta %.1f %% > 5 %%", 100 * delta)) }
    return missed.isEmpty ? "bar met" : "bar not met (" + missed.joined(separator: "; ") + ")"
}

func runBenchmark() async throws {
    let sizes = option("entities", "100000").split(separator: ",").compactMap { Int($0) }
    let pageSize = Int(option("page-size", "1000")) ?? 1000
    let rounds = Int(option("rounds", "3")) ?? 3
    let out = option("out", "Benchmarks/results/sync.md")
    let csvPath = option("csv", "Benchmarks/results/sync.csv")
    let command = option("command", "make bench-sync")
    let work = option("work-dir", FileManager.default.temporaryDirectory.path + "/sync-bench")
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
    var lines: [String] = []
    var csv = ["scale,peer,metric,value"]
    let uploadChanges = Int(option("upload", "0")) ?? 0
    if sizes.isEmpty {
        lines.append("## Sync: upload over loopback HTTP (issue 30)")
        lines.append("")
        lines.append("`\(command)`: \(uploadChanges) changes queued offline (a third each creates, updates and deletes of orders; "
                     + "Fixtures data), then `upload()` to a loopback HTTP server that answers every write at once (201 or 204 with "
                     + "an ETag; a `$batch` with one change set answer per change set), in `$batch` requests of "
                     + option("batch", "100") + " and one request at a time. Client CPU: user + system time of the client's "
                     + "process during the upload, its background threads included (engine flushes, the transport's thread), per request; "
                     + "server CPU: the serving process over the whole client run (its initial download too), per request: a "
                     + "bound. The no-network row runs the same upload against the same answers made in the client's process "
                     + "(`InProcessTransport`, their CPU measured per thread and taken off): the client's own code, with no HTTP stack "
                     + "and no server sharing the processors. Ours: encrypted, durability `.full`; the outcomes of one `$batch` answer are applied in one commit. "
                     + "Medians of \(rounds) alternating rounds, each in a fresh process.")
    } else {
    lines.append("## Sync: initial download over loopback HTTP (issue 29)")
    lines.append("")
    lines.append("`\(command)`: one defining query `SalesOrders?$expand=ToItems` (Fixtures data, about 4 items per order), pages of "
                 + "\(pageSize) orders from a loopback HTTP server that only hands out precomputed pages (`fetch-only` measures it with "
                 + "the client's HTTP stack and nothing else). Ours: encrypted, durability `.full`; SQLite: WAL, `synchronous=FULL`, "
                 + "one transaction per page, the same two secondary indexes. Medians of \(rounds) alternating rounds, each peer in "
                 + "a fresh process. Delta: a plain `SalesOrders` query, then a delta of 1 % of its orders, in \(max(rounds, Int(option("delta-rounds", "7")) ?? 7)) fresh processes; its share is the median of each run's delta / initial (the columns beside it are the medians of each). Ours-net is a first "
                 + "open, which applies each page while the next ones arrive (docs/Sync.md §2.1); both ours-net and ours-mem keep "
                 + "both processors busy, so the network path's extra CPU (`cpu_seconds` in the CSV) is what its extra time is made of.")
    }
    lines.append("")
    lines.append("<!-- goals:begin -->")
    var goals: [String] = []
    var table: [String] = sizes.isEmpty ? [] : ["| entities | fetch-only (server + HTTP) | ours-net | ours-mem | SQLite client | network cost (ours-net / ours-mem) | vs SQLite (SQLite / ours-net) | ours-net peak RSS | delta 1 % / initial |",
                           "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for size in sizes {
        let pages = SyncPages(entities: size, pageSize: pageSize)
        let server = PageServer(pages: pages)
        try server.start()
        let url = "http://127.0.0.1:\(server.port)/"
        var results: [String: [Double]] = [:]
        for round in 0..<rounds {
            let order = round % 2 == 0 ? ["fetch-only", "ours-net", "ours-mem", "sqlite", "ours-delta"]
                                       : ["ours-delta", "sqlite", "ours-mem", "ours-net", "fetch-only"]
            for peer in order {
                let m = try Workers.spawn(executable, ["peer", peer, "--url", url, "--entities", String(size), "--page-size", String(pageSize),
                                                        "--dir", work + "/" + peer])
                for (name, value) in m where !name.hasSuffix("_monotonic") { results["\(peer).\(name)", default: []].append(value) }
                FileHandle.standardError.write(Data("sync-bench \(size) round \(round + 1) \(peer): \(m)\n".utf8))
            }
        }
        // The delta is a few tens of milliseconds, as noisy on this machine as its margin to the
        // bar: it gets more rounds than the others (`--delta-rounds`, 7 by default), each a
        // fresh process, and its share is the median of each run's own delta / initial.
        let deltaRounds = max(rounds, Int(option("delta-rounds", "7")) ?? 7)
        for round in rounds..<deltaRounds {
            let m = try Workers.spawn(executable, ["peer", "ours-delta", "--url", url, "--entities", String(size), "--page-size", String(pageSize),
                                                    "--dir", work + "/ours-delta"])
            for (name, value) in m where !name.hasSuffix("_monotonic") { results["ours-delta.\(name)", default: []].append(value) }
            FileHandle.standardError.write(Data("sync-bench \(size) round \(round + 1) ours-delta: \(m)\n".utf8))
        }
        let deltaShares = zip(results["ours-delta.delta_seconds"] ?? [], results["ours-delta.initial_seconds"] ?? []).map { $0 / $1 }
        results["ours-delta.delta_share"] = deltaShares
        try? FileManager.default.removeItem(atPath: work)
        let fetch = median(results["fetch-only.seconds"] ?? [])
        let net = median(results["ours-net.seconds"] ?? [])
        let mem = median(results["ours-mem.seconds"] ?? [])
        let sqlite = median(results["sqlite.seconds"] ?? [])
        let rss = median(results["ours-net.rss_mib"] ?? [])
        let initial = median(results["ours-delta.initial_seconds"] ?? [])
        let delta = median(results["ours-delta.delta_seconds"] ?? [])
        let share = median(deltaShares)
        for (key, values) in results.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: ".")
            csv.append("\(size),\(parts[0]),\(parts[1]),\(median(values))")
        }
        table.append(String(format: "| %d | %.2f s | %.2f s | %.2f s | %.2f s | %.2fx | %.2fx | %.1f MiB | %.1f %% (%.3f s / %.2f s) |",
                            pages.entityCount, fetch, net, mem, sqlite, net / mem, sqlite / net, rss, 100 * share, delta, initial))
        goals.append(String(format: "| initial download with $expand, %d entities | network path ≤ 1.15x applyDownload, ≥ 3x a SQLite client | peak RSS ≤ 64 MiB at 1M; 1 %% delta ≤ 5 %% of the initial | %.2fx applyDownload, %.2fx SQLite, %.1f MiB, delta %.1f %% | %@ |",
                            pages.entityCount, net / mem, sqlite / net, rss, 100 * share,
                            downloadStatus(entities: pages.entityCount, network: net / mem, sqlite: sqlite / net, rss: rss,
                                                delta: share)))
    }
    if uploadChanges > 0 {
        let changes = uploadChanges
        // Upload (issue 30): the server answers every write at once; each peer's process CPU
        // during the upload is the client's, the parent's CPU meanwhile the server's.
        let pages = SyncPages(entities: changes * 5, pageSize: pageSize)   // about one order in five entities
        let server = PageServer(pages: pages)
        try server.start()
        let url = "http://127.0.0.1:\(server.port)/"
        var results: [String: [Double]] = [:]
        for round in 0..<rounds {
            let peers = option("upload-peers", "upload-batch,upload-single,upload-batch-local").split(separator: ",").map(String.init)
            for peer in round % 2 == 0 ? peers : peers.reversed() {
                let serverCPU = cpuTime()
                let m = try Workers.spawn(executable, ["peer", peer, "--url", url, "--entities", String(changes * 5), "--page-size", String(pageSize),
                                                        "--changes", String(changes), "--batch", option("batch", "100"), "--dir", work + "/" + peer])
                for (name, value) in m where !name.hasSuffix("_monotonic") { results["\(peer).\(name)", default: []].append(value) }
                // The parent serves the whole worker run (its open too); a bound, not the upload alone.
                results["\(peer).server_cpu_us_per_request_bound", default: []].append((cpuTime() - serverCPU) * 1e6 / Double(changes))
                FileHandle.standardError.write(Data("sync-bench upload round \(round + 1) \(peer): \(m)\n".utf8))
            }
        }
        try? FileManager.default.removeItem(atPath: work)
        for (key, values) in results.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: ".")
            csv.append("upload-\(changes),\(parts[0]),\(parts[1]),\(median(values))")
        }
        if !table.isEmpty { table.append("") }
        table.append("| upload of \(changes) queued changes | wall | requests/s | client CPU per request | server CPU per request (bound) |")
        table.append("| --- | ---: | ---: | ---: | ---: |")
        let labels = ["upload-batch": "in $batch (\(option("batch", "100")) per batch)", "upload-single": "one request at a time",
                      "upload-batch-local": "in $batch, no network: answers made in the client's process, their CPU taken off"]
        for peer in ["upload-batch", "upload-single", "upload-batch-local"] where results["\(peer).seconds"] != nil {
            let server = peer == "upload-batch-local" ? "—" : String(format: "%.1f µs", median(results["\(peer).server_cpu_us_per_request_bound"] ?? []))
            table.append(String(format: "| %@ | %.2f s | %.0f | %.1f µs | %@ |", labels[peer] ?? peer,
                                median(results["\(peer).seconds"] ?? []), median(results["\(peer).requests_per_second"] ?? []),
                                median(results["\(peer).client_cpu_us_per_request"] ?? []), server))
        }
        let batchCPU = median(results["upload-batch.client_cpu_us_per_request"] ?? [])
        let singleCPU = median(results["upload-single.client_cpu_us_per_request"] ?? [])
        goals.append(String(format: "| upload of %d queued changes | client CPU per request ≤ 50 µs; the back end, not the client, the bottleneck | %.1f µs in $batch, %.1f µs one by one | %@ |",
                            changes, batchCPU, singleCPU, max(batchCPU, singleCPU) <= 50 ? "bar met" : "bar not met"))
    }
    lines += goals
    lines.append("<!-- goals:end -->")
    lines.append("")
    lines += table
    lines.append("")
    try lines.joined(separator: "\n").appending("\n").write(toFile: out, atomically: true, encoding: .utf8)
    try csv.joined(separator: "\n").appending("\n").write(toFile: csvPath, atomically: true, encoding: .utf8)
    print(lines.joined(separator: "\n"))
}

do {
    switch arguments.first {
    case "peer":
        try await runPeer(arguments.count > 1 ? arguments[1] : "")
    case "run":
        try await runBenchmark()
    case "serve":
        // The page server alone, until killed (for profiling one peer: `peer NAME --url URL`).
        let server = PageServer(pages: SyncPages(entities: Int(option("entities", "100000")) ?? 100_000,
                                                 pageSize: Int(option("page-size", "1000")) ?? 1000))
        try server.start()
        FileHandle.standardOutput.write(Data("http://127.0.0.1:\(server.port)/\n".utf8))
        while true { try await Task.sleep(nanoseconds: 1_000_000_000) }
    default:
        print("usage: sync-bench run --entities N[,M] [--page-size P] [--rounds R] [--out F.md] [--csv F.csv] | peer NAME … | serve --entities N")
    }
} catch {
    FileHandle.standardError.write(Data("sync-bench: \(error)\n".utf8))
    exit(1)
}
