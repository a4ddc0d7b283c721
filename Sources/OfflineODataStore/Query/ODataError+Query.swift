import OfflineODataModel

/// Errors of the query executor (codes 3090–3099 of the storage range, docs/Errors.md "Store
/// query execution").
extension ODataError {
    /// A read the offline store does not answer (singletons, containment, `$metadata` through
    /// the executor, unsupported path shapes).
    static func queryNotSupported(_ message: String) -> ODataError {
        ODataError(.notSupported, name: "notSupported", code: 3090, message: message, location: "path")
    }

    /// The addressed entity does not exist (HTTP 404).
    static func queryEntityNotFound(_ path: String) -> ODataError {
        ODataError(.notFound, name: "entityNotFound", code: 3091, message: "no entity at \(path)", location: "path")
    }
}
