import BenchCommon
// This file (with the rest of QueryBenchKit) is compiled twice: in QueryBenchKit against the
// system libsqlite3, and in QueryBenchCipherKit (symbolic links, `SQLCIPHER` defined) against
// libsqlcipher for the `sqlcipher-typed` peer, which runs in `sqlcipher-worker`: the two libraries
// export the same `sqlite3_*` symbols, so they cannot share one process.
#if SQLCIPHER
import CSQLCipher
#else
import CSQLite
#endif

/// A small SQLite handle for the query and store benchmarks' SQLite peers: WAL,
/// synchronous=NORMAL, prepared statements (`SQLITE_PREPARE_PERSISTENT`), text bound without
/// copies. Built with `SQLCIPHER`: the same on SQLCipher, keyed and configured by
/// `CipherSettings.pragmas` right after open (before any page is read), statements prepared with
/// `sqlite3_prepare_v2` (SQLCipher 3.4 is SQLite 3.15, before `prepare_v3`).
public final class SQLiteConnection {
    public let path: String
    private(set) var db: OpaquePointer?

    /// `busyTimeoutMs`: set before anything else, for connections opened at once by several
    /// threads (the store benchmark's burst): setting WAL mode takes a lock, and without a
    /// timeout a connection opened while another held it failed with "database is locked".
    public init(path: String, cacheKiB: Int? = nil, busyTimeoutMs: Int32? = nil) throws {
        self.path = path
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        db = handle
        guard rc == SQLITE_OK else { throw BenchError("sqlite3_open_v2 \(path): \(message())") }
        if let busyTimeoutMs { sqlite3_busy_timeout(handle, busyTimeoutMs) }
        #if SQLCIPHER
        for pragma in CipherSettings.pragmas { try exec(pragma) }
        #endif
        try exec("PRAGMA journal_mode=WAL")
        try exec("PRAGMA synchronous=NORMAL")
        if let cacheKiB { try exec("PRAGMA cache_size=-\(cacheKiB)") }
    }

    func message() -> String {
        db.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "unknown error"
    }

    public func exec(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw BenchError("\(sql): \(message())") }
    }

    public func prepare(_ sql: String) throws -> Statement {
        var stmt: OpaquePointer?
        #if SQLCIPHER
        let rc = sqlite3_prepare_v2(db, sql, -1, &stmt, nil)
        #else
        let rc = sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        #endif
        guard rc == SQLITE_OK, let stmt else {
            throw BenchError("prepare \(sql): \(message())")
        }
        return Statement(stmt, connection: self, sql: sql)
    }

    /// The query plan lines of `sql` (EXPLAIN QUERY PLAN), for the report.
    public func plan(_ sql: String) throws -> [String] {
        let s = try prepare("EXPLAIN QUERY PLAN " + sql)
        var lines: [String] = []
        while try s.step() { lines.append(s.text(3) ?? "") }
        s.finalize()
        return lines
    }

    public func close() throws {
        if let db {
            let rc = sqlite3_close(db)
            self.db = nil
            guard rc == SQLITE_OK else { throw BenchError("sqlite3_close \(path): \(rc) (unfinalized statements?)") }
        }
    }

    deinit { if let db { sqlite3_close(db) } }

    public static var version: String { String(cString: sqlite3_libversion()) }

    /// One prepared statement. `step()` returns true while a row is available.
    public final class Statement {
        private(set) var handle: OpaquePointer?
        unowned let connection: SQLiteConnection
        let sql: String

        init(_ handle: OpaquePointer, connection: SQLiteConnection, sql: String) {
            self.handle = handle
            self.connection = connection
            self.sql = sql
        }

        public func step() throws -> Bool {
            let rc = sqlite3_step(handle)
            if rc == SQLITE_ROW { return true }
            if rc == SQLITE_DONE { return false }
            throw BenchError("step \(sql): \(connection.message())")
        }

        /// Runs a statement that returns no rows, then resets it.
        public func run() throws {
            defer { reset() }
            guard try !step() else { throw BenchError("\(sql) returned a row") }
        }

        public func reset() {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }

        public func bind(_ index: Int32, _ text: String) throws {
            // SQLITE_TRANSIENT: SQLite copies the text (the String's storage may move).
            let rc = sqlite3_bind_text(handle, index, text, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
            guard rc == SQLITE_OK else { throw BenchError("bind \(index) \(sql): \(connection.message())") }
        }

        public func bind(_ index: Int32, utf8 bytes: [UInt8]) throws {
            let rc = bytes.withUnsafeBytes { b in
                sqlite3_bind_text(handle, index, b.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(b.count),
                                  unsafeBitCast(-1, to: sqlite3_destructor_type.self))
            }
            guard rc == SQLITE_OK else { throw BenchError("bind \(index) \(sql): \(connection.message())") }
        }

        public func bind(_ index: Int32, _ value: Int64) throws {
            guard sqlite3_bind_int64(handle, index, value) == SQLITE_OK else { throw BenchError("bind \(index): \(connection.message())") }
        }

        public func bind(_ index: Int32, _ value: Double) throws {
            guard sqlite3_bind_double(handle, index, value) == SQLITE_OK else { throw BenchError("bind \(index): \(connection.message())") }
        }

        public func bindNull(_ index: Int32) throws {
            guard sqlite3_bind_null(handle, index) == SQLITE_OK else { throw BenchError("bind \(index): \(connection.message())") }
        }

        public var columnCount: Int32 { sqlite3_column_count(handle) }

        public func columnType(_ i: Int32) -> Int32 { sqlite3_column_type(handle, i) }

        /// The column as a Swift String (nil for NULL).
        public func text(_ i: Int32) -> String? {
            guard let p = sqlite3_column_text(handle, i) else { return nil }
            let n = Int(sqlite3_column_bytes(handle, i))
            return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
        }

        /// The column's UTF-8 bytes, valid until the next step/reset (empty for NULL).
        public func withText<R>(_ i: Int32, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
            let p = sqlite3_column_text(handle, i)
            let n = Int(sqlite3_column_bytes(handle, i))
            return try body(UnsafeBufferPointer(start: p, count: p == nil ? 0 : n))
        }

        public func int64(_ i: Int32) -> Int64 { sqlite3_column_int64(handle, i) }
        public func double(_ i: Int32) -> Double { sqlite3_column_double(handle, i) }

        /// The value of column `i` decoded by its storage class.
        public func value(_ i: Int32) -> SQLValue {
            switch sqlite3_column_type(handle, i) {
            case SQLITE_INTEGER: .integer(int64(i))
            case SQLITE_FLOAT: .real(double(i))
            case SQLITE_NULL: .null
            default: .text(text(i) ?? "")
            }
        }

        public func finalize() {
            sqlite3_finalize(handle)
            handle = nil
        }

        deinit { if handle != nil { sqlite3_finalize(handle) } }
    }
}

/// One decoded SQLite value (a materialized column of a result row).
public enum SQLValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}
