import OfflineODataEngine
import OfflineODataModel
import OfflineODataQuery

extension OfflineStore {
    /// Applies one defining query's downloaded result (OData JSON collection pages, V4 `value`
    /// or V2 `d.results`, with expanded navigation content) atomically (docs/OfflineStore.md §7):
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
    /// A download of at most `downloadBatchBytes` of JSON is applied in one commit. A larger one
    /// is first staged in the store (every page checked as OData JSON), then applied in commits
    /// of about `downloadBatchBytes`, so memory does not grow with the download. Readers see the
    /// store as it was until the whole download is in; a crash while staging leaves the store as
    /// before, a crash while applying is finished by the next `open`.
    ///
    /// Cancellation (`Task.isCancelled`) is checked before each page and before the apply: a
    /// cancelled download throws `operationCancelled` (3264) and changes nothing. Malformed pages
    /// throw the JSON reader's errors (12xx) and change nothing.
    @discardableResult
    public func applyDownload(definingQuery name: String, pages: some Sequence<[UInt8]>,
                              progress: (@Sendable (DownloadProgress) -> Void)? = nil) async throws(ODataError) -> DownloadSummary {
        try ensureOpen()
        guard let query = try definingQuery(named: name) else { throw .offlineDefiningQueryNotFound(name) }
        let set = try validate(query)
        broadcaster.set(.downloading)
        defer { if isOpen.withLock({ $0 }) { broadcaster.set(.open) } }
        var source = SequencePageSource(iterator: pages.makeIterator())
        return try applyFull(name, set: set, pages: &source, progress: progress)
    }

    /// One defining query's full download applied from `source` under the download lock, in an
    /// exclusive session with readers pinned to the state before it; `configure` sets the
    /// apply's options first.
    func applyFull(_ name: String, set: String, pages source: inout some DownloadPageSource,
                   progress: (@Sendable (DownloadProgress) -> Void)?,
                   configure: (inout DownloadApply) -> Void = { _ in }) throws(ODataError) -> DownloadSummary {
        let service = self.service
        let limit = downloadBatchBytes, readers = downloadReaders
        return try downloadLock.withLock { _ throws(ODataError) -> DownloadSummary in
            try storage.exclusive(pinningReaders: true) { writer throws(ODataError) -> DownloadSummary in
                var apply = DownloadApply(name: name, set: set, service: service, writer: writer, limit: limit, readers: readers,
                                          progress: progress)
                configure(&apply)
                return try apply.run(pages: &source)
            }
        }
    }

    /// Finishes a staged download that was applying when the process stopped, or discards one
    /// that was still staging (docs/OfflineStore.md §7.1, "Crash recovery"). Called by `open`.
    func resumeInterruptedDownload() throws(ODataError) {
        guard let bytes = try storage.reader().systemValue(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.downloadKey) else {
            // A crash between the last commit of a download and the removal of its spool.
            if engine.spoolsAtOpen.contains(DownloadApply.spoolName) {
                try mapEngine("removing a finished download's spool") { () throws(EngineError) in
                    try engine.removeSpool(DownloadApply.spoolName)
                }
            }
            return
        }
        let marker = try DownloadMarker.decode(bytes)
        let service = self.service
        let limit = downloadBatchBytes, readers = downloadReaders
        try downloadLock.withLock { _ throws(ODataError) in
            try storage.exclusive(pinningReaders: true) { writer throws(ODataError) in
                var apply = DownloadApply(name: marker.name, set: marker.set, service: service, writer: writer, limit: limit,
                                          readers: readers, progress: nil)
                apply.marker = marker
                if marker.phase == OfflineStoreFormat.phaseStaging {
                    try apply.discardStaging()
                } else {
                    _ = try apply.applyStaged()
                }
            }
        }
    }
}

/// The work of one `applyDownload` inside an exclusive storage session.
struct DownloadApply {
    let service: LocalService
    let writer: ExclusiveWriter
    let limit: Int
    /// `OfflineStoreParameters.downloadReaders`.
    let readers: Int?
    let progress: (@Sendable (DownloadProgress) -> Void)?
    /// Name, set, generation and counts (persisted as the marker while staging/applying).
    var marker: DownloadMarker
    var pagesReceived = 0
    var pagesApplied = 0
    /// While staging into a fresh set: every page staged so far, also loaded in bulk (§7.4).
    var stagingBulk: DownloadBulk?
    /// Entities with a server image and their local stored value (nil: deleted locally),
    /// loaded by the first transaction.
    var pending: [EntityMember: [UInt8]?]?
    /// False when the defining query had no member when staging began (its first download):
    /// every member at the end is then of this generation, and the pass that removes the
    /// others is skipped (at 727k entities it read every membership row again, about 0.3 s).
    /// Nil after a crash: the pass runs.
    var hadMembers: Bool?
    /// The defining query's sync state (delta link, counters), written in the download's last
    /// commit so that it advances only with the data it describes (`OfflineStore+Sync`).
    var syncState: SyncQueryState?
    /// Words added to the EventLog entry (`mode=full` from sync).
    var eventDetails = ""
    /// System writes (store tree) that join the download's last commit (a sync download's
    /// progress marker).
    var finalWrites: [(key: [UInt8], value: [UInt8]?)] = []
    /// The sync state known only once the last page is in (a download applied while it is
    /// received: the delta link comes with its pages); it replaces `syncState`.
    var trailingSyncState: (() -> SyncQueryState?)?
    /// Where the buffers of pages applied go, for the pages still to be received (nil: freed).
    var pageBuffers: PageBufferPool?
    /// Pages being checked while staging, per reader: 2 when the pages are all there (each
    /// reader has the next one ready), 1 when they come from the network as they are applied
    /// (the channel holds the next one; each page held is about 1.4 MB of JSON and its records).
    var stagingAhead = 2

    var name: String { marker.name }
    var set: String { marker.set }
    var reader: ODataJSONReader { service.validator }

    init(name: String, set: String, service: LocalService, writer: ExclusiveWriter, limit: Int, readers: Int?,
         progress: (@Sendable (DownloadProgress) -> Void)?) {
        self.service = service
        self.writer = writer
        self.limit = max(1, limit)
        self.readers = readers
        self.progress = progress
        marker = DownloadMarker(phase: OfflineStoreFormat.phaseStaging, generation: 0, pages: 0, applied: 0, removed: 0,
                                kept: 0, rejected: 0, name: name, set: set)
    }

    var summary: DownloadSummary {
        DownloadSummary(definingQuery: name, entitiesApplied: marker.applied, entitiesRemoved: marker.removed,
                        pendingChangesKept: marker.kept, entitiesRejected: marker.rejected)
    }

    func cancelled() -> ODataError { .offlineCancelled("the download of '\(name)'") }

    func report() {
        progress?(DownloadProgress(definingQuery: name, pagesApplied: pagesApplied, entitiesApplied: marker.applied,
                                   pagesReceived: pagesReceived))
    }

    // MARK: the two paths

    /// Buffers pages up to the limit; a download that fits is applied in one commit, a larger
    /// one is staged, then applied in bounded commits.
    mutating func run(pages: inout some DownloadPageSource) throws(ODataError) -> DownloadSummary {
        var buffered: [[UInt8]] = []
        var bufferedBytes = 0
        var staging = false
        // Created for the first page that is not loaded in bulk (§7.4): a download loaded
        // whole in bulk never writes one.
        var spool: SpoolWriter?
        // Pages being checked ahead of the spool, in arrival order.
        // The checks prepare each entity too: a page that needs nothing but its entities' stored
        // form is spooled in that form (`StagedPage`), and never read again.
        let stagingInfo = try? writer.storage.setInfo(set)
        let checks = PageReadAhead(reader: reader, set: set, readers: readers, automatic: PageReadAhead.stagingWidth,
                                   preparingFor: stagingInfo, catalog: writer.storage.currentCatalog())
        checks.recycle = pageBuffers
        var checking: [PageReadAhead.Ticket] = []
        do throws(ODataError) {
            while let page = try pages.nextPage() {
                if Task.isCancelled { throw cancelled() }
                pagesReceived += 1
                if !staging, bufferedBytes + page.count <= limit {
                    buffered.append(page)
                    bufferedBytes += page.count
                    report()
                    continue
                }
                if !staging {
                    try beginStaging(checks)
                    staging = true
                    for held in buffered { try stage(held, in: &spool, checks: checks, checking: &checking, info: stagingInfo) }
                    buffered = []
                }
                try stage(page, in: &spool, checks: checks, checking: &checking, info: stagingInfo)
                report()
            }
            if let trailingSyncState { syncState = trailingSyncState() }
            if staging {
                try spoolChecked(in: &spool, checks: checks, checking: &checking, keep: 0, info: stagingInfo)
                if Task.isCancelled { throw cancelled() }
                if let spool {
                    try mapEngine("syncing the staged download") { () throws(EngineError) in try spool.finish() }
                }
            } else if Task.isCancelled {
                throw cancelled()
            }
        } catch {
            // Checks still running are waited for by `checks`' deinit; their results are dropped.
            stagingBulk?.load.abandon()
            stagingBulk = nil
            if staging {
                spool?.close()
                // A failure here is repaired by the next open: the marker still says staging.
                do throws(ODataError) { try discardStaging() } catch { _ = error }
            }
            throw error
        }
        guard staging else { return try applyAtOnce(buffered) }
        if let bulk = stagingBulk {
            // The pages loaded in bulk and the marker (phase applying, those pages applied) in
            // one step; the spooled pages after them are applied by commits.
            stagingBulk = nil
            try installBulk(bulk)
        } else {
            try switchToApplying()
        }
        return try applyStaged()
    }

    /// Small downloads: every page, the removals and the event in one commit (nothing written
    /// when anything throws).
    private mutating func applyAtOnce(_ pages: [[UInt8]]) throws(ODataError) -> DownloadSummary {
        var next = marker
        var applied = 0
        // Every page is read (on other threads, in parallel) before the one commit applies them.
        let ahead = PageReadAhead(reader: reader, set: set, readers: readers, automatic: PageReadAhead.applyingWidth,
                                  preparingFor: try? writer.storage.setInfo(set), catalog: writer.storage.currentCatalog())
        ahead.recycle = pageBuffers
        var tickets: [PageReadAhead.Ticket] = []
        for (i, page) in pages.enumerated() { tickets.append(ahead.submit(page, number: i)) }
        try service.perform(in: writer) { (tx: inout ServiceTransaction) throws(ODataError) in
            try loadState(&next, tx.batch)
            var skips = Set<EntityPosition>()
            var failure: EntityPosition?
            for ticket in tickets {
                try applyPage(ticket, into: &tx, counts: &next, skips: &skips, failure: &failure)
                applied += 1
                progress?(DownloadProgress(definingQuery: name, pagesApplied: applied, entitiesApplied: next.applied,
                                           pagesReceived: pagesReceived))
                if Task.isCancelled { throw cancelled() }
            }
            try finishPages(&tx, counts: &next)
            let prefix = OfflineStoreFormat.membershipPrefix(name)
            // Nothing is committed yet: the last commit is the state before the download, and
            // the batch's own writes tell which members this generation stored.
            // One pass over every member: around the block cache (it would fill with membership
            // leaves that nothing reads again).
            var cursor = try writer.currentReader().systemScan(tree: OfflineStoreFormat.membershipTree, from: prefix,
                                                               to: OfflineStoreFormat.end(of: prefix), fillCache: false)
            _ = try removeStale(&cursor, prefix: prefix, cursorIsCurrent: false, into: &tx, counts: &next, limit: Int.max)
            try finishDownload(&tx, counts: next, pages: pages.count)
            if Task.isCancelled { throw cancelled() }
        }
        marker = next
        pagesApplied = applied
        return summary
    }

    /// Large downloads, phase 2 (also run by `open` after a crash): staged pages are applied in
    /// commits of about `limit` bytes, each removing the pages it applied and recording its
    /// counts in the marker; then the removals, in bounded commits; then the event.
    mutating func applyStaged() throws(ODataError) -> DownloadSummary {
        let engine = writer.storage.engine
        if marker.pagesApplied < marker.pages {
            guard let spool = try mapEngine("opening the staged download", { () throws(EngineError) in try engine.openSpool(Self.spoolName) }) else {
                throw .offlineCorrupted("staged download of '\(name)'", "its spool file is missing with \(marker.pages - marker.pagesApplied) pages to apply")
            }
            // Pages applied before a crash were counted in the same commit that applied them;
            // the spool starts after the pages a bulk load installed while staging.
            for _ in 0..<max(0, marker.pagesApplied - marker.spoolBase) {
                guard try mapEngine("reading the staged download", { () throws(EngineError) in try spool.next() }) != nil else {
                    throw .offlineCorrupted("staged download of '\(name)'", "its spool ends before page \(marker.pagesApplied)")
                }
            }
            // Pages are read (JSON to entities) on other threads while the commits before them
            // are applied; the spool itself is read here, in order.
            let ahead = PageReadAhead(reader: reader, set: set, readers: readers, automatic: PageReadAhead.applyingWidth,
                                      preparingFor: try? writer.storage.setInfo(set), catalog: writer.storage.currentCatalog())
            var submitted = marker.pagesApplied
            func readNext() throws(ODataError) -> PageReadAhead.Ticket {
                guard let page = try mapEngine("reading the staged download", { () throws(EngineError) in try spool.next() }) else {
                    throw .offlineCorrupted("staged download of '\(name)'", "its spool ends before page \(submitted)")
                }
                submitted += 1
                return ahead.submit(page, number: submitted - 1)
            }
            var queued: [PageReadAhead.Ticket] = []
            // A set that was empty took its loadable pages in bulk while staging (§7.4); the
            // spooled pages are the ones a commit must apply.
            while marker.pagesApplied < marker.pages {
                var group: [PageReadAhead.Ticket] = []
                var bytes = 0
                while bytes < limit, marker.pagesApplied + group.count < marker.pages {
                    let ticket = queued.isEmpty ? try readNext() : queued.removeFirst()
                    group.append(ticket)
                    bytes += ticket.byteCount
                }
                // The next pages start reading while this group is applied.
                while queued.count < max(1, ahead.width), submitted < marker.pages { queued.append(try readNext()) }
                try applyGroup(group)
            }
        }
        let prefix = OfflineStoreFormat.membershipPrefix(name)
        let scan = try writer.currentReader()
        var cursor = try scan.systemScan(tree: OfflineStoreFormat.membershipTree, from: prefix, to: OfflineStoreFormat.end(of: prefix),
                                         fillCache: false)
        // Nothing can be stale when nothing was there before: only the event and the end.
        let nothingStale = hadMembers == false
        var done = false
        while !done {
            var next = marker
            try service.perform(in: writer) { (tx: inout ServiceTransaction) throws(ODataError) in
                try loadState(&next, tx.batch)
                done = nothingStale
                if !done { done = try removeStale(&cursor, prefix: prefix, cursorIsCurrent: true, into: &tx, counts: &next, limit: 4096) }
                if done {
                    try finishDownload(&tx, counts: next, pages: next.pages)
                    try tx.batch.deleteSystem(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.downloadKey)
                } else {
                    try tx.batch.putSystem(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.downloadKey, value: next.encode())
                }
            }
            marker = next
        }
        try mapEngine("removing the staged download") { () throws(EngineError) in try engine.removeSpool(Self.spoolName) }
        return summary
    }

    /// One commit of staged pages; an entity (or page) the store refuses is skipped and logged,
    /// and the group applied again without it (from the apply phase on the download completes).
    private mutating func applyGroup(_ group: [PageReadAhead.Ticket]) throws(ODataError) {
        var skips = Set<EntityPosition>()
        while true {
            var next = marker
            var failure: EntityPosition?
            do throws(ODataError) {
                try service.perform(in: writer) { (tx: inout ServiceTransaction) throws(ODataError) in
                    try loadState(&next, tx.batch)
                    for ticket in group {
                        try applyPage(ticket, into: &tx, counts: &next, skips: &skips, failure: &failure)
                    }
                    try finishPages(&tx, counts: &next)
                    try logRejections(skips, &tx, counts: &next)
                    next.pagesApplied += group.count
                    try tx.batch.putSystem(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.downloadKey, value: next.encode())
                }
            } catch {
                guard let failure, !skips.contains(failure) else { throw error }
                skips.insert(failure.with(error))
                continue
            }
            marker = next
            pagesApplied += group.count
            report()
            return
        }
    }

    // MARK: staging

    static let spoolName = "download"

    /// Commits the marker (phase staging) with the download's generation, and starts a bulk
    /// load when the set is fresh (§7.4).
    private mutating func beginStaging(_ checks: PageReadAhead) throws(ODataError) {
        var next = marker
        let prefix = OfflineStoreFormat.membershipPrefix(name)
        var members = try writer.currentReader().systemScan(tree: OfflineStoreFormat.membershipTree, from: prefix,
                                                            to: OfflineStoreFormat.end(of: prefix), fillCache: false)
        hadMembers = try members.next() != nil
        try writer.write { (batch: inout EntityWriteBatch) throws(ODataError) in
            next.generation = try Self.lastGeneration(name, batch) &+ 1
            try batch.putSystem(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.downloadKey, value: next.encode())
        }
        marker = next
        stagingBulk = try freshBulk()
        checks.bulk = stagingBulk?.form
    }

    /// Starts checking a page as OData JSON (on another thread); pages whose check is done are
    /// loaded or appended to the spool in arrival order (which numbers them). At most
    /// `checks.width` pages wait, so memory stays bounded; the first page that fails its check,
    /// in arrival order, aborts the download.
    private mutating func stage(_ page: [UInt8], in spool: inout SpoolWriter?, checks: PageReadAhead,
                                checking: inout [PageReadAhead.Ticket], info: SetInfo?) throws(ODataError) {
        // A page that starts like a staged page is refused by the JSON reader (no JSON text
        // starts with 0x00), so a downloaded page is never taken for one.
        checking.append(checks.submit(page, number: marker.pages + checking.count, keep: true))
        try spoolChecked(in: &spool, checks: checks, checking: &checking, keep: stagingAhead * checks.width, info: info)
    }

    /// Takes checked pages until at most `keep` are still waiting: into the bulk load while it
    /// takes them (§7.4), else appended to the spool, in their stored form when they allow it
    /// (§7.3), else as JSON.
    private mutating func spoolChecked(in spool: inout SpoolWriter?, checks: PageReadAhead,
                                       checking: inout [PageReadAhead.Ticket], keep: Int, info: SetInfo?) throws(ODataError) {
        while checking.count > keep {
            let ticket = checking.removeFirst()
            var read = try ticket.take()
            if var bulk = stagingBulk, bulk.isOpen {
                // Moved out while it changes: a second reference would make the filter of the
                // keys taken (4 MiB) copy itself on every page.
                stagingBulk = nil
                let taken: Bool
                do throws(ODataError) {
                    // Taken out of the page, so that its buffers are kept for later pages
                    // (put back when the load does not take the page: they may be its only copy).
                    if let records = read.loadable.take() {
                        let nested = read.nestedLoadable
                        read.nestedLoadable = []
                        taken = try bulk.add(records: records, nested: nested)
                        if taken {
                            // Moved, not copied: a buffer still shared is not kept, but reallocated.
                            bulk.buffers.give(consume records)
                            var nested = consume nested
                            while let (set, records) = nested.popLast() { bulk.nested[set]?.buffers.give(records) }
                        } else {
                            read.loadable = records
                            read.nestedLoadable = nested
                        }
                    } else {
                        taken = false
                    }
                } catch {
                    stagingBulk = bulk
                    throw error
                }
                if taken {
                    stagingBulk = bulk
                    marker.pages += 1
                    checks.dispose(read)
                    continue
                }
                // This page and every later one are spooled; the pages loaded stay loaded.
                bulk.isOpen = false
                checks.bulk = nil
                if bulk.pages == 0 {
                    bulk.load.abandon()
                    stagingBulk = nil
                } else {
                    stagingBulk = bulk
                }
            }
            let staging: SpoolWriter
            if let spool {
                staging = spool
            } else {
                let engine = writer.storage.engine
                staging = try mapEngine("creating the staged download") { () throws(EngineError) in try engine.createSpool(Self.spoolName) }
                spool = staging
                marker.spoolBase = marker.pages
            }
            let page = read.stagedForm(for: info, downloadedSize: ticket.page.count) ?? ticket.page
            try mapEngine("staging a downloaded page") { () throws(EngineError) in try staging.append(page) }
            marker.pages += 1
        }
    }

    /// The last staged page is in: the marker moves to phase applying (from here on, the
    /// download completes, if need be at the next open).
    private mutating func switchToApplying() throws(ODataError) {
        var next = marker
        next.phase = OfflineStoreFormat.phaseApplying
        try writer.write { (batch: inout EntityWriteBatch) throws(ODataError) in
            try batch.putSystem(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.downloadKey, value: next.encode())
        }
        marker = next
    }

    /// Removes the spool and the marker (a staging download that never happened).
    mutating func discardStaging() throws(ODataError) {
        let engine = writer.storage.engine
        try mapEngine("removing the staged download") { () throws(EngineError) in try engine.removeSpool(Self.spoolName) }
        try writer.write { (batch: inout EntityWriteBatch) throws(ODataError) in
            try batch.deleteSystem(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.downloadKey)
        }
    }

    // MARK: applying pages

    /// Reads the generation and the pending entities on first use.
    mutating func loadState(_ next: inout DownloadMarker, _ batch: EntityWriteBatch) throws(ODataError) {
        if next.generation == 0 { next.generation = try Self.lastGeneration(name, batch) &+ 1 }
        if pending == nil { pending = try Self.pendingEntities(batch) }
    }

    /// Stores every entity of one page. Where the store refuses an entity, `failure` names it
    /// before the error is rethrown; entities in `skips` are left out.
    private func applyPage(_ page: PageReadAhead.Ticket, into tx: inout ServiceTransaction, counts: inout DownloadMarker,
                           skips: inout Set<EntityPosition>, failure: inout EntityPosition?) throws(ODataError) {
        let number = page.number
        let whole = EntityPosition(page: number, entity: -1)
        if skips.contains(whole) { return }
        let read: PageReadAhead.Page
        do throws(ODataError) {
            read = try page.take()
        } catch {
            failure = whole
            throw error
        }
        if let staged = read.staged {
            // Stored form: each entity's key and value as they were prepared while staging.
            guard let info = tx.batch.catalog.sets[set] else {
                failure = whole
                throw ODataError.storeUnknownEntitySet(set)
            }
            tx.batch.reserve(staged.count, in: set)
            // Expanded entities read in place follow their parent (as `put` stores them).
            let nested = read.nested
            var next = 0
            for (i, entry) in staged.enumerated() {
                let position = EntityPosition(page: number, entity: i)
                var end = next
                while end < nested.count, nested[end].parent == i { end += 1 }
                defer { next = end }
                if skips.contains(position) { continue }
                do throws(ODataError) {
                    _ = try tx.batch.put(storedKey: entry.key, value: entry.value, info: info)
                    for child in nested[next..<end] {
                        guard let target = tx.batch.catalog.sets[child.info.name], target === child.info else {
                            throw ODataError.storeUnknownEntitySet(child.info.name)
                        }
                        _ = try tx.batch.put(storedKey: child.entry.key, value: child.entry.value, info: target)
                    }
                } catch {
                    failure = position
                    throw error
                }
                counts.applied += 1 + (end - next)
            }
            return
        }
        let entities = read.collection.entities
        // Entities the readers prepared for this very set (the writer holds the catalog for the
        // whole download, so it is) are staged as they are.
        let prepared = read.prepared.flatMap { $0.info === tx.batch.catalog.sets[set] ? $0 : nil }
        tx.batch.reserve(entities.count, in: set)
        for (i, entity) in entities.enumerated() {
            let position = EntityPosition(page: number, entity: i)
            if skips.contains(position) { continue }
            do throws(ODataError) {
                if let prepared {
                    _ = try tx.batch.put(prepared.entities[i].get(), entity, info: prepared.info, flags: [], depth: 0)
                } else {
                    try tx.batch.put(entity, in: set)
                }
            } catch {
                failure = position
                throw error
            }
            counts.applied += Self.count(entity)
        }
    }

    /// After a group of pages: local changes win over what the group wrote, and every written
    /// entity becomes a member of this generation.
    func finishPages(_ tx: inout ServiceTransaction, counts: inout DownloadMarker) throws(ODataError) {
        let members = written(tx.batch)
        let pending = self.pending ?? [:]
        let membership = try tx.batch.systemTree(named: OfflineStoreFormat.membershipTree)
        let generation = OfflineStoreFormat.be64(counts.generation)
        for member in members {
            try tx.batch.putSystem(in: membership, key: OfflineStoreFormat.membershipKey(name, set: member.set, keyBytes: member.keyBytes),
                                   value: generation)
            guard let local = pending[member] else { continue }
            if var image = try tx.image(member.set, member.keyBytes) {
                if image.kind == ServiceFormat.kindServer, let fresh = try tx.batch.storedValue(member.set, keyBytes: member.keyBytes) {
                    // Kept apart from the version the local changes are based on (their upload's
                    // If-Match): a change by another client in between stays a conflict.
                    image.fresh = fresh
                    image.deletedOnServer = false   // the back end has it (again)
                    try tx.putImage(member.set, member.keyBytes, image)
                }
            }
            if let local {
                try tx.batch.restore(member.set, keyBytes: member.keyBytes, stored: local)
            } else {
                try tx.batch.delete(keyBytes: member.keyBytes, in: member.set)
            }
            counts.kept += 1
        }
    }

    /// EventLog rows for the entities a staged download refused (new ones only).
    private func logRejections(_ skips: Set<EntityPosition>, _ tx: inout ServiceTransaction,
                               counts: inout DownloadMarker) throws(ODataError) {
        for skip in skips.sorted(by: { ($0.page, $0.entity) < ($1.page, $1.entity) }) {
            let what = skip.entity < 0 ? "page \(skip.page + 1)" : "entity \(skip.entity + 1) of page \(skip.page + 1)"
            let error = skip.error.map { "\($0.name) (\($0.code)): \($0.message)" } ?? "refused"
            _ = try tx.logEvent(type: "DownloadRejected", details: "definingQuery=\(name) \(what): \(error)")
            counts.rejected += 1
        }
    }

    /// Drops the membership of entities this generation did not store (deleting them unless
    /// another query covers them or they have pending changes). Returns true when the cursor
    /// is exhausted; stops after `limit` members otherwise.
    private func removeStale(_ cursor: inout SystemCursor, prefix: [UInt8], cursorIsCurrent: Bool,
                             into tx: inout ServiceTransaction, counts: inout DownloadMarker, limit: Int) throws(ODataError) -> Bool {
        let others = try OfflineStore.queryNames(batch: tx.batch).filter { $0 != name }
        let pending = self.pending ?? [:]
        var seen = 0
        while seen < limit {
            guard let (key, value) = try cursor.next() else { return true }
            seen += 1
            let current = cursorIsCurrent ? value : try tx.batch.systemValue(tree: OfflineStoreFormat.membershipTree, key: key)
            guard let current, OfflineStoreFormat.generation(ofMembership: current) != counts.generation else { continue }
            let member = try OfflineStoreFormat.splitMember(key, prefixLength: prefix.count)
            if pending.keys.contains(member) {
                // Keeps its membership until the change is uploaded; an undo removes it.
                try tx.markDeletedOnServer(member.set, member.keyBytes)
                continue
            }
            try tx.batch.deleteSystem(tree: OfflineStoreFormat.membershipTree, key: key)
            if try OfflineStore.isCovered(member, byAnyOf: others, batch: tx.batch) { continue }
            if try tx.batch.delete(keyBytes: member.keyBytes, in: member.set) { counts.removed += 1 }
        }
        return false
    }

    /// The event and the generation, in the last commit.
    private func finishDownload(_ tx: inout ServiceTransaction, counts: DownloadMarker, pages: Int) throws(ODataError) {
        try tx.batch.putSystem(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.generationKey(name),
                               value: OfflineStoreFormat.be64(counts.generation))
        var details = "definingQuery=\(name) pages=\(pages) applied=\(counts.applied) removed=\(counts.removed) pendingKept=\(counts.kept)"
        if counts.rejected > 0 { details += " rejected=\(counts.rejected)" }
        details += eventDetails
        for (key, value) in finalWrites {
            if let value {
                try tx.batch.putSystem(tree: OfflineStoreFormat.storeTree, key: key, value: value)
            } else {
                try tx.batch.deleteSystem(tree: OfflineStoreFormat.storeTree, key: key)
            }
        }
        if let syncState {
            try tx.batch.putSystem(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.syncStateKey(name), value: syncState.encode())
        }
        _ = try tx.logEvent(type: "Download", details: details)
    }

    // MARK: helpers

    static func lastGeneration(_ name: String, _ batch: EntityWriteBatch) throws(ODataError) -> UInt64 {
        guard let value = try batch.systemValue(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.generationKey(name)) else {
            return 0
        }
        guard value.count == 8 else { throw .offlineCorrupted("download generation of '\(name)'", "a value of \(value.count) bytes") }
        return OfflineStoreFormat.readBE(value[...])
    }

    /// Entities with a server image (pending or failed requests), and their local stored value.
    static func pendingEntities(_ batch: EntityWriteBatch) throws(ODataError) -> [EntityMember: [UInt8]?] {
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
    func written(_ batch: EntityWriteBatch) -> [EntityMember] {
        var out: [EntityMember] = []
        for (setName, info) in batch.catalog.sets where !OfflineSystemSets.all.contains(setName) {
            for (key, pending) in batch.overlay[info.tree] ?? [:] {
                if case .put = pending { out.append(EntityMember(set: setName, keyBytes: key.bytes)) }
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

/// The pages of a download, read one at a time. A read may fail (a damaged spool): the download
/// then fails and changes nothing, where a `Sequence` could only end early and make the pages
/// after it look removed.
package protocol DownloadPageSource {
    mutating func nextPage() throws(ODataError) -> [UInt8]?
}

/// The pages of an in-memory sequence.
struct SequencePageSource<Iterator: IteratorProtocol<[UInt8]>>: DownloadPageSource {
    var iterator: Iterator
    mutating func nextPage() throws(ODataError) -> [UInt8]? { iterator.next() }
}

/// An entity of a staged download: page number and index in the page (-1: the whole page),
/// with the error the store gave for it.
struct EntityPosition: Hashable {
    var page: Int
    var entity: Int
    var error: ODataError?

    init(page: Int, entity: Int) {
        self.page = page
        self.entity = entity
    }

    func with(_ error: ODataError) -> EntityPosition {
        var copy = self
        copy.error = error
        return copy
    }

    static func == (a: EntityPosition, b: EntityPosition) -> Bool { a.page == b.page && a.entity == b.entity }
    func hash(into hasher: inout Hasher) {
        hasher.combine(page)
        hasher.combine(entity)
    }
}

