import OfflineODataModel

/// Errors of `$compute` and of the `/$filter(…)` path segment (codes 1757–1759, docs/Query.md
/// §5.4, docs/Errors.md "Query $compute and /$filter").
extension ODataError {
    /// 1757: a `$compute` alias that names a declared (structural or navigation) property of the
    /// type, or another alias of the same `$compute`.
    static func computeAliasClash(_ alias: String, _ reason: String, location: String) -> ODataError {
        ODataError(.invalidInput, name: "computedAliasClash", code: 1757,
                   message: "$compute alias '\(alias)' \(reason)", location: location)
    }

    /// 1758: a `$compute` expression whose value is not a single primitive or enumeration value
    /// (an entity, a complex value, a collection, a stream).
    static func computeNotPrimitive(_ alias: String, type: BoundType, location: String) -> ODataError {
        ODataError(.invalidInput, name: "computedTypeNotPrimitive", code: 1758,
                   message: "$compute item '\(alias)' has type \(type); a computed property must be a single primitive or enumeration value",
                   location: location)
    }

    /// 1759: a `$filter(…)` path segment that does not follow a collection of entities (the
    /// service root, a single entity, a property). A key predicate after it is valid OData the
    /// store does not address: `notSupported` (1753).
    static func invalidFilterSegment(_ message: String, position: Int) -> ODataError {
        ODataError(.invalidInput, name: "invalidFilterSegment", code: 1759,
                   message: message, location: "path, position \(position)")
    }

    /// A binding error's position (relative to an expression's own text, `ODataError.position`)
    /// moved into a larger text: `"<place>, position <base + n>"`.
    func relocated(_ place: String, base: Int) -> ODataError {
        var copy = self
        if let position {
            copy.location = "\(place), position \(base + position)"
            copy.position = nil   // placed: a further move prefixes the place, as for any location
        } else if location == nil {
            copy.location = "\(place), position \(base)"
        } else if let location {
            copy.location = "\(place): \(location)"
        }
        return copy
    }
}
