import OfflineODataEngine
import OfflineODataModel
import Synchronization

/// How OData entities, secondary indexes and navigation links live in a `StorageEngine`
/// (docs/StoreFormat.md): a catalog tree, one tree per entity set, one per index and two per
/// recorded-link navigation. Writes go through `write(_:)`, one atomic engine commit each;
/// reads through `reader()`, a consistent point in time.
///
/// Thread-safe: writes are serialized by the storage (index maintenance reads the stored
/// version of an entity and must not race another writer); readers run concurrently.
public final class EntityStorage: Sendable {
    public let engine: StorageEngine
    public let model: ServiceModel
    let catalogTree: Tree
    let state: Mutex<StorageCatalog>
    /// Serializes writers (entity writes, index backfills, catalog changes).
    let writer = Mutex<Int>(0)
    /// Writers waiting for `writer` (a burst of local changes): a commit that has one behind it
    /// leaves the sync of the log to it (group commit, `write`).
    let waitingWriters = Atomic<Int>(0)
    /// While set, `reader()` returns this point in time instead of the last commit (see
    /// `exclusive(pinningReaders:_:)`).
    let pinnedSnapshot = Mutex<Snapshot?>(nil)

    /// Opens the storage on an open engine: checks the catalog's format, persists each entity
    /// set's layout (new properties appended; removed or retyped properties throw
    /// `incompatibleMetadata`), creates the trees, loads declared indexes and declares (and
    /// fills) the navigation indexes the model's referential constraints need.
    public convenience init(engine: StorageEngine, model: ServiceModel) throws(ODataError) {
        try self.init(engine: engine, model: model, layoutMemo: nil)
    }

    /// `layoutMemo`: the layouts merged at earlier opens of this process with the same model.
    init(engine: StorageEngine, model: ServiceModel, layoutMemo: LayoutMemo?) throws(ODataError) {
        self.engine = engine
        self.model = model
        let catalogTree = try mapEngine("opening the catalog") { () throws(EngineError) in
            try engine.tree(StoreFormat.catalogTree)
        }
        self.catalogTree = catalogTree
        let snapshot = try mapEngine("reading the catalog") { () throws(EngineError) in try engine.snapshot() }
        var batch = WriteBatch()
        let format = try mapEngine("reading the catalog") { () throws(EngineError) in
            try snapshot.get(StoreFormat.formatKey, in: catalogTree)
        }
        if let format {
            let version = format.first.map(Int.init) ?? -1
            guard format.count == 1, version == StoreFormat.catalogVersion else { throw .storeUnsupportedFormat(version) }
        } else {
            batch.put(StoreFormat.formatKey, [UInt8(StoreFormat.catalogVersion)], in: catalogTree)
        }
        var catalog = StorageCatalog()
        let memo = layoutMemo.map(LayoutMemo.Session.init)
        try Self.loadSets(engine: engine, model: model, catalogTree: catalogTree, snapshot: snapshot,
                          into: &catalog, batch: &batch, memo: memo)
        try Self.loadIndexes(snapshot: snapshot, catalogTree: catalogTree, engine: engine, into: &catalog)
        let pendingNavigationIndexes = try Self.planNavigation(engine: engine, model: model, into: &catalog, memo: memo)
        let pendingBatch = batch
        try mapEngine("writing the catalog") { () throws(EngineError) in _ = try engine.commit(pendingBatch) }
        state = Mutex(catalog)
        for definition in pendingNavigationIndexes {
            try declareIndexSync(definition, isNavigation: true, batchSize: 1024, progress: nil)
        }
    }

    // MARK: reading and writing

    /// A consistent, read-only view at the last commit (an engine snapshot). Sendable.
    /// While an exclusive session pins readers, the view from before the session.
    public func reader() throws(ODataError) -> EntityReader {
        try reader(pinned: pinnedSnapshot.withLock { $0 })
    }

    /// A reader at `pinned`, or at the last commit when nil.
    func reader(pinned: Snapshot?) throws(ODataError) -> EntityReader {
        try state.withLock { catalog throws(ODataError) -> EntityReader in
            if let pinned { return EntityReader(catalog: catalog, snapshot: pinned, engine: engine) }
            let snapshot = try mapEngine("taking a snapshot") { () throws(EngineError) in try engine.snapshot() }
            return EntityReader(catalog: catalog, snapshot: snapshot, engine: engine)
        }
    }

    /// Runs `body` and commits everything it wrote (entities, index entries, links, system
    /// records) as one atomic engine commit, with the engine's durability. Nothing is written
    /// when `body` throws. Writers are serialized: `body` must not call `write`, `apply`,
    /// `declareIndex` or `dropIndex` of the same storage (it would wait for itself).
    ///
    /// The commit is made under the writer lock and waited on to be durable after the lock is
    /// released: writers that commit meanwhile share one sync of the log (group commit), and
    /// each `write` returns only once its own commit is durable.
    @discardableResult
    public func write<T>(_ body: (inout EntityWriteBatch) throws(ODataError) -> T) throws(ODataError) -> T {
        let (result, sequence) = try serialized { () throws(ODataError) -> (T, UInt64) in try commitBatch(body, durable: false) }
        let engine = self.engine
        // Another writer is already waiting: its sync (or the last one's of the burst) covers
        // this commit too; this one syncs itself only if none has within a short wait.
        let successor = waitingWriters.load(ordering: .relaxed) > 0
        try mapEngine("making a write durable") { () throws(EngineError) in
            try engine.waitDurable(sequence, leavingSyncToOthersFor: successor ? Self.groupCommitWait : nil)
        }
        return result
    }

    /// Holds the writer lock for a series of commits that no other writer may interleave with
    /// (a large download applied in bounded steps). Each `ExclusiveWriter.write` is one atomic
    /// commit. With `pinningReaders`, every `reader()` taken during the session sees the store
    /// as it was when the session began, so readers never observe the intermediate commits.
    public func exclusive<T>(pinningReaders: Bool = false,
                             _ body: (ExclusiveWriter) throws(ODataError) -> T) throws(ODataError) -> T {
        try serialized { () throws(ODataError) -> T in
            if pinningReaders {
                let snapshot = try mapEngine("taking a snapshot") { () throws(EngineError) in try engine.snapshot() }
                pinnedSnapshot.withLock { $0 = snapshot }
            }
            defer { if pinningReaders { pinnedSnapshot.withLock { $0 = nil } } }
            return try body(ExclusiveWriter(storage: self))
        }
    }

    /// How long a commit with a writer behind it waits for that writer's sync before it syncs
    /// the log itself (the successor's transaction failed, or is a long one).
    static let groupCommitWait: Duration = .milliseconds(3)

    /// One commit of `body`'s writes; the caller holds the writer lock.
    func commitBatch<T>(_ body: (inout EntityWriteBatch) throws(ODataError) -> T) throws(ODataError) -> T {
        try commitBatch(body, durable: true).0
    }

    /// The same, durable when it returns or (`durable: false`) once `engine.waitDurable` of the
    /// returned sequence returns.
    func commitBatch<T>(_ body: (inout EntityWriteBatch) throws(ODataError) -> T, durable: Bool) throws(ODataError) -> (T, UInt64) {
        // The batch and its snapshot end before the commit: a memtable node that no snapshot
        // shares is changed in place, not copied (with a snapshot alive, each commit copied
        // every node on the path of each of its keys: 14 µs of a 300 µs update, measured).
        let (result, records) = try { () throws(ODataError) -> (T, WriteBatch) in
            let catalog = state.withLock { $0 }
            let snapshot = try mapEngine("taking a snapshot") { () throws(EngineError) in try engine.snapshot() }
            var batch = EntityWriteBatch(storage: self, catalog: catalog, snapshot: snapshot)
            let result = try body(&batch)
            return (result, batch.batch)
        }()
        let sequence = try mapEngine("committing a write") { () throws(EngineError) in try engine.commit(records, durable: durable) }
        return (result, sequence)
    }

    /// Runs `body` while holding the writer lock.
    func serialized<T>(_ body: () throws(ODataError) -> T) throws(ODataError) -> T {
        var outcome: Result<T, ODataError>?
        waitingWriters.add(1, ordering: .relaxed)
        writer.withLock { _ in
            waitingWriters.subtract(1, ordering: .relaxed)
            do throws(ODataError) {
                outcome = .success(try body())
            } catch {
                outcome = .failure(error)
            }
        }
        switch outcome {
        case .success(let value)?: return value
        case .failure(let error)?: throw error
        case nil: throw .storeCorrupted("writer", "no outcome")
        }
    }

    // MARK: model information

    /// The persisted layout of a set (declared properties in stored order; `StoredEntity`
    /// property indexes refer to it).
    public func layout(of set: String) throws(ODataError) -> EntityLayout {
        try setInfo(set).layout
    }

    /// The key property names of a set, in key order.
    public func keyProperties(of set: String) throws(ODataError) -> [String] {
        try setInfo(set).keyNames
    }

    /// The current catalog.
    func currentCatalog() -> StorageCatalog { state.withLock { $0 } }

    /// The set as the current catalog has it.
    func setInfo(_ set: String) throws(ODataError) -> SetInfo {
        try state.withLock { catalog throws(ODataError) in try catalog.set(set) }
    }

    /// Encodes key values (in key order, normalized to the declared kinds) as the set's key bytes.
    public func encodeKey(_ key: [ODataValue], in set: String) throws(ODataError) -> [UInt8] {
        try Self.encodeKey(key, info: try setInfo(set))
    }

    static func encodeKey(_ key: [ODataValue], info: SetInfo) throws(ODataError) -> [UInt8] {
        guard key.count == info.keyKinds.count else {
            throw .storeWrongKeyCount(info.name, got: key.count, expected: info.keyKinds.count)
        }
        return try encodeKeyPrefix(key, info: info)
    }

    /// The encoding of the first `key.count` key properties (a byte prefix of every key that
    /// starts with these values).
    static func encodeKeyPrefix(_ key: [ODataValue], info: SetInfo) throws(ODataError) -> [UInt8] {
        guard key.count <= info.keyKinds.count else {
            throw .storeWrongKeyCount(info.name, got: key.count, expected: info.keyKinds.count)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for (i, value) in key.enumerated() { try appendKeyComponent(value, at: i, info: info, to: &bytes) }
        return try checkedKey(bytes, info: info)
    }

    /// Appends key property `i`'s value, normalized to its kind, to the encoding of a key.
    static func appendKeyComponent(_ value: ODataValue, at i: Int, info: SetInfo, to bytes: inout [UInt8]) throws(ODataError) {
        if value.isNull { throw .storeNullKeyProperty(info.name, info.keyNames[i]) }
        guard let v = KeyValues.normalize(value, to: info.keyKinds[i]) else {
            throw .storeWrongValueKind(info.name, info.keyNames[i],
                                       expected: info.keyKinds[i]?.rawValue ?? "an enum", got: KeyValues.describe(value))
        }
        try OrderedKeyEncoding.append(v, to: &bytes, index: i)
    }

    /// A key's encoding within the limit of a primary key.
    static func checkedKey(_ bytes: [UInt8], info: SetInfo) throws(ODataError) -> [UInt8] {
        guard bytes.count <= StoreFormat.maxPrimaryKeyBytes else {
            throw .storeKeyTooLong(info.name, length: bytes.count, limit: StoreFormat.maxPrimaryKeyBytes)
        }
        return bytes
    }
}

/// The writer of an `EntityStorage.exclusive` session: commits without waiting for the
/// writer lock the session already holds. Valid only inside the session's closure.
public struct ExclusiveWriter: Sendable {
    let storage: EntityStorage

    /// One atomic commit of everything `body` writes (as `EntityStorage.write`).
    @discardableResult
    public func write<T>(_ body: (inout EntityWriteBatch) throws(ODataError) -> T) throws(ODataError) -> T {
        try storage.commitBatch(body)
    }

    /// The last commit, including this session's own (pinned readers do not see it).
    public func currentReader() throws(ODataError) -> EntityReader {
        try storage.reader(pinned: nil)
    }
}
