import OfflineODataModel

/// Errors of request binding, paging and skip tokens (codes 1750–1799, docs/Errors.md "Query
/// requests").
extension ODataError {
    /// A resource path segment that does not fit the model (unknown set, property, navigation).
    static func invalidResourcePath(_ message: String, segment: String, position: Int) -> ODataError {
        ODataError(.invalidInput, name: "invalidResourcePath", code: 1750,
                   message: "\(message) (segment '\(segment)')", location: "path, position \(position)")
    }

    /// An entity set, singleton or property name the model does not declare.
    static func resourceNotFound(_ message: String, segment: String, position: Int) -> ODataError {
        ODataError(.notFound, name: "resourceNotFound", code: 1751,
                   message: "\(message) (segment '\(segment)')", location: "path, position \(position)")
    }

    /// A key predicate whose values do not fit the entity type's key.
    static func requestInvalidKey(_ message: String, position: Int) -> ODataError {
        ODataError(.invalidInput, name: "invalidKeyPredicate", code: 1752,
                   message: message, location: "path, position \(position)")
    }

    /// A path form or option the offline store does not offer (functions, `$crossjoin`, …).
    static func requestNotSupported(_ message: String, location: String) -> ODataError {
        ODataError(.notSupported, name: "notSupported", code: 1753, message: message, location: location)
    }

    /// A query option that does not apply where it is used (`$top` on a single entity, nested
    /// options after `$ref`, `$select` of an unknown property, …).
    static func invalidQueryOption(_ message: String, option: String) -> ODataError {
        ODataError(.invalidInput, name: "invalidQueryOption", code: 1754, message: message, location: option)
    }

    /// A `$skiptoken` this store did not issue or that does not fit the request.
    static func invalidSkipToken(_ message: String) -> ODataError {
        ODataError(.invalidInput, name: "invalidSkipToken", code: 1755, message: message, location: "$skiptoken")
    }
}
