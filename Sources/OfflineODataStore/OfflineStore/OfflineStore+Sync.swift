import Dispatch
import OfflineODataEngine
import OfflineODataModel
import Synchronization

// The store's door for sync (docs/Sync.md §2): the narrow API that `OfflineODataSync`, and only
// it, uses. Everything here is `package`: an app cannot reach it.
//
// Lock order (docs/Sync.md §2.1). Network reads happen under no lock: pages are received into a
// `DownloadReceiver` (memory, then an encrypted spool) while local reads and writes go on. Only
// `applySyncDownloads` takes `downloadLock`, then the writer lock (`storage.exclusive`, readers
// pinned to the state before it), and it reads nothing but local spools while it holds them.

/// How a defining query's pages are applied.
package enum SyncDownloadMode: String, Sendable {
    /// The whole result of the query: what it no longer returns leaves the store (reconcile).
    case full
    /// A delta payload: upserts and tombstones, nothing else removed.
    case delta
}

/// What sync keeps for one defining query, written in the commit that applies the data it
/// describes, so a delta link never advances without its data.
package struct SyncQueryState: Sendable, Equatable {
    /// The delta link to follow next time (nil: the next download reads the query in full).
    package var deltaLink: String?
    /// Delta downloads since the last full one (a reconcile every N downloads).
    package var downloadsSinceReconcile: Int
    /// The query URL the state belongs to: a changed URL makes the next download a full one.
    package var url: String

    package init(deltaLink: String?, downloadsSinceReconcile: Int, url: String) {
        self.deltaLink = deltaLink
        self.downloadsSinceReconcile = downloadsSinceReconcile
        self.url = url
    }

    static let version: UInt8 = 1

    /// Version byte, counter (4 bytes BE), URL length (4 bytes BE) and URL, then the delta link
    /// (absent when the value ends after the URL).
    func encode() -> [UInt8] {
        var out: [UInt8] = [Self.version]
        out += OfflineStoreFormat.be32(UInt32(clamping: downloadsSinceReconcile))
        let urlBytes = Array(url.utf8)
        out += OfflineStoreFormat.be32(UInt32(clamping: urlBytes.count))
        out += urlBytes
        if let deltaLink { out += Array(deltaLink.utf8) }
        return out
    }

    static func decode(_ value: [UInt8], name: String) throws(ODataError) -> SyncQueryState {
        guard value.count >= 9, value[0] == version else {
            throw .offlineCorrupted("sync state of '\(name)'", "version \(value.first.map(String.init) ?? "none"), \(value.count) bytes")
        }
        let counter = Int(OfflineStoreFormat.readBE(value[1..<5]))
        let length = Int(OfflineStoreFormat.readBE(value[5..<9]))
        guard 9 + length <= value.count,
              let url = String(validating: value[9..<(9 + length)], as: UTF8.self) else {
            throw .offlineCorrupted("sync state of '\(name)'", "a URL of \(length) bytes in \(value.count)")
        }
        let rest = value[(9 + length)...]
        var link: String?
        if !rest.isEmpty {
            guard let text = String(validating: rest, as: UTF8.self) else {
                throw .offlineCorrupted("sync state of '\(name)'", "the delta link is not UTF-8")
            }
            link = text
        }
        return SyncQueryState(deltaLink: link, downloadsSinceReconcile: counter, url: url)
    }
}

/// Pages of one defining query received from the network, held outside every lock: the first
/// `memoryLimit` bytes in memory, the rest in an encrypted engine spool, so memory does not grow
/// with the download. Used by one task at a time.
package final class DownloadReceiver: @unchecked Sendable {
    package let definingQuery: String
    private let engine: StorageEngine
    private let memoryLimit: Int
    private var memory: [[UInt8]] = []
    private var memoryBytes = 0
    private var spool: SpoolWriter?
    private var spooled = 0
    private let spoolName: String
    package private(set) var pageCount = 0
    package private(set) var byteCount = 0
    /// Spool appends (compression, encryption, the write) run here, one page at a time, while
    /// the caller receives and scans the next page: at most one page is in flight, and the
    /// next `append` (or `seal`, `source`, `discard`) waits for it first. At 1M entities the
    /// appends were about a third of the receiving thread's samples (perf).
    private let writeQueue = DispatchQueue(label: "OfflineODataStore.download.receive")
    private let writing = DispatchGroup()
    /// The error of a background append, thrown by the next call that waits for it.
    private let writeError = WriteFailure()

    /// The first error of the background appends.
    final class WriteFailure: Sendable {
        let error = Mutex<ODataError?>(nil)
    }

    static let counter = Mutex<UInt64>(0)
    /// Receive spools are named `sync-<n>`; `open` removes any a crash left behind.
    static let spoolPrefix = "sync-"

    /// The spool's name (`sync-<n>`).
    var spoolFileName: String { spoolName }
    /// Pages in the spool (all of them when the receiver is durable).
    var spooledCount: Int { spooled }
    /// Whether every page goes to the spool (a download of several queries: a crash between
    /// their commits is finished from the spools by the next open).
    let durable: Bool

    init(definingQuery: String, engine: StorageEngine, memoryLimit: Int, durable: Bool = false) {
        self.durable = durable
        self.definingQuery = definingQuery
        self.engine = engine
        self.memoryLimit = durable ? 0 : max(0, memoryLimit)
        let n = Self.counter.withLock { value -> UInt64 in
            value &+= 1
            return value
        }
        spoolName = Self.spoolPrefix + String(n)
    }

    /// Keeps one page (in arrival order).
    package func append(_ page: [UInt8]) throws(ODataError) {
        pageCount += 1
        byteCount += page.count
        if spool == nil, memoryBytes + page.count <= memoryLimit {
            memory.append(page)
            memoryBytes += page.count
            return
        }
        try waitForWrite()
        let writer: SpoolWriter
        if let spool {
            writer = spool
        } else {
            let engine = self.engine, name = spoolName
            writer = try mapEngine("creating a receive spool") { () throws(EngineError) in try engine.createSpool(name) }
            spool = writer
        }
        spooled += 1
        let failed = writeError
        writing.enter()
        writeQueue.async { [writing] in
            do throws(ODataError) {
                try mapEngine("spooling a received page") { () throws(EngineError) in try writer.append(page) }
            } catch {
                failed.error.withLock { $0 = $0 ?? error }
            }
            writing.leave()
        }
    }

    /// Waits for the page being spooled; throws its error.
    private func waitForWrite() throws(ODataError) {
        writing.wait()
        if let error = writeError.error.withLock({ $0 }) { throw error }
    }

    /// Syncs the spool (a durable receiver's pages then survive a crash).
    func seal() throws(ODataError) {
        try waitForWrite()
        guard let spool, !sealed else { return }
        try mapEngine("syncing a receive spool") { () throws(EngineError) in try spool.finish() }
        sealed = true
    }

    private var sealed = false

    /// The pages in arrival order (the spool is synced first).
    func source() throws(ODataError) -> ReceivedPageSource {
        try waitForWrite()
        var reader: SpoolReader?
        if spool != nil {
            try seal()
            let engine = self.engine, name = spoolName
            reader = try mapEngine("opening a receive spool") { () throws(EngineError) in try engine.openSpool(name) }
            guard reader != nil else { throw .offlineCorrupted("receive spool of '\(definingQuery)'", "it is missing") }
        }
        return ReceivedPageSource(memory: memory, spool: reader, spooled: spooled, name: definingQuery)
    }

    /// Removes the spool (after the apply, or when the download is abandoned).
    package func discard() {
        writing.wait()
        spool?.close()
        spool = nil
        memory = []
        let engine = self.engine, name = spoolName
        try? engine.removeSpool(name)
    }

    deinit { if spool != nil { discard() } }
}

/// Received pages read back in order: memory first, then the spool.
struct ReceivedPageSource: DownloadPageSource {
    var memory: [[UInt8]]
    var spool: SpoolReader?
    let spooled: Int
    let name: String
    var index = 0
    var read = 0

    init(memory: [[UInt8]], spool: SpoolReader?, spooled: Int, name: String) {
        self.memory = memory
        self.spool = spool
        self.spooled = spooled
        self.name = name
    }

    mutating func nextPage() throws(ODataError) -> [UInt8]? {
        if index < memory.count {
            defer { index += 1 }
            // Handed over, not copied: the page is read once.
            return swapPage(at: index)
        }
        guard let spool, read < spooled else { return nil }
        guard let page = try mapEngine("reading a receive spool", { () throws(EngineError) in try spool.next() }) else {
            throw .offlineCorrupted("receive spool of '\(name)'", "it ends after \(read) of \(spooled) pages")
        }
        read += 1
        return page
    }

    private mutating func swapPage(at index: Int) -> [UInt8] {
        var page: [UInt8] = []
        swap(&page, &memory[index])
        return page
    }
}

/// One query of a sync download as the marker records it.
struct SyncApplyItem {
    var name: String
    var mode: SyncDownloadMode
    var spool: String?
    var spooled: Int
    var state: SyncQueryState
}

/// The progress of a sync download of several defining queries (store tree, key
/// `syncDownload`): version 1, the next item (u32 BE), the item count (u32 BE), then per item:
/// name, mode (0 full, 1 delta), spool name (empty: none), spooled pages (u32 BE), sync state;
/// each string and the state as u32 BE length and bytes.
struct SyncDownloadMarker {
    static let key = Array("syncDownload".utf8)
    static let version: UInt8 = 1
    var next: Int
    var items: [SyncApplyItem]

    func encode() -> [UInt8] {
        var out: [UInt8] = [Self.version]
        out += OfflineStoreFormat.be32(UInt32(next))
        out += OfflineStoreFormat.be32(UInt32(items.count))
        func bytes(_ b: [UInt8]) {
            out += OfflineStoreFormat.be32(UInt32(b.count))
            out += b
        }
        for item in items {
            bytes(Array(item.name.utf8))
            out.append(item.mode == .full ? 0 : 1)
            bytes(Array((item.spool ?? "").utf8))
            out += OfflineStoreFormat.be32(UInt32(item.spooled))
            bytes(item.state.encode())
        }
        return out
    }

    static func decode(_ value: [UInt8]) throws(ODataError) -> SyncDownloadMarker {
        var pos = 0
        func fail(_ why: String) -> ODataError { .offlineCorrupted("sync download marker", why) }
        func u32() throws(ODataError) -> Int {
            guard pos + 4 <= value.count else { throw fail("truncated at byte \(pos)") }
            defer { pos += 4 }
            return Int(OfflineStoreFormat.readBE(value[pos..<(pos + 4)]))
        }
        func bytes() throws(ODataError) -> [UInt8] {
            let n = try u32()
            guard pos + n <= value.count else { throw fail("truncated at byte \(pos)") }
            defer { pos += n }
            return Array(value[pos..<(pos + n)])
        }
        guard value.first == version else { throw fail("version \(value.first.map(String.init) ?? "none")") }
        pos = 1
        let next = try u32()
        let count = try u32()
        guard count <= 100_000, next <= count else { throw fail("next \(next) of \(count)") }
        var items: [SyncApplyItem] = []
        for _ in 0..<count {
            let name = String(decoding: try bytes(), as: UTF8.self)
            guard pos < value.count else { throw fail("truncated at byte \(pos)") }
            let mode: SyncDownloadMode = value[pos] == 0 ? .full : .delta
            pos += 1
            let spool = String(decoding: try bytes(), as: UTF8.self)
            let spooled = try u32()
            let state = try SyncQueryState.decode(try bytes(), name: name)
            items.append(SyncApplyItem(name: name, mode: mode, spool: spool.isEmpty ? nil : spool, spooled: spooled, state: state))
        }
        return SyncDownloadMarker(next: next, items: items)
    }
}

/// One defining query's received download, ready to apply.
package struct SyncDownload: Sendable {
    package var definingQuery: String
    package var mode: SyncDownloadMode
    package var pages: DownloadReceiver
    /// The state to commit with the data (delta link of the first page that carried one).
    package var state: SyncQueryState

    package init(definingQuery: String, mode: SyncDownloadMode, pages: DownloadReceiver, state: SyncQueryState) {
        self.definingQuery = definingQuery
        self.mode = mode
        self.pages = pages
        self.state = state
    }
}

extension OfflineStore {
    /// A receiver for one defining query's pages (no lock is taken).
    /// `durable`: every page goes to the spool (a download of several defining queries, which
    /// the next open finishes from the spools after a crash between their commits).
    package func makeReceiver(for definingQuery: String, durable: Bool = false) throws(ODataError) -> DownloadReceiver {
        try ensureOpen()
        return DownloadReceiver(definingQuery: definingQuery, engine: engine, memoryLimit: downloadBatchBytes, durable: durable)
    }

    /// Receives one defining query's pages from an asynchronous sequence (the network), under
    /// no lock, then applies them with `applySyncDownloads`: the applier that takes an
    /// `AsyncSequence` of pages. Local reads and writes go on while the sequence waits.
    @discardableResult
    package func applySyncDownload<Pages: AsyncSequence>(definingQuery: String, mode: SyncDownloadMode, pages: Pages,
                                                         state: SyncQueryState) async throws -> DownloadSummary
    where Pages.Element == [UInt8] {
        let receiver = try makeReceiver(for: definingQuery)
        do {
            for try await page in pages {
                try Task.checkCancellation()
                try receiver.append(page)
            }
        } catch {
            receiver.discard()
            throw error
        }
        let summaries = try await applySyncDownloads([SyncDownload(definingQuery: definingQuery, mode: mode, pages: receiver, state: state)])
        guard let summary = summaries.first else { throw ODataError.offlineDefiningQueryNotFound(definingQuery) }
        return summary
    }

    /// Applies received downloads, in order, in one exclusive session with readers pinned to the
    /// state before it: readers see every query's old data or every query's new data, never a
    /// mix. Each query's data and its sync state commit together. A download of several queries
    /// first commits a marker naming their spools (the receivers must be durable); each query's
    /// last commit advances it, the last one removes it, and after a crash between two queries
    /// the next open applies the rest from the spools. The receivers' spools are removed.
    package func applySyncDownloads(_ downloads: [SyncDownload],
                                    progress: (@Sendable (DownloadProgress) -> Void)? = nil) async throws(ODataError) -> [DownloadSummary] {
        try ensureOpen()
        defer { for download in downloads { download.pages.discard() } }
        var items: [SyncApplyItem] = []
        for download in downloads {
            guard let query = try definingQuery(named: download.definingQuery) else {
                throw .offlineDefiningQueryNotFound(download.definingQuery)
            }
            _ = try validate(query)
            if downloads.count > 1 {
                guard download.pages.durable else {
                    throw .offlineInvalidParameter("downloads", "of several defining queries need durable receivers")
                }
                try download.pages.seal()
            }
            items.append(SyncApplyItem(name: download.definingQuery, mode: download.mode,
                                       spool: download.pages.spooledCount > 0 ? download.pages.spoolFileName : nil,
                                       spooled: download.pages.spooledCount, state: download.state))
        }
        // Cancellation is honoured until the apply starts; from there the download completes
        // (it runs detached from the caller's task), so a cancel never leaves half of it.
        if Task.isCancelled { throw .offlineCancelled("the download of '\(items.first?.name ?? "")'") }
        broadcaster.set(.downloading)
        defer { if isOpen.withLock({ $0 }) { broadcaster.set(.open) } }
        let marker = downloads.count > 1 ? SyncDownloadMarker(next: 0, items: items) : nil
        let apply = Task.detached { () throws(ODataError) -> [DownloadSummary] in
            try self.applyLocked(downloads, items: items, marker: marker, progress: progress)
        }
        do {
            return try await apply.value
        } catch let error as ODataError {
            throw error
        } catch {
            throw .offlineCorrupted("sync download", "\(error)")
        }
    }

    private func applyLocked(_ downloads: [SyncDownload], items: [SyncApplyItem], marker: SyncDownloadMarker?,
                             progress: (@Sendable (DownloadProgress) -> Void)?) throws(ODataError) -> [DownloadSummary] {
        try downloadLock.withLock { _ throws(ODataError) -> [DownloadSummary] in
            try storage.exclusive(pinningReaders: true) { writer throws(ODataError) -> [DownloadSummary] in
                if let marker {
                    try writer.write { (batch: inout EntityWriteBatch) throws(ODataError) in
                        try batch.putSystem(tree: OfflineStoreFormat.storeTree, key: SyncDownloadMarker.key, value: marker.encode())
                    }
                }
                do throws(ODataError) {
                    var sources: [any DownloadPageSource] = []
                    for download in downloads { sources.append(try download.pages.source()) }
                    return try applyItems(items, sources: sources, from: 0, marker: marker, writer: writer, progress: progress)
                } catch {
                    // A query the store refuses (not a crash): the queries before it stay applied
                    // with their states, the rest stay as they were; the marker goes.
                    if marker != nil { try? dropSyncMarker(writer, reason: "\(error.name) (\(error.code)): \(error.message)") }
                    throw error
                }
            }
        }
    }

    /// Applies `items[from...]` with their page sources; each item's last commit carries the
    /// marker's progress (the last one deletes it).
    private func applyItems(_ items: [SyncApplyItem], sources: [any DownloadPageSource], from start: Int, marker: SyncDownloadMarker?,
                            writer: ExclusiveWriter, progress: (@Sendable (DownloadProgress) -> Void)?) throws(ODataError) -> [DownloadSummary] {
        var summaries: [DownloadSummary] = []
        let limit = downloadBatchBytes, readers = downloadReaders
        for index in start..<items.count {
            let item = items[index]
            guard let query = try definingQuery(named: item.name) else { throw .offlineDefiningQueryNotFound(item.name) }
            let set = try validate(query)
            var finalWrites: [(key: [UInt8], value: [UInt8]?)] = []
            if var marker {
                marker.next = index + 1
                finalWrites.append((SyncDownloadMarker.key, index + 1 == items.count ? nil : marker.encode()))
            }
            var source = sources[index]
            switch item.mode {
            case .full:
                var apply = DownloadApply(name: item.name, set: set, service: service, writer: writer, limit: limit, readers: readers,
                                          progress: progress)
                apply.syncState = item.state
                apply.eventDetails = " mode=full"
                apply.finalWrites = finalWrites
                summaries.append(try apply.run(pages: &source))
            case .delta:
                var apply = DeltaApply(name: item.name, set: set, service: service, writer: writer, limit: limit, state: item.state)
                apply.finalWrites = finalWrites
                summaries.append(try apply.run(pages: &source))
            }
        }
        return summaries
    }

    /// Finishes a sync download that a crash interrupted between two defining queries: the
    /// queries after the last one applied are applied from their spools. Called by `open`. A
    /// marker that cannot be finished (a spool gone, data the store refuses) is dropped with an
    /// EventLog entry `SyncResumeFailed`: the store opens as it is, and the next download
    /// brings those queries.
    func resumeSyncDownload() throws(ODataError) {
        guard let bytes = try storage.reader().systemValue(tree: OfflineStoreFormat.storeTree, key: SyncDownloadMarker.key) else { return }
        let engine = self.engine
        let marker: SyncDownloadMarker
        do throws(ODataError) {
            marker = try SyncDownloadMarker.decode(bytes)
        } catch {
            try storage.exclusive { writer throws(ODataError) in try dropSyncMarker(writer, reason: error.message) }
            return
        }
        defer { for item in marker.items { if let spool = item.spool { try? engine.removeSpool(spool) } } }
        try downloadLock.withLock { _ throws(ODataError) in
            try storage.exclusive(pinningReaders: true) { writer throws(ODataError) in
                do throws(ODataError) {
                    var sources: [any DownloadPageSource] = []
                    for (index, item) in marker.items.enumerated() {
                        var reader: SpoolReader?
                        if let spool = item.spool {
                            reader = try mapEngine("opening a receive spool", { () throws(EngineError) in try engine.openSpool(spool) })
                            if reader == nil, index >= marker.next {
                                throw ODataError.offlineCorrupted("sync download of '\(item.name)'", "its spool \(spool) is missing")
                            }
                        }
                        sources.append(ReceivedPageSource(memory: [], spool: reader, spooled: item.spooled, name: item.name))
                    }
                    if marker.next >= marker.items.count {
                        try dropSyncMarker(writer, reason: nil)
                    } else {
                        _ = try applyItems(marker.items, sources: sources, from: marker.next, marker: marker, writer: writer, progress: nil)
                    }
                } catch {
                    try dropSyncMarker(writer, reason: "\(error.name) (\(error.code)): \(error.message)")
                }
            }
        }
    }

    /// Deletes the sync download marker; with a reason, logs `SyncResumeFailed` in the same commit.
    func dropSyncMarker(_ writer: ExclusiveWriter, reason: String?) throws(ODataError) {
        try service.perform(in: writer) { (tx: inout ServiceTransaction) throws(ODataError) in
            try tx.batch.deleteSystem(tree: OfflineStoreFormat.storeTree, key: SyncDownloadMarker.key)
            if let reason { _ = try tx.logEvent(type: "SyncResumeFailed", details: reason) }
        }
    }

    /// The sync state of a defining query (nil: never downloaded by sync).
    package func syncState(of definingQuery: String) throws(ODataError) -> SyncQueryState? {
        try ensureOpen()
        guard let value = try storage.reader().systemValue(tree: OfflineStoreFormat.storeTree,
                                                           key: OfflineStoreFormat.syncStateKey(definingQuery)) else { return nil }
        return try SyncQueryState.decode(value, name: definingQuery)
    }

    /// Changes a defining query's URL. Its entities stay until the next download, which reads
    /// the new URL in full and removes exactly what it no longer returns (unless another query
    /// covers it or it has pending changes).
    package func replaceDefiningQuery(_ query: DefiningQuery) throws(ODataError) {
        try ensureOpen()
        _ = try validate(query)
        try downloadLock.withLock { _ throws(ODataError) in
            guard try definingQuery(named: query.name) != nil else { throw .offlineDefiningQueryNotFound(query.name) }
            try storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
                try batch.putSystem(tree: OfflineStoreFormat.registryTree, key: Array(query.name.utf8),
                                    value: OfflineStoreFormat.encode(query))
                try batch.deleteSystem(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.syncStateKey(query.name))
            }
        }
    }

    /// The `$metadata` bytes the store was opened with.
    package func metadataBytes() throws(ODataError) -> [UInt8] {
        try ensureOpen()
        guard let value = try storage.reader().systemValue(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.metadataKey),
              value.first == OfflineStoreFormat.metadataVersion else {
            throw .offlineCorrupted("stored metadata", "missing")
        }
        return Array(value.dropFirst())
    }

    /// Whether a store exists at the parameters' path (its folder holds an engine).
    package static func exists(_ parameters: OfflineStoreParameters) -> Bool {
        let folder = Self.folder(storePath: parameters.storePath, storeName: parameters.storeName)
        let fs = PosixFileSystem()
        guard fs.kind(of: folder) == .directory, let names = try? fs.list(folder) else { return false }
        return names.contains { $0.hasPrefix("MANIFEST-") }
    }

    /// Opens an existing store with the metadata it keeps (no network needed); `storeNotFound`
    /// (3267) when there is none.
    package static func openExisting(parameters: OfflineStoreParameters) async throws(ODataError) -> OfflineStore {
        guard exists(parameters) else {
            throw .offlineNoStoredMetadata(folder(storePath: parameters.storePath, storeName: parameters.storeName))
        }
        return try await open(metadata: nil, parameters: parameters)
    }

    /// Removes receive spools a crash left behind (nothing was applied from them). Called by `open`.
    func removeReceiveSpools() {
        // The engine's open listed the folder: a second listing was 7 % of a reopen (perf).
        for spool in engine.spoolsAtOpen where spool.hasPrefix(DownloadReceiver.spoolPrefix) {
            try? engine.removeSpool(spool)
        }
    }
}

extension ODataError {
    /// 3267: an existing store was expected (offline open) and the folder holds none.
    static func offlineNoStoredMetadata(_ path: String) -> ODataError {
        StoreErrorCode.storeNotFound.error("no store with its service metadata at '\(path)': open it online first", at: path)
    }
}

extension OfflineStore {
    static let initialDownloadKey = Array("initialDownload".utf8)

    /// Records that the provider's first download into this store completed. A store without it
    /// was being created when the process stopped: the provider clears it and starts over.
    package func markInitialDownloadComplete() throws(ODataError) {
        try ensureOpen()
        try storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
            try batch.putSystem(tree: OfflineStoreFormat.storeTree, key: Self.initialDownloadKey, value: [1])
        }
    }

    package func isInitialDownloadComplete() throws(ODataError) -> Bool {
        try ensureOpen()
        return try storage.reader().systemValue(tree: OfflineStoreFormat.storeTree, key: Self.initialDownloadKey) != nil
    }
}

extension OfflineStore {
    static func syncSettingKey(_ name: String) -> [UInt8] { Array("setting".utf8) + [0] + Array(name.utf8) }

    /// A sync setting kept in the store (the service root, so tools can download without being
    /// told it again).
    package func syncSetting(_ name: String) throws(ODataError) -> String? {
        try ensureOpen()
        guard let value = try storage.reader().systemValue(tree: OfflineStoreFormat.storeTree, key: Self.syncSettingKey(name)) else {
            return nil
        }
        return String(decoding: value, as: UTF8.self)
    }

    package func setSyncSetting(_ name: String, _ value: String) throws(ODataError) {
        try ensureOpen()
        try storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
            try batch.putSystem(tree: OfflineStoreFormat.storeTree, key: Self.syncSettingKey(name), value: Array(value.utf8))
        }
    }
}
