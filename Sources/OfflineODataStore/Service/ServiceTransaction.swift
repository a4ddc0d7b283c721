import OfflineODataEngine
import OfflineODataModel

/// One atomic unit of local-service work: the entity writes, the queue rows, the server images
/// and the counters all go into the same `EntityWriteBatch`, so they commit together or not at all.
struct ServiceTransaction {
    var batch: EntityWriteBatch
    let model: ServiceModel
    let version: ODataVersion
    let now: @Sendable () -> Int64
    /// The model's JSON reader, built once per service (its type plans cover the whole model).
    let validator: ODataJSONReader
    var counters: ServiceCounters
    let initialCounters: ServiceCounters
    /// The requests queued after an upload's snapshot (`QueueHint.knownUpTo`), read once per
    /// transaction: nothing is queued while the transaction holds the writer lock, and the
    /// confirmations of one `$batch` answer would each scan them again (a cursor over the
    /// queue per request was a tenth of a confirmation, perf).
    var queuedAfterSnapshot: (knownUpTo: Int64, requests: [QueuedRequest])?

    init(batch: EntityWriteBatch, model: ServiceModel, validator: ODataJSONReader,
         now: @escaping @Sendable () -> Int64) throws(ODataError) {
        self.batch = batch
        self.model = model
        self.version = model.version == .v2 ? .v2 : .v4
        self.validator = validator
        self.now = now
        if let bytes = try batch.systemValue(tree: ServiceFormat.serviceTree, key: ServiceFormat.countersKey) {
            counters = try ServiceCounters.decode(bytes)
        } else {
            counters = ServiceCounters()
        }
        initialCounters = counters
    }

    mutating func finish() throws(ODataError) {
        if counters != initialCounters {
            try batch.stageSystem(tree: ServiceFormat.serviceTree, key: ServiceFormat.countersKey, value: counters.encode())
        }
    }

    // MARK: counters

    mutating func nextRequestID() -> Int64 {
        defer { counters.nextRequestID += 1 }
        return counters.nextRequestID
    }

    /// A new local ETag, `W/"local-<n>"`.
    mutating func newETag() -> String {
        defer { counters.nextETag += 1 }
        return "W/\"local-\(counters.nextETag)\""
    }

    mutating func nextLocalKey() -> Int64 {
        defer { counters.nextLocalKey += 1 }
        return counters.nextLocalKey
    }

    // MARK: keys

    /// The canonical key predicate of an encoded key, `('1')` or `(A='x',B=2)`.
    func keyText(_ set: String, _ keyBytes: [UInt8]) throws(ODataError) -> String {
        let info = try batch.setInfo(set)
        let values = try OrderedKeyEncoding.decode(keyBytes)
        let keys = info.keyProperties
        return try KeyPredicate.format(values, keys: keys, version: version)
    }

    /// The key predicate as it goes into a URL path: `keyText`, percent-encoded where a string
    /// key needs it (`('a%2Fb')`), so that a `Location`, a reference or a queued request's URL
    /// parses back to the same key.
    func keyPath(_ set: String, _ keyBytes: [UInt8]) throws(ODataError) -> String {
        URLPercentEncoding.pathSegment(try keyText(set, keyBytes))
    }

    /// The entity's canonical URL path: `Set(key)`, or for a contained entity its whole
    /// containment path (`People('x')/Trips(0)`).
    func entityPath(_ set: String, _ keyBytes: [UInt8]) throws(ODataError) -> String {
        let info = try batch.setInfo(set)
        if let containment = info.containment {
            return try containment.path(try OrderedKeyEncoding.decode(keyBytes), set: set, version: version)
        }
        return set + (try keyPath(set, keyBytes))
    }

    func keyBytes(_ set: String, _ key: [ODataValue]) throws(ODataError) -> [UInt8] {
        try EntityStorage.encodeKey(key, info: try batch.setInfo(set))
    }

    /// Parses a key predicate text back into encoded key bytes.
    func keyBytes(_ set: String, predicate: String) throws(ODataError) -> [UInt8] {
        let info = try batch.setInfo(set)
        return try EntityStorage.encodeKey(try KeyPredicate.parse(predicate, keys: info.keyProperties, version: version), info: info)
    }

    // MARK: server images

    func image(_ set: String, _ keyBytes: [UInt8]) throws(ODataError) -> ServerImage? {
        guard let bytes = try batch.systemValue(tree: ServiceFormat.imageTree, key: ServiceFormat.imageKey(set, keyBytes)) else {
            return nil
        }
        return try ServerImage.decode(bytes, what: "server image of \(set)")
    }

    mutating func putImage(_ set: String, _ keyBytes: [UInt8], _ image: ServerImage) throws(ODataError) {
        try batch.stageSystem(tree: ServiceFormat.imageTree, key: ServiceFormat.imageKey(set, keyBytes), value: image.encode())
    }

    mutating func dropImage(_ set: String, _ keyBytes: [UInt8]) throws(ODataError) {
        try batch.eraseSystem(tree: ServiceFormat.imageTree, key: ServiceFormat.imageKey(set, keyBytes))
    }

    /// Keeps the back end's version of an entity before its first local change. Returns the
    /// image (existing or new).
    @discardableResult
    mutating func ensureImage(_ set: String, _ keyBytes: [UInt8], requestID: Int64) throws(ODataError) -> ServerImage? {
        if let existing = try image(set, keyBytes) { return existing }
        guard let stored = try batch.storedValue(set, keyBytes: keyBytes) else { return nil }
        var image = ServerImage(kind: ServiceFormat.kindServer, firstRequestID: requestID, keyGenerated: false, stored: stored)
        for (navigation, plan) in batch.navigationPlans(of: set).sorted(by: { $0.key < $1.key }) {
            guard case .link(_, let forward, _, _, _) = plan else { continue }
            for target in try batch.suffixes(in: forward, prefix: keyBytes) {
                image.links.append(ServerImage.Link(navigation: navigation, targetKey: target))
            }
        }
        try putImage(set, keyBytes, image)
        return image
    }

    /// The ETag the back end knows for an entity (from its server image, else the stored one).
    func serverETag(_ set: String, _ keyBytes: [UInt8]) throws(ODataError) -> String? {
        if let image = try image(set, keyBytes) { return try Self.serverETag(of: image, set: set) }
        return try batch.storedEntity(set, keyBytes: keyBytes)?.etag
    }

    /// The back end's ETag kept in a server image (none for an entity created offline).
    static func serverETag(of image: ServerImage?, set: String) throws(ODataError) -> String? {
        guard let image, image.kind == ServiceFormat.kindServer else { return nil }
        var bytes = image.stored
        return try StoredValue.split(&bytes, what: "server image of \(set)").etag
    }

    // MARK: queue

    mutating func enqueue(_ request: QueuedRequest) throws(ODataError) {
        queuedAfterSnapshot = nil   // the queue changes: the memo of its tail goes
        try batch.put(request.entity(), in: OfflineSystemSets.requestQueue)
    }

    func queuedRequests() throws(ODataError) -> [QueuedRequest] {
        var out: [QueuedRequest] = []
        for stored in try batch.allEntities(of: OfflineSystemSets.requestQueue) { out.append(try QueuedRequest(stored: stored)) }
        return out
    }

    func archiveEntries() throws(ODataError) -> [ErrorArchiveEntry] {
        var out: [ErrorArchiveEntry] = []
        for stored in try batch.allEntities(of: OfflineSystemSets.errorArchive) { out.append(try ErrorArchiveEntry(stored: stored)) }
        return out
    }

    mutating func logEvent(type: String, details: String?) throws(ODataError) -> Int64 {
        let id = counters.nextEventID
        counters.nextEventID += 1
        let time = try EdmDateTimeOffset(utcSeconds: now())
        try batch.put(EventLogEntry(id: id, type: type, time: time, details: details).entity(), in: OfflineSystemSets.eventLog)
        return id
    }
}
