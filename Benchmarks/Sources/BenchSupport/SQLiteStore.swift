import BenchCommon
import BenchKV
// This file is compiled twice: here in BenchSupport against the system libsqlite3, and in the
// `sqlcipher-worker` executable (a symbolic link, with `SQLCIPHER` defined) against libsqlcipher.
// The two libraries export the same `sqlite3_*` symbols, so they cannot share one process.
#if SQLCIPHER
import CSQLCipher
#else
import CSQLite
#endif

/// The SQLite peer: one table `kv(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID` in WAL mode,
/// prepared statements only, transactions of the caller's batch size. Built with `SQLCIPHER`, the
/// SQLCipher peer: the same, keyed and configured by `CipherSettings.pragmas` right after open.
public final class SQLiteStore {
    public enum Synchronous: String, Sendable {
        /// WAL + synchronous=NORMAL: no fsync per commit (syncs at checkpoints).
        case normal = "NORMAL"
        /// WAL + synchronous=FULL: the WAL is fsynced at every commit.
        case full = "FULL"
    }

    public static let schema = "CREATE TABLE IF NOT EXISTS kv(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID"

    public let path: String
    private var db: OpaquePointer?
    private var insertStmt: OpaquePointer?
    private var selectStmt: OpaquePointer?
    private var beginStmt: OpaquePointer?
    private var commitStmt: OpaquePointer?

    /// `cacheKiB`: `PRAGMA cache_size = -cacheKiB`; nil keeps SQLite's default (2,000 KiB).
    public init(path: String, synchronous: Synchronous, cacheKiB: Int?) throws {
        self.path = path
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        db = handle
        guard rc == SQLITE_OK else { throw BenchError("sqlite3_open_v2 \(path): \(message())") }
        #if SQLCIPHER
        for pragma in CipherSettings.pragmas { try exec(pragma) }
        #endif
        try exec("PRAGMA journal_mode=WAL")
        try exec("PRAGMA synchronous=\(synchronous.rawValue)")
        if let cacheKiB { try exec("PRAGMA cache_size=-\(cacheKiB)") }
        try exec(Self.schema)
        insertStmt = try prepare("INSERT INTO kv(k, v) VALUES(?1, ?2)")
        selectStmt = try prepare("SELECT v FROM kv WHERE k = ?1")
        beginStmt = try prepare("BEGIN")
        commitStmt = try prepare("COMMIT")
    }

    private func message() -> String {
        db.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "unknown error"
    }

    public func exec(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw BenchError("\(sql): \(message())") }
    }

    private func prepare(_ sql: String) throws -> OpaquePointer? {
        var stmt: OpaquePointer?
        #if SQLCIPHER
        // SQLCipher 3.4 is built on SQLite 3.15, which predates sqlite3_prepare_v3 (3.20).
        let rc = sqlite3_prepare_v2(db, sql, -1, &stmt, nil)
        #else
        let rc = sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        #endif
        guard rc == SQLITE_OK else {
            throw BenchError("prepare \(sql): \(message())")
        }
        return stmt
    }

    private func stepDone(_ stmt: OpaquePointer?, _ what: String) throws {
        let rc = sqlite3_step(stmt)
        sqlite3_reset(stmt)
        guard rc == SQLITE_DONE else { throw BenchError("\(what): \(message())") }
    }

    /// One transaction inserting every pair.
    public func insert(_ pairs: [([UInt8], [UInt8])]) throws {
        try stepDone(beginStmt, "BEGIN")
        for (k, v) in pairs {
            let rc: Int32 = k.withUnsafeBytes { kb in
                v.withUnsafeBytes { vb in
                    // SQLITE_STATIC (nil destructor): the buffers outlive the step.
                    sqlite3_bind_blob(insertStmt, 1, kb.baseAddress, Int32(kb.count), nil)
                    sqlite3_bind_blob(insertStmt, 2, vb.baseAddress, Int32(vb.count), nil)
                    let rc = sqlite3_step(insertStmt)
                    sqlite3_reset(insertStmt)
                    return rc
                }
            }
            guard rc == SQLITE_DONE else { throw BenchError("INSERT: \(message())") }
        }
        try stepDone(commitStmt, "COMMIT")
    }

    /// The value stored under `key`, copied out.
    public func get(_ key: [UInt8]) throws -> [UInt8]? {
        defer { sqlite3_reset(selectStmt) }
        let rc: Int32 = key.withUnsafeBytes { kb in
            sqlite3_bind_blob(selectStmt, 1, kb.baseAddress, Int32(kb.count), nil)
            return sqlite3_step(selectStmt)
        }
        if rc == SQLITE_DONE { return nil }
        guard rc == SQLITE_ROW else { throw BenchError("SELECT: \(message())") }
        return Self.column(selectStmt, 0)
    }

    /// Every row in key order; `body` gets owned copies of key and value (as our engine's
    /// scan hands out), and returns false to stop.
    public func scan(_ body: ([UInt8], [UInt8]) -> Bool) throws {
        let stmt = try prepare("SELECT k, v FROM kv")
        defer { sqlite3_finalize(stmt) }
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_ROW else { throw BenchError("scan: \(message())") }
            if !body(Self.column(stmt, 0), Self.column(stmt, 1)) { return }
        }
    }

    private static func column(_ stmt: OpaquePointer?, _ i: Int32) -> [UInt8] {
        let n = Int(sqlite3_column_bytes(stmt, i))
        guard n > 0, let p = sqlite3_column_blob(stmt, i) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }

    /// Finalizes the statements and closes (the last connection checkpoints and removes the WAL).
    public func close() throws {
        for s in [insertStmt, selectStmt, beginStmt, commitStmt] { sqlite3_finalize(s) }
        insertStmt = nil; selectStmt = nil; beginStmt = nil; commitStmt = nil
        if let db {
            let rc = sqlite3_close(db)
            self.db = nil
            guard rc == SQLITE_OK else { throw BenchError("sqlite3_close: \(rc)") }
        }
    }

    deinit { try? close() }

    /// This store behind the workload runner's surface.
    public var peer: Peer { Peer(insert: insert, get: get, scan: scan, close: close) }

    /// The first value of a one-row query such as `PRAGMA cipher_version` ("" if none).
    public func text(_ sql: String) throws -> String {
        let stmt = try prepare(sql)
        defer { sqlite3_finalize(stmt) }
        guard sqlite3_step(stmt) == SQLITE_ROW, let p = sqlite3_column_text(stmt, 0) else { return "" }
        return String(cString: p)
    }

    public static var version: String { String(cString: sqlite3_libversion()) }
}

