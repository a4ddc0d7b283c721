import OfflineODataEngine
import OfflineODataModel

/// How `OfflineStore.open` opens a store (docs/OfflineStore.md §2).
public struct OfflineStoreParameters: Sendable {
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

    public init(storeName: String = "localstore", storePath: String, encryption: StoreEncryption,
                pageSize: Int? = nil, definingQueries: [DefiningQuery] = [], individualErrorArchiveDeletion: Bool = false,
                durability: EngineOptions.Durability = .full, cacheSize: Int = 32 << 20, indexes: [IndexDefinition] = [],
                keyDerivation: EngineOptions.KeyDerivation = .interactive) {
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
    }

    /// `<storePath>/<storeName>.oostore`.
    public var storeFolder: String { OfflineStore.folder(storePath: storePath, storeName: storeName) }

    func validate() throws(ODataError) {
        try OfflineStore.validateName(storeName)
        guard !storePath.isEmpty else { throw .offlineInvalidParameter("storePath", "is empty") }
        if let pageSize, pageSize < 1 { throw .offlineInvalidParameter("pageSize", "is \(pageSize) (at least 1)") }
        guard cacheSize >= 0 else { throw .offlineInvalidParameter("cacheSize", "is negative") }
    }
}

/// The states of an open store, reported by `OfflineStore.states`.
public enum OfflineStoreState: Sendable, Hashable {
    case opening, open, downloading, closed
}

/// Progress of `applyDownload`, after each page.
public struct DownloadProgress: Sendable, Hashable {
    public var definingQuery: String
    public var pagesApplied: Int
    public var entitiesApplied: Int

    public init(definingQuery: String, pagesApplied: Int, entitiesApplied: Int) {
        self.definingQuery = definingQuery
        self.pagesApplied = pagesApplied
        self.entitiesApplied = entitiesApplied
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

    public init(definingQuery: String, entitiesApplied: Int, entitiesRemoved: Int, pendingChangesKept: Int) {
        self.definingQuery = definingQuery
        self.entitiesApplied = entitiesApplied
        self.entitiesRemoved = entitiesRemoved
        self.pendingChangesKept = pendingChangesKept
    }
}

/// `OfflineStore.stats()`.
public struct StoreStatistics: Sendable, Hashable {
    /// Entities per application entity set (the built-in sets are not counted here).
    public var entityCounts: [String: Int]
    public var queuedRequests: Int
    public var failedRequests: Int

    public init(entityCounts: [String: Int], queuedRequests: Int, failedRequests: Int) {
        self.entityCounts = entityCounts
        self.queuedRequests = queuedRequests
        self.failedRequests = failedRequests
    }
}
