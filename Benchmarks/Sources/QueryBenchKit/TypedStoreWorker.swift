import BenchCommon
import Foundation
import OfflineODataFixtures
import OfflineODataModel

/// store-bench's typed SQLite peer (issue 5), shared by `store-bench worker sqlite-typed` (against
/// libsqlite3) and `sqlcipher-worker store` (this file compiled in QueryBenchCipherKit against
/// libsqlcipher: the `sqlcipher-typed` peer), so both libraries run the same schema, indexes,
/// transactions and SQL. Prints `METRIC name value` lines:
/// 1. download apply: every OData JSON page (1,000 entities) parsed with our `JSONReader` and
///    inserted into the typed tables (`TypedSchema`, the query benchmark's indexes), one
///    transaction per page;
/// 2. `updates` local updates with queueing, each its own durable commit (WAL +
///    `synchronous=FULL`): `UPDATE SalesOrders SET Note` + `INSERT INTO RequestQueue` in one
///    transaction;
/// 3. reopen to first query: close, open (SQLCipher: raw key, no PBKDF2), one key read.
public enum TypedStoreWorker {
    public static let fileName = "store.sqlite"

    static func metric(_ name: String, _ value: Double) { print("METRIC \(name) \(value)") }

    /// How many times a worker closes, reopens and reads one key; the median is reported (one
    /// reopen per worker made the encrypted/unencrypted comparison a draw of single
    /// millisecond measurements: +26 % one run, −1.5 % the one before).
    public static let reopens = max(1, Int(ProcessInfo.processInfo.environment["STORE_BENCH_REOPENS"] ?? "") ?? 9)

    /// The value at quantile `p` (0…1) of `values` (nearest rank below), 0 for none.
    public static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
    }

    /// The burst: this many updates issued at once from `burstThreads` threads (issue 34).
    public static let burstUpdates = 100
    public static let burstThreads = 8

    /// SalesOrderID of the `i`-th update (spread over the set; the same for every peer).
    public static func updateKey(_ i: Int, orders: Int) -> String { "05" + pad8((i * 7919) % orders) }

    /// SalesOrderID of the `i`-th delete: downloaded orders, spread over the upper half of the
    /// set past the orders that reopens read (`orders / 2 + i`; a new process reads `orders / 3`),
    /// each at most once (a stride prime to the range's size); the same for every peer.
    public static func deleteKey(_ i: Int, orders: Int) -> String {
        let first = orders / 2 + reopens
        let size = max(orders - first, 1)
        let stride = size % 7919 == 0 ? 7907 : 7919
        return "05" + pad8(first + (i * stride) % size)
    }

    /// The `i`-th create: the properties of an existing order under the new key `09<i>`, as the
    /// JSON body every peer stores.
    public static func createBody(_ g: SalesServiceGenerator, _ i: Int, orders: Int) -> String {
        let index = (i * 7919 + orders / 3) % orders
        let body = String(decoding: g.entityProperties(set: .salesOrders, index: index) ?? [], as: UTF8.self)
        return body.replacingOccurrences(of: "\"\(g.salesOrderID(index))\"", with: "\"09\(pad8(i))\"")
    }

    public static func pad8(_ n: Int) -> String {
        let s = String(n)
        return String(repeating: "0", count: max(0, 8 - s.count)) + s
    }

    /// One local update with queueing as its own transaction: `UPDATE SalesOrders SET Note` and
    /// the request-queue row (`begin`: `BEGIN`, or `BEGIN IMMEDIATE` among concurrent writers).
    static func queuedUpdate(_ db: SQLiteConnection, _ update: SQLiteConnection.Statement, _ queue: SQLiteConnection.Statement,
                             id: String, note: String, begin: String) throws {
        try db.exec(begin)
        try update.bind(1, note)
        try update.bind(2, id)
        try update.run()
        try queue.bind(1, "SalesOrders('\(id)')")
        try queue.bind(2, #"{"Note":"\#(note)"}"#)
        try queue.bind(3, id)
        try queue.run()
        try db.exec("COMMIT")
    }

    public static func run(orders: Int, directory dir: String, updates: Int, cacheBytes: Int) throws {
        let g = SalesServiceGenerator(seed: QueryDataSet.seed, scale: .entities(salesOrders: orders))
        let path = dir + "/" + fileName
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
            let id = updateKey(i, orders: orders)
            let t = now()
            try queuedUpdate(db, update, queue, id: id, note: "bench \(i)", begin: "BEGIN")
            latencies.append(now() - t)
        }
        metric("update_total_s", now() - updateStart)
        metric("update_median_s", percentile(latencies, 0.5))
        metric("update_p99_s", percentile(latencies, 0.99))
        update.finalize()
        queue.finalize()
        // Local creates and deletes with queueing, each its own durable transaction: the row
        // (an existing order's properties under a new key) or its removal, and the queue row.
        let create = try db.prepare(TypedSchema.insert(.salesOrders))
        let remove = try db.prepare("DELETE FROM SalesOrders WHERE SalesOrderID = ?1")
        let queued = try db.prepare("INSERT INTO RequestQueue(Method, URL, Body, EntitySet, EntityKey) VALUES(?1, ?2, ?3, 'SalesOrders', ?4)")
        let orderColumns = TypedSchema.columns(of: .salesOrders)
        latencies = []
        for i in 0..<updates {
            let body = createBody(g, i, orders: orders)
            let t = now()
            guard case .object(let object) = try JSONReader.parse(Array(body.utf8)) else { throw BenchError("create body is not an object") }
            try db.exec("BEGIN")
            try TypedSchema.bind(object, columns: orderColumns, to: create)
            try create.run()
            try queued.bind(1, "POST")
            try queued.bind(2, "SalesOrders")
            try queued.bind(3, body)
            try queued.bind(4, "09" + pad8(i))
            try queued.run()
            try db.exec("COMMIT")
            latencies.append(now() - t)
        }
        metric("create_median_s", percentile(latencies, 0.5))
        metric("create_p99_s", percentile(latencies, 0.99))
        latencies = []
        for i in 0..<updates {
            let id = deleteKey(i, orders: orders)
            let t = now()
            try db.exec("BEGIN")
            try remove.bind(1, id)
            try remove.run()
            try queued.bind(1, "DELETE")
            try queued.bind(2, "SalesOrders('\(id)')")
            try queued.bind(3, "")
            try queued.bind(4, id)
            try queued.run()
            try db.exec("COMMIT")
            latencies.append(now() - t)
        }
        metric("delete_median_s", percentile(latencies, 0.5))
        metric("delete_p99_s", percentile(latencies, 0.99))
        create.finalize()
        remove.finalize()
        queued.finalize()
        let floor = try SyncFloor.measure(directory: dir)
        metric("sync_floor_median_s", percentile(floor, 0.5))
        metric("sync_floor_p99_s", percentile(floor, 0.99))
        try db.close()
        // The burst: `burstUpdates` updates at once from `burstThreads` threads, each on its own
        // connection (SQLite's writers take turns: BEGIN IMMEDIATE, a busy timeout), each its
        // own durable transaction.
        let burstStart = now()
        let burstFailures = BurstFailures()
        DispatchQueue.concurrentPerform(iterations: burstThreads) { worker in
            do {
                let connection = try SQLiteConnection(path: path, cacheKiB: cacheBytes / 1024 / burstThreads, busyTimeoutMs: 60000)
                try connection.exec("PRAGMA synchronous=FULL")
                let update = try connection.prepare("UPDATE SalesOrders SET Note = ?1 WHERE SalesOrderID = ?2")
                let queue = try connection.prepare("INSERT INTO RequestQueue(Method, URL, Body, EntitySet, EntityKey) VALUES('PATCH', ?1, ?2, 'SalesOrders', ?3)")
                for n in stride(from: worker, to: burstUpdates, by: burstThreads) {
                    let id = updateKey(updates + n, orders: orders)
                    try queuedUpdate(connection, update, queue, id: id, note: "burst \(n)", begin: "BEGIN IMMEDIATE")
                }
                update.finalize()
                queue.finalize()
                try connection.close()
            } catch {
                burstFailures.add("\(error)")
            }
        }
        metric("burst_s", now() - burstStart)
        if let failure = burstFailures.first { throw BenchError("burst: \(failure)") }
        var reopens: [Double] = []
        for i in 0..<Self.reopens {
            let reopen = now()
            db = try SQLiteConnection(path: path, cacheKiB: cacheBytes / 1024)
            let select = try db.prepare("SELECT * FROM SalesOrders WHERE SalesOrderID = ?1")
            try select.bind(1, "05" + pad8((orders / 2 + i) % orders))
            guard try select.step() else { throw BenchError("first query found nothing") }
            reopens.append(now() - reopen)
            select.finalize()
            try db.close()
        }
        metric("reopen_first_query_s", percentile(reopens, 0.5))
        metric("reopen_first_query_min_s", reopens.min() ?? 0)
        metric("size_bytes", Double(directorySize(dir)))
    }
}

/// The first error of the burst's threads.
final class BurstFailures: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [String] = []
    func add(_ error: String) { lock.withLock { errors.append(error) } }
    var first: String? { lock.withLock { errors.first } }
}
