import OfflineODataModel
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The write side of the local OData service (docs/LocalService.md) over an `EntityStorage`
/// whose model has the built-in sets (`ServiceModel.withOfflineSystemSets()`).
///
/// Every change — the entity writes, its RequestQueue row, the server image of the changed
/// entity and the counters — is one atomic storage commit. GET requests go to the plugged-in
/// `ReadHandler`.
public final class LocalService: Sendable {
    public let storage: EntityStorage
    public let model: ServiceModel
    public let readHandler: (any ReadHandler)?
    /// SAP's "individual ErrorArchive deletion": deleting an entry reverts that request and the
    /// ones depending on it; off (default) deleting any entry reverts every failed request.
    public let individualErrorArchiveDeletion: Bool
    let now: @Sendable () -> Int64

    /// - Parameters:
    ///   - now: seconds since 1970 (UTC) for EventLog times; the system clock by default.
    public convenience init(storage: EntityStorage, readHandler: (any ReadHandler)? = nil, individualErrorArchiveDeletion: Bool = false,
                            now: (@Sendable () -> Int64)? = nil) throws(ODataError) {
        try self.init(storage: storage, readHandler: readHandler, individualErrorArchiveDeletion: individualErrorArchiveDeletion,
                      now: now, readers: nil)
    }

    /// `readers`: the body reader and the validator built for this model before (they plan
    /// every type of the model, the larger part of opening a service: an `OfflineStore` reopened
    /// in the same process with the same `$metadata` takes them from `ModelCache`).
    init(storage: EntityStorage, readHandler: (any ReadHandler)?, individualErrorArchiveDeletion: Bool,
         now: (@Sendable () -> Int64)?, readers: ModelCache.Readers?) throws(ODataError) {
        for set in OfflineSystemSets.all where storage.model.entitySet(named: set) == nil {
            throw .queueSystemSetsMissing(set)
        }
        self.storage = storage
        self.model = storage.model
        self.readHandler = readHandler
        self.individualErrorArchiveDeletion = individualErrorArchiveDeletion
        self.now = now ?? { Int64(time(nil)) }
        // Building a reader plans every type of the model: once per service, not per request.
        let built = readers ?? ModelCache.build(storage.model)
        self.validator = built.validator
        self.bodyReader = built.body
        self.writer = built.writer
    }

    /// Response bodies, built once (see `ModelCache.Readers.writer`).
    let writer: ODataJSONWriter

    /// Request bodies (keys may be absent) and constraint checks, built once (see `init`).
    let bodyReader: ODataJSONReader
    let validator: ODataJSONReader

    /// Runs `body` as one atomic commit.
    func perform<T>(_ body: (inout ServiceTransaction) throws(ODataError) -> T) throws(ODataError) -> T {
        try storage.write { (batch: inout EntityWriteBatch) throws(ODataError) -> T in try transact(&batch, body) }
    }

    /// Runs `body` as one atomic commit of an exclusive session (the caller holds the writer lock).
    func perform<T>(in writer: ExclusiveWriter, _ body: (inout ServiceTransaction) throws(ODataError) -> T) throws(ODataError) -> T {
        try writer.write { (batch: inout EntityWriteBatch) throws(ODataError) -> T in try transact(&batch, body) }
    }

    private func transact<T>(_ batch: inout EntityWriteBatch,
                             _ body: (inout ServiceTransaction) throws(ODataError) -> T) throws(ODataError) -> T {
        var tx = try ServiceTransaction(batch: batch, model: model, validator: validator, now: now)
        let result = try body(&tx)
        try tx.finish()
        batch = tx.batch
        return result
    }

    var version: ODataVersion { model.version == .v2 ? .v2 : .v4 }

    // MARK: typed calls

    /// Creates an entity (deep insert over expanded navigation, `@odata.bind` links,
    /// temporary keys where the back end computes them). 201 with the stored entity.
    @discardableResult
    public func create(_ entity: ODataEntity, in set: String, options: RequestOptions = RequestOptions(),
                       headers: [String: String] = [:]) throws(ODataError) -> ODataResponse {
        let options = try options.applyingHeaders(headers)
        try options.validate()
        let body = try writeBody(entity, set: set)
        return try perform { (tx: inout ServiceTransaction) throws(ODataError) -> ODataResponse in
            try self.create(entity, in: set, url: set, body: body, headers: headers, options: options, tx: &tx)
        }
    }

    /// PATCH/MERGE: the given properties change, the others stay.
    @discardableResult
    public func update(_ changes: ODataEntity, in set: String, key: [ODataValue], ifMatch: String? = nil,
                       options: RequestOptions = RequestOptions(), headers: [String: String] = [:]) throws(ODataError) -> ODataResponse {
        try change(changes, in: set, key: key, replace: false, ifMatch: ifMatch, options: options, headers: headers)
    }

    /// PUT: the entity is replaced (properties not given become null; keys stay).
    @discardableResult
    public func replace(_ entity: ODataEntity, in set: String, key: [ODataValue], ifMatch: String? = nil,
                        options: RequestOptions = RequestOptions(), headers: [String: String] = [:]) throws(ODataError) -> ODataResponse {
        try change(entity, in: set, key: key, replace: true, ifMatch: ifMatch, options: options, headers: headers)
    }

    private func change(_ changes: ODataEntity, in set: String, key: [ODataValue], replace: Bool, ifMatch: String?,
                        options: RequestOptions, headers: [String: String]) throws(ODataError) -> ODataResponse {
        let options = try options.applyingHeaders(headers)
        try options.validate()
        var typed = changes
        if typed.typeName.isEmpty { typed.typeName = try entityTypeName(of: set) ?? "" }
        let body = try writeBody(typed, set: set)
        return try perform { (tx: inout ServiceTransaction) throws(ODataError) -> ODataResponse in
            let url = try tx.entityPath(set, try tx.keyBytes(set, key))
            return try self.change(typed, in: set, key: key, replace: replace, ifMatch: ifMatch, url: url, body: body,
                                   headers: headers, options: options, prefer: nil, tx: &tx)
        }
    }

    /// DELETE. 204.
    @discardableResult
    public func delete(set: String, key: [ODataValue], ifMatch: String? = nil, options: RequestOptions = RequestOptions(),
                       headers: [String: String] = [:]) throws(ODataError) -> ODataResponse {
        let options = try options.applyingHeaders(headers)
        try options.validate()
        return try perform { (tx: inout ServiceTransaction) throws(ODataError) -> ODataResponse in
            let url = try tx.entityPath(set, try tx.keyBytes(set, key))
            return try self.delete(set: set, key: key, ifMatch: ifMatch, url: url, headers: headers, options: options, tx: &tx)
        }
    }

    /// Adds a relationship (`POST/PUT …/navigation/$ref`). 204.
    @discardableResult
    public func link(from set: String, key: [ODataValue], navigation: String, to targetKey: [ODataValue],
                     options: RequestOptions = RequestOptions()) throws(ODataError) -> ODataResponse {
        try relate(from: set, key: key, navigation: navigation, to: targetKey, remove: false, options: options)
    }

    /// Removes a relationship (`DELETE …/navigation/$ref`). 204.
    @discardableResult
    public func unlink(from set: String, key: [ODataValue], navigation: String, to targetKey: [ODataValue],
                       options: RequestOptions = RequestOptions()) throws(ODataError) -> ODataResponse {
        try relate(from: set, key: key, navigation: navigation, to: targetKey, remove: true, options: options)
    }

    private func relate(from set: String, key: [ODataValue], navigation: String, to targetKey: [ODataValue], remove: Bool,
                        options: RequestOptions) throws(ODataError) -> ODataResponse {
        try options.validate()
        return try perform { (tx: inout ServiceTransaction) throws(ODataError) -> ODataResponse in
            let plan = try tx.batch.navigationPlan(set, navigation)
            let target = EntityRef(set: plan.target, keyBytes: try tx.keyBytes(plan.target, targetKey))
            return try self.relate(set, key: key, navigation: navigation, target: target, remove: remove,
                                   headers: [:], options: options, tx: &tx)
        }
    }

    // MARK: queue, undo, errors, events

    /// The RequestQueue in RequestID order.
    public func requestQueue() throws(ODataError) -> [QueuedRequest] {
        let reader = try storage.reader()
        var cursor = try reader.scan(OfflineSystemSets.requestQueue)
        var out: [QueuedRequest] = []
        while let stored = try cursor.next() { out.append(try QueuedRequest(stored: stored)) }
        return out
    }

    /// The ErrorArchive in RequestID order.
    public func errorArchive() throws(ODataError) -> [ErrorArchiveEntry] {
        let reader = try storage.reader()
        var cursor = try reader.scan(OfflineSystemSets.errorArchive)
        var out: [ErrorArchiveEntry] = []
        while let stored = try cursor.next() { out.append(try ErrorArchiveEntry(stored: stored)) }
        return out
    }

    /// The EventLog in ID order.
    public func eventLog() throws(ODataError) -> [EventLogEntry] {
        let reader = try storage.reader()
        var cursor = try reader.scan(OfflineSystemSets.eventLog)
        var out: [EventLogEntry] = []
        while let stored = try cursor.next() { out.append(try EventLogEntry(stored: stored)) }
        return out
    }

    /// Appends an EventLog row (for the sync layer: downloads, uploads). Returns its ID.
    @discardableResult
    public func logEvent(type: String, details: String? = nil) throws(ODataError) -> Int64 {
        guard !type.isEmpty else { throw .queueInvalidFailure("an event needs a type") }
        return try perform { (tx: inout ServiceTransaction) throws(ODataError) -> Int64 in try tx.logEvent(type: type, details: details) }
    }

    /// Reverts the entity to its server image: an update returns to the back end's version, a
    /// local creation disappears, a deletion comes back; its queued (and archived) requests
    /// are removed, with those of entities changed by the same requests. False when the entity
    /// has no local changes.
    @discardableResult
    public func undoPendingChanges(set: String, key: [ODataValue]) throws(ODataError) -> Bool {
        try perform { (tx: inout ServiceTransaction) throws(ODataError) -> Bool in
            let ref = EntityRef(set: set, keyBytes: try tx.keyBytes(set, key))
            let result = try tx.revert(entities: [ref], requests: [])
            return !result.requests.isEmpty || !result.entities.isEmpty
        }
    }

    /// The back end failed the request (at upload): it moves from the RequestQueue to the
    /// ErrorArchive and its entity is in error state.
    @discardableResult
    public func markFailed(requestID: Int64, httpStatus: Int, code: String? = nil, message: String? = nil,
                           innerError: String? = nil, domain: String? = nil) throws(ODataError) -> ErrorArchiveEntry {
        try perform { (tx: inout ServiceTransaction) throws(ODataError) -> ErrorArchiveEntry in
            try tx.markFailed(requestID: requestID, httpStatus: httpStatus, code: code, message: message,
                              innerError: innerError, domain: domain)
        }
    }

    /// Deletes an ErrorArchive entry (SAP semantics, docs/LocalService.md §2.7): individual mode
    /// reverts that request and the requests depending on it; default mode reverts every failed
    /// request and empties the archive. Returns the RequestIDs removed.
    @discardableResult
    public func deleteErrorArchiveEntry(requestID: Int64) throws(ODataError) -> [Int64] {
        let individual = individualErrorArchiveDeletion
        return try perform { (tx: inout ServiceTransaction) throws(ODataError) -> [Int64] in
            let entries = try tx.archiveEntries()
            guard let entry = entries.first(where: { $0.requestID == requestID }) else {
                throw .queueRequestNotFound(OfflineSystemSets.errorArchive, requestID)
            }
            let chosen = individual ? [entry] : entries
            var refs: [EntityRef] = []
            for e in chosen where !e.affectedEntitySet.isEmpty {
                refs.append(EntityRef(set: e.affectedEntitySet, keyBytes: try tx.keyBytes(e.affectedEntitySet, predicate: e.affectedEntityKey)))
            }
            return try tx.revert(entities: refs, requests: Set(chosen.map(\.requestID))).requests
        }
    }

    /// The local state of an entity: `sap.islocal()`, `sap.haspendingchanges()`, `sap.inerrorstate()`.
    public func localState(of entity: StoredEntity) -> LocalEntityState { entity.localState }

    // MARK: helpers

    func writeBody(_ entity: ODataEntity, set: String) throws(ODataError) -> String {
        var typed = entity
        if typed.typeName.isEmpty { typed.typeName = try entityTypeName(of: set) ?? "" }
        do {
            return String(decoding: try writeEntity(typed, set: set), as: UTF8.self)
        } catch {
            throw .serviceInvalidBody("the entity cannot be written as OData JSON: \(error.message)", error.location)
        }
    }

    /// The entity as stored now, for responses.
    func entityResponse(_ set: String, _ keyBytes: [UInt8], status: Int, tx: ServiceTransaction,
                        requestID: Int64, location: Bool, minimal: Bool) throws(ODataError) -> ODataResponse {
        guard let stored = try tx.batch.storedEntity(set, keyBytes: keyBytes) else {
            throw .queueCorrupted(set, "the entity just written is missing")
        }
        let entity = try stored.toODataEntity()
        var headers: [String: String] = [:]
        if let etag = stored.etag { headers["ETag"] = etag }
        if location { headers["Location"] = try tx.entityPath(set, keyBytes) }
        if minimal {
            headers["Preference-Applied"] = "return=minimal"
            return ODataResponse(status: 204, headers: headers, body: nil, entity: entity, requestID: requestID)
        }
        headers["Content-Type"] = "application/json"
        let body = try writeEntity(entity, set: set)
        return ODataResponse(status: status, headers: headers, body: body, entity: entity, requestID: requestID)
    }

    /// The type of a set's entities: the model's for entity sets and singletons, the stored
    /// set's for contained ones (`People/Trips`).
    func entityTypeName(of set: String) throws(ODataError) -> String? {
        if let type = model.entityType(ofSet: set) { return type.qualifiedName }
        return storage.currentCatalog().sets[set]?.typeName
    }

    /// An entity of `set` as OData JSON (contained sets by their type; a set the store does not
    /// know is the writer's error).
    func writeEntity(_ entity: ODataEntity, set: String) throws(ODataError) -> [UInt8] {
        guard let type = try entityTypeName(of: set) else { return try writer.writeEntity(entity, entitySet: set) }
        return try writer.writeEntity(entity, entityType: type)
    }
}

/// What opening a store derives from its model alone, kept per `$metadata` for the process (the
/// last four): the local service's readers (they plan every type) and the merged set layouts,
/// so that reopening a store does not derive them again.
enum ModelCache {
    struct Readers: Sendable {
        let validator: ODataJSONReader
        let body: ODataJSONReader
        /// Response bodies: a writer plans every type of the model too (built per response, it
        /// was 65 µs of each local create's CPU on the sales model, perf).
        let writer: ODataJSONWriter
    }

    final class Derived: Sendable {
        let readers: Readers
        let layouts = LayoutMemo()
        init(readers: Readers) { self.readers = readers }
    }

    private static let cache = Mutex<[(metadata: [UInt8], derived: Derived)]>([])

    static func build(_ model: ServiceModel) -> Readers {
        let version: ODataVersion = model.version == .v2 ? .v2 : .v4
        return Readers(validator: ODataJSONReader(model: model, version: version),
                       body: ODataJSONReader(model: model, version: version, options: ODataJSONReaderOptions(requireKeyProperties: false)),
                       writer: ODataJSONWriter(model: model))
    }

    /// The derived state of the model parsed from `metadata` (the readers built on first use).
    static func derived(for metadata: [UInt8], model: ServiceModel) -> Derived {
        if let hit = cache.withLock({ $0.first { $0.metadata == metadata }?.derived }) { return hit }
        let built = Derived(readers: build(model))
        cache.withLock { entries in
            entries.removeAll { $0.metadata == metadata }
            entries.insert((metadata, built), at: 0)
            if entries.count > 4 { entries.removeLast() }
        }
        return built
    }
}
