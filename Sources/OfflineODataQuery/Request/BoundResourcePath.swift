import OfflineODataModel

/// A resource path resolved against the service model (docs/Query.md §2.1): where it starts,
/// each hop, and what the request addresses in the end.
public struct BoundResourcePath: Sendable, Hashable {
    public enum Step: Sendable, Hashable {
        /// The entity set the path starts at.
        case entitySet(String)
        /// A singleton.
        case singleton(String)
        /// A key predicate (or key-as-segment) selecting one entity of the collection so far.
        case key([ODataValue])
        /// A navigation hop. `targetSet` is the bound entity set (nil for containment or when
        /// the service binds none).
        case navigation(name: String, targetType: String, targetSet: String?, isCollection: Bool)
        /// A derived-type cast of the entity or collection so far.
        case typeCast(String)
        /// A structural property of the single entity so far (`Orders(1)/Price`).
        case property(name: String, type: CSDLTypeReference)
        /// A `/$filter(…)` condition on the collection so far, when a key then picks one of its
        /// members (`Set/$filter(…)(key)`, URL §4.12): the member is addressed only if the
        /// condition is true for it (else there is none: not found). Bound against the
        /// collection's type. Conditions on the addressed collection itself are in `filters`.
        case filter(BoundExpr)
    }

    /// What the request addresses.
    public enum Target: Sendable, Hashable {
        /// A collection of entities of `type`, in `set` when known.
        case entityCollection(set: String?, type: String)
        /// One entity of `type`.
        case entity(set: String?, type: String)
        /// A property value of one entity.
        case property(name: String, type: CSDLTypeReference)
        /// The service document, `$metadata`, `$batch`.
        case serviceDocument
        case metadata
        case batch
    }

    public enum Suffix: Sendable, Hashable {
        case none
        /// `/$count`: a plain-text count of the collection.
        case count
        /// `/$ref`: entity references.
        case ref
        /// `/$value`: the raw value of a property or the media resource.
        case value
    }

    public var steps: [Step]
    public var target: Target
    public var suffix: Suffix
    /// The conditions of the `/$filter(…)` path segments on the addressed collection (URL §4.12),
    /// bound against it, in path order: the ones after its last key, if any. `RequestBinder`
    /// joins them with the `$filter` query option by `and`. A `/$filter(…)` followed by a key
    /// is a `.filter` step instead.
    public var filters: [BoundExpr]

    public init(steps: [Step], target: Target, suffix: Suffix = .none, filters: [BoundExpr] = []) {
        self.steps = steps
        self.target = target
        self.suffix = suffix
        self.filters = filters
    }

    /// The entity set of the addressed entities, when the path stays within bound sets.
    public var targetSet: String? {
        switch target {
        case .entityCollection(let set, _), .entity(let set, _): return set
        default: return nil
        }
    }

    /// The entity type of the addressed entities.
    public var targetType: String? {
        switch target {
        case .entityCollection(_, let type), .entity(_, let type): return type
        default: return nil
        }
    }

    /// True for a path addressing a collection (before `$count`/`$ref`).
    public var isCollection: Bool {
        if case .entityCollection = target { return true }
        return false
    }

    /// True when the path has a `/$filter(…)` segment anywhere (in `steps` or `filters`).
    public var hasFilterSegments: Bool {
        !filters.isEmpty || steps.contains { if case .filter = $0 { return true } else { return false } }
    }

    /// The key of the entity when the path is exactly `Set(key)` (or `Set/key`).
    public var directKey: (set: String, key: [ODataValue])? {
        guard steps.count == 2, case .entitySet(let set) = steps[0], case .key(let key) = steps[1] else { return nil }
        return (set, key)
    }
}
