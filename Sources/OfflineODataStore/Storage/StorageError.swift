import OfflineODataEngine
import OfflineODataModel

/// Errors of the entity storage layer (codes 3000–3099, docs/Errors.md "Store storage" and
/// docs/StoreFormat.md §8). Every message names the entity set, property, index or tree.
extension ODataError {
    /// The storage engine failed (I/O, corruption, closed store, …); the engine's name, code
    /// and message are kept in the message.
    static func storageEngine(_ error: EngineError, _ context: String) -> ODataError {
        let category: ODataErrorCategory = switch error.category {
        case .invalidInput: .invalidInput
        case .preconditionFailed: .preconditionFailed
        case .notFound: .notFound
        case .notSupported: .notSupported
        case .communicationError: .communicationError
        case .serverSideError: .serverSideError
        case .clientInternalError: .clientInternalError
        }
        return ODataError(category, name: StoreErrorCode.storageEngine.name, code: StoreErrorCode.storageEngine.code,
                          message: "\(context): \(error.name) (\(error.code)): \(error.message)",
                          location: error.file, underlying: error)
    }

    static func storeUnknownEntitySet(_ set: String) -> ODataError {
        ODataError(.notFound, name: "unknownEntitySet", code: 3001,
                   message: "entity set '\(set)' is not in the model", location: set)
    }

    static func storeMissingKeyProperty(_ set: String, _ property: String) -> ODataError {
        ODataError(.invalidInput, name: "missingKeyProperty", code: 3002,
                   message: "entity of set '\(set)' has no value for key property '\(property)'",
                   location: "\(set)/\(property)")
    }

    static func storeNullKeyProperty(_ set: String, _ property: String) -> ODataError {
        ODataError(.invalidInput, name: "nullKeyProperty", code: 3003,
                   message: "key property '\(property)' of set '\(set)' is null", location: "\(set)/\(property)")
    }

    static func storeWrongValueKind(_ set: String, _ property: String, expected: String, got: String) -> ODataError {
        ODataError(.invalidInput, name: "wrongValueKind", code: 3004,
                   message: "property '\(property)' of set '\(set)' is declared \(expected), got \(got)",
                   location: "\(set)/\(property)")
    }

    static func storeKeyTooLong(_ set: String, length: Int, limit: Int) -> ODataError {
        ODataError(.invalidInput, name: "keyTooLong", code: 3005,
                   message: "key of set '\(set)' encodes to \(length) bytes, more than \(limit)", location: set)
    }

    static func storeIncompatibleMetadata(_ set: String, _ reason: String) -> ODataError {
        StoreErrorCode.incompatibleMetadata.error("metadata of set '\(set)' is not compatible with the stored data: \(reason)", at: set)
    }

    static func storeUnknownIndex(_ name: String) -> ODataError {
        ODataError(.notFound, name: "unknownIndex", code: 3007, message: "no index named '\(name)'", location: name)
    }

    static func storeInvalidIndexProperty(_ index: String, _ set: String, _ path: String, _ reason: String) -> ODataError {
        ODataError(.invalidInput, name: "invalidIndexProperty", code: 3008,
                   message: "index '\(index)' on set '\(set)': property '\(path)' \(reason)",
                   location: "\(set)/\(path)")
    }

    static func storeIndexConflict(_ name: String, _ reason: String) -> ODataError {
        ODataError(.preconditionFailed, name: "indexConflict", code: 3009,
                   message: "index '\(name)': \(reason)", location: name)
    }

    static func storeIndexNotReady(_ name: String) -> ODataError {
        ODataError(.preconditionFailed, name: "indexNotReady", code: 3010,
                   message: "index '\(name)' is still being built (declare it again to finish)", location: name)
    }

    static func storeIndexKeyTooLong(_ index: String, _ set: String, length: Int, limit: Int) -> ODataError {
        ODataError(.invalidInput, name: "indexKeyTooLong", code: 3011,
                   message: "entry of index '\(index)' on set '\(set)' encodes to \(length) bytes, more than \(limit)",
                   location: index)
    }

    static func storeUnknownNavigation(_ set: String, _ navigation: String, _ reason: String) -> ODataError {
        ODataError(.notFound, name: "unknownNavigation", code: 3012,
                   message: "navigation '\(navigation)' of set '\(set)': \(reason)", location: "\(set)/\(navigation)")
    }

    static func storeInvalidLink(_ set: String, _ navigation: String, _ reason: String) -> ODataError {
        ODataError(.invalidInput, name: "invalidLink", code: 3013,
                   message: "link over '\(navigation)' of set '\(set)': \(reason)", location: "\(set)/\(navigation)")
    }

    static func storeCorrupted(_ what: String, _ reason: String) -> ODataError {
        ODataError(.clientInternalError, name: "storedDataCorrupted", code: 3014,
                   message: "stored \(what) is not readable: \(reason)", location: what)
    }

    static func storeUnsupportedFormat(_ version: Int) -> ODataError {
        ODataError(.notSupported, name: "unsupportedStoreFormat", code: 3015,
                   message: "the store's catalog has format version \(version); this library reads version \(StoreFormat.catalogVersion)")
    }

    static func storeCancelled(_ what: String) -> ODataError {
        ODataError(.clientInternalError, name: "cancelled", code: 3016, message: "\(what) was cancelled", location: what)
    }

    static func storeInvalidSystemTree(_ name: String, _ reason: String) -> ODataError {
        ODataError(.invalidInput, name: "invalidSystemTree", code: 3017,
                   message: "system tree '\(name)': \(reason)", location: name)
    }

    static func storeInvalidBound(_ index: String, _ reason: String) -> ODataError {
        ODataError(.invalidInput, name: "invalidIndexBound", code: 3018,
                   message: "bound of index '\(index)': \(reason)", location: index)
    }

    static func storeSetWithoutKey(_ set: String) -> ODataError {
        ODataError(.notSupported, name: "entitySetWithoutKey", code: 3019,
                   message: "entity set '\(set)' has no key (or a key over a complex path) and cannot be stored",
                   location: set)
    }

    static func storeTooLong(_ set: String, _ what: String, length: Int, limit: Int) -> ODataError {
        ODataError(.invalidInput, name: "valueTooLong", code: 3020,
                   message: "\(what) of an entity of set '\(set)' has \(length) bytes, more than \(limit)", location: set)
    }

    static func storeWrongKeyCount(_ set: String, got: Int, expected: Int) -> ODataError {
        ODataError(.invalidInput, name: "wrongKeyCount", code: 3021,
                   message: "key of set '\(set)' has \(expected) properties, got \(got) values", location: set)
    }

    static func storeTypeNotInSet(_ set: String, _ typeName: String) -> ODataError {
        ODataError(.invalidInput, name: "typeNotInSet", code: 3022,
                   message: "entity of type '\(typeName)' does not belong to set '\(set)'", location: set)
    }

    static func storeValueRejected(_ set: String, _ error: ODataError) -> ODataError {
        ODataError(.invalidInput, name: "valueRejected", code: 3023,
                   message: "entity of set '\(set)' does not fit its layout: \(error.message)",
                   location: error.location.map { set + " " + $0 } ?? set)
    }
}

extension EngineError {
    /// Maps an engine error into the OData error space (`storageEngineError`, 3000).
    func odata(_ context: String) -> ODataError { .storageEngine(self, context) }
}

/// Runs an engine call and maps its error.
@inline(__always)
func mapEngine<T>(_ context: @autoclosure () -> String, _ body: () throws(EngineError) -> T) throws(ODataError) -> T {
    do {
        return try body()
    } catch {
        throw error.odata(context())
    }
}
