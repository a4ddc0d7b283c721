import OfflineODataModel

/// Errors of the local OData service (3100–3199) and of the request queue, ErrorArchive and
/// EventLog (3200–3299). Listed in docs/LocalService.md §8 and docs/Errors.md.
extension ODataError {
    static func serviceMalformedRequest(_ what: String, _ location: String?) -> ODataError {
        ODataError(.invalidInput, name: "malformedRequest", code: 3100, message: what, location: location)
    }

    static func serviceMethodNotAllowed(_ method: String, _ url: String) -> ODataError {
        ODataError(.notSupported, name: "methodNotAllowed", code: 3101,
                   message: "\(method) is not supported on '\(url)'", location: url)
    }

    static func serviceEntityNotFound(_ set: String, _ key: String) -> ODataError {
        ODataError(.notFound, name: "entityNotFound", code: 3102,
                   message: "no entity \(set)\(key) in the local store", location: set + key)
    }

    static func serviceDuplicateKey(_ set: String, _ key: String) -> ODataError {
        StoreErrorCode.duplicateKey.error("an entity \(set)\(key) already exists", at: set + key)
    }

    static func serviceMissingKey(_ set: String, _ property: String) -> ODataError {
        ODataError(.invalidInput, name: "missingKeyValue", code: 3104,
                   message: "the new entity of '\(set)' has no value for key property '\(property)', which the back end does not compute",
                   location: "\(set)/\(property)")
    }

    static func serviceKeyMismatch(_ set: String, _ property: String, _ detail: String) -> ODataError {
        ODataError(.invalidInput, name: "keyMismatch", code: 3105,
                   message: "key property '\(property)' of '\(set)': \(detail)", location: "\(set)/\(property)")
    }

    static func serviceConstraintViolation(_ set: String, _ detail: String, _ location: String?) -> ODataError {
        ODataError(.invalidInput, name: "constraintViolation", code: 3106,
                   message: "entity of '\(set)': \(detail)", location: location)
    }

    static func serviceMissingPrincipal(_ set: String, _ navigation: String, _ target: String, _ key: String) -> ODataError {
        ODataError(.invalidInput, name: "missingPrincipal", code: 3107,
                   message: "'\(set)' refers over '\(navigation)' to \(target)\(key), which does not exist locally",
                   location: "\(set)/\(navigation)")
    }

    static func servicePreconditionFailed(_ set: String, _ key: String, given: String, current: String?) -> ODataError {
        ODataError(.preconditionFailed, name: "preconditionFailed", code: 3108,
                   message: "If-Match \(given) does not match the ETag \(current ?? "(none)") of \(set)\(key)",
                   location: set + key)
    }

    static func serviceInvalidBody(_ detail: String, _ location: String?) -> ODataError {
        ODataError(.invalidInput, name: "invalidBody", code: 3109, message: detail, location: location)
    }

    static func serviceInvalidOption(_ option: String, _ detail: String) -> ODataError {
        ODataError(.invalidInput, name: "invalidRequestOption", code: 3110,
                   message: "request option '\(option)' \(detail)", location: option)
    }

    static func serviceNotSupported(_ what: String, _ location: String?) -> ODataError {
        ODataError(.notSupported, name: "notSupported", code: 3111, message: what, location: location)
    }

    static func serviceReadOnlySet(_ set: String, _ method: String) -> ODataError {
        ODataError(.invalidInput, name: "readOnlyEntitySet", code: 3112,
                   message: "\(method) is not allowed on the built-in entity set '\(set)'", location: set)
    }

    static func serviceCannotGenerateKey(_ set: String, _ property: String, _ kind: String) -> ODataError {
        ODataError(.notSupported, name: "cannotGenerateKey", code: 3113,
                   message: "no temporary local key can be generated for '\(set)/\(property)' of kind \(kind)",
                   location: "\(set)/\(property)")
    }

    static func serviceInvalidBatch(_ detail: String, _ location: String?) -> ODataError {
        ODataError(.invalidInput, name: "invalidBatch", code: 3114, message: detail, location: location)
    }

    static func serviceNoReadHandler(_ url: String) -> ODataError {
        ODataError(.notSupported, name: "noReadHandler", code: 3115,
                   message: "GET '\(url)': no read handler is plugged into this local service", location: url)
    }

    static func serviceDependencyFailed(_ id: String) -> ODataError {
        StoreErrorCode.dependencyFailed.error("batch request '\(id)' was not applied: another request of its atomicity group failed", at: id)
    }

    // MARK: queue, ErrorArchive, EventLog (3200–3299)

    static func queueSystemSetsMissing(_ set: String) -> ODataError {
        ODataError(.preconditionFailed, name: "systemSetsMissing", code: 3200,
                   message: "the model has no entity set '\(set)': open the storage with ServiceModel.withOfflineSystemSets()",
                   location: set)
    }

    static func queueRequestNotFound(_ set: String, _ id: Int64) -> ODataError {
        ODataError(.notFound, name: "requestNotFound", code: 3201, message: "no request \(id) in \(set)", location: "\(set)(\(id))")
    }

    static func queueCorrupted(_ what: String, _ detail: String) -> ODataError {
        ODataError(.clientInternalError, name: "queueCorrupted", code: 3202, message: "\(what): \(detail)", location: what)
    }

    static func queueSystemSetClash(_ set: String) -> ODataError {
        ODataError(.invalidInput, name: "systemSetNameClash", code: 3203,
                   message: "the application model already has an entity set or type named '\(set)'", location: set)
    }

    static func queueInvalidFailure(_ detail: String) -> ODataError {
        ODataError(.invalidInput, name: "invalidFailure", code: 3204, message: detail, location: nil)
    }

    /// 3205: a request that cannot be withdrawn: not an action (undo its entity instead), or one
    /// an upload may have sent already.
    static func queueCannotWithdraw(_ id: Int64, _ why: String) -> ODataError {
        ODataError(.preconditionFailed, name: "cannotWithdraw", code: 3205, message: "request \(id) cannot be withdrawn: \(why)",
                   location: "RequestQueue(\(id))")
    }
}

extension JSONObject {
    /// An object from members whose keys are known to be distinct.
    static func unique(_ members: [(String, JSONValue)]) -> JSONObject {
        var object = JSONObject()
        for (key, value) in members { try? object.append(key: key, value: value) }
        return object
    }
}
