import OfflineODataModel

/// The errors sync raises, codes 4000–4099 (docs/Errors.md "Sync"), as `ODataErrorCode`
/// values: a caller matches `error.code == SyncErrorCode.connectionRefused.code`, never a name
/// or a message.
public enum SyncErrorCode {
    /// 4000: the exchange got no HTTP answer, for another reason than those below.
    public static let communicationFailed = ODataErrorCode(.communicationError, "communicationFailed", 4000)
    /// 4001: the back end refused the connection (or its host was not found).
    public static let connectionRefused = ODataErrorCode(.communicationError, "connectionRefused", 4001)
    /// 4002: the connection was reset or dropped before the answer was complete.
    public static let connectionReset = ODataErrorCode(.communicationError, "connectionReset", 4002)
    /// 4003: no answer within the timeout.
    public static let timeout = ODataErrorCode(.communicationError, "timeout", 4003)
    /// 4004: TLS failed (certificate, handshake).
    public static let tlsFailure = ODataErrorCode(.communicationError, "tlsFailure", 4004)
    /// 4005: the service root or a link is not an absolute http(s) URL.
    public static let invalidURL = ODataErrorCode(.invalidInput, "invalidServiceURL", 4005)
    /// 4010: the back end answered 5xx (the message has its status, `Retry-After` and error text).
    public static let serverError = ODataErrorCode(.serverSideError, "serverError", 4010)
    /// 4011: the back end answered 4xx to a download request (a defining query it rejects).
    public static let requestRejected = ODataErrorCode(.serverSideError, "requestRejected", 4011)
    /// 4012: an answer that is not an OData payload (not JSON, truncated, the wrong shape), with
    /// the offending position.
    public static let invalidPayload = ODataErrorCode(.serverSideError, "invalidPayload", 4012)
    /// 4013: `$metadata` that does not parse as CSDL.
    public static let invalidMetadata = ODataErrorCode(.serverSideError, "invalidServiceMetadata", 4013)
    /// 4014: a page larger than `maxPageBytes`.
    public static let pageTooLarge = ODataErrorCode(.serverSideError, "pageTooLarge", 4014)
    /// 4015: more pages than `maxPages` for one query (a server whose next links loop).
    public static let tooManyPages = ODataErrorCode(.serverSideError, "tooManyPages", 4015)
    /// 4020: the provider is not open.
    public static let notOpen = ODataErrorCode(.preconditionFailed, "providerNotOpen", 4020)
    /// 4021: a download is already running on this provider.
    public static let busy = ODataErrorCode(.preconditionFailed, "syncInProgress", 4021)
    /// 4022: the download was cancelled; nothing of it was applied.
    public static let cancelled = ODataErrorCode(.clientInternalError, "syncCancelled", 4022)
    /// 4023: the back end's new `$metadata` removes or changes what the store holds.
    public static let incompatibleMetadata = ODataErrorCode(.preconditionFailed, "incompatibleServiceMetadata", 4023)
    /// 4024: a parameter of the provider is out of range.
    public static let invalidParameter = ODataErrorCode(.invalidInput, "invalidSyncParameter", 4024)
    /// 4025: `download(subset:)` names a defining query the store does not have.
    public static let unknownDefiningQuery = ODataErrorCode(.notFound, "unknownDefiningQuery", 4025)
    /// 4026: another user opens a store that holds requests of the previous user, and they could
    /// not be uploaded first (`forceUploadOnUserSwitch` off, or the upload failed); the message
    /// names the previous user.
    public static let previousUserChangesPending = ODataErrorCode(.preconditionFailed, "previousUserChangesPending", 4026)

    public static let all: [ODataErrorCode] = [
        communicationFailed, connectionRefused, connectionReset, timeout, tlsFailure, invalidURL, serverError,
        requestRejected, invalidPayload, invalidMetadata, pageTooLarge, tooManyPages, notOpen, busy, cancelled,
        incompatibleMetadata, invalidParameter, unknownDefiningQuery, previousUserChangesPending,
    ]

}

extension TransportError {
    /// The sync error for an exchange that got no HTTP answer.
    func syncError(_ request: HTTPRequest) -> ODataError {
        let code: ODataErrorCode
        switch kind {
        case .refused: code = SyncErrorCode.connectionRefused
        case .reset: code = SyncErrorCode.connectionReset
        case .timeout: code = SyncErrorCode.timeout
        case .tls: code = SyncErrorCode.tlsFailure
        case .invalidURL: code = SyncErrorCode.invalidURL
        case .cancelled: code = SyncErrorCode.cancelled
        case .other: code = SyncErrorCode.communicationFailed
        }
        return code.error("\(request.method) \(request.url): \(message)", at: request.url)
    }
}
