import OfflineODataModel

/// One bound of an index range on one column.
public struct RangeBound: Sendable, Hashable {
    public var value: ODataValue
    public var inclusive: Bool

    public init(_ value: ODataValue, inclusive: Bool) {
        self.value = value
        self.inclusive = inclusive
    }
}

/// A contiguous range of an index: equality on the first `equal.count` columns, then optionally
/// bounds or a string prefix on the next column. Index entries are ordered by the column values,
/// then the primary key, so a range is one contiguous stretch of the index tree.
public struct IndexRange: Sendable, Hashable {
    public var equal: [ODataValue]
    public var lower: RangeBound?
    public var upper: RangeBound?
    /// `startswith` on the column after the equal prefix.
    public var prefix: String?

    public init(equal: [ODataValue] = [], lower: RangeBound? = nil, upper: RangeBound? = nil, prefix: String? = nil) {
        self.equal = equal
        self.lower = lower
        self.upper = upper
        self.prefix = prefix
    }

    /// The whole index.
    public static let all = IndexRange()

    public var isAll: Bool { equal.isEmpty && lower == nil && upper == nil && prefix == nil }
}

/// How candidates are fetched (docs/Query.md §4).
public indirect enum AccessPath: Sendable, Hashable {
    /// Nothing can match.
    case empty
    /// The whole entity set in primary-key order.
    case scan
    /// Ranges of one index (the primary key or a secondary index), in index order; several
    /// ranges (from `in`) are visited one after the other, in ascending order of their bounds.
    case index(AccessIndex, [IndexRange])
    /// The union of several paths (from `or`), each entity once.
    case union([AccessPath])
}

/// How the result gets its order.
public enum OrderStrategy: Sendable, Hashable {
    /// No `$orderby`: primary-key order when the access path yields it, which it always does
    /// for `.scan`; otherwise the executor sorts by key (stable order for paging).
    case primaryKey
    /// The access path already yields the requested order (forward or backward): rows stream
    /// and the scan stops after `$skip + $top` matches.
    case accessOrder(reverse: Bool)
    /// Keep the best `k` rows in a bounded heap (`$top`/page size known): memory O(k).
    case topK(Int)
    /// No bound on the result: sort everything (only without `$top` and without paging).
    case fullSort
}

/// The chosen plan for one entity-set query. The query layer describes it in OData terms; the
/// store turns it into engine cursors.
public struct QueryPlan: Sendable, Hashable {
    public var entitySet: String
    public var access: AccessPath
    public var order: OrderStrategy
    /// Whether the filter must still be evaluated on each candidate. The planner sets it to
    /// false only when the access path matches exactly the filter (e.g. a key lookup).
    public var needsFilter: Bool
    /// The planner's estimate of the fraction of the set the access path visits (0…1).
    public var estimatedFraction: Double
    public var skip: Int
    public var top: Int?
    /// Why the planner chose this plan (printed by `explain`).
    public var notes: [String]

    public init(entitySet: String, access: AccessPath, order: OrderStrategy, needsFilter: Bool,
                estimatedFraction: Double, skip: Int = 0, top: Int? = nil, notes: [String] = []) {
        self.entitySet = entitySet
        self.access = access
        self.order = order
        self.needsFilter = needsFilter
        self.estimatedFraction = estimatedFraction
        self.skip = skip
        self.top = top
        self.notes = notes
    }
}
