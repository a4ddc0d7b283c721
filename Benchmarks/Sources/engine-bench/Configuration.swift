/// One side of a comparison: which store, encrypted or not, at which durability.
struct Configuration: Hashable, Sendable {
    /// `.sqlcipher` runs in the separate `sqlcipher-worker` executable (its `sqlite3_*` symbols
    /// are the same as libsqlite3's, so the two cannot share a process).
    enum Engine: String, Sendable { case ours, sqlite, sqlcipher }
    /// `.relaxed` pairs our `.relaxed` with SQLite's / SQLCipher's WAL + synchronous=NORMAL (no
    /// fsync per commit); `.full` pairs our `.full` with WAL + synchronous=FULL (fsync per commit).
    enum Durability: String, Sendable { case relaxed, full }

    var engine: Engine
    var encrypted: Bool
    var durability: Durability
    /// Only the insert workload (used for the `.full` pairs: reads do not depend on durability).
    var insertOnly: Bool

    var name: String {
        switch engine {
        case .ours: "ours-\(encrypted ? "enc" : "plain")-\(durability.rawValue)"
        case .sqlite: "sqlite-\(durability == .full ? "full" : "normal")"
        case .sqlcipher: "sqlcipher-\(durability == .full ? "full" : "normal")"
        }
    }

    init(engine: Engine, encrypted: Bool, durability: Durability, insertOnly: Bool) {
        self.engine = engine
        self.encrypted = encrypted
        self.durability = durability
        self.insertOnly = insertOnly
    }

    init?(name: String) {
        guard let c = Self.all.first(where: { $0.name == name }) else { return nil }
        self = c
    }

    /// Every configuration, in the order one round runs them.
    static let all: [Configuration] = [
        .init(engine: .ours, encrypted: true, durability: .relaxed, insertOnly: false),
        .init(engine: .ours, encrypted: false, durability: .relaxed, insertOnly: false),
        .init(engine: .sqlite, encrypted: false, durability: .relaxed, insertOnly: false),
        .init(engine: .sqlcipher, encrypted: true, durability: .relaxed, insertOnly: false),
        .init(engine: .ours, encrypted: true, durability: .full, insertOnly: true),
        .init(engine: .ours, encrypted: false, durability: .full, insertOnly: true),
        .init(engine: .sqlite, encrypted: false, durability: .full, insertOnly: true),
        .init(engine: .sqlcipher, encrypted: true, durability: .full, insertOnly: true),
    ]
}
