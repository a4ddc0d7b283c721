import OfflineODataModel

/// The errors sync raises, codes 4000–4099 (docs/Errors.md "Sync"): a code type with static
/// members, so a caller matches `error.code == SyncErrorCode.connectionRefused.code`, never a
/// name or a message.
public struct SyncErrorCode: Sendable, Hashable {
    public let category: ODataErrorCategory
    public let name: String
    public let code: Int

    init(_ category: ODataErrorCategory, _ name: String, _ code: Int) {
        self.category = category
        self.name = name
        self.code = code
    }

    /// 4000: the exchange got no HTTP answer, for another reason than those below.
    public static let communicationFailed = SyncErrorCode(.communicationError, "communicationFailed", 4000)
    /// 4001: the back end refused the connection (or its host was not found).
    public static let connectionRefused = SyncErrorCode(.communicationError, "connectionRefused", 4001)
    /// 4002: the connection was reset or dropped before the answer was complete.
    public static let connectionReset = SyncErrorCode(.communicationError, "connectionReset", 4002)
    /// 4003: no answer within the timeout.
    public static let timeout = SyncErrorCode(.communicationError, "timeout", 4003)
    /// 4004: TLS failed (certificate, handshake).
    public static let tlsFailure = SyncErrorCode(.communicationError, "tlsFailure", 4004)
    /// 4005: the service root or a link is not an absolute http(s) URL.
    public static let invalidURL = SyncErrorCode(.invalidInput, "invalidServiceURL", 4005)
    /// 4010: the back end answered 5xx (the message has its status, `Retry-After` and error text).
    public static let serverError = SyncErrorCode(.serverSideError, "serverError", 4010)
    /// 4011: the back end answered 4xx to a download request (a defining query it rejects).
    public static let requestRejected = SyncErrorCode(.serverSideError, "requestRejected", 4011)
    /// 4012: an answer that is not an OData payload (not JSON, truncated, the wrong shape), with
    /// the offending position.
    public static let invalidPayload = SyncErrorCode(.serverSideError, "invalidPayload", 4012)
    /// 4013: `$metadata` that does not parse as CSDL.
    public static let invalidMetadata = SyncErrorCode(.serverSideError, "invalidServiceMetadata", 4013)
    /// 4014: a page larger than `maxPageBytes`.
    public static let pageTooLarge = SyncErrorCode(.serverSideError, "pageTooLarge", 4014)
    /// 4015: more pages than `maxPages` for one query (a server whose next links loop).
    public static let tooManyPages = SyncErrorCode(.serverSideError, "tooManyPages", 4015)
    /// 4020: the provider is not open.
    public static let notOpen = SyncErrorCode(.preconditionFailed, "providerNotOpen", 4020)
    /// 4021: a download is already running on this provider.
    public static let busy = SyncErrorCode(.preconditionFailed, "syncInProgress", 4021)
    /// 4022: the download was cancelled; nothing of it was applied.
    public static let cancelled = SyncErrorCode(.clientInternalError, "syncCancelled", 4022)
    /// 4023: the back end's new `$metadata` removes or changes what the store holds.
    public static let incompatibleMetadata = SyncErrorCode(.preconditionFailed, "incompatibleServiceMetadata", 4023)
    /// 4024: a parameter of the provider is out of range.
    public static let invalidParameter = SyncErrorCode(.invalidInput, "invalidSyncParameter", 4024)
    /// 4025: `download(subset:)` names a defining query the store does not have.
    public static let unknownDefiningQuery = SyncErrorCode(.notFound, "unknownDefiningQuery", 4025)

    public static let all: [SyncErrorCode] = [
        .communicationFailed, .connectionRefused, .connectionReset, .timeout, .tlsFailure, .invalidURL, .serverError,
        .requestRejected, .invalidPayload, .invalidMetadata, .pageTooLarge, .tooManyPages, .notOpen, .busy, .cancelled,
        .incompatibleMetadata, .invalidParameter, .unknownDefiningQuery,
    ]

    /// An error of this code.
    public func error(_ message: String, at location: String? = nil) -> ODataError {
        ODataError(category, name: name, code: code, message: message, location: location)
    }

    /// Whether `error` is of this code.
    public func matches(_ error: any Error) -> Bool {
        (error as? ODataError)?.code == code
    }
}

extension TransportError {
    /// The sync error for an exchange that got no HTTP answer.
    func syncError(_ request: HTTPRequest) -> ODataError {
        let code: SyncErrorCode
        switch kind {
        case .refused: code = .connectionRefused
        case .reset: code = .connectionReset
        case .timeout: code = .timeout
        case .tls: code = .tlsFailure
        case .invalidURL: code = .invalidURL
        case .cancelled: code = .cancelled
        case .other: code = .communicationFailed
        }
        return code.error("\(request.method) \(request.url): \(message)", at: request.url)
    }
}
