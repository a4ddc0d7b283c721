import OfflineODataEngine
import OfflineODataModel
import OfflineODataQuery

extension OfflineStore {
    /// Applies one defining query's downloaded result (OData JSON collection pages, V4 `value`
    /// or V2 `d.results`, with expanded navigation content) in ONE atomic commit
    /// (docs/OfflineStore.md §7):
    ///
    /// - every entity (top-level and expanded) is stored with its back-end ETag; expanded
    ///   content is linked to its parent;
    /// - an entity with pending local changes keeps its local version; the downloaded version
    ///   becomes its server image (undo restores the fresh server state); a locally deleted
    ///   entity stays deleted;
    /// - entities the query returned last time and not now are removed, unless another defining
    ///   query covers them or they have pending changes;
    /// - an EventLog entry `Download` records the counts.
    ///
    /// Checks `Task.isCancelled` before each page and before the commit: a cancelled apply
    /// throws `operationCancelled` (3264) and changes nothing. Malformed pages throw the JSON
    /// reader's errors (12xx) and change nothing.
    @discardableResult
    public func applyDownload(definingQuery name: String, pages: some Sequence<[UInt8]>,
                              progress: (@Sendable (DownloadProgress) -> Void)? = nil) async throws(ODataError) -> DownloadSummary {
        try ensureOpen()
        guard let query = try definingQuery(named: name) else { throw .offlineDefiningQueryNotFound(name) }
        let set = try validate(query)
        broadcaster.set(.downloading)
        defer { if isOpen.withLock({ $0 }) { broadcaster.set(.open) } }
        return try downloadLock.withLock { _ throws(ODataError) -> DownloadSummary in
            try service.perform { (tx: inout ServiceTransaction) throws(ODataError) -> DownloadSummary in
                var apply = DownloadApply(name: name, set: set, model: model, version: service.version)
                try apply.run(pages: pages, tx: &tx, progress: progress)
                return apply.summary
            }
        }
    }
}

/// The work of one `applyDownload`, inside one service transaction.
struct DownloadApply {
    let name: String
    let set: String
    let model: ServiceModel
    let version: ODataVersion
    var summary: DownloadSummary

    init(name: String, set: String, model: ServiceModel, version: ODataVersion) {
        self.name = name
        self.set = set
        self.model = model
        self.version = version
        summary = DownloadSummary(definingQuery: name, entitiesApplied: 0, entitiesRemoved: 0, pendingChangesKept: 0)
    }

    mutating func run(pages: some Sequence<[UInt8]>, tx: inout ServiceTransaction,
                      progress: (@Sendable (DownloadProgress) -> Void)?) throws(ODataError) {
        // 1. Entities with local changes, with their local stored value (nil: deleted locally).
        let pending = try pendingEntities(tx.batch)
        // 2. The pages.
        let reader = ODataJSONReader(model: model, version: version)
        var pageCount = 0
        for page in pages {
            if Task.isCancelled { throw .offlineCancelled("the download of '\(name)'") }
            let collection = try reader.readCollection(page, entitySet: set)
            for entity in collection.entities {
                try tx.batch.put(entity, in: set)
                summary.entitiesApplied += Self.count(entity)
            }
            pageCount += 1
            progress?(DownloadProgress(definingQuery: name, pagesApplied: pageCount, entitiesApplied: summary.entitiesApplied))
        }
        // 3. What the download stored (before local versions are put back).
        let members = written(tx.batch)
        // 4. Local changes win; the download becomes their server image.
        for (member, local) in pending where members.contains(member) {
            guard var image = try tx.image(member.set, member.keyBytes) else { continue }
            if image.kind == ServiceFormat.kindServer, let fresh = try tx.batch.storedValue(member.set, keyBytes: member.keyBytes) {
                image.stored = fresh
                try tx.putImage(member.set, member.keyBytes, image)
            }
            if let local {
                try tx.batch.restore(member.set, keyBytes: member.keyBytes, stored: local)
            } else {
                try tx.batch.delete(keyBytes: member.keyBytes, in: member.set)
            }
            summary.pendingChangesKept += 1
        }
        // 5. Entities the query no longer returns.
        let previous = try OfflineStore.members(of: name, batch: tx.batch)
        let others = try OfflineStore.queryNames(batch: tx.batch).filter { $0 != name }
        for member in previous where !members.contains(member) {
            if pending.keys.contains(member) { continue }  // keeps its membership until the change is uploaded
            try tx.batch.deleteSystem(tree: OfflineStoreFormat.membershipTree,
                                      key: OfflineStoreFormat.membershipKey(name, set: member.set, keyBytes: member.keyBytes))
            if try OfflineStore.isCovered(member, byAnyOf: others, batch: tx.batch) { continue }
            if try tx.batch.delete(keyBytes: member.keyBytes, in: member.set) { summary.entitiesRemoved += 1 }
        }
        let known = Set(previous)
        for member in members where !known.contains(member) {
            try tx.batch.putSystem(tree: OfflineStoreFormat.membershipTree,
                                   key: OfflineStoreFormat.membershipKey(name, set: member.set, keyBytes: member.keyBytes), value: [1])
        }
        // 6. The event, then the last chance to cancel before the commit.
        _ = try tx.logEvent(type: "Download", details: "definingQuery=\(name) pages=\(pageCount) applied=\(summary.entitiesApplied) removed=\(summary.entitiesRemoved) pendingKept=\(summary.pendingChangesKept)")
        if Task.isCancelled { throw .offlineCancelled("the download of '\(name)'") }
    }

    /// Entities with a server image (pending or failed requests), and their local stored value.
    private func pendingEntities(_ batch: EntityWriteBatch) throws(ODataError) -> [EntityMember: [UInt8]?] {
        guard let tree = try mapEngine("opening the image tree", { () throws(EngineError) in
            try batch.storage.engine.existingTree(StoreFormat.systemTree(ServiceFormat.imageTree))
        }) else { return [:] }
        var cursor = try mapEngine("scanning the image tree") { () throws(EngineError) in try batch.snapshot.cursor(in: tree) }
        var out: [EntityMember: [UInt8]?] = [:]
        while let (key, _) = try mapEngine("scanning the image tree", { () throws(EngineError) in try cursor.next() }) {
            guard let (set, keyBytes) = ServiceFormat.splitImageKey(key) else {
                throw .queueCorrupted("server image", "a key has no set name")
            }
            guard batch.catalog.sets[set] != nil else { continue }
            out[EntityMember(set: set, keyBytes: keyBytes)] = .some(try batch.storedValue(set, keyBytes: keyBytes))
        }
        return out
    }

    /// Every application entity this batch has put so far.
    private func written(_ batch: EntityWriteBatch) -> Set<EntityMember> {
        var out = Set<EntityMember>()
        for (setName, info) in batch.catalog.sets where !OfflineSystemSets.all.contains(setName) {
            for (key, pending) in batch.overlay[info.tree] ?? [:] {
                if case .put = pending { out.insert(EntityMember(set: setName, keyBytes: key)) }
            }
        }
        return out
    }

    /// The entity and its expanded content.
    static func count(_ entity: ODataEntity) -> Int {
        var n = 1
        for navigation in entity.navigation {
            switch navigation.content {
            case .entity(let nested?): n += count(nested)
            case .entities(let list, _, _): for nested in list { n += count(nested) }
            default: break
            }
        }
        return n
    }
}
