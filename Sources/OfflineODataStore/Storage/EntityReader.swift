import OfflineODataEngine
import OfflineODataModel
import OfflineODataQuery

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
        return (catalog.indexesBySet[set] ?? []).compactMap { catalog.indexes[$0]?.status }
    }

    /// The set's ready indexes as the planner takes them, sorted by name.
    func plannerIndexes(of set: String) throws(ODataError) -> [AccessIndex] {
        _ = try catalog.set(set)
        return catalog.plannerIndexes[set] ?? []
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

    /// The same with the engine's internal key built in `scratch` (reused across a loop).
    func entity(_ info: SetInfo, _ keyBytes: [UInt8], scratch: inout [UInt8]) throws(ODataError) -> StoredEntity? {
        // One binding of the value: a second one (an optional, then its payload) would keep the
        // array shared, and cutting its trailer off would then copy it.
        guard let value = try mapEngine("reading \(info.name)", { () throws(EngineError) in
            try snapshot.get(keyBytes, in: info.tree, scratch: &scratch)
        }) else { return nil }
        return try StoredEntity(keyBytes: keyBytes, value: value, info: info)
    }

    /// The entity with encoded key `keyBytes` lent to `body` (valid only during the call), or
    /// nil when there is none: the value is read where the engine holds it, not copied.
    func withEntity<R>(_ info: SetInfo, _ keyBytes: [UInt8], scratch: inout [UInt8],
                       _ body: (BorrowedEntity) throws(ODataError) -> R) throws(ODataError) -> R? {
        let result: Result<R, ODataError>?
        do {
            result = try snapshot.withValue(keyBytes, in: info.tree, scratch: &scratch) { value -> Result<R, ODataError>? in
                guard let value else { return nil }
                return keyBytes.withUnsafeBytes { key in
                    Result { () throws(ODataError) -> R in try body(try BorrowedEntity(key: key, value: value, info: info)) }
                }
            }
        } catch let error as EngineError {
            throw error.odata("reading \(info.name)")
        } catch {
            throw .storeCorrupted("set '\(info.name)'", "\(error)")
        }
        return try result?.get()
    }

    func entity(_ info: SetInfo, _ keyBytes: [UInt8]) throws(ODataError) -> StoredEntity? {
        var scratch: [UInt8] = []
        return try entity(info, keyBytes, scratch: &scratch)
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
        let range = try indexKeyRange(index, lower: lower, upper: upper)
        let cursor = try mapEngine("scanning index \(index)") { () throws(EngineError) in
            try snapshot.cursor(in: range.index.tree, from: range.from, to: range.to, reverse: reverse)
        }
        return IndexCursor(cursor: cursor, columns: range.index.columns.count, index: index, isEmpty: range.isEmpty)
    }

    /// Number of index entries between the bounds, counted on borrowed bytes (no entry is
    /// copied or decoded): what `/$count` needs when the index answers the filter exactly.
    public func indexCount(_ index: String, lower: IndexBound? = nil, upper: IndexBound? = nil) throws(ODataError) -> Int {
        let range = try indexKeyRange(index, lower: lower, upper: upper)
        if range.isEmpty { return 0 }
        var count = 0
        do {
            try snapshot.forEach(in: range.index.tree, from: range.from, to: range.to) { _, _ in
                count += 1
                return true
            }
        } catch let error as EngineError {
            throw .storageEngine(error, "counting index \(index)")
        } catch {
            throw .storeCorrupted("index '\(index)'", "\(error)")
        }
        return count
    }

    /// The engine key range of index bounds (docs/StoreFormat.md §5.2).
    func indexKeyRange(_ index: String, lower: IndexBound?, upper: IndexBound?) throws(ODataError)
        -> (index: ResolvedIndex, from: [UInt8]?, to: [UInt8]?, isEmpty: Bool) {
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
        return (resolved, from, to, empty)
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
        return try navigationTargets(info, source: try EntityStorage.encodeKey(key, info: info), entity: nil, navigation: navigation)
    }

    /// The same for an entity already read from this reader: no second lookup of the source,
    /// and only the foreign-key properties are decoded.
    public func navigationTargets(from entity: StoredEntity, navigation: String) throws(ODataError) -> NavigationCursor {
        try navigationTargets(try catalog.set(entity.entitySet), source: entity.keyBytes, entity: entity, navigation: navigation)
    }

    /// The same, reusing the engine cursor of `spent` (a cursor of this reader that is no
    /// longer read, for instance the previous parent's targets in `$expand`) when both are
    /// key-prefix ranges of one target set: the cursor moves on to this entity's range
    /// (`KeyValueCursor.reposition`) instead of a new one being made. Same targets either way.
    public func navigationTargets(from entity: StoredEntity, navigation: String, reusing spent: inout NavigationCursor) throws(ODataError) -> NavigationCursor {
        try navigationTargets(try catalog.set(entity.entitySet), source: entity.keyBytes, entity: entity, navigation: navigation, reusing: &spent)
    }

    /// True when `columns` of the source set are its whole key, in key order, with the target
    /// key's leading kinds: the target's key prefix is then the source's encoded key itself
    /// (the same values, normalized to the same kinds), and needs no decoding or encoding
    /// (`SalesOrders` -> `ToItems` on `SalesOrderItems(SalesOrderID, ItemPosition)`).
    static func keyIsPrefix(_ columns: [IndexColumn], of source: SetInfo, in target: SetInfo) -> Bool {
        guard columns.count == source.keyIndices.count, columns.count <= target.keyKinds.count else { return false }
        for (i, column) in columns.enumerated() {
            guard column.path.count == 1, column.top == source.keyIndices[i], let kind = source.keyKinds[i],
                  column.kind == kind, target.keyKinds[i] == kind else { return false }
        }
        return true
    }

    func navigationTargets(_ info: SetInfo, source: [UInt8], entity known: StoredEntity?, navigation: String) throws(ODataError) -> NavigationCursor {
        var none = NavigationCursor(targetSet: "", mode: .done)
        return try navigationTargets(info, source: source, entity: known, navigation: navigation, reusing: &none)
    }

    func navigationTargets(_ info: SetInfo, source: [UInt8], entity known: StoredEntity?, navigation: String,
                           reusing spent: inout NavigationCursor) throws(ODataError) -> NavigationCursor {
        let plan = try catalog.plan(info.name, navigation)
        let target = try catalog.set(plan.target)
        /// The source entity's values of `columns` (one property decoded each); nil when the
        /// source does not exist.
        func sourceValues(_ columns: [IndexColumn]) throws(ODataError) -> [ODataValue]? {
            let found: StoredEntity?
            if let known { found = known } else { found = try entity(info, source) }
            guard let stored = found else { return nil }
            var values: [ODataValue] = []
            values.reserveCapacity(columns.count)
            for column in columns { values.append(try column.value(from: stored.bytes, codec: info.codec)) }
            return values
        }
        switch plan {
        case .link(_, let forward, _, _, _):
            let cursor = try mapEngine("reading links") { () throws(EngineError) in
                try snapshot.cursor(in: forward, from: source, to: IndexBounds.prefixEnd(source))
            }
            return NavigationCursor(targetSet: target.name, mode: .links(cursor, prefixLength: source.count))
        case .toKey(_, let columns):
            guard let values = try sourceValues(columns), !values.contains(where: \.isNull) else {
                return NavigationCursor(targetSet: target.name, mode: .done)
            }
            let targetKey = try EntityStorage.encodeKey(values, info: target)
            guard try entity(target, targetKey) != nil else { return NavigationCursor(targetSet: target.name, mode: .done) }
            return NavigationCursor(targetSet: target.name, mode: .one(targetKey))
        case .keyPrefix(_, let columns):
            let prefix: [UInt8]
            if known != nil, Self.keyIsPrefix(columns, of: info, in: target) {
                // The source's own key, encoded as the target's key starts (the source exists:
                // it was read from this reader).
                prefix = source
            } else {
                guard let values = try sourceValues(columns), !values.contains(where: \.isNull) else {
                    return NavigationCursor(targetSet: target.name, mode: .done)
                }
                prefix = try EntityStorage.encodeKeyPrefix(values, info: target)
            }
            let origin = (engine: ObjectIdentifier(engine), sequence: snapshot.sequence)
            let sameReader = spent.targetSet == target.name && spent.origin.map { $0 == origin } == true
            let reusable = sameReader ? spent.takeEntityCursor()?.cursor : nil
            let cursor = try mapEngine("reading \(target.name)") { () throws(EngineError) -> KeyValueCursor in
                guard var moved = reusable else {
                    return try snapshot.cursor(in: target.tree, from: prefix, to: IndexBounds.prefixEnd(prefix))
                }
                try moved.reposition(in: target.tree, from: prefix, to: IndexBounds.prefixEnd(prefix))
                return moved
            }
            var result = NavigationCursor(targetSet: target.name, mode: .entities(EntityCursor(cursor: cursor, info: target)))
            result.origin = origin
            return result
        case .byIndex(_, let sourceColumns, let index):
            guard let values = try sourceValues(sourceColumns), !values.contains(where: \.isNull) else {
                return NavigationCursor(targetSet: target.name, mode: .done)
            }
            return NavigationCursor(targetSet: target.name, mode: .index(try indexScan(index, equal: values)))
        }
    }
}
