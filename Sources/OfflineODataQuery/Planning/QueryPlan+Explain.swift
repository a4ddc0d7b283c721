import OfflineODataModel

extension QueryPlan {
    /// The plan as readable text, one step per line, e.g.
    ///
    ///     SalesOrders
    ///       access: index SalesOrders_CustomerID range [CustomerID = '0100000001']
    ///       filter: re-checked on each candidate
    ///       order: top-20 heap
    ///       estimate: visits ~1.0% of the set
    ///       why: filter: index SalesOrders_CustomerID [CustomerID eq '0100000001']
    public func explain() -> String {
        var lines = [entitySet]
        lines.append("  access: " + Self.describe(access))
        lines.append("  filter: " + (needsFilter ? "re-checked on each candidate" : "answered by the access path"))
        switch order {
        case .primaryKey: lines.append("  order: primary key")
        case .accessOrder(let reverse): lines.append("  order: access path order\(reverse ? " (backward)" : "") — streams, stops early")
        case .topK(let k): lines.append("  order: top-\(k) heap")
        case .fullSort: lines.append("  order: full sort")
        }
        if skip > 0 || top != nil {
            lines.append("  page: skip \(skip)" + (top.map { ", top \($0)" } ?? ""))
        }
        lines.append("  estimate: visits ~\(Planner.percent(estimatedFraction)) of the set")
        for note in notes { lines.append("  why: " + note) }
        return lines.joined(separator: "\n")
    }

    static func describe(_ access: AccessPath) -> String {
        switch access {
        case .empty: return "none (no row can match)"
        case .scan: return "full scan in primary-key order"
        case .index(let index, let ranges):
            let what = index.kind == .primaryKey ? "primary key" : "index \(index.name)"
            let shown = ranges.prefix(4).map { describe($0, columns: index.properties) }
            let more = ranges.count > 4 ? " … (\(ranges.count) ranges)" : ""
            return "\(what) " + shown.joined(separator: " ∪ ") + more
        case .union(let parts):
            return "union of " + parts.map { "(" + describe($0) + ")" }.joined(separator: " ∪ ")
        }
    }

    static func describe(_ range: IndexRange, columns: [String]) -> String {
        if range.isAll { return "[all]" }
        var parts: [String] = []
        for (value, column) in zip(range.equal, columns) {
            parts.append("\(column) = \(ODataValue.describe(value))")
        }
        let next = range.equal.count < columns.count ? columns[range.equal.count] : "?"
        if let prefix = range.prefix { parts.append("\(next) starts with \(ODataValue.describe(.string(prefix)))") }
        if let lower = range.lower { parts.append("\(next) \(lower.inclusive ? ">=" : ">") \(ODataValue.describe(lower.value))") }
        if let upper = range.upper { parts.append("\(next) \(upper.inclusive ? "<=" : "<") \(ODataValue.describe(upper.value))") }
        return "range [" + parts.joined(separator: ", ") + "]"
    }
}
