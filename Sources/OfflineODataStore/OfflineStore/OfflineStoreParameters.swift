import OfflineODataEngine
import OfflineODataModel

/// How `OfflineStore.open` opens a store (docs/OfflineStore.md §2).
public struct OfflineStoreParameters: Sendable {
    /// The default `downloadBatchBytes`: 1 MiB of downloaded JSON per commit.
    public static let defaultDownloadBatchBytes = 1 << 20
    /// The default `removalBatchSize`: 4,096 members per commit.
    public static let defaultRemovalBatchSize = 4096
    /// The store's name; its files live in `<storePath>/<storeName>.oostore`.
    public var storeName: String
    /// The directory that holds the store folder (created when missing).
    public var storePath: String
    public var encryption: StoreEncryption
    /// Server-driven paging of GET results (nil: every result in one page).
    public var pageSize: Int?
    /// Defining queries added on open (those already stored are kept; same name and URL is fine).
    public var definingQueries: [DefiningQuery]
    /// SAP's "individual ErrorArchive deletion" (default off).
    public var individualErrorArchiveDeletion: Bool
    public var durability: EngineOptions.Durability
    /// Block cache size in bytes.
    public var cacheSize: Int
    /// Secondary indexes declared on open (built for existing data).
    public var indexes: [IndexDefinition]
    /// Argon2id cost for `.passphrase` (an addition to the contract; tests use `.minimum`).
    public var keyDerivation: EngineOptions.KeyDerivation
    /// Bytes of downloaded OData JSON that `applyDownload` holds in memory at once (default
    /// 1 MiB: measured with store-bench, 4 MiB cost about 25 MiB more peak memory at 100k and
    /// 1M entities for no gain in throughput). A download up to this size is applied in one commit; a larger one is staged in
    /// the store and applied in commits of about this size, so memory stays bounded whatever
    /// the download's size (docs/OfflineStore.md §7).
    public var downloadBatchBytes: Int
    /// Members of a defining query that `removeDefiningQuery` (and the resumption of a removal
    /// a crash interrupted, on open) removes per commit (default 4,096): the removal's memory
    /// and the size of each commit stay bounded whatever the query's size (docs/OfflineStore.md
    /// §5). Small values only make sense for tests: the crash test uses a few members per commit
    /// so that a kill lands between commits of one removal.
    public var removalBatchSize: Int
    /// Threads that read downloaded pages (JSON to entities) ahead of the commits that apply
    /// them (docs/OfflineStore.md §7.2). nil (the default): automatic, the online processors
    /// while a large download is staged and one fewer while it is applied, 1...4 each; 0: no
    /// thread, each page is read when it is applied (the least memory: the extra threads cost
    /// about 10 MiB of peak RSS in the 100k-entity store benchmark and saved about a fifth of
    /// its download time on 2 processors, docs/OfflineStore.md §7.2); at most 64.
    public var downloadReaders: Int?

    public init(storeName: String = "localstore", storePath: String, encryption: StoreEncryption,
                pageSize: Int? = nil, definingQueries: [DefiningQuery] = [], individualErrorArchiveDeletion: Bool = false,
                durability: EngineOptions.Durability = .full, cacheSize: Int = 32 << 20, indexes: [IndexDefinition] = [],
                keyDerivation: EngineOptions.KeyDerivation = .interactive, downloadBatchBytes: Int = OfflineStoreParameters.defaultDownloadBatchBytes,
                removalBatchSize: Int = OfflineStoreParameters.defaultRemovalBatchSize, downloadReaders: Int? = nil) {
        self.storeName = storeName
        self.storePath = storePath
        self.encryption = encryption
        self.pageSize = pageSize
        self.definingQueries = definingQueries
        self.individualErrorArchiveDeletion = individualErrorArchiveDeletion
        self.durability = durability
        self.cacheSize = cacheSize
        self.indexes = indexes
        self.keyDerivation = keyDerivation
        self.downloadBatchBytes = downloadBatchBytes
        self.removalBatchSize = removalBatchSize
        self.downloadReaders = downloadReaders
    }

    /// `<storePath>/<storeName>.oostore`.
    public var storeFolder: String { OfflineStore.folder(storePath: storePath, storeName: storeName) }

    func validate() throws(ODataError) {
        try OfflineStore.validateName(storeName)
        guard !storePath.isEmpty else { throw .offlineInvalidParameter("storePath", "is empty") }
        if let pageSize, pageSize < 1 { throw .offlineInvalidParameter("pageSize", "is \(pageSize) (at least 1)") }
        guard cacheSize >= 0 else { throw .offlineInvalidParameter("cacheSize", "is negative") }
        guard downloadBatchBytes >= 1 else {
            throw .offlineInvalidParameter("downloadBatchBytes", "is \(downloadBatchBytes) (at least 1)")
        }
        guard removalBatchSize >= 1 else {
            throw .offlineInvalidParameter("removalBatchSize", "is \(removalBatchSize) (at least 1)")
        }
        if let downloadReaders, !(0...64).contains(downloadReaders) {
            throw .offlineInvalidParameter("downloadReaders", "is \(downloadReaders) (0...64, or nil for automatic)")
        }
    }
}

/// The states of an open store, reported by `OfflineStore.states`.
public enum OfflineStoreState: Sendable, Hashable {
    case opening, open, downloading, closed
}

/// Progress of `applyDownload`: after each page received, and after each commit that
/// applies pages.
public struct DownloadProgress: Sendable, Hashable {
    public var definingQuery: String
    /// Pages applied to the store's entities so far.
    public var pagesApplied: Int
    /// Entities (top-level and expanded) applied so far.
    public var entitiesApplied: Int
    /// Pages read from the sequence so far (a staged download receives every page before it
    /// applies the first).
    public var pagesReceived: Int

    public init(definingQuery: String, pagesApplied: Int, entitiesApplied: Int, pagesReceived: Int = 0) {
        self.definingQuery = definingQuery
        self.pagesApplied = pagesApplied
        self.entitiesApplied = entitiesApplied
        self.pagesReceived = pagesReceived
    }
}

/// What `applyDownload` did.
public struct DownloadSummary: Sendable, Hashable {
    public var definingQuery: String
    /// Entities of the download stored (top-level and expanded).
    public var entitiesApplied: Int
    /// Entities removed because the defining query no longer returned them (and no other covers them).
    public var entitiesRemoved: Int
    /// Downloaded entities with pending local changes whose local version was kept.
    public var pendingChangesKept: Int
    /// Entities (or whole pages) of a staged download that the store refused while applying
    /// them (each logged in the EventLog as `DownloadRejected`); always 0 for a download
    /// applied in one commit, which throws instead.
    public var entitiesRejected: Int

    public init(definingQuery: String, entitiesApplied: Int, entitiesRemoved: Int, pendingChangesKept: Int,
                entitiesRejected: Int = 0) {
        self.definingQuery = definingQuery
        self.entitiesApplied = entitiesApplied
        self.entitiesRemoved = entitiesRemoved
        self.pendingChangesKept = pendingChangesKept
        self.entitiesRejected = entitiesRejected
    }
}

/// `OfflineStore.stats()`.
public struct StoreStatistics: Sendable, Hashable {
    /// Entities per application entity set (the built-in sets are not counted here).
    public var entityCounts: [String: Int]
    public var queuedRequests: Int
    public var failedRequests: Int
    /// Durable syncs of the log (each one `fdatasync`) since the store was opened: commits made
    /// at once from several threads share them (group commit, docs/StorageFormat.md).
    public var logSyncs: UInt64

    public init(entityCounts: [String: Int], queuedRequests: Int, failedRequests: Int, logSyncs: UInt64 = 0) {
        self.entityCounts = entityCounts
        self.queuedRequests = queuedRequests
        self.failedRequests = failedRequests
        self.logSyncs = logSyncs
    }
}
