import OfflineODataEngine
import OfflineODataModel

/// The bulk way of applying a staged download (docs/OfflineStore.md §7.4): when the download's
/// set holds no entity and none of its entities has pending changes, its stored-form pages are
/// written straight into run files (`BulkLoad`) with their index entries and membership rows,
/// and installed at once, together with the marker that counts them as applied. Nothing of a
/// commit's work is needed there: no older version to look up or unindex, no local change to
/// keep, no page to log as refused.
///
/// Pages are taken while they allow it: stored form, every entity within the store's limits,
/// keys strictly ascending across the pages (so no entity is put twice and no index entry has
/// to be replaced). The first page that does not is applied by commits, like every page after
/// it; the pages taken so far are installed first.
struct DownloadBulk {
    /// What a page reader needs to make a page's records (`records`), on its own thread.
    struct Form: Sendable {
        let info: SetInfo
        let indexes: [ResolvedIndex]
        let name: String
        let generation: [UInt8]

        /// The records of a page's entities, or nil when an entity cannot be stored as it is
        /// (the page then takes the commit way, which reports the entity).
        func records(_ entries: [EntityWriteBatch.Prepared]) -> [Entry]? {
            var out: [Entry] = []
            out.reserveCapacity(entries.count)
            for entry in entries {
                guard entry.value.count <= WriteBatch.maxValueSize, entry.keyBytes.count <= StoreFormat.maxTreeKeyBytes else { return nil }
                var indexKeys: [[UInt8]] = []
                indexKeys.reserveCapacity(indexes.count)
                for index in indexes {
                    guard let key = try? EntityWriteBatch.indexKey(index, entry.record, entry.keyBytes, info: info) else { return nil }
                    indexKeys.append(key)
                }
                out.append(Entry(key: entry.keyBytes, value: entry.value, indexKeys: indexKeys,
                                 membershipKey: OfflineStoreFormat.membershipKey(name, set: info.name, keyBytes: entry.keyBytes)))
            }
            return out
        }
    }

    /// One entity's records: the entity, its index entries (in `Form.indexes` order) and its
    /// membership row's key.
    struct Entry: Sendable {
        let key: [UInt8]
        let value: [UInt8]
        let indexKeys: [[UInt8]]
        let membershipKey: [UInt8]
    }

    let load: BulkLoad
    let info: SetInfo
    let indexes: [ResolvedIndex]
    let membership: Tree
    let store: Tree
    let name: String
    let generation: [UInt8]
    /// The last key taken (keys must ascend).
    var lastKey: [UInt8]?
    /// Pages and entities taken so far.
    var pages = 0
    var applied = 0
    /// False once a page could not be taken: later pages go the commit way.
    var isOpen = true

    var form: Form { Form(info: info, indexes: indexes, name: name, generation: generation) }

    /// Takes a page whose records a reader made (keys must still ascend), or nothing (false).
    mutating func add(records entries: [Entry]) throws(ODataError) -> Bool {
        var last = lastKey
        for entry in entries {
            if let last, !last.lexicographicallyPrecedes(entry.key) { return false }
            last = entry.key
        }
        try mapEngine("loading a downloaded page") { () throws(EngineError) in
            for entry in entries {
                try load.put(entry.key, entry.value, in: info.tree)
                for (index, key) in zip(indexes, entry.indexKeys) { try load.put(key, [], in: index.tree) }
                try load.put(entry.membershipKey, generation, in: membership)
            }
        }
        lastKey = last
        pages += 1
        applied += entries.count
        return true
    }

    /// Takes every entity of a page, or nothing when the page does not allow it (false).
    mutating func add(_ ticket: PageReadAhead.Ticket) throws(ODataError) -> Bool {
        guard let read = try? ticket.take(), let entries = read.staged else { return false }
        return try add(entries)
    }

    /// Takes the entities of a staged page (key and stored value each; index entries read from
    /// the value's codec bytes, as a put of a stored form does), or nothing when the page does
    /// not allow it (false).
    private mutating func add(_ entries: [StagedPage.Entry]) throws(ODataError) -> Bool {
        // Everything is checked before anything is loaded: a page is taken whole or not at all.
        var indexKeys: [[UInt8]] = []
        indexKeys.reserveCapacity(entries.count * indexes.count)
        var last = lastKey
        for entry in entries {
            guard entry.value.count <= WriteBatch.maxValueSize, entry.key.count <= StoreFormat.maxTreeKeyBytes else { return false }
            if let last, !last.lexicographicallyPrecedes(entry.key) { return false }
            last = entry.key
            guard !indexes.isEmpty else { continue }
            var codec = entry.value
            guard (try? StoredValue.split(&codec, what: "staged entity of set '\(info.name)'")) != nil else { return false }
            for index in indexes {
                guard let key = try? EntityWriteBatch.indexKey(index, stored: codec, entry.key, info: info) else { return false }
                indexKeys.append(key)
            }
        }
        try mapEngine("loading a downloaded page") { () throws(EngineError) in
            var k = 0
            for entry in entries {
                try load.put(entry.key, entry.value, in: info.tree)
                for index in indexes {
                    try load.put(indexKeys[k], [], in: index.tree)
                    k += 1
                }
                try load.put(OfflineStoreFormat.membershipKey(name, set: info.name, keyBytes: entry.key), generation, in: membership)
            }
        }
        lastKey = last
        pages += 1
        applied += entries.count
        return true
    }
}

extension DownloadApply {
    /// A bulk load for this download when its set is fresh: no entity stored, none with a server
    /// image (a pending local change); nil otherwise.
    mutating func freshBulk() throws(ODataError) -> DownloadBulk? {
        var next = marker
        let name = self.name, set = self.set
        let fresh: (SetInfo, [ResolvedIndex])? = try writer.write { (batch: inout EntityWriteBatch) throws(ODataError) -> (SetInfo, [ResolvedIndex])? in
            try loadState(&next, batch)
            guard let info = batch.catalog.sets[set], !OfflineSystemSets.all.contains(set) else { return nil }
            if let pending, pending.keys.contains(where: { $0.set == set }) { return nil }
            let empty = try mapEngine("reading the downloaded set") { () throws(EngineError) -> Bool in
                var cursor = try batch.snapshot.cursor(in: info.tree)
                return try cursor.next() == nil
            }
            guard empty else { return nil }
            let indexes = (batch.catalog.indexesBySet[set] ?? []).compactMap { batch.catalog.indexes[$0] }
            return (info, indexes)
        }
        guard let (info, indexes) = fresh else { return nil }
        marker.generation = next.generation
        let engine = writer.storage.engine
        let membership = try EntityStorage.tree(StoreFormat.systemTree(OfflineStoreFormat.membershipTree), engine: engine)
        let store = try EntityStorage.tree(StoreFormat.systemTree(OfflineStoreFormat.storeTree), engine: engine)
        let load = try mapEngine("starting a bulk download") { () throws(EngineError) in try engine.bulkLoad() }
        return DownloadBulk(load: load, info: info, indexes: indexes, membership: membership, store: store, name: name,
                            generation: OfflineStoreFormat.be64(next.generation))
    }

    /// Installs the pages taken, with the marker that counts them as applied, in one step.
    mutating func installBulk(_ bulk: DownloadBulk) throws(ODataError) {
        guard bulk.pages > 0 else {
            bulk.load.abandon()
            return
        }
        var next = marker
        next.phase = OfflineStoreFormat.phaseApplying
        next.pagesApplied += bulk.pages
        next.applied += bulk.applied
        let engine = writer.storage.engine
        try mapEngine("installing a bulk download") { () throws(EngineError) in
            try bulk.load.put(OfflineStoreFormat.downloadKey, next.encode(), in: bulk.store)
            try engine.install(bulk.load)
        }
        marker = next
        pagesApplied += bulk.pages
        report()
    }
}
