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

    static let counter = Mutex<UInt64>(0)
    /// Receive spools are named `sync-<n>`; `open` removes any a crash left behind.
    static let spoolPrefix = "sync-"

    init(definingQuery: String, engine: StorageEngine, memoryLimit: Int) {
        self.definingQuery = definingQuery
        self.engine = engine
        self.memoryLimit = max(0, memoryLimit)
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
        let writer: SpoolWriter
        if let spool {
            writer = spool
        } else {
            let engine = self.engine, name = spoolName
            writer = try mapEngine("creating a receive spool") { () throws(EngineError) in try engine.createSpool(name) }
            spool = writer
        }
        try mapEngine("spooling a received page") { () throws(EngineError) in try writer.append(page) }
        spooled += 1
    }

    /// The pages in arrival order (the spool is synced first).
    func source() throws(ODataError) -> ReceivedPageSource {
        var reader: SpoolReader?
        if let spool {
            try mapEngine("syncing a receive spool") { () throws(EngineError) in try spool.finish() }
            let engine = self.engine, name = spoolName
            reader = try mapEngine("opening a receive spool") { () throws(EngineError) in try engine.openSpool(name) }
            guard reader != nil else { throw .offlineCorrupted("receive spool of '\(definingQuery)'", "it is missing") }
        }
        return ReceivedPageSource(memory: memory, spool: reader, spooled: spooled, name: definingQuery)
    }

    /// Removes the spool (after the apply, or when the download is abandoned).
    package func discard() {
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
    package func makeReceiver(for definingQuery: String) throws(ODataError) -> DownloadReceiver {
        try ensureOpen()
        return DownloadReceiver(definingQuery: definingQuery, engine: engine, memoryLimit: downloadBatchBytes)
    }

    /// Applies received downloads, in order, in one exclusive session with readers pinned to the
    /// state before it: readers see every query's old data or every query's new data, never a
    /// mix. Each query's data and its sync state commit together (a crash between two queries
    /// leaves the first applied with its new state, the second as before with its old state;
    /// both are consistent). The receivers' spools are removed.
    package func applySyncDownloads(_ downloads: [SyncDownload],
                                    progress: (@Sendable (DownloadProgress) -> Void)? = nil) async throws(ODataError) -> [DownloadSummary] {
        try ensureOpen()
        defer { for download in downloads { download.pages.discard() } }
        var plans: [(SyncDownload, String)] = []
        for download in downloads {
            guard let query = try definingQuery(named: download.definingQuery) else {
                throw .offlineDefiningQueryNotFound(download.definingQuery)
            }
            plans.append((download, try validate(query)))
        }
        broadcaster.set(.downloading)
        defer { if isOpen.withLock({ $0 }) { broadcaster.set(.open) } }
        let service = self.service
        let limit = downloadBatchBytes, readers = downloadReaders
        return try downloadLock.withLock { _ throws(ODataError) -> [DownloadSummary] in
            try storage.exclusive(pinningReaders: true) { writer throws(ODataError) -> [DownloadSummary] in
                var summaries: [DownloadSummary] = []
                for (download, set) in plans {
                    if Task.isCancelled { throw .offlineCancelled("the download of '\(download.definingQuery)'") }
                    var source = try download.pages.source()
                    switch download.mode {
                    case .full:
                        var apply = DownloadApply(name: download.definingQuery, set: set, service: service, writer: writer,
                                                  limit: limit, readers: readers, progress: progress)
                        apply.syncState = download.state
                        apply.eventDetails = " mode=full"
                        summaries.append(try apply.run(pages: &source))
                    case .delta:
                        var apply = DeltaApply(name: download.definingQuery, set: set, service: service, writer: writer,
                                               limit: limit, state: download.state)
                        summaries.append(try apply.run(pages: &source))
                    }
                }
                return summaries
            }
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
        let fs = PosixFileSystem()
        guard let names = try? fs.list(folder) else { return }
        for name in names where name.hasPrefix("spool-" + DownloadReceiver.spoolPrefix) && name.hasSuffix(".oospool") {
            let spool = String(name.dropFirst("spool-".count).dropLast(".oospool".count))
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
