import OfflineODataModel

/// A condition an ordered index can answer, extracted from a bound `$filter` (docs/Query.md §4).
///
/// The planner only ever uses conditions to *narrow* the candidates: the whole filter is still
/// evaluated on every candidate, so a condition may over-approximate (return more rows) but
/// never under-approximate. Values are already converted to the property's declared kind.
public struct IndexCondition: Sendable, Hashable {
    public enum Operator: String, Sendable, Hashable {
        case eq, lt, le, gt, ge
        /// `in (v1, v2, …)` — `values` holds the members.
        case `in`
        /// `startswith(Property, 'prefix')` on a string property.
        case startsWith
    }

    /// The property path relative to the entity (`Price`, `Address/City`).
    public var property: String
    public var op: Operator
    /// One value, except for `in`. Never null for range operators (`gt null` is always false
    /// and is planned as an empty result by the caller).
    public var values: [ODataValue]

    public init(property: String, op: Operator, values: [ODataValue]) {
        self.property = property
        self.op = op
        self.values = values
    }

    public init(property: String, op: Operator, value: ODataValue) {
        self.init(property: property, op: op, values: [value])
    }
}

/// The index-usable shape of a filter: atoms combined by AND/OR; everything the planner cannot
/// use is `.opaque` (it still narrows nothing and is checked by the residual filter).
public indirect enum ConditionTree: Sendable, Hashable {
    case atom(IndexCondition)
    case and([ConditionTree])
    case or([ConditionTree])
    /// A condition that is never true (`Price gt null`, `in ()`): the result is empty.
    case never
    case opaque
}

/// An ordered access structure the store offers for one entity set: the primary key, or a
/// declared secondary index (including the automatic navigation indexes on foreign keys).
/// Index order is the values of `properties` in order, then the primary key.
public struct AccessIndex: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case primaryKey
        case secondary
    }

    public var name: String
    public var kind: Kind
    /// Property paths in index order.
    public var properties: [String]

    public init(name: String, kind: Kind, properties: [String]) {
        self.name = name
        self.kind = kind
        self.properties = properties
    }

    public static func primaryKey(_ properties: [String]) -> AccessIndex {
        AccessIndex(name: "primary key", kind: .primaryKey, properties: properties)
    }
}
