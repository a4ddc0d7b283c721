import BenchCommon
import BenchKV
import Foundation

// sqlcipher-worker: the SQLCipher peer of engine-bench (issue 6). A separate executable because
// libsqlcipher exports the same `sqlite3_*` symbols as libsqlite3 (228 of them): linked into one
// process, every call silently goes to whichever library the linker saw first.
//
//   sqlcipher-worker worker --config sqlcipher-normal|sqlcipher-full --data FILE --records N --dir DIR [--lookups N]
//       The shared KVWorker workload on SQLCipher (WAL + synchronous=NORMAL, or FULL with the
//       insert only); prints METRIC lines. Started by `engine-bench run`.
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

/// After the workload (so it costs no time or memory in the figures): the library is SQLCipher
/// and the store it wrote is not a plain SQLite file.
func checkEncrypted(_ path: String) throws {
    guard let handle = FileHandle(forReadingAtPath: path) else { throw BenchError("cannot read \(path)") }
    let header = handle.readData(ofLength: 16)
    try? handle.close()
    guard header.count == 16, !header.starts(with: Array("SQLite format 3".utf8)) else {
        throw BenchError("\(path) is a plain SQLite file: the linked library is not SQLCipher (SQLite \(SQLiteStore.version))")
    }
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
default:
    fail("usage: sqlcipher-worker worker --config sqlcipher-normal|sqlcipher-full --data FILE --records N --dir DIR [--lookups N] | info --dir DIR")
}
