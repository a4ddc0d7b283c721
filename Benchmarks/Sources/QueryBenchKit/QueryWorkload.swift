/// One query of the benchmark: the OData URL our store runs and the equivalent SQL of the two
/// SQLite peers (results must be identical: same rows, same `ResultChecksum`).
public struct QueryWorkload: Sendable, Hashable {
    public enum Kind: String, Sendable {
        case indexedEquality, indexedRange, nonIndexedFilter, orderByIndexed, orderByNonIndexed, expand, count
    }

    /// Which DESIGN.md §5 row the workload belongs to.
    public enum GoalClass: Sendable {
        /// "indexed `$filter` (1%), `$orderby`+`$top`, `$expand` 1:n": bar ≥ 1x SQLite typed
        /// (same indexes), goal ≥ 2x.
        case indexed
        /// "non-indexed `$filter`": bar ≥ 3x SQLite over JSON text, goal ≥ 1x SQLite typed.
        case nonIndexed
    }

    /// Short stable identifier (METRIC names, command line): `eq-indexed`, `range-indexed`, ….
    public let id: String
    public let kind: Kind
    public let title: String
    /// The OData request relative to the service root (unencoded), e.g.
    /// `SalesOrders?$filter=CurrencyCode eq 'SEK'`.
    public let url: String
    /// Typed-column SQL (`SELECT *` of the set; `$count`: `SELECT count(*)`).
    public let typedSQL: String
    /// `$expand` only: the per-parent child query, `?1` = the parent's SalesOrderID.
    public let typedChildSQL: String?
    /// JSON-text SQL (`SELECT key, doc`).
    public let jsonSQL: String
    public let jsonChildSQL: String?
    /// True when the row order is part of the result (`$orderby`): the checksum is positional.
    public let ordered: Bool

    public var goalClass: GoalClass {
        switch kind {
        case .nonIndexedFilter, .orderByNonIndexed: .nonIndexed
        default: .indexed
        }
    }

    /// SQLite page cache of the query workers (`PRAGMA cache_size`), KiB; ours gets the same
    /// budget as block cache.
    public static let cacheKiB = 256 * 1024

    /// The indexed equality / `$count` filter: `LifecycleStatus eq 'N'` (new orders: 40 % of
    /// those created in the last 60 of the generator's 1,461 days, ≈ 1.7 % at every size; measured
    /// 1.68 % at 100k). No single value of the generated SalesOrders is closer to 1 %: the rarest
    /// currencies (SEK, ARS) hold ≈ 2 % and vary with the customers drawn, a customer ID ≤ 0.03 %,
    /// a delivery date ≈ 0.07 %.
    public static let equalityProperty = "LifecycleStatus"
    public static let equalityValue = "N"

    static func json(_ p: String) -> String { SQLiteJSONPeer.field(p) }

    /// The workloads at `orders` SalesOrders. Parameters that depend on the size (the `$expand`
    /// parents' key range: 100 orders in the middle of the set) are derived from it.
    public static func all(orders: Int) -> [QueryWorkload] {
        let eqP = equalityProperty, eqV = equalityValue
        let rangeLow = "4000", rangeHigh = "4500"
        let first = max(0, orders / 2 - 50)
        let lowKey = "05" + pad(first), highKey = "05" + pad(first + 100)
        let nf = "NetAmount gt 1000 and startswith(CustomerName,'B') and BillingStatus eq 'N'"
        return [
            QueryWorkload(
                id: "eq-indexed", kind: .indexedEquality, title: "indexed equality, `\(eqP)`",
                url: "SalesOrders?$filter=\(eqP) eq '\(eqV)'",
                typedSQL: "SELECT * FROM SalesOrders WHERE \(eqP) = '\(eqV)'", typedChildSQL: nil,
                jsonSQL: "SELECT key, doc FROM SalesOrders WHERE \(json(eqP)) = '\(eqV)'", jsonChildSQL: nil,
                ordered: false),
            QueryWorkload(
                id: "range-indexed", kind: .indexedRange, title: "indexed range, `GrossAmount`",
                url: "SalesOrders?$filter=GrossAmount ge \(rangeLow) and GrossAmount lt \(rangeHigh)",
                typedSQL: "SELECT * FROM SalesOrders WHERE GrossAmount >= \(rangeLow) AND GrossAmount < \(rangeHigh)",
                typedChildSQL: nil,
                jsonSQL: "SELECT key, doc FROM SalesOrders WHERE \(json("GrossAmount")) >= \(rangeLow) AND \(json("GrossAmount")) < \(rangeHigh)",
                jsonChildSQL: nil, ordered: false),
            QueryWorkload(
                id: "filter-nonindexed", kind: .nonIndexedFilter, title: "non-indexed compound filter",
                url: "SalesOrders?$filter=\(nf)",
                typedSQL: "SELECT * FROM SalesOrders WHERE NetAmount > 1000 AND substr(CustomerName, 1, 1) = 'B' AND BillingStatus = 'N'",
                typedChildSQL: nil,
                jsonSQL: "SELECT key, doc FROM SalesOrders WHERE \(json("NetAmount")) > 1000 AND substr(\(json("CustomerName")), 1, 1) = 'B' AND \(json("BillingStatus")) = 'N'",
                jsonChildSQL: nil, ordered: false),
            QueryWorkload(
                id: "top-indexed", kind: .orderByIndexed, title: "`$orderby` indexed `GrossAmount desc`, `$top=20`",
                url: "SalesOrders?$orderby=GrossAmount desc&$top=20",
                typedSQL: "SELECT * FROM SalesOrders ORDER BY GrossAmount DESC LIMIT 20", typedChildSQL: nil,
                jsonSQL: "SELECT key, doc FROM SalesOrders ORDER BY \(json("GrossAmount")) DESC LIMIT 20", jsonChildSQL: nil,
                ordered: true),
            QueryWorkload(
                id: "top-nonindexed", kind: .orderByNonIndexed, title: "`$orderby` non-indexed `NetAmount desc`, `$top=20`",
                url: "SalesOrders?$orderby=NetAmount desc&$top=20",
                typedSQL: "SELECT * FROM SalesOrders ORDER BY NetAmount DESC LIMIT 20", typedChildSQL: nil,
                jsonSQL: "SELECT key, doc FROM SalesOrders ORDER BY \(json("NetAmount")) DESC LIMIT 20", jsonChildSQL: nil,
                ordered: true),
            QueryWorkload(
                id: "expand-items", kind: .expand, title: "`$expand=ToItems`, 100 parents by key range",
                url: "SalesOrders?$filter=SalesOrderID ge '\(lowKey)' and SalesOrderID lt '\(highKey)'&$expand=ToItems",
                typedSQL: "SELECT * FROM SalesOrders WHERE SalesOrderID >= '\(lowKey)' AND SalesOrderID < '\(highKey)'",
                typedChildSQL: "SELECT * FROM SalesOrderItems WHERE SalesOrderID = ?1",
                jsonSQL: "SELECT key, doc FROM SalesOrders WHERE key >= '\(lowKey)' AND key < '\(highKey)'",
                jsonChildSQL: "SELECT key, doc FROM SalesOrderItems WHERE \(json("SalesOrderID")) = ?1",
                ordered: false),
            QueryWorkload(
                id: "count-indexed", kind: .count, title: "`$count` with indexed filter",
                url: "SalesOrders/$count?$filter=\(eqP) eq '\(eqV)'",
                typedSQL: "SELECT count(*) FROM SalesOrders WHERE \(eqP) = '\(eqV)'", typedChildSQL: nil,
                jsonSQL: "SELECT count(*) FROM SalesOrders WHERE \(json(eqP)) = '\(eqV)'", jsonChildSQL: nil,
                ordered: false),
        ]
    }

    static func pad(_ n: Int) -> String {
        let s = String(n)
        return String(repeating: "0", count: max(0, 8 - s.count)) + s
    }
}
