/// One error a layer raises, as a value: its category, stable name and numeric code. Layers list
/// theirs as static members of a namespace (`StoreErrorCode.duplicateKey`,
/// `SyncErrorCode.timeout`), like swift-system's `Errno`, so callers match
/// `error.code == SyncErrorCode.timeout.code` and never a name or a message.
public struct ODataErrorCode: Sendable, Hashable {
    public let category: ODataErrorCategory
    public let name: String
    public let code: Int

    public init(_ category: ODataErrorCategory, _ name: String, _ code: Int) {
        self.category = category
        self.name = name
        self.code = code
    }

    /// An error of this code.
    public func error(_ message: String, at location: String? = nil, underlying: (any Error & Sendable)? = nil) -> ODataError {
        ODataError(category, name: name, code: code, message: message, location: location, underlying: underlying)
    }

    /// Whether `error` is of this code.
    public func matches(_ error: any Error) -> Bool {
        (error as? ODataError)?.code == code
    }
}
