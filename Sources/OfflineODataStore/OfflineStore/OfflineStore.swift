import OfflineODataEngine
import OfflineODataModel
import OfflineODataQuery
import Synchronization

/// An offline OData store (docs/OfflineStore.md): one storage engine folder
/// (`<storePath>/<storeName>.oostore`) holding the entities of a service, the request queue
/// and the defining queries; a local OData service over it (`execute`), typed reads (`query`),
/// and the apply of downloaded data (`applyDownload`).
///
/// Several stores can be open in one process, each isolated; opening the same folder twice in
/// one process throws `storeAlreadyOpen` (3250), in another process `storeLockedByOtherProcess`
/// (3266). Every method after `close()` throws `storeClosed` (3252).
public final class OfflineStore: Sendable {
    /// The application's model with the offline system sets (`RequestQueue`, `ErrorArchive`, `EventLog`).
    public let model: ServiceModel
    /// The local service: typed writes, undo, `markFailed`, the queue.
    package let service: LocalService
    /// The entity storage underneath (indexes, raw reads).
    package let storage: EntityStorage
    /// `<storePath>/<storeName>.oostore`, with `storePath` resolved to an absolute path.
    public let folder: String
    /// The page size of GET results.
    public let pageSize: Int?
    /// `OfflineStoreParameters.downloadBatchBytes`.
    public let downloadBatchBytes: Int
    /// `OfflineStoreParameters.removalBatchSize`.
    public let removalBatchSize: Int
    /// `OfflineStoreParameters.downloadReaders`.
    public let downloadReaders: Int?
    let engine: StorageEngine
    let broadcaster: StateBroadcaster
    let isOpen = Mutex<Bool>(true)
    /// Serializes `applyDownload` and defining-query changes (membership must not race).
    let downloadLock = Mutex<Int>(0)

    /// Folders of the stores open in this process.
    static let openFolders = Mutex<Set<String>>([])

    init(model: ServiceModel, service: LocalService, storage: EntityStorage, folder: String, pageSize: Int?,
         downloadBatchBytes: Int, removalBatchSize: Int, downloadReaders: Int?, engine: StorageEngine, broadcaster: StateBroadcaster) {
        self.downloadBatchBytes = downloadBatchBytes
        self.removalBatchSize = removalBatchSize
        self.downloadReaders = downloadReaders
        self.model = model
        self.service = service
        self.storage = storage
        self.folder = folder
        self.pageSize = pageSize
        self.engine = engine
        self.broadcaster = broadcaster
    }

    // MARK: lifecycle

    /// Opens (creating when missing) the store for the service described by `metadata`
    /// (CSDL XML V4 or EDMX V2), declares the parameters' defining queries and indexes.
    public static func open(metadata: [UInt8], parameters: OfflineStoreParameters) async throws(ODataError) -> OfflineStore {
        try await open(metadata: Optional(metadata), parameters: parameters)
    }

    /// `metadata` nil: an existing store, opened with the metadata it keeps (`openExisting`).
    static func open(metadata given: [UInt8]?, parameters: OfflineStoreParameters) async throws(ODataError) -> OfflineStore {
        try parameters.validate()
        // New metadata is checked before anything is created.
        let givenModel = try given.map { (bytes: [UInt8]) throws(ODataError) -> (model: ServiceModel, digest: [UInt8]) in
            try parsedMetadata(bytes)
        }
        let folder = try resolvedFolder(parameters, create: given != nil)
        try openFolders.withLock { (open: inout Set<String>) throws(ODataError) in
            guard open.insert(folder).inserted else { throw .offlineStoreAlreadyOpen(folder) }
        }
        var engine: StorageEngine?
        do throws(ODataError) {
            var options = EngineOptions(encryption: try parameters.encryption.engineEncryption(storeFolder: folder))
            options.durability = parameters.durability
            options.cacheSize = parameters.cacheSize
            options.keyDerivation = parameters.keyDerivation
            let opened: StorageEngine
            do throws(EngineError) {
                opened = try StorageEngine.open(path: folder, options: options)
            } catch {
                throw ODataError.offlineOpen(error, path: folder)
            }
            engine = opened
            let metadata: [UInt8]
            let parsed: (model: ServiceModel, digest: [UInt8])
            if let given, let givenModel {
                (metadata, parsed) = (given, givenModel)
            } else {
                guard let stored = try storedMetadata(engine: opened) else { throw .offlineNoStoredMetadata(folder) }
                (metadata, parsed) = (stored, try parsedMetadata(stored))
            }
            let store = try await finishOpen(engine: opened, model: parsed.model, metadata: metadata, digest: parsed.digest,
                                             folder: folder, parameters: parameters)
            return store
        } catch {
            try? engine?.close()
            _ = openFolders.withLock { $0.remove(folder) }
            throw error
        }
    }

    /// The models of the last `parsedModelsKept` metadata documents opened, most recent first,
    /// each with the system sets added. Parsing and checking `$metadata` was half of every
    /// reopen (perf, 100k-entity store: about 0.75 ms of 1.5 ms for a 22 KB document; the
    /// SEPMRA corpus document is 149 KB); a reopen, or another user's store of the same service,
    /// takes the model parsed from the same bytes. A document is matched byte for byte.
    private static let parsedModels = Mutex<[(metadata: [UInt8], model: ServiceModel, digest: [UInt8])]>([])
    static let parsedModelsKept = 2

    /// Drops the service models kept from earlier opens (a memory-pressure handler may call
    /// it). Open stores keep their own model; the next open parses its `$metadata` again.
    public static func forgetParsedMetadata() {
        parsedModels.withLock { $0.removeAll() }
    }

    /// How many parsed models are kept now (at most `parsedModelsKept`).
    static var parsedModelCount: Int { parsedModels.withLock { $0.count } }

    /// The service model of `metadata` (with the system sets), parsed or kept from an earlier open.
    static func parsedModel(_ metadata: [UInt8]) throws(ODataError) -> ServiceModel {
        try parsedMetadata(metadata).model
    }

    /// The same with the document's BLAKE2b-256 digest (kept with the model: one lookup per open).
    static func parsedMetadata(_ metadata: [UInt8]) throws(ODataError) -> (model: ServiceModel, digest: [UInt8]) {
        if let kept = parsedModels.withLock({ models in models.first { $0.metadata == metadata } }) { return (kept.model, kept.digest) }
        let appModel: ServiceModel
        do {
            appModel = try ServiceModel.parse(metadata: metadata)
        } catch let error as ODataError {
            throw .offlineInvalidMetadata("\(error.name) (\(error.code)) at \(error.location ?? "?"): \(error.message)")
        } catch {
            throw .offlineInvalidMetadata("\(error)")
        }
        let model = try appModel.withOfflineSystemSets()
        let digest = ContentDigest.blake2b256(metadata)
        parsedModels.withLock { models in
            models.removeAll { $0.metadata == metadata }
            models.insert((metadata, model, digest), at: 0)
            if models.count > parsedModelsKept { models.removeLast(models.count - parsedModelsKept) }
        }
        return (model, digest)
    }

    private static func finishOpen(engine: StorageEngine, model: ServiceModel, metadata: [UInt8], digest: [UInt8], folder: String,
                                   parameters: OfflineStoreParameters) async throws(ODataError) -> OfflineStore {
        // The same metadata as last time is known by its digest, without reading the document
        // (36 µs of a 100k-entity store's 680 µs reopen, perf); a store written before the
        // digest existed, or changed metadata, reads it.
        let unchanged = try storedSystemValue(OfflineStoreFormat.metadataDigestKey, engine: engine) == digest
        let stored = unchanged ? metadata : try storedMetadata(engine: engine)
        // Unchanged metadata needs no check (and reopening must not read the data).
        if let stored, stored != metadata {
            try checkRemovedSets(stored: try parseStoredMetadata(stored), now: model, engine: engine)
        }
        let storage: EntityStorage
        let derived = ModelCache.derived(for: metadata, model: model)
        do {
            storage = try EntityStorage(engine: engine, model: model, layoutMemo: derived.layouts)
        } catch where error.code == StoreErrorCode.incompatibleMetadata.code {
            throw .offlineIncompatibleMetadata(error.message)
        }
        if !unchanged {
            try storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
                if stored != metadata {
                    try batch.putSystem(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.metadataKey,
                                        value: [OfflineStoreFormat.metadataVersion] + metadata)
                }
                // Always with the document: a digest never names other bytes than the stored ones.
                try batch.putSystem(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.metadataDigestKey, value: digest)
            }
        }
        let handler = StoreReadHandler(model: model, pageSize: parameters.pageSize, writer: derived.readers.writer)
        let service = try LocalService(storage: storage, readHandler: handler,
                                       individualErrorArchiveDeletion: parameters.individualErrorArchiveDeletion, now: nil,
                                       readers: derived.readers)
        let store = OfflineStore(model: model, service: service, storage: storage, folder: folder, pageSize: parameters.pageSize,
                                 downloadBatchBytes: parameters.downloadBatchBytes, removalBatchSize: parameters.removalBatchSize,
                                 downloadReaders: parameters.downloadReaders,
                                 engine: engine,
                                 broadcaster: StateBroadcaster(.opening))
        // A staged download that a crash interrupted is finished (or, still staging, discarded)
        // before anything else sees the store.
        try store.resumeInterruptedDownload()
        try store.resumeInterruptedRemoval()
        try store.resumeSyncDownload()
        store.removeReceiveSpools()
        // Streams whose writing a crash interrupted (chunks no record names) go.
        try storage.sweepPendingMedia()
        for query in parameters.definingQueries {
            if let existing = try store.definingQuery(named: query.name) {
                guard existing == query else { throw .offlineDefiningQueryExists(query.name) }
                continue
            }
            try store.addDefiningQuery(query)
        }
        for index in parameters.indexes { try await storage.declareIndex(index) }
        store.broadcaster.set(.open)
        return store
    }

    /// Closes the store: the engine is closed, the folder may be opened again (or cleared).
    public func close() throws(ODataError) {
        try isOpen.withLock { (open: inout Bool) throws(ODataError) in
            guard open else { throw .offlineStoreClosed(folder) }
            open = false
        }
        defer {
            _ = Self.openFolders.withLock { $0.remove(folder) }
            broadcaster.set(.closed)
        }
        do {
            try engine.close()
        } catch {
            throw .storageEngine(error, "closing the store at '\(folder)'")
        }
    }

    /// Removes the store's folder and every file in it. Throws `storeIsOpen` (3251) while this
    /// process has it open; a store open in another process is not detected (its lock file
    /// disappears with the folder). Nothing to remove is not an error. The key store's key is
    /// not removed (the app owns it).
    public static func clear(storePath: String, storeName: String = "localstore") throws(ODataError) {
        try validateName(storeName)
        let parameters = OfflineStoreParameters(storeName: storeName, storePath: storePath, encryption: .unencrypted)
        let folder = try resolvedFolder(parameters, create: false)
        try openFolders.withLock { (open: inout Set<String>) throws(ODataError) in
            guard !open.contains(folder) else { throw .offlineStoreIsOpen(folder) }
            try FileRemoval.removeTree(folder)
        }
    }

    /// The store's states: the current one first, then every change; finishes after `closed`.
    public var states: AsyncStream<OfflineStoreState> { broadcaster.stream() }

    /// The current state.
    public var state: OfflineStoreState { broadcaster.current }

    func ensureOpen() throws(ODataError) {
        guard isOpen.withLock({ $0 }) else { throw .offlineStoreClosed(folder) }
    }

    // MARK: the local OData service

    /// Runs an OData request: GET through the query executor (OData JSON, paging with
    /// `@odata.nextLink`), changes through the local service (queued).
    public func execute(_ request: ODataRequest) throws(ODataError) -> ODataResponse {
        try ensureOpen()
        return try service.execute(request)
    }

    public func execute(_ method: ODataMethod, _ url: String, body: String? = nil, headers: [String: String] = [:],
                        options: RequestOptions = RequestOptions()) throws(ODataError) -> ODataResponse {
        try execute(ODataRequest(method, url, headers: headers, body: body.map { Array($0.utf8) }, options: options))
    }

    /// A typed GET.
    public func query(_ url: String) throws(ODataError) -> QueryResult {
        try ensureOpen()
        return try QueryExecutor(reader: try storage.reader(), model: model, pageSize: pageSize).execute(url)
    }

    /// Where the entity a resource path addresses is stored: its set (a contained set's
    /// containment path, `People/Trips`) and its stored key, for `undoPendingChanges(set:key:)`
    /// and the media calls. `Orders(1)`, `Me`, `People('x')/Trips(0)`, or any path that leads
    /// to one entity; `entityNotFound` when none is stored there.
    public func storedAddress(of path: String) throws(ODataError) -> (set: String, key: [ODataValue]) {
        try ensureOpen()
        let executor = QueryExecutor(reader: try storage.reader(), model: model)
        let request = try RequestBinder(model: model).bind(try ODataURLParser.parse(path, version: model.urlVersion))
        guard case .entity = request.path.target, request.path.suffix == .none else {
            throw .offlineInvalidParameter("path", "'\(path)' addresses no single entity; name one by its key, e.g. \(path)(…)")
        }
        let entity = try executor.singleEntity(request.path)
        return (entity.entitySet, try entity.key())
    }

    /// The plan a GET would run with.
    public func explain(_ url: String) throws(ODataError) -> String {
        try ensureOpen()
        return try QueryExecutor(reader: try storage.reader(), model: model, pageSize: pageSize).explain(url)
    }

    /// Declares (and builds for existing data) a secondary index.
    public func declareIndex(_ definition: IndexDefinition,
                             progress: (@Sendable (IndexBuildProgress) -> Void)? = nil) async throws(ODataError) {
        try ensureOpen()
        try await storage.declareIndex(definition, progress: progress)
    }

    /// Entity counts per application set, queue length, failed requests.
    public func stats() throws(ODataError) -> StoreStatistics {
        try ensureOpen()
        let reader = try storage.reader()
        var counts: [String: Int] = [:]
        for name in model.entitySets.map(\.name) + model.singletons.map(\.name) where !OfflineSystemSets.all.contains(name) {
            counts[name] = try reader.count(name)
        }
        // Contained entities, by their containment path (`People/Trips`).
        for (name, info) in reader.catalog.sets where info.containment != nil { counts[name] = try reader.count(name) }
        let syncs = try mapEngine("reading the engine's statistics") { () throws(EngineError) in try storage.engine.stats().logSyncs }
        return StoreStatistics(entityCounts: counts, queuedRequests: try reader.count(OfflineSystemSets.requestQueue),
                               failedRequests: try reader.count(OfflineSystemSets.errorArchive), logSyncs: syncs)
    }
}

// The local service's reads and undo, for apps (the service itself is `package`: an app writes
// through `execute`, which queues every change with it).
extension OfflineStore {
    /// The RequestQueue in RequestID order.
    public func requestQueue() throws(ODataError) -> [QueuedRequest] {
        try ensureOpen()
        return try service.requestQueue()
    }

    /// The ErrorArchive in RequestID order.
    public func errorArchive() throws(ODataError) -> [ErrorArchiveEntry] {
        try ensureOpen()
        return try service.errorArchive()
    }

    /// The EventLog in ID order.
    public func eventLog() throws(ODataError) -> [EventLogEntry] {
        try ensureOpen()
        return try service.eventLog()
    }

    /// Reverts an entity to its back-end version (SAP's `undoPendingChanges`); false when it had
    /// no local changes.
    @discardableResult
    public func undoPendingChanges(set: String, key: [ODataValue]) throws(ODataError) -> Bool {
        try ensureOpen()
        return try service.undoPendingChanges(set: set, key: key)
    }

    /// Withdraws an action invoked offline before it is uploaded (docs/LocalService.md §2.9): its
    /// queue row goes, nothing else changed. `cannotWithdraw` (3205) for a request that is not an
    /// action (undo its entity instead) or that an upload may have sent already (its attempt is
    /// recorded: the back end may have run it, so it stays for the upload to settle);
    /// `requestNotFound` (3201) for an unknown one.
    public func withdrawAction(requestID: Int64) throws(ODataError) {
        try ensureOpen()
        let attempt = Self.attemptKey(requestID)
        try service.perform { (tx: inout ServiceTransaction) throws(ODataError) in
            let key = try tx.keyBytes(OfflineSystemSets.requestQueue, [.int64(requestID)])
            guard let row = try tx.batch.storedEntity(OfflineSystemSets.requestQueue, keyBytes: key) else {
                throw .queueRequestNotFound(OfflineSystemSets.requestQueue, requestID)
            }
            let request = try QueuedRequest(stored: row)
            guard request.isAction else { throw .queueCannotWithdraw(requestID, "it changes \(request.affectedEntitySet)\(request.affectedEntityKey): undo that entity's pending changes") }
            guard try tx.batch.systemValue(tree: OfflineStoreFormat.storeTree, key: attempt) == nil else {
                throw .queueCannotWithdraw(requestID, "an upload may have sent it already; the next upload settles it")
            }
            _ = try tx.batch.delete(keyBytes: key, in: OfflineSystemSets.requestQueue)
        }
    }

    /// Deletes an ErrorArchive entry (docs/LocalService.md §2.7); the RequestIDs removed.
    @discardableResult
    public func deleteErrorArchiveEntry(requestID: Int64) throws(ODataError) -> [Int64] {
        try ensureOpen()
        return try service.deleteErrorArchiveEntry(requestID: requestID)
    }
}
