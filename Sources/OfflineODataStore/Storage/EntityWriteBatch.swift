import OfflineODataEngine
import OfflineODataModel

/// The writes of one `EntityStorage.write` call. Every method validates its input and keeps the
/// indexes and links of the touched entities right; reads inside the batch see its own earlier
/// writes (an entity put twice, then deleted, leaves no index entry behind).
public struct EntityWriteBatch {
    enum Pending {
        case put([UInt8])
        case deleted
    }

    let storage: EntityStorage
    let catalog: StorageCatalog
    let snapshot: Snapshot
    /// The engine records to commit.
    var batch = WriteBatch()
    /// Entity and link records written so far, per tree (what later reads in the batch see).
    var overlay: [Tree: [ByteKey: Pending]] = [:]

    init(storage: EntityStorage, catalog: StorageCatalog, snapshot: Snapshot) {
        self.storage = storage
        self.catalog = catalog
        self.snapshot = snapshot
    }

    /// Number of engine records so far (entities, index entries, links, system records).
    public var recordCount: Int { batch.count }

    // MARK: entities

    /// Stores a record of `set` under the key taken from its key properties; returns the
    /// encoded key. `typeName` names a derived type (nil: the set's type).
    @discardableResult
    public mutating func put(record: EntityRecord, in set: String, etag: String? = nil, flags: EntityFlags = [],
                             typeName: String? = nil) throws(ODataError) -> [UInt8] {
        let info = try catalog.set(set)
        return try put(record: record, info: info, etag: etag, flags: flags, typeName: typeName)
    }

    /// Deletes the entity with this key (index entries and links included). False when there
    /// was none.
    @discardableResult
    public mutating func delete(key: [ODataValue], in set: String) throws(ODataError) -> Bool {
        let info = try catalog.set(set)
        return try delete(keyBytes: try EntityStorage.encodeKey(key, info: info), info: info)
    }

    /// Deletes by encoded key (`StoredEntity.keyBytes`).
    @discardableResult
    public mutating func delete(keyBytes: [UInt8], in set: String) throws(ODataError) -> Bool {
        try delete(keyBytes: keyBytes, info: try catalog.set(set))
    }

    /// Makes room for `count` more entities of `set` in what the batch tracks (a page about to be
    /// written), so the tracking grows once instead of rehashing its keys again and again.
    /// An unknown set is left to the writes that follow (they name it in their error).
    mutating func reserve(_ count: Int, in set: String) {
        guard let tree = catalog.sets[set]?.tree else { return }
        overlay[tree, default: [:]].reserveCapacity((overlay[tree]?.count ?? 0) + count)
    }

    // MARK: system trees

    /// Writes a raw record in the system tree `odata.s.<tree>` (e.g. the request queue),
    /// atomically with the rest of the batch.
    public mutating func putSystem(tree name: String, key: [UInt8], value: [UInt8]) throws(ODataError) {
        try putSystem(in: systemTree(named: name), key: key, value: value)
    }

    /// A system tree resolved once, for many records in a row (a download's memberships): no
    /// name building and tree lookup per record.
    struct SystemTree {
        let name: String
        let tree: Tree
    }

    func systemTree(named name: String) throws(ODataError) -> SystemTree {
        guard !name.isEmpty else { throw .storeInvalidSystemTree(name, "the name is empty") }
        return SystemTree(name: name, tree: try EntityStorage.tree(StoreFormat.systemTree(name), engine: storage.engine))
    }

    mutating func putSystem(in system: SystemTree, key: [UInt8], value: [UInt8]) throws(ODataError) {
        try Self.checkSystemKey(key, in: system.name)
        guard value.count <= WriteBatch.maxValueSize else {
            throw .storeInvalidSystemTree(system.name, "value of \(value.count) bytes exceeds \(WriteBatch.maxValueSize)")
        }
        stage(key, value, in: system.tree)
    }

    public mutating func deleteSystem(tree name: String, key: [UInt8]) throws(ODataError) {
        let system = try systemTree(named: name)
        try Self.checkSystemKey(key, in: name)
        erase(key, in: system.tree)
    }

    private static func checkSystemKey(_ key: [UInt8], in name: String) throws(ODataError) {
        guard !key.isEmpty, key.count <= StoreFormat.maxTreeKeyBytes else {
            throw .storeInvalidSystemTree(name, "key of \(key.count) bytes (1…\(StoreFormat.maxTreeKeyBytes) allowed)")
        }
    }

    // MARK: internals

    /// The record as this batch sees it: its own writes, else the snapshot. `uncached`: a read
    /// not expected to come again soon (the version a delta's entity replaces) leaves the block
    /// cache as it is (`Snapshot.getUncached`).
    func current(_ key: [UInt8], in tree: Tree, uncached: Bool = false) throws(ODataError) -> [UInt8]? {
        if let pending = overlay[tree]?[ByteKey(key)] {
            switch pending {
            case .put(let value): return value
            case .deleted: return nil
            }
        }
        return try mapEngine("reading \(tree.name)") { () throws(EngineError) in
            try uncached ? snapshot.getUncached(key, in: tree) : snapshot.get(key, in: tree)
        }
    }

    mutating func stage(_ key: [UInt8], _ value: [UInt8], in tree: Tree) {
        batch.put(key, value, in: tree)
        overlay[tree, default: [:]][ByteKey(key)] = .put(value)
    }

    mutating func erase(_ key: [UInt8], in tree: Tree) {
        batch.delete(key, in: tree)
        overlay[tree, default: [:]][ByteKey(key)] = .deleted
    }

    /// The stored entity (record and trailer) as this batch sees it.
    func stored(_ keyBytes: [UInt8], info: SetInfo) throws(ODataError) -> (record: EntityRecord, meta: StoredValue.Meta)? {
        guard let (codec, meta) = try storedParts(keyBytes, info: info) else { return nil }
        return (try info.codec.decode(codec), meta)
    }

    /// The stored version as this batch sees it, split: its codec bytes and its trailer (ETag,
    /// type name, flags), nothing decoded.
    func storedParts(_ keyBytes: [UInt8], info: SetInfo, uncached: Bool = false) throws(ODataError) -> (codec: [UInt8], meta: StoredValue.Meta)? {
        guard var value = try current(keyBytes, in: info.tree, uncached: uncached) else { return nil }
        let meta = try StoredValue.split(&value, what: "entity of set '\(info.name)'")
        return (value, meta)
    }

    /// The codec bytes of the stored version as this batch sees it (trailer cut off).
    func storedCodecBytes(_ keyBytes: [UInt8], info: SetInfo, uncached: Bool = false) throws(ODataError) -> [UInt8]? {
        try storedParts(keyBytes, info: info, uncached: uncached)?.codec
    }

    /// Whether this batch has written or deleted `key` in `tree`.
    func hasPending(_ key: [UInt8], in tree: Tree) -> Bool {
        overlay[tree]?[ByteKey(key)] != nil
    }

    mutating func put(record: EntityRecord, info: SetInfo, etag: String?, flags: EntityFlags,
                      typeName: String?) throws(ODataError) -> [UInt8] {
        try put(Self.prepare(record: record, info: info, etag: etag, flags: flags, typeName: typeName), info: info)
    }

    /// An entity checked and encoded for its set: the part of a put that reads nothing of the
    /// batch, so a download prepares its pages' entities on its reader threads while the writer
    /// applies earlier pages.
    struct Prepared: Sendable {
        let record: EntityRecord
        let keyBytes: [UInt8]
        /// The stored value: codec bytes and trailer (`StoredValue`).
        let value: [UInt8]
    }

    /// Every check of a put that needs only the set, in the order `put` makes them.
    static func prepare(record: EntityRecord, info: SetInfo, etag: String?, flags: EntityFlags,
                        typeName: String?) throws(ODataError) -> Prepared {
        var key: [ODataValue] = []
        key.reserveCapacity(info.keyIndices.count)
        for (n, i) in info.keyIndices.enumerated() {
            guard i < record.values.count, let value = record.values[i] else {
                throw .storeMissingKeyProperty(info.name, info.keyNames[n])
            }
            key.append(value)
        }
        let keyBytes = try EntityStorage.encodeKey(key, info: info)
        try checkKinds(record, info: info)
        try checkStored(info: info, etag: etag, typeName: typeName)
        let codecBytes: [UInt8]
        do {
            codecBytes = try info.codec.encode(record)
        } catch {
            throw .storeValueRejected(info.name, error)
        }
        return Prepared(record: record, keyBytes: keyBytes, value: try storedValue(codecBytes, info: info, etag: etag, typeName: typeName, flags: flags))
    }

    /// `prepare` of an entity given in its codec's form (`ODataFlatPageReader.readEncoded`,
    /// which made the bytes with `encode`'s checks): the same checks of its key, ETag and type,
    /// the key read from the bytes.
    /// `key`: the key's encoding when the reader made it (`EncodedEntity.stringKey`, a key of
    /// strings: normalizing a string to a string keeps it, so it is `encodeKey`'s).
    static func prepare(encoded codecBytes: consuming [UInt8], info: SetInfo, etag: String?, flags: EntityFlags,
                        typeName: String?, key made: [UInt8]? = nil) throws(ODataError) -> StagedPage.Entry {
        // The key's encoding, component by component (`EntityStorage.encodeKey`, without the
        // arrays of values).
        guard info.keyIndices.count == info.keyKinds.count else {
            throw .storeWrongKeyCount(info.name, got: info.keyIndices.count, expected: info.keyKinds.count)
        }
        var key: [UInt8] = []
        if let made, info.keyKinds.allSatisfy({ $0 == .string }) {
            key = made
        } else {
            key.reserveCapacity(32)
            let codec = info.codec
            for (n, i) in info.keyIndices.enumerated() {
                guard let value = try codec.readProperty(at: i, from: codecBytes) else {
                    throw .storeMissingKeyProperty(info.name, info.keyNames[n])
                }
                try EntityStorage.appendKeyComponent(value, at: n, info: info, to: &key)
            }
        }
        let keyBytes = try EntityStorage.checkedKey(key, info: info)
        try checkStored(info: info, etag: etag, typeName: typeName)
        return StagedPage.Entry(key: keyBytes, value: try storedValue(codecBytes, info: info, etag: etag, typeName: typeName, flags: flags))
    }

    /// The checks of an entity's ETag and type name (`prepare`).
    private static func checkStored(info: SetInfo, etag: String?, typeName: String?) throws(ODataError) {
        if let typeName, typeName != info.typeName, !info.typeNames.contains(typeName) {
            throw .storeTypeNotInSet(info.name, typeName)
        }
        let derived = typeName == info.typeName ? nil : typeName
        if let etag, etag.utf8.count > StoreFormat.maxETagBytes {
            throw .storeTooLong(info.name, "ETag", length: etag.utf8.count, limit: StoreFormat.maxETagBytes)
        }
        if let derived, derived.utf8.count > StoreFormat.maxTypeNameBytes {
            throw .storeTooLong(info.name, "type name", length: derived.utf8.count, limit: StoreFormat.maxTypeNameBytes)
        }
    }

    /// The stored value of checked codec bytes (`StoredValue`), within the engine's limit.
    private static func storedValue(_ codecBytes: consuming [UInt8], info: SetInfo, etag: String?, typeName: String?,
                                    flags: EntityFlags) throws(ODataError) -> [UInt8] {
        let derived = typeName == info.typeName ? nil : typeName
        let value = StoredValue.encode(codec: codecBytes, etag: etag, typeName: derived, flags: flags)
        guard value.count <= WriteBatch.maxValueSize else {
            throw .storeTooLong(info.name, "entity", length: value.count, limit: WriteBatch.maxValueSize)
        }
        return value
    }

    /// Re-stores an entity with another ETag and flags, its codec bytes as they are: its
    /// properties, and so its index entries, do not change, so nothing is decoded, encoded or
    /// re-indexed (a confirmed upload restamps every entity it sent: decoding and encoding the
    /// record and recomputing each index key were about a third of the confirmation, perf).
    /// False when the entity is not stored.
    @discardableResult
    mutating func restampStored(_ keyBytes: [UInt8], info: SetInfo, etag: String?, flags: EntityFlags) throws(ODataError) -> Bool {
        guard let (codec, meta) = try storedParts(keyBytes, info: info) else { return false }
        let typeName = meta.typeName ?? info.typeName
        try Self.checkStored(info: info, etag: etag, typeName: typeName)
        stage(keyBytes, try Self.storedValue(codec, info: info, etag: etag, typeName: typeName, flags: flags), in: info.tree)
        return true
    }

    /// Stages a prepared entity of `info`'s set, with its index entries; returns its key.
    mutating func put(_ prepared: Prepared, info: SetInfo) throws(ODataError) -> [UInt8] {
        try put(prepared.keyBytes, prepared.value, .record(prepared.record), info: info)
    }

    /// The same, when the caller has just read the entity's stored version: its codec bytes
    /// (`storedCodecBytes`), nil when it is not stored. They are not read again for the index
    /// entries.
    mutating func put(_ prepared: Prepared, info: SetInfo, storedCodec old: [UInt8]?) throws(ODataError) -> [UInt8] {
        try put(prepared.keyBytes, prepared.value, .record(prepared.record), info: info, old: .some(old))
    }

    /// Stages an entity given in its stored form (key and `StoredValue` bytes, as `prepare`
    /// made them: a staged download page, docs/OfflineStore.md §7.3), with its index entries
    /// read from the value's codec bytes; returns its key.
    mutating func put(storedKey keyBytes: [UInt8], value: [UInt8], info: SetInfo) throws(ODataError) -> [UInt8] {
        guard value.count <= WriteBatch.maxValueSize else {
            throw .storeTooLong(info.name, "entity", length: value.count, limit: WriteBatch.maxValueSize)
        }
        guard keyBytes.count <= StoreFormat.maxTreeKeyBytes else {
            throw .storeCorrupted("staged entity of set '\(info.name)'", "a key of \(keyBytes.count) bytes")
        }
        var codec = value
        _ = try StoredValue.split(&codec, what: "staged entity of set '\(info.name)'")
        return try put(keyBytes, value, .codec(codec), info: info)
    }

    /// Where the index entries of a new version are read from.
    private enum NewVersion {
        case record(EntityRecord)
        /// The codec bytes of the stored value.
        case codec([UInt8])
    }

    /// The put of both forms: the index entries of the new version replace the old version's
    /// where they differ.
    /// `old`: the stored version's codec bytes when the caller knows them (`.some(nil)`: not
    /// stored); nil: read here when the set has indexes.
    private mutating func put(_ keyBytes: [UInt8], _ value: [UInt8], _ version: NewVersion, info: SetInfo,
                              old known: [UInt8]?? = nil) throws(ODataError) -> [UInt8] {
        let names = catalog.indexesBySet[info.name] ?? []
        if !names.isEmpty {
            let old: [UInt8]?
            if let known { old = known } else { old = try storedCodecBytes(keyBytes, info: info) }
            for name in names {
                guard let index = catalog.indexes[name] else { continue }
                let newKey: [UInt8]
                switch version {
                case .record(let record): newKey = try indexKey(index, record, keyBytes, info: info)
                case .codec(let codec): newKey = try indexKey(index, stored: codec, keyBytes, info: info)
                }
                if let old {
                    let oldKey = try indexKey(index, stored: old, keyBytes, info: info)
                    if oldKey == newKey { continue }
                    batch.delete(oldKey, in: index.tree)
                }
                batch.put(newKey, [], in: index.tree)
            }
        }
        stage(keyBytes, value, in: info.tree)
        return keyBytes
    }

    /// Declared primitive kinds, checked before the codec so the error names set and property.
    private static func checkKinds(_ record: EntityRecord, info: SetInfo) throws(ODataError) {
        for (i, value) in record.values.enumerated() where i < info.layout.properties.count {
            guard let value, !value.isNull else { continue }
            // The common case without copying the descriptor: a primitive of the declared kind.
            if let kind = info.codec.declaredKind(at: i), kind != .untyped, !kind.isGeo, value.kind == kind { continue }
            let p = info.layout.properties[i]
            switch p.shape {
            // Geography/geometry subtypes are left to the codec (it knows which values a kind accepts).
            case .primitive(let kind) where kind != .untyped && !kind.isGeo:
                if value.kind != kind {
                    throw .storeWrongValueKind(info.name, p.name, expected: kind.rawValue, got: KeyValues.describe(value))
                }
            case .enumType(let name):
                if case .enumValue = value { continue }
                throw .storeWrongValueKind(info.name, p.name, expected: name, got: KeyValues.describe(value))
            case .complex(let name, _):
                if case .complex = value { continue }
                throw .storeWrongValueKind(info.name, p.name, expected: name, got: KeyValues.describe(value))
            case .collection:
                if case .collection = value { continue }
                throw .storeWrongValueKind(info.name, p.name, expected: LayoutRecord.describe(p.shape), got: KeyValues.describe(value))
            default: continue
            }
        }
    }

    func indexKey(_ index: ResolvedIndex, _ record: EntityRecord, _ primaryKey: [UInt8], info: SetInfo) throws(ODataError) -> [UInt8] {
        try Self.indexKey(index, record, primaryKey, info: info)
    }

    /// The index entry of a new version given as a record (as `put` of a prepared entity).
    static func indexKey(_ index: ResolvedIndex, _ record: EntityRecord, _ primaryKey: [UInt8], info: SetInfo) throws(ODataError) -> [UInt8] {
        var values: [ODataValue] = []
        values.reserveCapacity(index.columns.count)
        for column in index.columns { values.append(column.value(in: record)) }
        return try indexKey(index, values, primaryKey, info: info)
    }

    /// The entry of a stored version, reading only the indexed properties from its bytes.
    func indexKey(_ index: ResolvedIndex, stored bytes: [UInt8], _ primaryKey: [UInt8], info: SetInfo) throws(ODataError) -> [UInt8] {
        try Self.indexKey(index, stored: bytes, primaryKey, info: info)
    }

    /// The same without a batch (a download's page reader makes the entries of a bulk load).
    static func indexKey(_ index: ResolvedIndex, stored bytes: [UInt8], _ primaryKey: [UInt8], info: SetInfo) throws(ODataError) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(24 + primaryKey.count)
        try appendIndexKey(index, stored: bytes, primaryKey, info: info, codec: info.codec, to: &key)
        return key
    }

    /// `indexKey(_:stored:_:info:)` appended to `out` (a bulk download's page records, §7.4);
    /// on error `out` is left as it was.
    /// `codec`: `info.codec`, which a caller making many keys reads once (each read of the
    /// property copies the codec: a retain and a release of each of its arrays).
    static func appendIndexKey(_ index: borrowing ResolvedIndex, stored bytes: [UInt8], _ primaryKey: [UInt8], info: SetInfo,
                               codec: borrowing EntityCodec, to out: inout [UInt8]) throws(ODataError) {
        let start = out.count
        do throws(ODataError) {
            for n in index.columns.indices {
                try OrderedKeyEncoding.append(try index.columns[n].value(from: bytes, codec: codec), to: &out, index: n)
            }
        } catch {
            out.removeSubrange(start...)
            throw error
        }
        out += primaryKey
        let length = out.count - start
        guard length <= StoreFormat.maxTreeKeyBytes else {
            out.removeSubrange(start...)
            throw .storeIndexKeyTooLong(index.definition.name, info.name, length: length, limit: StoreFormat.maxTreeKeyBytes)
        }
    }

    private static func indexKey(_ index: ResolvedIndex, _ values: [ODataValue], _ primaryKey: [UInt8], info: SetInfo) throws(ODataError) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(24 + primaryKey.count)
        for (n, value) in values.enumerated() { try OrderedKeyEncoding.append(value, to: &key, index: n) }
        return try indexKey(index, encoded: key, primaryKey, info: info)
    }

    /// The entry of the encoded column values `key` (reserved for the primary key too).
    private static func indexKey(_ index: ResolvedIndex, encoded key: consuming [UInt8], _ primaryKey: [UInt8], info: SetInfo) throws(ODataError) -> [UInt8] {
        var key = key
        key += primaryKey
        guard key.count <= StoreFormat.maxTreeKeyBytes else {
            throw .storeIndexKeyTooLong(index.definition.name, info.name, length: key.count, limit: StoreFormat.maxTreeKeyBytes)
        }
        return key
    }

    mutating func delete(keyBytes: [UInt8], info: SetInfo) throws(ODataError) -> Bool {
        guard let old = try storedCodecBytes(keyBytes, info: info) else { return false }
        for name in catalog.indexesBySet[info.name] ?? [] {
            guard let index = catalog.indexes[name] else { continue }
            batch.delete(try indexKey(index, stored: old, keyBytes, info: info), in: index.tree)
        }
        erase(keyBytes, in: info.tree)
        try removeLinks(of: keyBytes, info: info)
        // Its streams go with it (docs/StoreFormat.md §11).
        if info.hasStreams { try removeAllMedia(set: info.name, keyBytes: keyBytes) }
        // So do the entities it contains: their keys start with its key (§2.1).
        for name in catalog.containedSets[info.name] ?? [] {
            guard let contained = catalog.sets[name] else { continue }
            for rest in try suffixes(in: contained.tree, prefix: keyBytes) {
                _ = try delete(keyBytes: keyBytes + rest, info: contained)
            }
        }
        return true
    }
}

/// Key bytes as a dictionary key, hashed as one run of bytes: `[UInt8]`'s own hash feeds the
/// hasher one element at a time (about 15 instructions a byte; every entity a download writes
/// is hashed several times: its put, its membership row, the lookups of the batch's view).
struct ByteKey: Hashable, Sendable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    static func == (a: ByteKey, b: ByteKey) -> Bool { a.bytes == b.bytes }
}
