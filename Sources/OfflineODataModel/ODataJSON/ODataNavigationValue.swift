/// What a navigation property carries in a payload.
public indirect enum ODataNavigationContent: Sendable, Hashable {
    /// Expanded single-valued navigation (`nil` for JSON `null`).
    case entity(ODataEntity?)
    /// Expanded collection-valued navigation, with its own `Nav@odata.count` / `Nav@odata.nextLink`
    /// (V2: `__count` / `__next` inside the `results` wrapper).
    case entities([ODataEntity], count: Int64?, nextLink: String?)
    /// `Nav@odata.bind` with a single entity reference.
    case bind(String)
    /// `Nav@odata.bind` with an array of entity references.
    case bindMany([String])
    /// Not expanded: V2 `{"__deferred":{"uri":…}}`, V4 `Nav@odata.navigationLink`.
    case deferred(uri: String)
    /// `$expand=Nav/$count`: only `Nav@odata.count`, no entities (an empty array beside the
    /// count would read as "no related entities").
    case count(Int64)
}

/// One navigation property of an entity, as found in the payload.
public struct ODataNavigationValue: Sendable, Hashable {
    public var name: String
    public var content: ODataNavigationContent

    public init(_ name: String, _ content: ODataNavigationContent) {
        self.name = name
        self.content = content
    }

    /// Equality with nested entities compared by `ODataEntity.isIdentical(to:)`.
    public func isIdentical(to other: ODataNavigationValue) -> Bool {
        guard name == other.name else { return false }
        switch (content, other.content) {
        case let (.entity(a?), .entity(b?)): return a.isIdentical(to: b)
        case let (.entities(a, countA, linkA), .entities(b, countB, linkB)):
            return countA == countB && linkA == linkB && a.count == b.count
                && zip(a, b).allSatisfy { $0.isIdentical(to: $1) }
        default: return content == other.content
        }
    }
}
