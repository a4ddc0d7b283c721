import OfflineODataEngine
import OfflineODataModel

/// A consistent, read-only view of the stored entities at one point in time (an engine
/// snapshot and the catalog of that moment). Later writes are not seen. Cheap; Sendable.
public struct EntityReader: Sendable {
    let catalog: StorageCatalog
    let snapshot: Snapshot
    let engine: StorageEngine

    init(catalog: StorageCatalog, snapshot: Snapshot, engine: StorageEngine) {
        self.catalog = catalog
        self.snapshot = snapshot
        self.engine = engine
    }

    /// The engine commit this view includes.
    public var sequence: UInt64 { snapshot.sequence }

    /// The persisted layout of a set.
    public func layout(of set: String) throws(ODataError) -> EntityLayout { try catalog.set(set).layout }

    /// Declared indexes of a set (including navigation indexes), by name.
    public func indexes(of set: String) throws(ODataError) -> [IndexStatus] {
        _ = try catalog.set(set)
        return (catalog.indexesBySet[set] ?? []).sorted().compactMap { catalog.indexes[$0]?.status }
    }

    // MARK: entities

    /// The entity with this key (values in key order; numbers of another kind are converted
    /// to the declared kinds when exact), or nil.
    public func entity(in set: String, key: [ODataValue]) throws(ODataError) -> StoredEntity? {
        let info = try catalog.set(set)
        return try entity(info, try EntityStorage.encodeKey(key, info: info))
    }

    /// The entity with this encoded key (`StoredEntity.keyBytes`, `IndexEntry.primaryKeyBytes`).
    public func entity(in set: String, keyBytes: [UInt8]) throws(ODataError) -> StoredEntity? {
        try entity(try catalog.set(set), keyBytes)
    }

    func entity(_ info: SetInfo, _ keyBytes: [UInt8]) throws(ODataError) -> StoredEntity? {
        guard let value = try mapEngine("reading \(info.name)", { () throws(EngineError) in try snapshot.get(keyBytes, in: info.tree) })
        else { return nil }
        return try StoredEntity(keyBytes: keyBytes, value: value, info: info)
    }

    /// The entities of a set in key order (or reverse), streamed. `after`: resume after this
    /// encoded key (exclusive), e.g. the last key of the previous page.
    public func scan(_ set: String, reverse: Bool = false, after: [UInt8]? = nil) throws(ODataError) -> EntityCursor {
        let info = try catalog.set(set)
        var from: [UInt8]?
        var to: [UInt8]?
        if let after {
            if reverse { to = after } else { from = after + [0] }
        }
        let (lower, upper) = (from, to)
        let cursor = try mapEngine("scanning \(set)") { () throws(EngineError) in
            try snapshot.cursor(in: info.tree, from: lower, to: upper, reverse: reverse)
        }
        return EntityCursor(cursor: cursor, info: info)
    }

    /// Number of entities in a set (a key scan).
    public func count(_ set: String) throws(ODataError) -> Int {
        let info = try catalog.set(set)
        return try mapEngine("counting \(set)") { () throws(EngineError) in try snapshot.count(in: info.tree) }
    }

    // MARK: indexes

    /// Index entries between `lower` and `upper` (nil: unbounded), in index order or reverse.
    /// Throws `indexNotReady` for an index whose backfill has not completed.
    public func indexScan(_ index: String, lower: IndexBound? = nil, upper: IndexBound? = nil,
                          reverse: Bool = false) throws(ODataError) -> IndexCursor {
        let resolved = try catalog.index(index)
        guard resolved.isReady else { throw .storeIndexNotReady(index) }
        var from: [UInt8]?
        var to: [UInt8]?
        var empty = false
        if let lower {
            let bytes = try IndexBounds.encode(lower, resolved)
            if lower.isInclusive {
                from = bytes
            } else if let end = IndexBounds.prefixEnd(bytes) {
                from = end
            } else {
                empty = true
            }
        }
        if let upper {
            let bytes = try IndexBounds.encode(upper, resolved)
            to = upper.isInclusive ? IndexBounds.prefixEnd(bytes) : bytes
        }
        let (lowerBytes, upperBytes) = (from, to)
        let cursor = try mapEngine("scanning index \(index)") { () throws(EngineError) in
            try snapshot.cursor(in: resolved.tree, from: lowerBytes, to: upperBytes, reverse: reverse)
        }
        return IndexCursor(cursor: cursor, columns: resolved.columns.count, index: index, isEmpty: empty)
    }

    /// Index entries whose first columns equal `values`.
    public func indexScan(_ index: String, equal values: [ODataValue], reverse: Bool = false) throws(ODataError) -> IndexCursor {
        let (lower, upper) = IndexBound.equal(values)
        return try indexScan(index, lower: lower, upper: upper, reverse: reverse)
    }

    // MARK: navigation

    /// Keys of the entities `navigation` leads to from the entity `key` of `set` (streamed;
    /// empty when the source does not exist). The cursor names the target set.
    public func navigationTargets(from set: String, key: [ODataValue], navigation: String) throws(ODataError) -> NavigationCursor {
        let info = try catalog.set(set)
        let plan = try catalog.plan(set, navigation)
        let source = try EntityStorage.encodeKey(key, info: info)
        let target = try catalog.set(plan.target)
        switch plan {
        case .link(_, let forward, _, _, _):
            let cursor = try mapEngine("reading links") { () throws(EngineError) in
                try snapshot.cursor(in: forward, from: source, to: IndexBounds.prefixEnd(source))
            }
            return NavigationCursor(targetSet: target.name, mode: .links(cursor, prefixLength: source.count))
        case .toKey(_, let columns):
            guard let stored = try entity(info, source) else { return NavigationCursor(targetSet: target.name, mode: .done) }
            let record = try stored.record()
            let values = columns.map { $0.value(in: record) }
            if values.contains(where: \.isNull) { return NavigationCursor(targetSet: target.name, mode: .done) }
            let targetKey = try EntityStorage.encodeKey(values, info: target)
            guard try entity(target, targetKey) != nil else { return NavigationCursor(targetSet: target.name, mode: .done) }
            return NavigationCursor(targetSet: target.name, mode: .one(targetKey))
        case .keyPrefix(_, let columns):
            guard let stored = try entity(info, source) else { return NavigationCursor(targetSet: target.name, mode: .done) }
            let record = try stored.record()
            let values = columns.map { $0.value(in: record) }
            if values.contains(where: \.isNull) { return NavigationCursor(targetSet: target.name, mode: .done) }
            let prefix = try EntityStorage.encodeKeyPrefix(values, info: target)
            let cursor = try mapEngine("reading \(target.name)") { () throws(EngineError) in
                try snapshot.cursor(in: target.tree, from: prefix, to: IndexBounds.prefixEnd(prefix))
            }
            return NavigationCursor(targetSet: target.name, mode: .links(cursor, prefixLength: 0))
        case .byIndex(_, let sourceColumns, let index):
            guard let stored = try entity(info, source) else { return NavigationCursor(targetSet: target.name, mode: .done) }
            let record = try stored.record()
            let values = sourceColumns.map { $0.value(in: record) }
            if values.contains(where: \.isNull) { return NavigationCursor(targetSet: target.name, mode: .done) }
            return NavigationCursor(targetSet: target.name, mode: .index(try indexScan(index, equal: values)))
        }
    }
}

/// Entities of one set in key order, streamed (memory independent of the set's size).
public struct EntityCursor {
    var cursor: KeyValueCursor
    let info: SetInfo

    public mutating func next() throws(ODataError) -> StoredEntity? {
        guard let (key, value) = try mapEngine("scanning \(info.name)", { () throws(EngineError) in try cursor.next() }) else {
            return nil
        }
        return try StoredEntity(keyBytes: key, value: value, info: info)
    }
}

/// Entries of one index, streamed.
public struct IndexCursor {
    var cursor: KeyValueCursor
    let columns: Int
    let index: String
    var isEmpty: Bool

    public mutating func next() throws(ODataError) -> IndexEntry? {
        if isEmpty { return nil }
        guard let (key, _) = try mapEngine("scanning index \(index)", { () throws(EngineError) in try cursor.next() }) else {
            isEmpty = true
            return nil
        }
        guard let split = OrderedKeySkipper.skip(key, components: columns) else {
            throw .storeCorrupted("entry of index '\(index)'", "the indexed values do not decode")
        }
        return IndexEntry(keyBytes: key, primaryKeyOffset: split)
    }
}

/// Encoded keys of navigation targets, streamed.
public struct NavigationCursor {
    enum Mode {
        case links(KeyValueCursor, prefixLength: Int)
        case one([UInt8])
        case index(IndexCursor)
        case done
    }

    /// The entity set the keys belong to.
    public let targetSet: String
    var mode: Mode

    /// The next target's encoded key (`EntityReader.entity(in: targetSet, keyBytes:)`).
    public mutating func next() throws(ODataError) -> [UInt8]? {
        switch mode {
        case .done: return nil
        case .one(let key):
            mode = .done
            return key
        case .index(var cursor):
            let entry = try cursor.next()
            mode = entry == nil ? .done : .index(cursor)
            return entry?.primaryKeyBytes
        case .links(var cursor, let prefixLength):
            guard let (key, _) = try mapEngine("reading links", { () throws(EngineError) in try cursor.next() }) else {
                mode = .done
                return nil
            }
            mode = .links(cursor, prefixLength: prefixLength)
            return Array(key[prefixLength...])
        }
    }
}

/// Encoding of index bounds (docs/StoreFormat.md §5.2).
enum IndexBounds {
    static func encode(_ bound: IndexBound, _ index: ResolvedIndex) throws(ODataError) -> [UInt8] {
        let name = index.definition.name
        let used = bound.values.count + (bound.stringPrefix == nil ? 0 : 1)
        guard used <= index.columns.count else {
            throw .storeInvalidBound(name, "\(used) values for \(index.columns.count) columns")
        }
        var values: [ODataValue] = []
        for (value, column) in zip(bound.values, index.columns) {
            switch value {
            case .complex, .collection: throw .storeInvalidBound(name, "column '\(column.name)' cannot be bounded by a complex or collection value")
            default: values.append(KeyValues.normalize(value, to: column.kind) ?? KeyValues.canonical(value))
            }
        }
        var bytes = try OrderedKeyEncoding.encode(values)
        if let prefix = bound.stringPrefix {
            let column = index.columns[bound.values.count]
            guard column.kind == .string else {
                throw .storeInvalidBound(name, "startswith on column '\(column.name)' which is not a string")
            }
            // Tag and escaped bytes of the string without its terminator: every string that
            // starts with `prefix` encodes to bytes that start with these (docs/StoreFormat.md §5.2).
            bytes.append(0x30)
            for byte in prefix.utf8 {
                bytes.append(byte)
                if byte == 0 { bytes.append(0xFF) }
            }
        }
        return bytes
    }

    /// The smallest byte string greater than every string starting with `prefix`; nil if none.
    static func prefixEnd(_ prefix: [UInt8]) -> [UInt8]? {
        var p = prefix
        while let last = p.last {
            if last < 0xFF {
                p[p.count - 1] = last + 1
                return p
            }
            p.removeLast()
        }
        return nil
    }
}
