import OfflineODataModel

/// Error code ranges owned by the store layer (docs/Errors.md, "Store"):
/// - 3000–3099 entity storage, indexes and the catalog,
/// - 3100–3199 the local OData service (requests, ETags, constraints),
/// - 3200–3299 request queue, ErrorArchive, EventLog, defining queries and download apply.
public enum StoreErrorCodes {
    public static let storageRange = 3000...3099
    public static let serviceRange = 3100...3199
    public static let queueRange = 3200...3299
}

/// The store errors a caller decides on, as a code type with static members (like
/// swift-system's `Errno`): match `error.code == StoreErrorCode.duplicateKey.code`, never a name
/// or a message. The factories that raise these errors build them from these members.
public struct StoreErrorCode: Sendable, Hashable {
    public let category: ODataErrorCategory
    public let name: String
    public let code: Int

    init(_ category: ODataErrorCategory, _ name: String, _ code: Int) {
        self.category = category
        self.name = name
        self.code = code
    }

    /// 3000: the storage engine failed (the `EngineError` is the error's `underlying`).
    public static let storageEngine = StoreErrorCode(.clientInternalError, "storageEngineError", 3000)
    /// 3006: the metadata does not fit a set's stored data.
    public static let incompatibleMetadata = StoreErrorCode(.preconditionFailed, "incompatibleMetadata", 3006)
    /// 3103: a create whose key exists (HTTP 409).
    public static let duplicateKey = StoreErrorCode(.invalidInput, "duplicateKey", 3103)
    /// 3116: a batch request whose dependency failed (HTTP 424).
    public static let dependencyFailed = StoreErrorCode(.preconditionFailed, "dependencyFailed", 3116)
    /// 3250: the store is already open in this process.
    public static let storeAlreadyOpen = StoreErrorCode(.preconditionFailed, "storeAlreadyOpen", 3250)
    /// 3254: the passphrase or key does not open the store.
    public static let wrongEncryptionKey = StoreErrorCode(.invalidInput, "wrongEncryptionKey", 3254)
    /// 3255: a file operation on the store failed.
    public static let storeFileError = StoreErrorCode(.clientInternalError, "storeFileError", 3255)
    /// 3256: the app's key store failed.
    public static let keyStoreFailed = StoreErrorCode(.clientInternalError, "keyStoreFailed", 3256)
    /// 3258: the metadata is not compatible with the store's data.
    public static let incompatibleStoreMetadata = StoreErrorCode(.preconditionFailed, "incompatibleStoreMetadata", 3258)
    /// 3263: a downloaded page the store cannot take.
    public static let invalidDownload = StoreErrorCode(.invalidInput, "invalidDownload", 3263)
    /// 3264: an operation cancelled; nothing changed.
    public static let cancelled = StoreErrorCode(.clientInternalError, "operationCancelled", 3264)
    /// 3265: a record of the store does not decode.
    public static let recordCorrupted = StoreErrorCode(.clientInternalError, "storeRecordCorrupted", 3265)
    /// 3266: another process holds the store.
    public static let lockedByOtherProcess = StoreErrorCode(.preconditionFailed, "storeLockedByOtherProcess", 3266)
    /// 3267: no store (with its metadata) where one was expected.
    public static let storeNotFound = StoreErrorCode(.notFound, "storeNotFound", 3267)

    /// Codes that mean the store's files could not be opened or read (the CLI's exit code 2).
    public static let storageFailures: Set<Int> = [
        storageEngine.code, storeAlreadyOpen.code, wrongEncryptionKey.code, storeFileError.code, keyStoreFailed.code,
        recordCorrupted.code, lockedByOtherProcess.code, storeNotFound.code,
    ]

    public func error(_ message: String, at location: String? = nil, underlying: (any Error & Sendable)? = nil) -> ODataError {
        ODataError(category, name: name, code: code, message: message, location: location, underlying: underlying)
    }
}
