import OfflineODataModel
import OfflineODataEngine
import OfflineODataStore

/// How an `OfflineODataProvider` opens its store and talks to the back end: SAP's
/// `OfflineODataParameters` in Swift (the mapping of every member is in docs/Sync.md §1.2).
public struct OfflineODataParameters: Sendable {
    /// The store's name; its files live in `<storePath>/<storeName>.oostore`.
    public var storeName: String
    /// The directory that holds the store folder.
    public var storePath: String
    public var encryption: StoreEncryption
    /// Defining queries given at open (kept in the store; more can be added later).
    public var definingQueries: [DefiningQuery]
    /// Headers sent with every request to the back end (changeable after open with
    /// `OfflineODataProvider.setCustomHeader`).
    public var customHeaders: [String: String]
    /// Cookies sent with every request (`Cookie: name=value; …`), changeable after open with
    /// `OfflineODataProvider.setCustomCookie` (session cookies the back end sets are kept by the
    /// transport).
    public var customCookies: [String: String] = [:]
    /// Seconds an exchange may take.
    public var timeout: Double
    /// The page size asked of the back end (`Prefer: odata.maxpagesize`), sent on the first
    /// request and again on every next link.
    public var pageSize: Int
    /// Every `reconcileEvery`-th download of a defining query reads it in full even when a delta
    /// link is kept (a back end can lose changes silently: a restart that resets its tokens, an
    /// entity that leaves a filter). 1: every download is a full one.
    public var reconcileEvery: Int
    /// Which defining queries follow delta links.
    public var deltaTrust: DeltaTrust
    /// Send `Repeatability-Request-ID` and `Repeatability-First-Sent` (OASIS Repeatable Requests
    /// 1.0) with every upload request, fixed before its first send and the same on every retry
    /// (SAP's `enableRepeatableRequests`, on by default).
    public var enableRepeatableRequests = true
    /// How an upload sends the queue: in `$batch` requests (change sets by transaction ID) or
    /// one request at a time. `.automatic` sends batches until the back end answers `$batch`
    /// with 404, 405 or 501, then one at a time.
    public var uploadBatching: UploadBatching = .automatic
    /// The form of `$batch` requests: multipart, or JSON (OData 4.01); `.automatic` sends JSON to
    /// a service whose `$metadata` says 4.01 and multipart to the others.
    public var uploadBatchFormat: UploadBatchFormat = .automatic
    /// Requests in one `$batch` at most (a change set is never split).
    public var maxRequestsPerBatch = 100
    /// Streams fetched at once after a download with `automaticallyRetrievesStreams`.
    public var maxConcurrentMediaDownloads = 4
    /// Inside a change set, a request on an entity created earlier in it with a generated
    /// (temporary) key names it by Content-ID (`$1`), as OData allows. Off for a back end that
    /// answers `$1` with 404 (mock-sap, Gateway without deferred processing): the create then
    /// goes alone first and the later requests are re-keyed before they are sent. Nil (the
    /// default): on for a V4 service, off for a V2 one.
    public var contentIDReferences: Bool?
    /// The user the app opens the store for (SAP's `currentUser`). The store remembers the user
    /// of its last open; when another user opens it with requests still queued, they are
    /// uploaded first if `forceUploadOnUserSwitch`, else `open()` fails with
    /// `previousUserChangesPending` naming the previous user (as it does when that upload fails).
    public var currentUser: String?
    /// See `currentUser` (SAP's `forceUploadOnUserSwitch`, off by default).
    public var forceUploadOnUserSwitch = false
    /// SAP's client (`sap-client`, e.g. "100"), sent as a header with every request.
    public var sapClient: String?
    /// Fetch a CSRF token (`X-CSRF-Token: Fetch`) before the first write of a session and send
    /// it with every write; a `403` with `x-csrf-token: Required` fetches a new one and retries
    /// once (SAP Gateway). A back end that issues no token is sent none.
    public var csrfProtection = true
    /// A page larger than this is `pageTooLarge` (it cannot be a page of `pageSize` entities).
    public var maxPageBytes: Int
    /// Pages of one defining query at most (a back end whose next links loop).
    public var maxPages: Int
    /// Page size of the local service's GET results (nil: one page).
    public var localPageSize: Int?
    /// Durability of local commits (`.full`: each commit returns after fdatasync).
    public var durability: EngineOptions.Durability
    /// The store's block cache (`OfflineStoreParameters.cacheSize`): bytes of decoded blocks kept
    /// in memory for reads (32 MiB by default).
    public var cacheSize = 32 << 20
    /// Downloaded JSON per commit (`OfflineStoreParameters.downloadBatchBytes`): a download that
    /// fits is applied in one commit, a larger one is staged and applied in commits of about
    /// this size, so memory does not grow with it (1 MiB by default).
    public var downloadBatchBytes = OfflineStoreParameters.defaultDownloadBatchBytes
    /// Argon2id cost for `.passphrase`.
    public var keyDerivation: EngineOptions.KeyDerivation
    /// Secondary indexes declared on open.
    public var indexes: [IndexDefinition]

    public init(storeName: String = "localstore", storePath: String, encryption: StoreEncryption,
                definingQueries: [DefiningQuery] = [], customHeaders: [String: String] = [:], timeout: Double = 60,
                pageSize: Int = 1000, reconcileEvery: Int = 10, deltaTrust: DeltaTrust = .unfilteredSingleSet,
                maxPageBytes: Int = 256 << 20, maxPages: Int = 1_000_000, localPageSize: Int? = nil,
                durability: EngineOptions.Durability = .full, keyDerivation: EngineOptions.KeyDerivation = .interactive,
                indexes: [IndexDefinition] = []) {
        self.storeName = storeName
        self.storePath = storePath
        self.encryption = encryption
        self.definingQueries = definingQueries
        self.customHeaders = customHeaders
        self.timeout = timeout
        self.pageSize = pageSize
        self.reconcileEvery = reconcileEvery
        self.deltaTrust = deltaTrust
        self.maxPageBytes = maxPageBytes
        self.maxPages = maxPages
        self.localPageSize = localPageSize
        self.durability = durability
        self.keyDerivation = keyDerivation
        self.indexes = indexes
    }

    /// The form of an upload's `$batch` requests.
    public enum UploadBatchFormat: String, Sendable, Hashable {
        case automatic
        case multipart
        case json
    }

    /// How an upload sends the queue.
    public enum UploadBatching: String, Sendable, Hashable {
        /// `$batch`, falling back to single requests when the back end has none.
        case automatic
        /// One request at a time.
        case never
    }

    /// Which defining queries follow delta links.
    public enum DeltaTrust: String, Sendable, Hashable {
        /// Only queries of one entity set without `$filter` or `$expand`: both reference back ends
        /// lose entities that leave a filter and changes to expanded children (docs/Sync.md §3.3).
        case unfilteredSingleSet
        /// Every query (a back end known to track filtered and expanded deltas).
        case always
        /// None: every download reads every query in full.
        case never
    }

    var storeParameters: OfflineStoreParameters {
        OfflineStoreParameters(storeName: storeName, storePath: storePath, encryption: encryption, pageSize: localPageSize,
                               definingQueries: [], durability: durability, cacheSize: cacheSize, indexes: indexes,
                               keyDerivation: keyDerivation, downloadBatchBytes: downloadBatchBytes)
    }

    func validate() throws(ODataError) {
        func bad(_ name: String, _ reason: String) -> ODataError {
            SyncErrorCode.invalidParameter.error("parameter '\(name)' \(reason)", at: name)
        }
        guard pageSize >= 1 else { throw bad("pageSize", "is \(pageSize) (at least 1)") }
        guard reconcileEvery >= 1 else { throw bad("reconcileEvery", "is \(reconcileEvery) (at least 1)") }
        guard timeout > 0, timeout.isFinite else { throw bad("timeout", "is \(timeout) (a positive number of seconds)") }
        guard maxPageBytes >= 1024 else { throw bad("maxPageBytes", "is \(maxPageBytes) (at least 1024)") }
        guard cacheSize >= 0 else { throw bad("cacheSize", "is negative") }
        guard downloadBatchBytes >= 1 else { throw bad("downloadBatchBytes", "is \(downloadBatchBytes) (at least 1)") }
        guard maxPages >= 1 else { throw bad("maxPages", "is \(maxPages) (at least 1)") }
        if let sapClient, sapClient.isEmpty || !sapClient.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            throw bad("sapClient", "is '\(sapClient)' (digits, as 100)")
        }
        guard maxRequestsPerBatch >= 1 else { throw bad("maxRequestsPerBatch", "is \(maxRequestsPerBatch) (at least 1)") }
        for (name, value) in customCookies {
            guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "=") && $0 != UInt8(ascii: ";") }),
                  value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ";") }) else {
                throw bad("customCookies", "has an invalid cookie '\(name)'")
            }
        }
        for (name, value) in customHeaders {
            guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }) else {
                throw bad("customHeaders", "has an invalid header name '\(name)'")
            }
            guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) else {
                throw bad("customHeaders", "has a line break in the value of '\(name)'")
            }
        }
    }
}
