/// A deleted entry of a delta payload: 4.01 `{"@removed":{"reason":"deleted"},"@id":…}` or
/// 4.0 `{"@odata.removed":{…},"@odata.id":…}`; 4.01 allows key properties instead of the id.
public struct ODataDeletedEntity: Sendable, Hashable {
    public var id: String?
    /// `deleted` or `changed`, when given.
    public var reason: String?
    /// Key (or other) properties sent with the entry, typed when the set's type declares them.
    public var properties: [ODataProperty]

    public init(id: String? = nil, reason: String? = nil, properties: [ODataProperty] = []) {
        self.id = id
        self.reason = reason
        self.properties = properties
    }
}

/// A collection of entities (one page of an entity set, or a delta page).
public struct ODataEntityCollection: Sendable, Hashable {
    public var entities: [ODataEntity]
    /// Deleted entries (delta payloads), in payload order.
    public var deleted: [ODataDeletedEntity]
    /// `@odata.count` / V2 `__count`.
    public var count: Int64?
    /// `@odata.nextLink` / V2 `__next`.
    public var nextLink: String?
    /// `@odata.deltaLink` / V2 `__delta`.
    public var deltaLink: String?
    /// `@odata.context`.
    public var context: String?
    /// Other top-level members that are annotations (`@Namespace.term`).
    public var annotations: [ODataAnnotation]

    public init(entities: [ODataEntity] = [], deleted: [ODataDeletedEntity] = [],
                count: Int64? = nil, nextLink: String? = nil, deltaLink: String? = nil,
                context: String? = nil, annotations: [ODataAnnotation] = []) {
        self.entities = entities
        self.deleted = deleted
        self.count = count
        self.nextLink = nextLink
        self.deltaLink = deltaLink
        self.context = context
        self.annotations = annotations
    }
}
