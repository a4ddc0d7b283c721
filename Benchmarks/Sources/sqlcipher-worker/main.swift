import BenchCommon
import BenchKV
import Foundation
import QueryBenchCipherKit

// sqlcipher-worker: the SQLCipher peer of engine-bench (issue 6). A separate executable because
// libsqlcipher exports the same `sqlite3_*` symbols as libsqlite3 (228 of them): linked into one
// process, every call silently goes to whichever library the linker saw first.
//
//   sqlcipher-worker worker --config sqlcipher-normal|sqlcipher-full --data FILE --records N --dir DIR [--lookups N]
//       The shared KVWorker workload on SQLCipher (WAL + synchronous=NORMAL, or FULL with the
//       insert only); prints METRIC lines. Started by `engine-bench run`.
//   sqlcipher-worker query load --peer sqlcipher-typed --orders N --dir DIR
//   sqlcipher-worker query query --peer sqlcipher-typed --orders N --dir DIR [--min-seconds S] [--workloads ids]
//       query-bench's `sqlcipher-typed` peer (QueryBenchCipherKit: the typed SQLite peer's
//       schema, indexes and SQL on SQLCipher) through the shared `QueryWorker`; started by
//       `query-bench run`, same arguments and METRIC lines as `query-bench load|query`.
//   sqlcipher-worker query plan --peer sqlcipher-typed --orders N --dir DIR
//       EXPLAIN QUERY PLAN of the typed SQL on the loaded store: `PLAN <workload id> <line>` lines.
//   sqlcipher-worker store --orders N --dir DIR [--updates N] [--cache-bytes B]
//       store-bench's `sqlcipher-typed` peer (`TypedStoreWorker`: download apply, queued durable
//       updates with WAL + synchronous=FULL, reopen to first query); started by `store-bench run`.
//   sqlcipher-worker info --dir DIR
//       One line: SQLCipher and SQLite versions and the cipher settings in effect (read back
//       from a keyed probe database in DIR), for the report; fails if the library is not SQLCipher.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("sqlcipher-worker: " + message + "\n").utf8))
    exit(2)
}

/// Opens a keyed probe database, reads the settings back, removes it.
func info(directory: String) throws -> String {
    let path = directory + "/sqlcipher-probe-\(getpid()).sqlite"
    defer {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
    let store = try SQLiteStore(path: path, synchronous: .normal, cacheKiB: nil)
    defer { try? store.close() }
    let version = try store.text("PRAGMA cipher_version")
    guard !version.isEmpty else {
        throw BenchError("PRAGMA cipher_version is empty: the linked library is not SQLCipher (SQLite \(SQLiteStore.version))")
    }
    func setting(_ name: String) -> String {
        let value = (try? store.text("PRAGMA \(name)")) ?? ""
        return value.isEmpty ? "?" : value
    }
    return "SQLCipher \(version) on SQLite \(SQLiteStore.version), crypto provider \(setting("cipher_provider")) "
        + "\(setting("cipher_provider_version")); AES-256-CBC, cipher_page_size \(setting("cipher_page_size")), "
        + "page_size \(setting("page_size")), cipher_use_hmac \(setting("cipher_use_hmac")) (HMAC-SHA1 in 3.x), "
        + "kdf_iter \(setting("kdf_iter")) (not run: raw key)"
}

/// The file at `path` does not start with SQLite's plain header (`SQLite format 3`): its first
/// page is encrypted.
func checkEncryptedHeader(_ path: String) throws {
    guard let handle = FileHandle(forReadingAtPath: path) else { throw BenchError("cannot read \(path)") }
    let header = handle.readData(ofLength: 16)
    try? handle.close()
    guard header.count == 16, !header.starts(with: Array("SQLite format 3".utf8)) else {
        throw BenchError("\(path) is a plain SQLite file: the linked library is not SQLCipher (SQLite \(SQLiteStore.version))")
    }
}

/// After the workload (so it costs no time or memory in the figures): the library is SQLCipher
/// and the store it wrote is not a plain SQLite file.
func checkEncrypted(_ path: String) throws {
    try checkEncryptedHeader(path)
    let store = try SQLiteStore(path: path, synchronous: .normal, cacheKiB: nil)
    defer { try? store.close() }
    guard !(try store.text("PRAGMA cipher_version")).isEmpty else {
        throw BenchError("PRAGMA cipher_version is empty: the linked library is not SQLCipher")
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "info":
    guard let dir = WorkerArguments.option(arguments, "--dir") else { fail("info needs --dir DIR") }
    do { print(try info(directory: dir)) } catch { fail("info: \(error)") }
case "worker":
    do {
        let args = try WorkerArguments(arguments)
        let synchronous: SQLiteStore.Synchronous
        switch args.config {
        case "sqlcipher-normal": synchronous = .normal
        case "sqlcipher-full": synchronous = .full
        default: fail("worker --config takes sqlcipher-normal or sqlcipher-full, not \(args.config)")
        }
        let storePath = args.directory + "/kv.sqlite"
        let kv = KVWorker(
            dataPath: args.dataPath, records: args.records, lookups: args.lookups, seed: benchmarkSeed,
            insertOnly: synchronous == .full, sizePath: args.directory
        ) { cache in
            try SQLiteStore(path: storePath, synchronous: synchronous, cacheKiB: cache.map { $0 >> 10 }).peer
        }
        try kv.run()
        try checkEncrypted(storePath)
    } catch {
        fail("worker: \(error)")
    }
case "query":
    // query-bench's worker protocol (`load` / `query`), for the sqlcipher-typed peer only.
    let rest = Array(arguments.dropFirst())
    guard let peer = WorkerArguments.option(rest, "--peer"), peer == SQLiteTypedPeer.name else {
        fail("query needs --peer \(SQLiteTypedPeer.name)")
    }
    guard let orders = WorkerArguments.option(rest, "--orders").flatMap(Int.init), orders > 0,
          let dir = WorkerArguments.option(rest, "--dir") else { fail("query needs --orders N --dir DIR") }
    do {
        switch rest.first {
        case "load":
            try QueryWorker.load(SQLiteTypedPeer.self, orders: orders, directory: dir)
            try checkEncryptedHeader(dir + "/" + SQLiteTypedPeer.fileName)
        case "query":
            let minSeconds = WorkerArguments.option(rest, "--min-seconds").flatMap(Double.init) ?? 0.2
            let only = WorkerArguments.option(rest, "--workloads").map { Set($0.split(separator: ",").map(String.init)) }
            try QueryWorker.query(SQLiteTypedPeer.self, orders: orders, directory: dir, minSeconds: minSeconds, only: only)
        case "plan":
            // EXPLAIN QUERY PLAN of every typed statement on the loaded SQLCipher store, one
            // `PLAN <workload id> <line>` per line (for query-bench's report).
            let db = try SQLiteConnection(path: dir + "/" + SQLiteTypedPeer.fileName)
            for w in QueryWorkload.all(orders: orders) {
                for line in try db.plan(w.typedSQL) { print("PLAN \(w.id) \(line)") }
                if let child = w.typedChildSQL {
                    for line in try db.plan(child.replacingOccurrences(of: "?1", with: "'0500000001'")) { print("PLAN \(w.id) per parent: \(line)") }
                }
            }
            try db.close()
        default:
            fail("query takes load, query or plan")
        }
    } catch {
        fail("query \(rest.first ?? ""): \(error)")
    }
case "store":
    let rest = Array(arguments.dropFirst())
    guard let orders = WorkerArguments.option(rest, "--orders").flatMap(Int.init), orders > 0,
          let dir = WorkerArguments.option(rest, "--dir") else { fail("store needs --orders N --dir DIR") }
    let updates = WorkerArguments.option(rest, "--updates").flatMap(Int.init) ?? 500
    let cacheBytes = WorkerArguments.option(rest, "--cache-bytes").flatMap(Int.init) ?? 32 << 20
    do {
        try TypedStoreWorker.run(orders: orders, directory: dir, updates: updates, cacheBytes: cacheBytes)
        try checkEncryptedHeader(dir + "/" + TypedStoreWorker.fileName)
    } catch {
        fail("store: \(error)")
    }
default:
    fail("usage: sqlcipher-worker worker --config sqlcipher-normal|sqlcipher-full --data FILE --records N --dir DIR [--lookups N] | query load|query --peer sqlcipher-typed --orders N --dir DIR … | store --orders N --dir DIR [--updates N] [--cache-bytes B] | info --dir DIR")
}
