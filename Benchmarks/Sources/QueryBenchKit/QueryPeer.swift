import OfflineODataFixtures

/// One store under test in the query benchmark (`query-bench`): SQLite with typed columns,
/// SQLite over JSON text, and (plugged in by the lead) our store.
///
/// Life cycle, each step in its own worker process:
/// 1. load: `init(directory:creating: true)`, `load(_:)` once per batch (the five entity sets in
///    dependency order, 1,000 entities per batch, one transaction each), `finishLoad()`, `close()`.
///    Only the time inside `load` and `finishLoad` is measured (generating the JSON is not).
/// 2. query (once per round): `init(directory:creating: false)`, then for every workload
///    `run(_:)` repeatedly (one untimed warm-up run first), `close()`.
public protocol QueryPeer: AnyObject {
    /// The peer's name on the command line and in the report: `ours`, `sqlite-typed`, `sqlite-json`.
    static var name: String { get }
    /// One line for the report: how this peer stores and queries the data.
    static var summary: String { get }

    /// Creates an empty store in `directory` (schema and every secondary index declared up front,
    /// so indexes are maintained during the load) or opens the loaded one.
    init(directory: String, creating: Bool) throws

    /// Stores one batch of entities of one set in one transaction / commit.
    func load(_ batch: EntityBatch) throws

    /// Runs after the last batch (SQLite: `ANALYZE`); timed separately.
    func finishLoad() throws

    /// Runs one workload and fully materializes its result: every selected property of every
    /// returned entity decoded into Swift values (not just counted).
    func run(_ workload: QueryWorkload) throws -> QueryOutcome

    func close() throws
}

/// A batch of entities of one set, each its bare OData JSON object (properties in declaration
/// order, no control information: `SalesServiceGenerator.entityProperties(set:index:)`).
public struct EntityBatch: Sendable {
    public let set: SalesEntitySet
    public let entities: [[UInt8]]

    public init(set: SalesEntitySet, entities: [[UInt8]]) {
        self.set = set
        self.entities = entities
    }
}

/// What a workload returned, so that peers can be cross-checked: the number of result rows and
/// a checksum of the result keys (`ResultChecksum`).
public struct QueryOutcome: Sendable, Hashable, CustomStringConvertible {
    public var rows: Int
    public var checksum: UInt64

    public init(rows: Int, checksum: UInt64) {
        self.rows = rows
        self.checksum = checksum
    }

    public var description: String { "\(rows) rows, checksum \(String(checksum, radix: 16))" }
}
