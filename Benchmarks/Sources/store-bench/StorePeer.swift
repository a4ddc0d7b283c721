import BenchCommon

/// The peers of store-bench (issue 6: every peer at every workload), in the order of the
/// report's columns. Each runs in its own worker process per size and round.
enum StorePeer: String, CaseIterable, Sendable {
    /// Our store, encrypted with a raw 256-bit key (no KDF in any timing).
    case ours = "ours"
    /// Our store with the explicit `.unencrypted` opt-out, otherwise identical.
    case oursPlain = "ours-plain"
    /// Typed SQLite tables (`TypedStoreWorker` against libsqlite3).
    case sqliteTyped = "sqlite-typed"
    /// The same schema, indexes and SQL on SQLCipher (`sqlcipher-worker store`).
    case sqlcipherTyped = "sqlcipher-typed"

    /// `--peers` names: the raw values, and `sqlite` (the typed SQLite peer's earlier name).
    static func named(_ name: String) -> StorePeer? {
        name == "sqlite" ? .sqliteTyped : StorePeer(rawValue: name)
    }

    /// Column label in the report.
    var label: String {
        switch self {
        case .ours: "ours (encrypted)"
        case .oursPlain: "ours unencrypted"
        case .sqliteTyped: "SQLite"
        case .sqlcipherTyped: "SQLCipher"
        }
    }

    /// Peer id in the CSV (shared with the engine and query benchmarks).
    var csvID: String {
        switch self {
        case .ours: "ours-enc"
        case .oursPlain: "ours-plain"
        case .sqliteTyped: "sqlite"
        case .sqlcipherTyped: "sqlcipher"
        }
    }
}
