import BenchCommon
import QueryBenchKit

/// The peers this executable runs in its own worker processes (`query-bench load|query --peer`),
/// in the order of the report's columns.
var peerTypes: [any QueryPeer.Type] { [ours.self, oursPlain.self, SQLiteTypedPeer.self, SQLiteJSONPeer.self] }

func peerType(named name: String) -> (any QueryPeer.Type)? {
    peerTypes.first { $0.name == name }
}

/// The SQLCipher peer's name: the typed SQLite peer's schema, indexes and SQL on SQLCipher,
/// which runs in `sqlcipher-worker` (QueryBenchCipherKit; libsqlcipher and libsqlite3 cannot
/// share a process).
let sqlcipherTyped = "sqlcipher-typed"

/// Every peer name `--peers` accepts, in the order of the report's columns.
var allPeerNames: [String] { [ours.name, oursPlain.name, SQLiteTypedPeer.name, sqlcipherTyped, SQLiteJSONPeer.name] }

/// One peer of a run as the driver sees it: which executable runs its load and query workers.
struct PeerEntry: Sendable {
    let name: String
    let summary: String
    /// The worker executable and the arguments before `load` / `query` (query-bench itself: none;
    /// sqlcipher-typed: `sqlcipher-worker query`).
    let executable: String
    let prefix: [String]

    /// The entries for `names` (in that order); the SQLCipher peer needs `sqlcipher` located
    /// (nil when `sqlcipher-worker` is missing or not SQLCipher: the entry is left out).
    static func entries(_ names: [String], executable: String, sqlcipher: SQLCipherPeer) -> [PeerEntry] {
        names.compactMap { name in
            if name == sqlcipherTyped {
                guard let worker = sqlcipher.worker else { return nil }
                return PeerEntry(
                    name: name,
                    summary: "SQLCipher: the `sqlite-typed` peer's exact tables, indexes, SQL and materialization (QueryBenchKit compiled against libsqlcipher, run by `sqlcipher-worker`), WAL + `synchronous=NORMAL`, same cache, `PRAGMA key` = a raw 256-bit key (`x'…'`, no PBKDF2), `cipher_page_size` 4096; \(sqlcipher.description)",
                    executable: worker, prefix: ["query"])
            }
            guard let type = peerType(named: name) else { return nil }
            return PeerEntry(name: name, summary: type.summary, executable: executable, prefix: [])
        }
    }
}
