import Foundation
import OfflineODataModel
import OfflineODataStore
import Synchronization

/// The facade an app holds: an offline store bound to one OData service, with SAP's
/// `OfflineODataProvider` shape in Swift concurrency (docs/Sync.md §1).
///
///     let provider = try OfflineODataProvider(serviceRoot: "https://host/service/", parameters: parameters)
///     try await provider.open()                       // first time: $metadata + initial download
///     let orders = try provider.store.execute(.get, "SalesOrders?$top=20")   // local, offline
///     try await provider.download()                   // later: deltas, or full reconciles
///     try provider.close()
///
/// Local reads and writes go through `store` (the local OData service). Every download,
/// delta or full, is applied atomically across its defining queries; a failed, cancelled or
/// interrupted download changes nothing.
public final class OfflineODataProvider: Sendable {
    /// The service root, ending in `/`.
    public let serviceRoot: String
    let transport: any Transport
    let parameters: OfflineODataParameters
    let core = Mutex<Core>(Core())
    let progressHub = ProgressHub()

    struct Core {
        var store: OfflineStore?
        var customHeaders: [String: String] = [:]
        var customCookies: [String: String] = [:]
        var syncing = false
        /// The back end answered `$batch` with 404, 405 or 501: uploads send one request at a time.
        var batchUnsupported = false
        var running: Task<[DownloadSummary], any Error>?
        var uploading: Task<UploadSummary, any Error>?
        /// The CSRF token of this session (nil: none fetched yet, or the back end issues none).
        var csrfToken: String?
        var csrfFetched = false
    }

    public init(serviceRoot: String, parameters: OfflineODataParameters, transport: (any Transport)? = nil) throws(ODataError) {
        try parameters.validate()
        guard let url = URL(string: serviceRoot), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host != nil else {
            throw SyncErrorCode.invalidURL.error("the service root '\(serviceRoot)' is not an absolute http(s) URL", at: "serviceRoot")
        }
        var root = serviceRoot
        if let query = root.firstIndex(of: "?") { root = String(root[..<query]) }
        if !root.hasSuffix("/") { root += "/" }
        self.serviceRoot = root
        self.parameters = parameters
        self.transport = transport ?? Self.defaultTransport(timeout: parameters.timeout)
        core.withLock {
            $0.customHeaders = parameters.customHeaders
            $0.customCookies = parameters.customCookies
        }
    }

    /// The transport a provider uses when it is given none: `CurlTransport` on Linux (where
    /// FoundationNetworking spins while it waits for the answer to a write, see there), else
    /// `URLSessionTransport`; the latter too should libcurl fail to start.
    public static func defaultTransport(timeout: Double) -> any Transport {
        #if canImport(CCurl)
        if let curl = try? CurlTransport(timeout: timeout) { return curl }
        #endif
        return URLSessionTransport(timeout: timeout)
    }

    // MARK: lifecycle

    /// Opens the store. The first time (no store yet) it fetches `$metadata`, creates the store
    /// and downloads every defining query; a failure, a cancel or a crash during that first
    /// download leaves no store behind (the next `open` starts over). Every later `open` works
    /// offline.
    public func open() async throws(ODataError) {
        try core.withLock { (core: inout Core) throws(ODataError) in
            if core.store != nil { throw SyncErrorCode.busy.error("the provider is already open") }
            if core.syncing { throw SyncErrorCode.busy.error("the provider is opening") }
            core.syncing = true
        }
        defer { core.withLock { $0.syncing = false } }
        let storeParameters = parameters.storeParameters
        if OfflineStore.exists(storeParameters) {
            let existing: OfflineStore?
            do {
                existing = try await OfflineStore.openExisting(parameters: storeParameters)
            } catch where error.code == StoreErrorCode.storeNotFound.code {
                // Killed while the store was being created, before its metadata was in.
                existing = nil
            }
            guard let store = existing else {
                try OfflineStore.clear(storePath: storeParameters.storePath, storeName: storeParameters.storeName)
                return try await createAndDownload(storeParameters)
            }
            if try store.isInitialDownloadComplete() {
                do throws(ODataError) {
                    try registerMissingQueries(store)
                    try await switchUser(store)
                } catch {
                    try? store.close()
                    throw error
                }
                core.withLock { $0.store = store }
                return
            }
            // A first download that did not complete: start over.
            try store.close()
            try OfflineStore.clear(storePath: storeParameters.storePath, storeName: storeParameters.storeName)
        }
        try await createAndDownload(storeParameters)
    }

    /// The store setting that names the user of the last open.
    static let userSetting = "currentUser"

    /// Another user than last time opens the store (SAP's user switch): the previous user's
    /// queued requests are uploaded first (`forceUploadOnUserSwitch`) or the open fails; then the
    /// store is the new user's.
    func switchUser(_ store: OfflineStore) async throws(ODataError) {
        guard let user = parameters.currentUser else { return }
        let previous = try store.syncSetting(Self.userSetting)
        if let previous, previous != user {
            let queued = try store.requestQueue().count
            if queued > 0 {
                guard parameters.forceUploadOnUserSwitch else {
                    throw SyncErrorCode.previousUserChangesPending.error(
                        "user '\(user)' opens a store with \(queued) queued requests of user '\(previous)': upload them as '\(previous)' first, or open with forceUploadOnUserSwitch")
                }
                let summary: UploadSummary
                do {
                    summary = try await uploadNow(store, categories: nil)
                } catch {
                    throw SyncErrorCode.previousUserChangesPending.error(
                        "user '\(user)' opens a store with queued requests of user '\(previous)', and uploading them failed: \(error.name) (\(error.code)): \(error.message)")
                }
                let archived = try store.errorArchive().count
                guard summary.remaining == 0, archived == 0 else {
                    throw SyncErrorCode.previousUserChangesPending.error(
                        "user '\(user)' opens a store with requests of user '\(previous)': \(summary.failed) failed in the upload (\(archived) in the ErrorArchive), \(summary.remaining) still queued")
                }
            }
        }
        if previous != user { try store.setSyncSetting(Self.userSetting, user) }
    }

    /// The first open: `$metadata`, a new store, every defining query downloaded; on any
    /// failure the store is cleared again.
    private func createAndDownload(_ storeParameters: OfflineStoreParameters) async throws(ODataError) {
        progressHub.publish(SyncProgress(step: .fetchingMetadata))
        let metadata = try await fetchMetadata()
        var created = storeParameters
        created.definingQueries = parameters.definingQueries
        let store = try await OfflineStore.open(metadata: metadata, parameters: created)
        do throws(ODataError) {
            try store.setSyncSetting(Self.serviceRootSetting, serviceRoot)
            if let user = parameters.currentUser { try store.setSyncSetting(Self.userSetting, user) }
            _ = try await runInitialDownload(store)
            try store.markInitialDownloadComplete()
        } catch {
            try? store.close()
            try? OfflineStore.clear(storePath: storeParameters.storePath, storeName: storeParameters.storeName)
            throw error
        }
        core.withLock { $0.store = store }
        progressHub.publish(SyncProgress(step: .done))
    }

    /// Closes the store (a running download is cancelled first).
    public func close() throws(ODataError) {
        let (store, running) = core.withLock { core -> (OfflineStore?, Task<[DownloadSummary], any Error>?) in
            defer { core.store = nil }
            return (core.store, core.running)
        }
        running?.cancel()
        guard let store else { throw SyncErrorCode.notOpen.error("close: the provider is not open") }
        try store.close()
    }

    /// Removes the store's files (the provider must be closed).
    public func clear() throws(ODataError) {
        if core.withLock({ $0.store != nil }) { throw SyncErrorCode.busy.error("clear: close the provider first") }
        try OfflineStore.clear(storePath: parameters.storePath, storeName: parameters.storeName)
    }

    /// The open store: local OData requests (`execute`), queries, the RequestQueue and
    /// ErrorArchive. Throws `providerNotOpen` before `open` and after `close`.
    public var store: OfflineStore {
        get throws(ODataError) {
            guard let store = core.withLock({ $0.store }) else { throw SyncErrorCode.notOpen.error("the provider is not open") }
            return store
        }
    }

    /// Changes one custom header sent with every later request (nil removes it).
    public func setCustomHeader(_ name: String, _ value: String?) throws(ODataError) {
        var probe = parameters
        probe.customHeaders = [name: value ?? ""]
        try probe.validate()
        core.withLock { $0.customHeaders[name] = value }
    }

    public var customHeaders: [String: String] { core.withLock { $0.customHeaders } }

    /// Changes one custom cookie sent with every later request (nil removes it).
    public func setCustomCookie(_ name: String, _ value: String?) throws(ODataError) {
        var probe = parameters
        probe.customCookies = [name: value ?? ""]
        try probe.validate()
        core.withLock { $0.customCookies[name] = value }
    }

    public var customCookies: [String: String] { core.withLock { $0.customCookies } }

    // MARK: defining queries

    public var definingQueries: [DefiningQuery] {
        get throws(ODataError) { try store.definingQueries() }
    }

    /// Adds a defining query; the next download fetches it.
    public func add(definingQuery query: DefiningQuery) throws(ODataError) {
        try store.addDefiningQuery(query)
    }

    /// Removes a defining query and the entities only it covered (refused while one of them has
    /// pending changes).
    public func remove(definingQuery name: String) throws(ODataError) {
        try store.removeDefiningQuery(named: name)
    }

    /// Changes a defining query's URL at runtime (SAP's users must recreate the store for
    /// this): the next download moves exactly the difference, keeping pending changes.
    public func update(definingQuery query: DefiningQuery) throws(ODataError) {
        try store.replaceDefiningQuery(query)
    }

    /// True while a defining query has not been downloaded yet (added since the last download).
    public var hasPendingDownload: Bool {
        get throws(ODataError) {
            let store = try self.store
            for query in try store.definingQueries() where try store.syncState(of: query.name) == nil { return true }
            return false
        }
    }

    // MARK: download

    /// Downloads every defining query (or those named in `subset`): a delta where the back end's
    /// delta link can be trusted, else the whole query, whose result replaces what it returned
    /// before (docs/Sync.md §3). Also checks `$metadata`: an additive change upgrades the store,
    /// another is `incompatibleServiceMetadata` and changes nothing. Readers see the store as it
    /// was until the whole download is applied. Cancel with `cancelDownload()` or by cancelling
    /// the calling task: nothing of a cancelled download is applied.
    @discardableResult
    public func download(subset: [String]? = nil) async throws(ODataError) -> [DownloadSummary] {
        let store = try self.store
        return try await runSync("download", busy: "a download is already running", slot: \.running) { () async throws(ODataError) in
            try await self.downloadNow(store, subset: subset)
        }
    }

    /// Runs a download or an upload: one at a time per provider, in a task kept in `slot`, which
    /// `cancelDownload`/`cancelUpload` and the caller's own cancellation stop.
    func runSync<T: Sendable>(_ what: String, busy: String, slot: WritableKeyPath<Core, Task<T, any Error>?>,
                              _ body: @escaping @Sendable () async throws(ODataError) -> T) async throws(ODataError) -> T {
        try core.withLock { (core: inout Core) throws(ODataError) in
            if core.syncing { throw SyncErrorCode.busy.error(busy) }
            core.syncing = true
        }
        defer { core.withLock { $0.syncing = false; $0[keyPath: slot] = nil } }
        let task = Task { () async throws -> T in try await body() }
        core.withLock { $0[keyPath: slot] = task }
        do {
            return try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        } catch let error as ODataError {
            throw error
        } catch {
            throw SyncErrorCode.cancelled.error("the \(what) ended: \(error)")
        }
    }

    /// Cancels a running download (nothing of it is applied).
    public func cancelDownload() {
        let task = core.withLock { $0.running }
        task?.cancel()
    }

    /// Progress of opens and downloads, for as long as the caller iterates.
    public func progress() -> AsyncStream<SyncProgress> { progressHub.subscribe() }

    func downloadNow(_ opened: OfflineStore, subset: [String]?) async throws(ODataError) -> [DownloadSummary] {
        var store = opened
        if let subset {
            let known = Set(try store.definingQueries().map(\.name))
            for name in subset where !known.contains(name) {
                throw SyncErrorCode.unknownDefiningQuery.error("download(subset:) names '\(name)', which is not a defining query", at: name)
            }
        }
        progressHub.publish(SyncProgress(step: .fetchingMetadata))
        let known = try store.metadataBytes()
        let metadata = try await fetchMetadata(known: known)
        var upgraded = false
        if metadata != known {
            store = try await upgrade(store, to: metadata)
            upgraded = true
        }
        let summaries = try await runDownload(store, names: subset, forceFull: upgraded)
        progressHub.publish(SyncProgress(step: .done))
        return summaries
    }

    /// Reopens the store with the back end's new `$metadata`: additive changes are taken in
    /// place (data, indexes and the queue kept); anything else reopens the old store unchanged
    /// and throws `incompatibleServiceMetadata`.
    func upgrade(_ store: OfflineStore, to metadata: [UInt8]) async throws(ODataError) -> OfflineStore {
        let storeParameters = parameters.storeParameters
        try store.close()
        core.withLock { $0.store = nil }
        do {
            let upgraded = try await OfflineStore.open(metadata: metadata, parameters: storeParameters)
            core.withLock { $0.store = upgraded }
            return upgraded
        } catch {
            let old = try await OfflineStore.openExisting(parameters: storeParameters)
            core.withLock { $0.store = old }
            throw SyncErrorCode.incompatibleMetadata.error("the back end's new $metadata cannot upgrade the store: \(error.message)",
                                                          at: "$metadata")
        }
    }

    static let serviceRootSetting = "serviceRoot"

    /// The service root a store was created for (nil: no store, or one not made by a provider).
    /// Opens the store offline for a moment.
    public static func storedServiceRoot(parameters: OfflineODataParameters) async throws(ODataError) -> String? {
        let storeParameters = parameters.storeParameters
        guard OfflineStore.exists(storeParameters) else { return nil }
        let store = try await OfflineStore.openExisting(parameters: storeParameters)
        defer { try? store.close() }
        return try store.syncSetting(serviceRootSetting)
    }

    func registerMissingQueries(_ store: OfflineStore) throws(ODataError) {
        let known = Set(try store.definingQueries().map(\.name))
        for query in parameters.definingQueries where !known.contains(query.name) { try store.addDefiningQuery(query) }
    }
}

/// Where an open or a download is (SAP's operation steps, docs/Sync.md §1.3).
public struct SyncProgress: Sendable, Hashable {
    public enum Step: String, Sendable, Hashable {
        case fetchingMetadata
        case processingDefiningQueries
        case receivingDataFromServer
        case applyingDownload
        /// Fetching the media of defining queries with `automaticallyRetrievesStreams`
        /// (`bytesReceived` counts their bytes).
        case receivingStreams
        case sendingRequests
        case done
    }

    public var step: Step
    public var definingQuery: String?
    public var pagesReceived: Int
    public var bytesReceived: Int
    public var entitiesApplied: Int

    public init(step: Step, definingQuery: String? = nil, pagesReceived: Int = 0, bytesReceived: Int = 0, entitiesApplied: Int = 0) {
        self.step = step
        self.definingQuery = definingQuery
        self.pagesReceived = pagesReceived
        self.bytesReceived = bytesReceived
        self.entitiesApplied = entitiesApplied
    }
}

/// Fans progress out to every subscriber.
final class ProgressHub: Sendable {
    private let subscribers = Mutex<[Int: AsyncStream<SyncProgress>.Continuation]>([:])
    private let next = Mutex(0)

    func subscribe() -> AsyncStream<SyncProgress> {
        let id = next.withLock { n -> Int in
            n += 1
            return n
        }
        let (stream, continuation) = AsyncStream<SyncProgress>.makeStream(bufferingPolicy: .bufferingNewest(64))
        continuation.onTermination = { [weak self] _ in _ = self?.subscribers.withLock { $0.removeValue(forKey: id) } }
        subscribers.withLock { $0[id] = continuation }
        return stream
    }

    func publish(_ progress: SyncProgress) {
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield(progress) }
    }
}
