import Dispatch
import OfflineODataEngine
import OfflineODataModel
import Synchronization

/// Applies a delta download of one defining query (docs/Sync.md §3.3) inside an exclusive
/// storage session: changed and new entities are upserted (a partial entity is merged into the
/// stored one: properties it leaves out keep their stored values), tombstones (`@removed`,
/// 4.0 `$deletedEntity`) delete the entity unless another defining query covers it or it has
/// pending changes, and a tombstone for an entity the store does not hold is ignored. Nothing
/// else is removed. Pending local changes stay on top, as in a full download. Pages are applied
/// in commits of about `limit` bytes; the last one writes the sync state and the EventLog entry.
struct DeltaApply {
    var base: DownloadApply
    let state: SyncQueryState
    let limit: Int
    var counts: DownloadMarker
    var pages = 0
    /// System writes (store tree) that join the last commit (`DownloadApply.finalWrites`).
    var finalWrites: [(key: [UInt8], value: [UInt8]?)] = []

    init(name: String, set: String, service: LocalService, writer: ExclusiveWriter, limit: Int, state: SyncQueryState) {
        base = DownloadApply(name: name, set: set, service: service, writer: writer, limit: limit, readers: nil, progress: nil)
        self.state = state
        self.limit = max(1, limit)
        counts = base.marker
    }

    var name: String { base.name }
    var set: String { base.set }

    mutating func run(pages source: inout some DownloadPageSource) throws(ODataError) -> DownloadSummary {
        var group: [ODataEntityCollection] = []
        var bytes = 0
        while let page = try source.nextPage() {
            if Task.isCancelled { throw base.cancelled() }
            pages += 1
            let collection: ODataEntityCollection
            do {
                collection = try base.reader.readCollection(page, entitySet: set)
            } catch {
                throw .offlineInvalidDownload(name, page: pages, "\(error.name) (\(error.code)) at \(error.location ?? "?"): \(error.message)")
            }
            group.append(collection)
            bytes += page.count
            if bytes >= limit {
                try commit(group, final: false)
                group = []
                bytes = 0
            }
        }
        if Task.isCancelled { throw base.cancelled() }
        try commit(group, final: true)
        base.marker = counts
        return base.summary
    }

    private mutating func commit(_ group: [ODataEntityCollection], final: Bool) throws(ODataError) {
        var next = counts
        var base = self.base
        let name = self.name, set = self.set, state = self.state, pageCount = pages, finalWrites = self.finalWrites
        try base.service.perform(in: base.writer) { (tx: inout ServiceTransaction) throws(ODataError) in
            if next.generation == 0 {
                // Delta members join the current generation: the next full download keeps them
                // if it returns them, and removes them if not.
                next.generation = max(1, try DownloadApply.lastGeneration(name, tx.batch))
            }
            if base.pending == nil { base.pending = try DownloadApply.pendingEntities(tx.batch) }
            let info = try tx.batch.catalog.set(set)
            // The stored versions are read ahead on another processor, from the group's end
            // backwards, while this thread applies from its start (a delta's entities are spread
            // over the whole set: nearly each one reads a block of its own from disk).
            let work = Self.work(of: group, info: info)
            let ahead = StoredVersionReader(work: work, snapshot: tx.batch.snapshot, info: info)
            defer { ahead.finish() }
            for position in work.keys.indices {
                let read = ahead.take(position)
                let key = work.keys[position]
                let old: [UInt8]?
                let prepared: EntityWriteBatch.Prepared
                if let read, let key, !tx.batch.hasPending(key, in: info.tree) {
                    // Read (and prepared, unless that failed) ahead from the commit's snapshot,
                    // which is what this batch sees of a key it has not written.
                    old = read.old
                    if let done = read.prepared { prepared = done } else { prepared = try Self.prepare(work, position, old: old, info: info) }
                } else {
                    // The stored version is read once: for the merge (a partial entity: the
                    // properties it leaves out keep their stored values) and for the index
                    // entries it replaces. An entity without a valid key reads nothing; its
                    // prepare reports it.
                    old = try key.flatMap { (key: [UInt8]) throws(ODataError) -> [UInt8]? in
                        try tx.batch.storedCodecBytes(key, info: info, uncached: true)
                    }
                    prepared = try Self.prepare(work, position, old: old, info: info)
                }
                if let key, key == prepared.keyBytes {
                    _ = try tx.batch.put(prepared, info: info, storedCodec: old)
                } else {
                    _ = try tx.batch.put(prepared, info: info)
                }
                next.applied += 1
            }
            try base.finishPages(&tx, counts: &next)
            let others = try OfflineStore.queryNames(batch: tx.batch).filter { $0 != name }
            let pending = base.pending ?? [:]
            for collection in group {
                for deleted in collection.deleted {
                    guard let keyBytes = try Self.keyBytes(of: deleted, set: set, info: info, tx: tx) else { continue }
                    let member = EntityMember(set: set, keyBytes: keyBytes)
                    if pending.keys.contains(member) {
                        // Kept for its local changes, remembered as gone: an undo removes it.
                        try tx.markDeletedOnServer(set, keyBytes)
                        next.kept += 1
                        continue
                    }
                    let membership = OfflineStoreFormat.membershipKey(name, set: set, keyBytes: keyBytes)
                    if try tx.batch.systemValue(tree: OfflineStoreFormat.membershipTree, key: membership) != nil {
                        try tx.batch.deleteSystem(tree: OfflineStoreFormat.membershipTree, key: membership)
                    }
                    if try OfflineStore.isCovered(member, byAnyOf: others, batch: tx.batch) { continue }
                    if try tx.batch.delete(keyBytes: keyBytes, in: set) { next.removed += 1 }
                }
            }
            if final {
                for (key, value) in finalWrites {
                    if let value {
                        try tx.batch.putSystem(tree: OfflineStoreFormat.storeTree, key: key, value: value)
                    } else {
                        try tx.batch.deleteSystem(tree: OfflineStoreFormat.storeTree, key: key)
                    }
                }
                try tx.batch.putSystem(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.syncStateKey(name), value: state.encode())
                _ = try tx.logEvent(type: "Download", details: "definingQuery=\(name) pages=\(pageCount) applied=\(next.applied) "
                                    + "removed=\(next.removed) pendingKept=\(next.kept) mode=delta")
            }
        }
        self.base = base
        counts = next
    }

    /// The group's entities, in apply order: records, encoded keys (nil where an entity has no
    /// valid key: its prepare reports it), ETags and type names.
    struct Work: Sendable {
        var records: [EntityRecord] = []
        var keys: [[UInt8]?] = []
        var etags: [String?] = []
        var typeNames: [String?] = []
    }

    static func work(of group: [ODataEntityCollection], info: SetInfo) -> Work {
        var work = Work()
        for collection in group {
            for entity in collection.entities {
                let record = EntityConversion.record(from: entity, info: info)
                // As `EntityWriteBatch.prepare` encodes it, so that the version read under this
                // key is the one the put replaces.
                var values: [ODataValue] = []
                for i in info.keyIndices {
                    guard i < record.values.count, let value = record.values[i] else { break }
                    values.append(value)
                }
                work.keys.append(values.count == info.keyIndices.count ? (try? EntityStorage.encodeKey(values, info: info)) : nil)
                work.records.append(record)
                work.etags.append(entity.control.etag)
                work.typeNames.append(entity.typeName.isEmpty ? nil : entity.typeName)
            }
        }
        return work
    }

    /// The entity at `position` checked and encoded, a partial one merged into `old` (the
    /// codec bytes of the version it replaces): the properties it leaves out keep their values.
    static func prepare(_ work: Work, _ position: Int, old: [UInt8]?, info: SetInfo) throws(ODataError) -> EntityWriteBatch.Prepared {
        var record = work.records[position]
        if let old, record.values.contains(where: { $0 == nil }) {
            let stored = try info.codec.decode(old)
            for i in record.values.indices where record.values[i] == nil && i < stored.values.count {
                record.values[i] = stored.values[i]
            }
        }
        return try EntityWriteBatch.prepare(record: record, info: info, etag: work.etags[position], flags: [],
                                            typeName: work.typeNames[position])
    }

    /// The encoded key a tombstone names (`@id` / `id`, or its key properties); nil when it names
    /// an entity of another set or gives no key (such a tombstone is ignored).
    static func keyBytes(of deleted: ODataDeletedEntity, set: String, info: SetInfo, tx: ServiceTransaction) throws(ODataError) -> [UInt8]? {
        if let id = deleted.id {
            guard let (named, predicate) = try? KeyPredicate.parseEntityReference(id), named == set, let predicate else { return nil }
            return try? tx.keyBytes(set, predicate: predicate)
        }
        var key: [ODataValue] = []
        for name in info.keyNames {
            guard let value = deleted.properties.first(where: { $0.name == name })?.value else { return nil }
            key.append(value)
        }
        return try? tx.keyBytes(set, key)
    }
}

/// Reads the stored versions that a delta's entities replace on another processor, and merges
/// and prepares those entities (`DeltaApply.prepare`), from the last one backwards while the
/// applying thread goes forwards from the first: the two meet in the middle, each entity read
/// and prepared once, and the applier then only puts the reader's half. A delta's entities are
/// spread over the whole set, so nearly each read decodes a leaf of its own from disk; the reads
/// do not fill the block cache (`Snapshot.getUncached`): a delta of 1 % of a 1M-entity store
/// would otherwise grow the cache by one fresh leaf slot per entity, and the page faults of that
/// new memory were a fifth of the delta's CPU (perf).
///
/// What the reader reads comes from the commit's snapshot: the applier uses it only for a key
/// its batch has not written (an entity twice in one delta merges into its first change).
///
/// Hand-over: the reader writes entity `i`'s result into `results[i]`, then publishes `i` as
/// the lowest index done (`low`, a release store). The applier takes `results[i]` only when
/// `i >= low` (an acquire load), so it reads only slots whose write happened before; the
/// reader writes only slots below `low`, which the applier no longer reads once it reports
/// having passed them (`position`), and stops there. A read that fails stops the reader: the
/// applier reads that key itself and reports the error. A prepare that fails is left to the
/// applier too (nil `prepared`).
final class StoredVersionReader: @unchecked Sendable {  // slots handed over as above
    struct Result {
        /// Codec bytes of the stored version (trailer cut off); nil when none is stored.
        var old: [UInt8]?
        var prepared: EntityWriteBatch.Prepared?
    }

    private let position = Atomic<Int>(0)
    private let low: Atomic<Int>
    private let results: UnsafeMutableBufferPointer<Result?>
    private let done = DispatchGroup()
    private let running: Bool
    static let minimumKeys = 64

    init(work: DeltaApply.Work, snapshot: Snapshot, info: SetInfo) {
        let count = work.keys.count
        low = Atomic(count)
        running = count >= Self.minimumKeys && PageReadAhead.processors > 1
        results = .allocate(capacity: running ? count : 0)
        guard running else { return }
        results.initialize(repeating: nil)
        done.enter()
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            var i = count - 1
            while i > position.load(ordering: .relaxed) {
                if let key = work.keys[i] {
                    let stored: [UInt8]?
                    do { stored = try snapshot.getUncached(key, in: info.tree) } catch { break }
                    var old: [UInt8]?
                    if var value = stored {
                        guard (try? StoredValue.split(&value, what: "")) != nil else { break }
                        old = value
                    }
                    results[i] = Result(old: old, prepared: try? DeltaApply.prepare(work, i, old: old, info: info))
                }
                low.store(i, ordering: .releasing)
                i -= 1
            }
            done.leave()
        }
    }

    deinit {
        if running { results.deinitialize() }
        results.deallocate()
    }

    /// The applier is at `index`: what the reader read and prepared for it, or nil when the
    /// reader has not reached it or the entity has no key (the applier does it itself).
    func take(_ index: Int) -> Result? {
        guard running else { return nil }
        position.store(index, ordering: .relaxed)
        guard index >= low.load(ordering: .acquiring) else { return nil }
        let result = results[index]
        results[index] = nil
        return result
    }

    /// Stops the reader and waits for the entity under way (before the snapshot goes).
    func finish() {
        guard running else { return }
        position.store(Int.max, ordering: .relaxed)
        done.wait()
    }
}
