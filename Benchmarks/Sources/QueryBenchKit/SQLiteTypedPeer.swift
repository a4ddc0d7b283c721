import BenchCommon
import OfflineODataFixtures
import OfflineODataModel

/// SQLite with typed columns (`TypedSchema`): each entity's OData JSON is parsed (our
/// `JSONReader`) and bound column by column; queries select every column and decode each into a
/// Swift value (`SQLValue`). Compiled with `SQLCIPHER` (QueryBenchCipherKit, run by
/// `sqlcipher-worker`): the same schema, indexes and SQL on SQLCipher, the `sqlcipher-typed` peer.
public final class SQLiteTypedPeer: QueryPeer {
    #if SQLCIPHER
    public static let name = "sqlcipher-typed"
    public static let summary = "SQLCipher (AES-256, raw 256-bit key, 4 KiB cipher pages; library and settings below), the `sqlite-typed` peer's exact tables, indexes and SQL"
    #else
    public static let name = "sqlite-typed"
    public static let summary = "SQLite, one WITHOUT ROWID table per entity set with typed columns (decimals REAL, dates TEXT, Address flattened), `CREATE INDEX` per secondary index"
    #endif

    /// The database file in the peer's store directory.
    public static let fileName = "typed.sqlite"

    let db: SQLiteConnection
    var inserts: [SalesEntitySet: SQLiteConnection.Statement] = [:]
    var statements: [String: SQLiteConnection.Statement] = [:]
    let begin: SQLiteConnection.Statement
    let commit: SQLiteConnection.Statement

    public init(directory: String, creating: Bool) throws {
        db = try SQLiteConnection(path: directory + "/" + Self.fileName, cacheKiB: creating ? nil : QueryWorkload.cacheKiB)
        if creating {
            for set in SalesEntitySet.allCases { try db.exec(TypedSchema.createTable(set)) }
            for index in SecondaryIndex.all where index.needsTypedIndex {
                try db.exec("CREATE INDEX \(index.name) ON \(index.set.name)(\(index.property))")
            }
        }
        begin = try db.prepare("BEGIN")
        commit = try db.prepare("COMMIT")
    }

    public func load(_ batch: EntityBatch) throws {
        let columns = TypedSchema.columns(of: batch.set)
        let insert: SQLiteConnection.Statement
        if let s = inserts[batch.set] { insert = s } else {
            insert = try db.prepare(TypedSchema.insert(batch.set))
            inserts[batch.set] = insert
        }
        try begin.run()
        for json in batch.entities {
            guard case .object(let object) = try JSONReader.parse(json) else { throw BenchError("entity is not an object") }
            try TypedSchema.bind(object, columns: columns, to: insert)
            try insert.run()
        }
        try commit.run()
    }

    public func finishLoad() throws {
        try db.exec("ANALYZE")
    }

    func statement(_ sql: String) throws -> SQLiteConnection.Statement {
        if let s = statements[sql] { return s }
        let s = try db.prepare(sql)
        statements[sql] = s
        return s
    }

    /// Steps `s` to the end, decoding every column of every row; adds each row's key (the first
    /// `keyColumns` columns joined by `,`) to `sum`; returns the decoded rows.
    @discardableResult
    func materialize(_ s: SQLiteConnection.Statement, keyColumns: Int, into sum: inout ResultChecksum) throws -> [[SQLValue]] {
        defer { s.reset() }
        var rows: [[SQLValue]] = []
        let n = s.columnCount
        while try s.step() {
            var row: [SQLValue] = []
            row.reserveCapacity(Int(n))
            for i in 0..<n { row.append(s.value(i)) }
            var key = ""
            for i in 0..<keyColumns {
                if i > 0 { key += "," }
                if case .text(let t) = row[i] { key += t }
            }
            sum.add(key: key)
            rows.append(row)
        }
        return rows
    }

    public func run(_ workload: QueryWorkload) throws -> QueryOutcome {
        var sum = ResultChecksum(ordered: workload.ordered)
        switch workload.kind {
        case .count:
            let s = try statement(workload.typedSQL)
            defer { s.reset() }
            guard try s.step() else { throw BenchError("count returned no row") }
            let n = Int(s.int64(0))
            return QueryOutcome(rows: n, checksum: UInt64(n))
        case .expand:
            let parents = try materialize(try statement(workload.typedSQL), keyColumns: 1, into: &sum)
            let items = try statement(workload.typedChildSQL ?? "")
            for parent in parents {
                guard case .text(let id) = parent[0] else { throw BenchError("parent without key") }
                try items.bind(1, id)
                try materialize(items, keyColumns: 2, into: &sum)
            }
        default:
            try materialize(try statement(workload.typedSQL), keyColumns: 1, into: &sum)
        }
        return sum.outcome
    }

    public func close() throws {
        for s in inserts.values { s.finalize() }
        for s in statements.values { s.finalize() }
        begin.finalize()
        commit.finalize()
        inserts = [:]
        statements = [:]
        try db.close()
    }
}
