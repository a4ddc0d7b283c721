import OfflineODataEngine
import OfflineODataModel

/// Errors of the `OfflineStore` facade: codes 3250–3299 (docs/OfflineStore.md §9,
/// docs/Errors.md "Offline store"). Every message names the store, defining query or parameter.
extension ODataError {
    static func offlineStoreAlreadyOpen(_ path: String) -> ODataError {
        StoreErrorCode.storeAlreadyOpen.error("the store at '\(path)' is already open in this process", at: path)
    }

    static func offlineStoreIsOpen(_ path: String) -> ODataError {
        ODataError(.preconditionFailed, name: "storeIsOpen", code: 3251,
                   message: "the store at '\(path)' is open in this process: close it before clearing", location: path)
    }

    static func offlineStoreClosed(_ path: String) -> ODataError {
        ODataError(.preconditionFailed, name: "storeClosed", code: 3252,
                   message: "the store at '\(path)' is closed", location: path)
    }

    static func offlineInvalidParameter(_ name: String, _ reason: String) -> ODataError {
        ODataError(.invalidInput, name: "invalidStoreParameter", code: 3253,
                   message: "store parameter '\(name)' \(reason)", location: name)
    }

    static func offlineWrongKey(_ path: String, _ detail: String) -> ODataError {
        StoreErrorCode.wrongEncryptionKey.error("the passphrase or key does not open the store at '\(path)': \(detail)", at: path)
    }

    static func offlineFileError(_ path: String, _ detail: String) -> ODataError {
        StoreErrorCode.storeFileError.error("file operation on '\(path)' failed: \(detail)", at: path)
    }

    static func offlineKeyStoreFailed(_ store: String, _ detail: String) -> ODataError {
        StoreErrorCode.keyStoreFailed.error("the key store failed for store '\(store)': \(detail)", at: store)
    }

    static func offlineInvalidMetadata(_ detail: String) -> ODataError {
        ODataError(.invalidInput, name: "invalidMetadata", code: 3257,
                   message: "the service metadata cannot be read: \(detail)", location: "$metadata")
    }

    static func offlineIncompatibleMetadata(_ detail: String) -> ODataError {
        StoreErrorCode.incompatibleStoreMetadata.error("the metadata is not compatible with the store's data: \(detail)", at: "$metadata")
    }

    static func offlineInvalidDefiningQuery(_ name: String, _ reason: String) -> ODataError {
        ODataError(.invalidInput, name: "invalidDefiningQuery", code: 3259,
                   message: "defining query '\(name)' \(reason)", location: name)
    }

    static func offlineDefiningQueryExists(_ name: String) -> ODataError {
        ODataError(.invalidInput, name: "definingQueryExists", code: 3260,
                   message: "a defining query named '\(name)' already exists", location: name)
    }

    static func offlineDefiningQueryNotFound(_ name: String) -> ODataError {
        ODataError(.notFound, name: "definingQueryNotFound", code: 3261,
                   message: "no defining query named '\(name)'", location: name)
    }

    static func offlineDefiningQueryInUse(_ name: String, _ detail: String) -> ODataError {
        ODataError(.preconditionFailed, name: "definingQueryHasPendingChanges", code: 3262,
                   message: "defining query '\(name)' cannot be removed: \(detail)", location: name)
    }

    static func offlineInvalidDownload(_ query: String, page: Int, _ detail: String) -> ODataError {
        StoreErrorCode.invalidDownload.error("download of defining query '\(query)', page \(page): \(detail)", at: "\(query)#page\(page)")
    }

    static func offlineCancelled(_ what: String) -> ODataError {
        StoreErrorCode.cancelled.error("\(what) was cancelled; nothing was changed")
    }

    static func offlineCorrupted(_ what: String, _ detail: String) -> ODataError {
        StoreErrorCode.recordCorrupted.error("\(what) does not decode: \(detail)", at: what)
    }

    static func offlineStoreLocked(_ path: String) -> ODataError {
        StoreErrorCode.lockedByOtherProcess.error("the store at '\(path)' is open in another process", at: path)
    }

    /// An engine failure at open, with the cases a caller handles apart typed.
    static func offlineOpen(_ error: EngineError, path: String) -> ODataError {
        switch error.kind {
        case .wrongPassphrase:
            var wrong = ODataError.offlineWrongKey(path, error.message)
            wrong.underlying = error
            return wrong
        case .storeLocked:
            var locked = ODataError.offlineStoreLocked(path)
            locked.underlying = error
            return locked
        default: return .storageEngine(error, "opening the store at '\(path)'")
        }
    }
}
