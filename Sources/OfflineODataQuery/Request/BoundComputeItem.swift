import OfflineODataModel

/// One `$compute` item after binding (URL Conventions §5.1.3, docs/Query.md §5): the dynamic
/// property `alias` holds the value of `expression` for each instance. `expression.type` is
/// its type (always primitive, an enumeration, or null).
public struct BoundComputeItem: Sendable, Hashable {
    public var alias: String
    public var expression: BoundExpr

    public init(alias: String, expression: BoundExpr) {
        self.alias = alias
        self.expression = expression
    }

    /// The computed property's type.
    public var type: BoundType { expression.type }
}
