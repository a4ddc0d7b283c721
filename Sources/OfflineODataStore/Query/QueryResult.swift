import OfflineODataModel
import OfflineODataQuery

/// What a read request returns, as typed Swift values; `ODataResponseWriter` turns it into
/// OData JSON.
public struct QueryResult: Sendable {
    public enum Payload: Sendable {
        /// A collection page: entities (projected, with expanded navigation inline), the total
        /// count when `$count=true`, and the next link when more pages remain.
        case collection(entities: [ODataEntity], count: Int?, nextLink: String?)
        /// One entity.
        case entity(ODataEntity)
        /// `/$count`.
        case count(Int)
        /// A property of one entity (`Orders(1)/Price`).
        case property(name: String, value: ODataValue)
        /// Entity references (`/$ref`): their ids.
        case references([String], count: Int?, nextLink: String?)
    }

    public var payload: Payload
    /// The entity set of the entities returned (for the context URL), when known.
    public var entitySet: String?
    /// The entity type of the entities returned.
    public var entityType: String?
    /// Where contained entities are, for the context URL, instead of `entitySet` (JSON Format
    /// §10: the container's canonical URL and the containment navigation,
    /// `People('russell')/Trips`).
    public var containerPath: String?
    /// The plan the query ran with (nil for key lookups and navigation paths).
    public var plan: QueryPlan?
    /// The path ended in `/$value`: a property's raw value, not its JSON wrapper (URL §4.4).
    public var rawValue = false
    /// `/$ref` of a single entity (`Orders(1)/Customer/$ref`): one reference, not a collection
    /// (JSON Format §14).
    public var singleReference = false
    /// For a property result: the property's path from its entity (`Location/City/Name`;
    /// the payload's name is its last member), the entity's canonical URL (the context URL
    /// is `$metadata#<entity>/<path>`, JSON Format §10) and, with `$count=true` on a
    /// collection-valued property, its element count before `$top` and `$skip`.
    public var propertyPath: [String] = []
    public var propertyOf: String?
    public var propertyCount: Int?

    public init(payload: Payload, entitySet: String?, entityType: String?, plan: QueryPlan? = nil) {
        self.payload = payload
        self.entitySet = entitySet
        self.entityType = entityType
        self.plan = plan
    }

    /// The entities of a collection or single-entity result.
    public var entities: [ODataEntity] {
        switch payload {
        case .collection(let entities, _, _): return entities
        case .entity(let entity): return [entity]
        default: return []
        }
    }
}
