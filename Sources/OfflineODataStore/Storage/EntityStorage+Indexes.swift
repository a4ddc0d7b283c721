import OfflineODataEngine
import OfflineODataModel

/// Progress of an index backfill.
public struct IndexBuildProgress: Sendable, Hashable {
    public var index: String
    public var entitiesIndexed: Int
    /// Entities of the set when the backfill started.
    public var entitiesTotal: Int
}

extension EntityStorage {
    /// Declared indexes of a set (including navigation indexes).
    public func indexes(of set: String) throws(ODataError) -> [IndexStatus] {
        try reader().indexes(of: set)
    }

    /// Declares a secondary index and fills it from the stored entities in batches of
    /// `batchSize` (each its own commit; `progress` after each). From the moment it is declared
    /// every write maintains it; it becomes readable (`isReady`) only when the backfill has
    /// completed, so a cancelled task (`cancelled`, 3016) or a crash leaves it declared but
    /// unusable until `declareIndex` is called again, which finishes it. Declaring an existing
    /// ready index with the same definition does nothing; another definition under the same
    /// name throws `indexConflict`.
    public func declareIndex(_ definition: IndexDefinition, batchSize: Int = 1024,
                             progress: (@Sendable (IndexBuildProgress) -> Void)? = nil) async throws(ODataError) {
        guard !definition.name.hasPrefix("$") else {
            throw .storeIndexConflict(definition.name, "names starting with '$' are reserved for navigation indexes")
        }
        guard let total = try beginIndex(definition, isNavigation: false) else { return }
        var after: [UInt8]?
        var done = 0
        while true {
            if Task.isCancelled { throw .storeCancelled("building index '\(definition.name)'") }
            let (last, count) = try backfill(definition.name, after: after, limit: max(1, batchSize))
            done += count
            progress?(IndexBuildProgress(index: definition.name, entitiesIndexed: done, entitiesTotal: total))
            guard let last else { break }
            after = last
            await Task.yield()
        }
        if Task.isCancelled { throw .storeCancelled("building index '\(definition.name)'") }
        try finishIndex(definition.name)
    }

    /// The synchronous form used at open for navigation indexes.
    func declareIndexSync(_ definition: IndexDefinition, isNavigation: Bool, batchSize: Int,
                          progress: (@Sendable (IndexBuildProgress) -> Void)?) throws(ODataError) {
        guard try beginIndex(definition, isNavigation: isNavigation) != nil else { return }
        var after: [UInt8]?
        while true {
            let (last, _) = try backfill(definition.name, after: after, limit: batchSize)
            guard let last else { break }
            after = last
        }
        try finishIndex(definition.name)
    }

    /// Removes an index, its entries and its definition. Navigation indexes cannot be dropped.
    public func dropIndex(named name: String) throws(ODataError) {
        try serialized { () throws(ODataError) in
            var index = try state.withLock { c throws(ODataError) in try c.index(name) }
            guard !index.isNavigation else {
                throw .storeIndexConflict(name, "a navigation index is maintained by the store and cannot be dropped")
            }
            // 1. Not readable any more (a crash from here on leaves a building index).
            index.isReady = false
            try commitIndexRecord(index)
            state.withLock { $0.add(index) }
            // 2. Entries, in bounded batches.
            let tree = index.tree
            while true {
                let snapshot = try mapEngine("dropping index \(name)") { () throws(EngineError) in try self.engine.snapshot() }
                var keys: [[UInt8]] = []
                do {
                    try snapshot.scan(in: tree) { key, _ in
                        keys.append(key)
                        return keys.count < 4096
                    }
                } catch {
                    throw .storeCorrupted("index '\(name)'", "\(error)")
                }
                if keys.isEmpty { break }
                var batch = WriteBatch()
                for key in keys { batch.delete(key, in: tree) }
                let pending = batch
                try mapEngine("dropping index \(name)") { () throws(EngineError) in _ = try self.engine.commit(pending) }
            }
            // 3. The definition.
            var batch = WriteBatch()
            batch.delete(StoreFormat.indexKey(name), in: catalogTree)
            let pending = batch
            try mapEngine("dropping index \(name)") { () throws(EngineError) in _ = try self.engine.commit(pending) }
            state.withLock { $0.remove(index: name) }
        }
    }

    // MARK: steps

    /// Declares the index (building) unless it is ready already; returns the set's size, or
    /// nil when there is nothing to do.
    func beginIndex(_ definition: IndexDefinition, isNavigation: Bool) throws(ODataError) -> Int? {
        try serialized { () throws(ODataError) -> Int? in
            let catalog = state.withLock { $0 }
            let info = try catalog.set(definition.entitySet)
            guard !definition.name.isEmpty else { throw .storeIndexConflict(definition.name, "the name is empty") }
            guard !definition.properties.isEmpty else {
                throw .storeInvalidIndexProperty(definition.name, definition.entitySet, "", "list is empty")
            }
            let treeName = StoreFormat.indexTree(definition.name)
            guard treeName.utf8.count <= StoreFormat.maxTreeNameBytes else {
                throw .storeIndexConflict(definition.name, "the name is longer than \(StoreFormat.maxTreeNameBytes - 8) bytes")
            }
            if let existing = catalog.indexes[definition.name] {
                guard existing.definition == definition else {
                    throw .storeIndexConflict(definition.name, "already declared over \(existing.definition.entitySet)(\(existing.definition.properties.joined(separator: ", ")))")
                }
                if existing.isReady { return nil }
            } else {
                var columns: [IndexColumn] = []
                for path in definition.properties {
                    columns.append(try StorageCatalog.column(path, in: info, index: definition.name))
                }
                let index = ResolvedIndex(definition: definition, tree: try Self.tree(treeName, engine: engine),
                                          columns: columns, isReady: false, isNavigation: isNavigation)
                try commitIndexRecord(index)
                state.withLock { $0.add(index) }
            }
            let snapshot = try mapEngine("counting") { () throws(EngineError) in try self.engine.snapshot() }
            return try mapEngine("counting") { () throws(EngineError) in try snapshot.count(in: info.tree) }
        }
    }

    /// Indexes up to `limit` entities after `after`; returns the last key (nil at the end).
    func backfill(_ name: String, after: [UInt8]?, limit: Int) throws(ODataError) -> (last: [UInt8]?, count: Int) {
        try serialized { () throws(ODataError) -> ([UInt8]?, Int) in
            let catalog = state.withLock { $0 }
            let index = try catalog.index(name)
            let info = try catalog.set(index.definition.entitySet)
            let snapshot = try mapEngine("building index \(name)") { () throws(EngineError) in try self.engine.snapshot() }
            let reader = EntityReader(catalog: catalog, snapshot: snapshot, engine: engine)
            var cursor = try reader.scan(info.name, after: after)
            var writer = EntityWriteBatch(storage: self, catalog: catalog, snapshot: snapshot)
            var last: [UInt8]?
            var count = 0
            while count < limit, let entity = try cursor.next() {
                writer.batch.put(try writer.indexKey(index, stored: entity.bytes, entity.keyBytes, info: info), [], in: index.tree)
                last = entity.keyBytes
                count += 1
            }
            let records = writer.batch
            try mapEngine("building index \(name)") { () throws(EngineError) in _ = try self.engine.commit(records) }
            return (count < limit ? nil : last, count)
        }
    }

    func finishIndex(_ name: String) throws(ODataError) {
        try serialized { () throws(ODataError) in
            var index = try state.withLock { c throws(ODataError) in try c.index(name) }
            index.isReady = true
            try commitIndexRecord(index)
            state.withLock { $0.add(index) }
        }
    }

    private func commitIndexRecord(_ index: ResolvedIndex) throws(ODataError) {
        var batch = WriteBatch()
        batch.put(StoreFormat.indexKey(index.definition.name),
                  IndexRecord.encode(index.definition, isReady: index.isReady, isNavigation: index.isNavigation), in: catalogTree)
        let pending = batch
        try mapEngine("writing index '\(index.definition.name)'") { () throws(EngineError) in _ = try self.engine.commit(pending) }
    }
}
