import OfflineODataModel

/// A resolved member path (docs/Query.md §2.2).
public struct BoundPath: Sendable, Hashable {
    public var root: BoundPathRoot
    public var steps: [BoundPathStep]

    public init(root: BoundPathRoot, steps: [BoundPathStep]) {
        self.root = root
        self.steps = steps
    }

    /// The single declared property when the path is `Prop` on the current instance (what an
    /// index on that property can serve).
    public var singleProperty: BoundPropertyStep? {
        guard root == .current, steps.count == 1, case .property(let step) = steps[0] else { return nil }
        return step
    }
}

/// Where a path starts.
public enum BoundPathRoot: Sendable, Hashable {
    /// The instance the (sub)expression is about: the filtered entity, or the element inside
    /// `Nav/$count($filter=…)`.
    case current
    /// `$it`: the outermost instance.
    case it
    /// A lambda variable in scope.
    case variable(String)
    /// `$root/Set(key)`: one entity of an entity set (key values in key order).
    case root(entitySet: String, entityType: String, key: [ODataValue])
}

/// A structural property read. `access` says how to find it without a name lookup.
public struct BoundPropertyStep: Sendable, Hashable {
    public enum Access: Sendable, Hashable {
        /// A declared property of an entity type: the index in
        /// `ServiceModel.allProperties(of: entityType)` (the store's layout order). Derived
        /// types keep their base type's indexes.
        case declared(index: Int)
        /// A declared property of a complex type: the index in `allProperties(ofComplex:)`.
        case complex(index: Int)
        /// A dynamic property of an open type (absent means null).
        case dynamic
    }

    public var name: String
    public var access: Access
    /// The property's type (collections as `.collection`).
    public var type: BoundType

    public init(name: String, access: Access, type: BoundType) {
        self.name = name
        self.access = access
        self.type = type
    }

    /// The declared index into the entity layout, for `.declared`.
    public var declaredIndex: Int? {
        if case .declared(let index) = access { return index }
        return nil
    }
}

/// A navigation hop.
public struct BoundNavigationStep: Sendable, Hashable {
    public var name: String
    /// Namespace-qualified target entity type.
    public var targetEntityType: String
    /// The bound target entity set (from NavigationPropertyBinding), when known.
    public var targetSet: String?
    public var isCollection: Bool

    public init(name: String, targetEntityType: String, targetSet: String?, isCollection: Bool) {
        self.name = name
        self.targetEntityType = targetEntityType
        self.targetSet = targetSet
        self.isCollection = isCollection
    }
}

public indirect enum BoundPathStep: Sendable, Hashable {
    case property(BoundPropertyStep)
    case navigation(BoundNavigationStep)
    /// A type cast; `acceptedTypes` are the cast type and all types derived from it (an
    /// instance of any other type makes the path null, or drops it from a collection).
    case typeCast(String, acceptedTypes: Set<String>)
    /// `/$count` of the collection before it, optionally `($filter=…)` (bound against the
    /// element type, root `.current` = the element).
    case count(filter: BoundExpr?)
    /// `/$filter(condition)` (URL §4.12, ABNF `filterExpr`): the members of the collection
    /// before it for which `condition` is true (false and null drop a member). The condition is
    /// bound against the element type (root `.current` = the member, `$this` too); the path's
    /// type stays the collection's.
    case filter(BoundExpr)
    /// A key predicate after a collection of entities (`Items(2)`, `Items/$filter(…)(2)`):
    /// the member whose key properties equal `values` (in key order), or null when there is none.
    case key(BoundKeyStep)
}

/// The key properties and values of a key predicate inside an expression path.
public struct BoundKeyStep: Sendable, Hashable {
    /// The key properties of the collection's entity type, in key order.
    public var properties: [BoundPropertyStep]
    /// The values, converted to the properties' types, in the same order.
    public var values: [ODataValue]

    public init(properties: [BoundPropertyStep], values: [ODataValue]) {
        self.properties = properties
        self.values = values
    }
}
