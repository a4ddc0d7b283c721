import OfflineODataModel

/// HTTP methods the local service understands (`MERGE` is the V2 form of `PATCH`).
public enum ODataMethod: String, Sendable, Hashable, CaseIterable {
    case get = "GET"
    case post = "POST"
    case put = "PUT"
    case patch = "PATCH"
    case merge = "MERGE"
    case delete = "DELETE"

    /// Parses a method name (case-insensitive); nil for anything else.
    public init?(name: String) {
        guard let method = ODataMethod(rawValue: name.uppercased()) else { return nil }
        self = method
    }
}

/// Per-request options, as SAP's `OfflineODataRequestOptions` documents them
/// (docs/LocalService.md §3). They are stored with the queued request.
public struct RequestOptions: Sendable, Hashable {
    /// Requests with the same transaction ID go into one change set at upload.
    public var transactionID: String?
    /// Upload category: lets the application upload a subset of the queue.
    public var uploadCategory: String?
    /// Drop the locally created entity after a successful upload.
    public var removeCreatedEntityAfterUpload: Bool
    /// Never combined with other requests by queue optimization or error fixing.
    public var unmodifiable: Bool
    /// A tag copied into the RequestQueue and ErrorArchive rows.
    public var customTag: String?

    public init(transactionID: String? = nil, uploadCategory: String? = nil,
                removeCreatedEntityAfterUpload: Bool = false, unmodifiable: Bool = false,
                customTag: String? = nil) {
        self.transactionID = transactionID
        self.uploadCategory = uploadCategory
        self.removeCreatedEntityAfterUpload = removeCreatedEntityAfterUpload
        self.unmodifiable = unmodifiable
        self.customTag = customTag
    }

    /// Longest text accepted for an ID, category or tag (UTF-8 bytes).
    public static let maxTextBytes = 512

    /// Throws `invalidRequestOption` (3110) for an empty or too long text, or one with control characters.
    func validate() throws(ODataError) {
        for (name, value) in [("transactionID", transactionID), ("uploadCategory", uploadCategory), ("customTag", customTag)] {
            guard let value else { continue }
            if value.isEmpty { throw .serviceInvalidOption(name, "is empty (leave it nil instead)") }
            if value.utf8.count > Self.maxTextBytes {
                throw .serviceInvalidOption(name, "has \(value.utf8.count) bytes (at most \(Self.maxTextBytes))")
            }
            if value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                throw .serviceInvalidOption(name, "contains a control character")
            }
        }
    }
}

/// One OData request to the local service: method, URL relative to the service root
/// (`SalesOrders('1')?$select=Note`), headers (`If-Match`, `Prefer`, custom ones queued with
/// the request), an optional JSON body and the request options.
public struct ODataRequest: Sendable, Hashable {
    public var method: ODataMethod
    public var url: String
    public var headers: [String: String]
    public var body: [UInt8]?
    public var options: RequestOptions

    public init(_ method: ODataMethod, _ url: String, headers: [String: String] = [:], body: [UInt8]? = nil,
                options: RequestOptions = RequestOptions()) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.options = options
    }

    /// A header by name, case-insensitively.
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        for (key, value) in headers where key.lowercased() == lower { return value }
        return nil
    }

    /// Headers queued with the request (everything except the ones the local service consumes).
    var customHeaders: [(String, String)] {
        LocalService.custom(headers).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}

/// The local service's answer: status code, headers (`ETag`, `Location`,
/// `Preference-Applied`), the JSON body (OData JSON) and, for entity results, the typed entity.
public struct ODataResponse: Sendable, Hashable {
    /// The reason phrase of a status code (RFC 9110; nil for codes the store does not answer
    /// with): the multipart `$batch` response's status lines and the CLI print it.
    public static func reasonPhrase(_ status: Int) -> String? {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 412: "Precondition Failed"
        case 416: "Range Not Satisfiable"
        case 424: "Failed Dependency"
        case 428: "Precondition Required"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        default: nil
        }
    }

    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]?
    public var entity: ODataEntity?
    /// The RequestID of the queued request this change produced (nil for reads).
    public var requestID: Int64?

    public init(status: Int, headers: [String: String] = [:], body: [UInt8]? = nil, entity: ODataEntity? = nil,
                requestID: Int64? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.entity = entity
        self.requestID = requestID
    }

    /// The body as text (for tests and logs).
    public var bodyText: String? { body.map { String(decoding: $0, as: UTF8.self) } }

    /// The HTTP status for an error: 404 not found, 412 precondition failed, 409 duplicate
    /// key, 424 failed batch dependency, 501 not supported, 400 other bad input, 500 otherwise.
    public static func status(for error: ODataError) -> Int {
        if error.code == StoreErrorCode.duplicateKey.code { return 409 }
        if error.code == StoreErrorCode.dependencyFailed.code { return 424 }
        if error.code == StoreErrorCode.rangeNotSatisfiable.code { return 416 }
        switch error.category {
        case .invalidInput: return 400
        case .notFound: return 404
        case .preconditionFailed: return 412
        case .notSupported: return 501
        case .communicationError, .serverSideError, .clientInternalError: return 500
        }
    }

    /// An OData JSON error response (`{"error":{"code","message","target"}}`).
    public static func error(_ error: ODataError) -> ODataResponse {
        var members: [(String, JSONValue)] = [("code", .string(String(error.code))), ("message", .string(error.message))]
        if let location = error.location { members.append(("target", .string(location))) }
        members.append(("details", .array([.object(JSONObject.unique([("code", .string(error.name))]))])))
        let body = JSONValue.object(JSONObject.unique([("error", .object(JSONObject.unique(members)))]))
        return ODataResponse(status: status(for: error), headers: ["Content-Type": "application/json"], body: body.serialized())
    }
}

/// Answers GET requests (the read side, e.g. the store's `QueryExecutor`). The local service
/// hands it the request and a reader at the latest commit.
public protocol ReadHandler: Sendable {
    func read(_ request: ODataRequest, reader: EntityReader) throws(ODataError) -> ODataResponse
}
