import OfflineODataModel
import Synchronization

/// One row of the RequestQueue (type `OfflineOData.Request`, docs/LocalService.md §4.1): a
/// local change waiting for upload, in RequestID order.
public struct QueuedRequest: Sendable, Hashable {
    public var requestID: Int64
    /// `Pending` while queued.
    public var status: String
    public var method: String
    /// Relative URL to send (`SalesOrders('1')`, `SalesOrders`, `SalesOrders('1')/ToItems/$ref`).
    public var url: String
    /// The JSON body to send, as text.
    public var body: String?
    public var customHeaders: [String: String]
    public var options: RequestOptions
    /// The entity the request changes (set and canonical key predicate, `('1')`).
    public var affectedEntitySet: String
    public var affectedEntityKey: String
    /// The back end's ETag to send as If-Match (nil for local creations and entities without one).
    public var serverETag: String?

    public static let pendingStatus = "Pending"

    /// An action invoked offline (`POST ActionImport`, docs/LocalService.md §2.9): it names no
    /// entity (`AffectedEntitySet` is empty) and changed nothing locally.
    public var isAction: Bool { affectedEntitySet.isEmpty }

    func entity() -> ODataEntity {
        ODataEntity(typeName: OfflineSystemSets.namespace + ".Request", properties: [
            ODataProperty("RequestID", .int64(requestID)),
            ODataProperty("Status", .string(status)),
            ODataProperty("Method", .string(method)),
            ODataProperty("URL", .string(url)),
            ODataProperty("Body", body.map(ODataValue.string) ?? .null),
            ODataProperty("CustomTag", options.customTag.map(ODataValue.string) ?? .null),
            ODataProperty("CustomHeaders", customHeaders.isEmpty ? .null : .string(Self.headersJSON(customHeaders))),
            ODataProperty("TransactionID", options.transactionID.map(ODataValue.string) ?? .null),
            ODataProperty("UploadCategory", options.uploadCategory.map(ODataValue.string) ?? .null),
            ODataProperty("RemoveCreatedEntityAfterUpload", .boolean(options.removeCreatedEntityAfterUpload)),
            ODataProperty("Unmodifiable", .boolean(options.unmodifiable)),
            ODataProperty("AffectedEntitySet", .string(affectedEntitySet)),
            ODataProperty("AffectedEntityKey", .string(affectedEntityKey)),
            ODataProperty("ServerETag", serverETag.map(ODataValue.string) ?? .null),
        ])
    }

    init(requestID: Int64, status: String, method: String, url: String, body: String?, customHeaders: [String: String],
         options: RequestOptions, affectedEntitySet: String, affectedEntityKey: String, serverETag: String?) {
        self.requestID = requestID
        self.status = status
        self.method = method
        self.url = url
        self.body = body
        self.customHeaders = customHeaders
        self.options = options
        self.affectedEntitySet = affectedEntitySet
        self.affectedEntityKey = affectedEntityKey
        self.serverETag = serverETag
    }

    /// Reads a stored RequestQueue row.
    public init(stored: StoredEntity) throws(ODataError) {
        let row = try SystemRow(stored, slots: Self.slots(for: stored.info))
        requestID = try row.int64(Column.requestID)
        status = try row.string(Column.status) ?? ""
        method = try row.string(Column.method) ?? ""
        url = try row.string(Column.url) ?? ""
        body = try row.string(Column.body)
        customHeaders = try Self.parseHeaders(try row.string(Column.customHeaders))
        options = RequestOptions(transactionID: try row.string(Column.transactionID), uploadCategory: try row.string(Column.uploadCategory),
                                 removeCreatedEntityAfterUpload: try row.bool(Column.removeCreatedEntityAfterUpload),
                                 unmodifiable: try row.bool(Column.unmodifiable), customTag: try row.string(Column.customTag))
        affectedEntitySet = try row.string(Column.affectedEntitySet) ?? ""
        affectedEntityKey = try row.string(Column.affectedEntityKey) ?? ""
        serverETag = try row.string(Column.serverETag)
    }

    /// The RequestQueue's properties `init(stored:)` reads: a column number and its name.
    enum Column {
        static let names = ["RequestID", "Status", "Method", "URL", "Body", "CustomHeaders", "TransactionID", "UploadCategory",
                            "RemoveCreatedEntityAfterUpload", "Unmodifiable", "CustomTag", "AffectedEntitySet",
                            "AffectedEntityKey", "ServerETag"]
        static let requestID = 0, status = 1, method = 2, url = 3, body = 4, customHeaders = 5, transactionID = 6,
                   uploadCategory = 7, removeCreatedEntityAfterUpload = 8, unmodifiable = 9, customTag = 10,
                   affectedEntitySet = 11, affectedEntityKey = 12, serverETag = 13
    }

    /// The layout slots of `Column.names` in a RequestQueue layout, worked out once per layout:
    /// an upload reads each queued row two or three times, and fourteen look-ups by name a row
    /// were 7 % of the client's CPU per uploaded request (perf, `sync-bench peer
    /// upload-batch-local`).
    private static let slotCache = Mutex<(info: SetInfo, slots: [Int?])?>(nil)

    static func slots(for info: SetInfo) -> SystemRow.Slots {
        let slots = slotCache.withLock { cache -> [Int?] in
            if let cache, cache.info === info { return cache.slots }
            let slots = Column.names.map { info.propertyIndex[$0] }
            cache = (info, slots)
            return slots
        }
        return SystemRow.Slots(names: Column.names, slots: slots)
    }

    static func headersJSON(_ headers: [String: String]) -> String {
        let object = JSONObject.unique(headers.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) })
        return String(decoding: JSONValue.object(object).serialized(), as: UTF8.self)
    }

    static func parseHeaders(_ text: String?) throws(ODataError) -> [String: String] {
        guard let text else { return [:] }
        guard case .object(let object) = try JSONReader.parse(text) else {
            throw .queueCorrupted("CustomHeaders", "not a JSON object")
        }
        var out: [String: String] = [:]
        for (key, value) in object { out[key] = value.stringValue ?? "" }
        return out
    }
}

/// One row of the ErrorArchive (type `OfflineOData.ErrorArchiveEntry`, docs/LocalService.md §4.2).
public struct ErrorArchiveEntry: Sendable, Hashable {
    public var requestID: Int64
    public var customTag: String?
    public var httpStatusCode: Int
    public var code: String?
    public var message: String?
    public var innerError: String?
    public var domain: String?
    public var requestMethod: String
    public var requestURL: String
    public var requestBody: String?
    public var customHeaders: [String: String]
    public var transactionID: String?
    public var uploadCategory: String?
    public var affectedEntitySet: String
    public var affectedEntityKey: String
    public var serverETag: String?

    init(failed request: QueuedRequest, httpStatusCode: Int, code: String?, message: String?, innerError: String?, domain: String?) {
        requestID = request.requestID
        customTag = request.options.customTag
        self.httpStatusCode = httpStatusCode
        self.code = code
        self.message = message
        self.innerError = innerError
        self.domain = domain
        requestMethod = request.method
        requestURL = request.url
        requestBody = request.body
        customHeaders = request.customHeaders
        transactionID = request.options.transactionID
        uploadCategory = request.options.uploadCategory
        affectedEntitySet = request.affectedEntitySet
        affectedEntityKey = request.affectedEntityKey
        serverETag = request.serverETag
    }

    public init(stored: StoredEntity) throws(ODataError) {
        let row = try SystemRow(stored)
        requestID = try row.int64("RequestID")
        customTag = try row.string("CustomTag")
        httpStatusCode = Int(try row.int64("HTTPStatusCode"))
        code = try row.string("Code")
        message = try row.string("Message")
        innerError = try row.string("InnerError")
        domain = try row.string("Domain")
        requestMethod = try row.string("RequestMethod") ?? ""
        requestURL = try row.string("RequestURL") ?? ""
        requestBody = try row.string("RequestBody")
        customHeaders = try QueuedRequest.parseHeaders(try row.string("CustomHeaders"))
        transactionID = try row.string("TransactionID")
        uploadCategory = try row.string("UploadCategory")
        affectedEntitySet = try row.string("AffectedEntitySet") ?? ""
        affectedEntityKey = try row.string("AffectedEntityKey") ?? ""
        serverETag = try row.string("ServerETag")
    }

    func entity() -> ODataEntity {
        func text(_ s: String?) -> ODataValue { s.map(ODataValue.string) ?? .null }
        return ODataEntity(typeName: OfflineSystemSets.namespace + ".ErrorArchiveEntry", properties: [
            ODataProperty("RequestID", .int64(requestID)),
            ODataProperty("CustomTag", text(customTag)),
            ODataProperty("HTTPStatusCode", .int32(Int32(clamping: httpStatusCode))),
            ODataProperty("Code", text(code)),
            ODataProperty("Message", text(message)),
            ODataProperty("InnerError", text(innerError)),
            ODataProperty("Domain", text(domain)),
            ODataProperty("RequestMethod", .string(requestMethod)),
            ODataProperty("RequestURL", .string(requestURL)),
            ODataProperty("RequestBody", text(requestBody)),
            ODataProperty("CustomHeaders", customHeaders.isEmpty ? .null : .string(QueuedRequest.headersJSON(customHeaders))),
            ODataProperty("TransactionID", text(transactionID)),
            ODataProperty("UploadCategory", text(uploadCategory)),
            ODataProperty("AffectedEntitySet", .string(affectedEntitySet)),
            ODataProperty("AffectedEntityKey", .string(affectedEntityKey)),
            ODataProperty("ServerETag", text(serverETag)),
        ])
    }
}

/// One row of the EventLog (type `OfflineOData.Event`, docs/LocalService.md §4.3).
public struct EventLogEntry: Sendable, Hashable {
    public var id: Int64
    public var type: String
    public var time: EdmDateTimeOffset
    public var details: String?

    public init(stored: StoredEntity) throws(ODataError) {
        let row = try SystemRow(stored)
        id = try row.int64("ID")
        type = try row.string("Type") ?? ""
        guard case .dateTimeOffset(let t)? = try stored.value(named: "Time") else {
            throw .queueCorrupted("EventLog", "event without a time")
        }
        time = t
        details = try row.string("Details")
    }

    init(id: Int64, type: String, time: EdmDateTimeOffset, details: String?) {
        self.id = id
        self.type = type
        self.time = time
        self.details = details
    }

    func entity() -> ODataEntity {
        ODataEntity(typeName: OfflineSystemSets.namespace + ".Event", properties: [
            ODataProperty("ID", .int64(id)), ODataProperty("Type", .string(type)),
            ODataProperty("Time", .dateTimeOffset(time)), ODataProperty("Details", details.map(ODataValue.string) ?? .null),
        ])
    }
}

/// Typed access to the properties of a built-in row.
struct SystemRow {
    let stored: StoredEntity
    private let columns: Slots?

    init(_ stored: StoredEntity) throws(ODataError) {
        self.stored = stored
        columns = nil
    }

    /// Columns read by number (`string(_ column: Int)`, …): their names and their slots in the
    /// row's layout (nil: not declared there).
    struct Slots {
        let names: [String]
        let slots: [Int?]
    }

    init(_ stored: StoredEntity, slots: Slots) throws(ODataError) {
        self.stored = stored
        columns = slots
    }

    /// Column `column` of `columns`: through its slot, or by its name when the layout does not
    /// declare it (as `value(named:)`: a dynamic property, or nil).
    private func value(_ column: Int) throws(ODataError) -> ODataValue? {
        guard let columns, column < columns.names.count else { return nil }
        guard column < columns.slots.count, let slot = columns.slots[column] else { return try stored.value(named: columns.names[column]) }
        return try stored.value(atDeclaredIndex: slot)
    }

    private func name(_ column: Int) -> String {
        guard let columns, column < columns.names.count else { return "#\(column)" }
        return columns.names[column]
    }

    func string(_ column: Int) throws(ODataError) -> String? {
        switch try value(column) {
        case .string(let s)?: return s
        case nil, .null?: return nil
        default: throw .queueCorrupted(stored.entitySet, "property \(name(column)) is not a string")
        }
    }

    func int64(_ column: Int) throws(ODataError) -> Int64 {
        switch try value(column) {
        case .int64(let v)?: return v
        case .int32(let v)?: return Int64(v)
        default: throw .queueCorrupted(stored.entitySet, "property \(name(column)) is not an integer")
        }
    }

    func bool(_ column: Int) throws(ODataError) -> Bool {
        if case .boolean(let b)? = try value(column) { return b }
        return false
    }

    func string(_ name: String) throws(ODataError) -> String? {
        switch try stored.value(named: name) {
        case .string(let s)?: return s
        case nil, .null?: return nil
        default: throw .queueCorrupted(stored.entitySet, "property \(name) is not a string")
        }
    }

    func int64(_ name: String) throws(ODataError) -> Int64 {
        switch try stored.value(named: name) {
        case .int64(let v)?: return v
        case .int32(let v)?: return Int64(v)
        default: throw .queueCorrupted(stored.entitySet, "property \(name) is not an integer")
        }
    }

    func bool(_ name: String) throws(ODataError) -> Bool {
        if case .boolean(let b)? = try stored.value(named: name) { return b }
        return false
    }
}

/// The local state of an entity (docs/LocalService.md §6), what `sap.islocal()`,
/// `sap.haspendingchanges()` and `sap.inerrorstate()` ask.
public struct LocalEntityState: Sendable, Hashable {
    /// Changed or created locally and not yet received back by a download.
    public var isLocal: Bool
    /// Has requests waiting in the RequestQueue.
    public var hasPendingChanges: Bool
    /// Its last upload request failed (it has ErrorArchive entries).
    public var inErrorState: Bool

    public init(isLocal: Bool, hasPendingChanges: Bool, inErrorState: Bool) {
        self.isLocal = isLocal
        self.hasPendingChanges = hasPendingChanges
        self.inErrorState = inErrorState
    }

    /// From the stored flags alone (no queue lookup): what the evaluator needs per entity.
    public init(flags: EntityFlags) {
        isLocal = !flags.isDisjoint(with: [.local, .pending, .inError])
        hasPendingChanges = flags.contains(.pending)
        inErrorState = flags.contains(.inError)
    }
}

extension StoredEntity {
    /// `sap.islocal()`, `sap.haspendingchanges()`, `sap.inerrorstate()` for this entity.
    public var localState: LocalEntityState { LocalEntityState(flags: flags) }
}
