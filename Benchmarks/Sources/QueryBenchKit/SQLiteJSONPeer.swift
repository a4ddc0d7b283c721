import BenchCommon
import OfflineODataFixtures
import OfflineODataModel

/// SQLite over JSON text: one table per entity set, `(key TEXT PRIMARY KEY, doc TEXT NOT NULL)
/// WITHOUT ROWID`, `doc` the entity's OData JSON as received; filters and sort keys through
/// `json_extract(doc, '$.Property')`, secondary indexes on those expressions. Each result row's
/// `doc` is parsed (our `JSONReader`) into a `JSONValue` tree: the materialized entity.
public final class SQLiteJSONPeer: QueryPeer {
    public static let name = "sqlite-json"
    public static let summary = "SQLite, one `(key TEXT PRIMARY KEY, doc TEXT) WITHOUT ROWID` table per entity set holding the OData JSON, `json_extract` filters, indexes on `json_extract` expressions"

    let db: SQLiteConnection
    var inserts: [SalesEntitySet: SQLiteConnection.Statement] = [:]
    var statements: [String: SQLiteConnection.Statement] = [:]
    let begin: SQLiteConnection.Statement
    let commit: SQLiteConnection.Statement
    /// Entities parsed so far (keeps the parsed trees observable, so no work is optimized away).
    public private(set) var materialized = 0

    /// `json_extract(doc, '$.name')`: the expression queries and indexes share (SQLite uses an
    /// expression index only when the query repeats the expression exactly).
    public static func field(_ name: String) -> String { "json_extract(doc, '$.\(name)')" }

    /// The SQL expression computing the `key` column from the JSON bound as `?1` (key values
    /// joined by `,`, as `ResultChecksum` defines the key text).
    static func keyExpression(_ set: SalesEntitySet) -> String {
        set.keyProperties.map { "json_extract(?1, '$.\($0)')" }.joined(separator: " || ',' || ")
    }

    public init(directory: String, creating: Bool) throws {
        db = try SQLiteConnection(path: directory + "/json.sqlite", cacheKiB: creating ? nil : QueryWorkload.cacheKiB)
        if creating {
            for set in SalesEntitySet.allCases {
                try db.exec("CREATE TABLE \(set.name)(key TEXT PRIMARY KEY, doc TEXT NOT NULL) WITHOUT ROWID")
            }
            for index in SecondaryIndex.all {
                try db.exec("CREATE INDEX \(index.name) ON \(index.set.name)(\(Self.field(index.property)))")
            }
        }
        begin = try db.prepare("BEGIN")
        commit = try db.prepare("COMMIT")
    }

    public func load(_ batch: EntityBatch) throws {
        let insert: SQLiteConnection.Statement
        if let s = inserts[batch.set] { insert = s } else {
            insert = try db.prepare("INSERT INTO \(batch.set.name)(key, doc) VALUES(\(Self.keyExpression(batch.set)), ?1)")
            inserts[batch.set] = insert
        }
        try begin.run()
        for json in batch.entities {
            try insert.bind(1, utf8: json)
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

    /// Steps `s` (columns `key, doc`) to the end, parsing every doc; adds each key to `sum`;
    /// returns the keys.
    @discardableResult
    func materialize(_ s: SQLiteConnection.Statement, into sum: inout ResultChecksum) throws -> [String] {
        defer { s.reset() }
        var keys: [String] = []
        var docs: [JSONValue] = []
        while try s.step() {
            let key = s.text(0) ?? ""
            let doc = try s.withText(1) { try JSONReader.parse($0) }
            sum.add(key: key)
            keys.append(key)
            docs.append(doc)
        }
        materialized &+= docs.count
        return keys
    }

    public func run(_ workload: QueryWorkload) throws -> QueryOutcome {
        var sum = ResultChecksum(ordered: workload.ordered)
        switch workload.kind {
        case .count:
            let s = try statement(workload.jsonSQL)
            defer { s.reset() }
            guard try s.step() else { throw BenchError("count returned no row") }
            let n = Int(s.int64(0))
            return QueryOutcome(rows: n, checksum: UInt64(n))
        case .expand:
            let parents = try materialize(try statement(workload.jsonSQL), into: &sum)
            let items = try statement(workload.jsonChildSQL ?? "")
            for id in parents {
                try items.bind(1, id)
                try materialize(items, into: &sum)
            }
        default:
            try materialize(try statement(workload.jsonSQL), into: &sum)
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
