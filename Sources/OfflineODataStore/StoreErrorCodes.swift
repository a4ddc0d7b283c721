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

/// The store errors a caller decides on (`ODataErrorCode` values): match
/// `error.code == StoreErrorCode.duplicateKey.code`, never a name or a message. The factories
/// that raise these errors build them from these members.
public enum StoreErrorCode {
    /// 3000: the storage engine failed (the `EngineError` is the error's `underlying`).
    public static let storageEngine = ODataErrorCode(.clientInternalError, "storageEngineError", 3000)
    /// 3006: the metadata does not fit a set's stored data.
    public static let incompatibleMetadata = ODataErrorCode(.preconditionFailed, "incompatibleMetadata", 3006)
    /// 3103: a create whose key exists (HTTP 409).
    public static let duplicateKey = ODataErrorCode(.invalidInput, "duplicateKey", 3103)
    /// 3116: a batch request whose dependency failed (HTTP 424).
    public static let dependencyFailed = ODataErrorCode(.preconditionFailed, "dependencyFailed", 3116)
    /// 3250: the store is already open in this process.
    public static let storeAlreadyOpen = ODataErrorCode(.preconditionFailed, "storeAlreadyOpen", 3250)
    /// 3254: the passphrase or key does not open the store.
    public static let wrongEncryptionKey = ODataErrorCode(.invalidInput, "wrongEncryptionKey", 3254)
    /// 3255: a file operation on the store failed.
    public static let storeFileError = ODataErrorCode(.clientInternalError, "storeFileError", 3255)
    /// 3256: the app's key store failed.
    public static let keyStoreFailed = ODataErrorCode(.clientInternalError, "keyStoreFailed", 3256)
    /// 3258: the metadata is not compatible with the store's data.
    public static let incompatibleStoreMetadata = ODataErrorCode(.preconditionFailed, "incompatibleStoreMetadata", 3258)
    /// 3263: a downloaded page the store cannot take.
    public static let invalidDownload = ODataErrorCode(.invalidInput, "invalidDownload", 3263)
    /// 3264: an operation cancelled; nothing changed.
    public static let cancelled = ODataErrorCode(.clientInternalError, "operationCancelled", 3264)
    /// 3265: a record of the store does not decode.
    public static let recordCorrupted = ODataErrorCode(.clientInternalError, "storeRecordCorrupted", 3265)
    /// 3266: another process holds the store.
    public static let lockedByOtherProcess = ODataErrorCode(.preconditionFailed, "storeLockedByOtherProcess", 3266)
    /// 3267: no store (with its metadata) where one was expected.
    public static let storeNotFound = ODataErrorCode(.notFound, "storeNotFound", 3267)

    /// Codes that mean the store's files could not be opened or read (the CLI's exit code 2).
    public static let storageFailures: Set<Int> = [
        storageEngine.code, storeAlreadyOpen.code, wrongEncryptionKey.code, storeFileError.code, keyStoreFailed.code,
        recordCorrupted.code, lockedByOtherProcess.code, storeNotFound.code,
    ]
}
