import OfflineODataModel

/// One `$orderby` key as the planner sees it: a property path when the key is a plain
/// property (and so may match an index), nil for any other expression.
public struct PlanOrderKey: Sendable, Hashable {
    public var property: String?
    public var descending: Bool

    public init(property: String?, descending: Bool) {
        self.property = property
        self.descending = descending
    }
}

/// What the planner needs to know about a query (docs/Query.md §4).
public struct PlanRequest: Sendable, Hashable {
    public var entitySet: String
    /// The index-usable shape of `$filter` (`.and([])` when there is no filter).
    public var conditions: ConditionTree
    public var hasFilter: Bool
    public var orderBy: [PlanOrderKey]
    public var skip: Int
    /// `$top`, already combined with the page size (the smaller of the two).
    public var top: Int?
    public var primaryKey: AccessIndex
    public var indexes: [AccessIndex]

    public init(entitySet: String, conditions: ConditionTree = .and([]), hasFilter: Bool = false,
                orderBy: [PlanOrderKey] = [], skip: Int = 0, top: Int? = nil,
                primaryKey: AccessIndex, indexes: [AccessIndex] = []) {
        self.entitySet = entitySet
        self.conditions = conditions
        self.hasFilter = hasFilter
        self.orderBy = orderBy
        self.skip = skip
        self.top = top
        self.primaryKey = primaryKey
        self.indexes = indexes
    }

    /// Hashes what varies between the queries of one set; the key and the indexes, the same
    /// for all of them (hashing their names was most of a plan-cache lookup), are left to `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(entitySet)
        hasher.combine(conditions)
        hasher.combine(hasFilter)
        hasher.combine(orderBy)
        hasher.combine(skip)
        hasher.combine(top)
    }
}

/// Chooses an access path and an order strategy. Cost model: the estimated fraction of the
/// set an access path visits, from fixed selectivities (no statistics yet): equality on one
/// column 1%, on a whole unique key one row, a two-sided range 10%, one-sided 30%, a string
/// prefix 5%. The filter is re-checked on every candidate unless the path is exact.
public enum Planner {
    static let equalitySelectivity = 0.01
    static let rangeSelectivity = 0.1
    static let halfRangeSelectivity = 0.3
    static let prefixSelectivity = 0.05
    /// `in` lists longer than this, or cross products of several, are not expanded into ranges.
    static let maxRanges = 256
    /// Streaming in `$orderby` index order beats a filter index when the filter index would
    /// visit more than this fraction of the set.
    static let streamOrderThreshold = 0.02

    struct Candidate {
        var access: AccessPath
        var fraction: Double
        var exact: Bool
        var description: String
    }

    public static func plan(_ request: PlanRequest) -> QueryPlan {
        var notes: [String] = []
        let all = [request.primaryKey] + request.indexes
        let chosen = best(for: request.conditions, indexes: all, keyCount: request.primaryKey.properties.count)
            ?? Candidate(access: .scan, fraction: 1, exact: !request.hasFilter, description: "full scan")
        notes.append("filter: \(chosen.description)")
        var access = chosen.access
        var fraction = chosen.fraction
        var exact = chosen.exact
        let limit = request.top.map { RowCount.sum(request.skip, $0) }

        // Ordering.
        var order: OrderStrategy
        if case .empty = access {
            order = .primaryKey
        } else if request.orderBy.isEmpty {
            order = .primaryKey
        } else if let reverse = yieldsOrder(access, request.orderBy, primaryKey: request.primaryKey) {
            order = .accessOrder(reverse: reverse)
            notes.append("order: the access path yields $orderby order")
        } else if let limit, fraction > streamOrderThreshold,
                  let (index, reverse) = orderIndex(request.orderBy, indexes: all, primaryKey: request.primaryKey) {
            access = index.kind == .primaryKey ? .scan : .index(index, [.all])
            fraction = 1
            exact = !request.hasFilter
            order = .accessOrder(reverse: reverse)
            notes.append("order: streams \(index.name) \(reverse ? "backward" : "forward") and stops after \(limit) matches (the filter index would visit ~\(percent(chosen.fraction)))")
        } else if let limit {
            order = .topK(limit)
            notes.append("order: top-\(limit) heap")
        } else {
            order = .fullSort
            notes.append("order: full sort (no $top and no page size)")
        }
        return QueryPlan(entitySet: request.entitySet, access: access, order: order, needsFilter: !exact,
                         estimatedFraction: fraction, skip: request.skip, top: request.top, notes: notes)
    }

    // MARK: access paths

    static func best(for tree: ConditionTree, indexes: [AccessIndex], keyCount: Int) -> Candidate? {
        switch tree {
        case .never:
            return Candidate(access: .empty, fraction: 0, exact: true, description: "no row can match")
        case .opaque:
            return nil
        case .atom(let atom):
            return bestForConjunction([atom], others: [], indexes: indexes, keyCount: keyCount, exactAtoms: true)
        case .and(let children):
            if children.contains(.never) { return best(for: .never, indexes: indexes, keyCount: keyCount) }
            var atoms: [IndexCondition] = []
            var others: [ConditionTree] = []
            var allAtoms = true
            for child in children {
                switch child {
                case .atom(let atom): atoms.append(atom)
                case .and(let nested): others.append(.and(nested)); allAtoms = false
                default: others.append(child); allAtoms = false
                }
            }
            return bestForConjunction(atoms, others: others, indexes: indexes, keyCount: keyCount, exactAtoms: allAtoms)
        case .or(let children):
            var parts: [Candidate] = []
            for child in children {
                guard let part = best(for: child, indexes: indexes, keyCount: keyCount) else { return nil }
                if case .empty = part.access { continue }
                parts.append(part)
            }
            if parts.isEmpty { return best(for: .never, indexes: indexes, keyCount: keyCount) }
            if parts.count == 1 { return parts[0] }
            let fraction = min(1, parts.reduce(0) { $0 + $1.fraction })
            guard fraction < 1 else { return nil }
            return Candidate(access: .union(parts.map(\.access)), fraction: fraction, exact: false,
                             description: "union of " + parts.map { "(\($0.description))" }.joined(separator: " or "))
        }
    }

    static func bestForConjunction(_ atoms: [IndexCondition], others: [ConditionTree], indexes: [AccessIndex],
                                   keyCount: Int, exactAtoms: Bool) -> Candidate? {
        var best: Candidate?
        for index in indexes {
            guard let candidate = match(index, atoms, keyCount: keyCount) else { continue }
            if best.map({ candidate.fraction < $0.fraction }) ?? true { best = candidate }
        }
        for other in others {
            guard let candidate = Self.best(for: other, indexes: indexes, keyCount: keyCount) else { continue }
            if best.map({ candidate.fraction < $0.fraction }) ?? true {
                best = Candidate(access: candidate.access, fraction: candidate.fraction, exact: false,
                                 description: candidate.description)
            }
        }
        // Exact only when the index consumed every atom and nothing else constrains the rows.
        if var chosen = best, !(exactAtoms && others.isEmpty && chosen.exact) { chosen.exact = false; best = chosen }
        return best
    }

    /// The ranges of `index` that the atoms allow: equality (or short `in`) on a prefix of its
    /// columns, then a range or prefix on the next one.
    static func match(_ index: AccessIndex, _ atoms: [IndexCondition], keyCount: Int) -> Candidate? {
        var ranges = [IndexRange()]
        var fraction = 1.0
        var used: [String] = []
        // Exact: the ranges hold exactly the rows for which every atom they consumed is true.
        var exact = true
        var consumed = 0
        for (column, property) in index.properties.enumerated() {
            let here = atoms.filter { $0.property == property }
            if let eq = here.first(where: { $0.op == .eq }), let value = eq.values.first {
                ranges = ranges.map { var r = $0; r.equal.append(value); return r }
                fraction *= equalitySelectivity
                consumed += 1
                used.append("\(property) eq \(ODataValue.describe(value))")
                if column == index.properties.count - 1, index.kind == .primaryKey, index.properties.count == keyCount {
                    fraction = 0
                }
                continue
            }
            if let list = here.first(where: { $0.op == .in }) {
                let members = uniqueSorted(list.values)
                if members.isEmpty { return Candidate(access: .empty, fraction: 0, exact: true, description: "empty in-list") }
                guard members.count * ranges.count <= maxRanges else { break }
                ranges = ranges.flatMap { range in members.map { var r = range; r.equal.append($0); return r } }
                fraction *= min(1, equalitySelectivity * Double(members.count))
                consumed += 1
                used.append("\(property) in (\(members.count) values)")
                continue
            }
            // A range or prefix on this column ends the match.
            var lower: RangeBound?
            var upper: RangeBound?
            var prefix: String?
            for atom in here {
                guard let value = atom.values.first else { continue }
                switch atom.op {
                case .gt, .ge:
                    let bound = RangeBound(value, inclusive: atom.op == .ge)
                    if lower.map({ tighterLower(bound, than: $0) }) ?? true { lower = bound }
                    consumed += 1
                    // NaN sorts among the numbers of the index but compares false: not exact.
                    if value.kind == .double || value.kind == .single { exact = false }
                case .lt, .le:
                    let bound = RangeBound(value, inclusive: atom.op == .le)
                    if upper.map({ tighterUpper(bound, than: $0) }) ?? true { upper = bound }
                    consumed += 1
                    if value.kind == .double || value.kind == .single { exact = false }
                case .startsWith:
                    guard case .string(let text) = value else { break }
                    if let current = prefix, current != text {
                        // Two prefixes: the range takes the longer one, and the filter is
                        // re-checked on every candidate (`startswith(S,'a') and startswith(S,'b')`
                        // matches nothing; whether one prefix implies the other is the
                        // evaluator's string semantics to decide, not the planner's).
                        exact = false
                        if text.count > current.count { prefix = text }
                    } else {
                        prefix = text
                    }
                    consumed += 1
                default: break
                }
            }
            if let lower, let upper, let order = ODataValue.compare(lower.value, upper.value),
               order > 0 || (order == 0 && !(lower.inclusive && upper.inclusive)) {
                return Candidate(access: .empty, fraction: 0, exact: true, description: "empty range on \(property)")
            }
            if prefix != nil {
                fraction *= prefixSelectivity
                used.append("startswith(\(property))")
                // A prefix range and bounds on the same column: the bounds are only re-checked.
                if lower != nil || upper != nil { exact = false }
                lower = nil
                upper = nil
            } else if lower != nil && upper != nil {
                fraction *= rangeSelectivity
                used.append("\(property) between")
            } else if lower != nil || upper != nil {
                fraction *= halfRangeSelectivity
                used.append("\(property) \(lower != nil ? ">" : "<")")
            }
            // Nulls sort first in an index and compare false with lt/le: start after them.
            if upper != nil, lower == nil { lower = RangeBound(.null, inclusive: false) }
            if lower != nil || upper != nil || prefix != nil {
                ranges = ranges.map { var r = $0; r.lower = lower; r.upper = upper; r.prefix = prefix; return r }
            }
            break
        }
        guard !used.isEmpty else { return nil }
        let what = index.kind == .primaryKey ? "primary key" : "index \(index.name)"
        return Candidate(access: .index(index, ranges), fraction: fraction, exact: exact && consumed == atoms.count,
                         description: "\(what) [\(used.joined(separator: ", "))]")
    }

    // MARK: order

    /// Whether `access` yields rows in `$orderby` order; the Bool tells backward.
    static func yieldsOrder(_ access: AccessPath, _ orderBy: [PlanOrderKey], primaryKey: AccessIndex) -> Bool? {
        let index: AccessIndex
        let skipColumns: Int
        switch access {
        case .scan:
            index = primaryKey
            skipColumns = 0
        case .index(let used, let ranges):
            guard ranges.count == 1 else { return nil }
            index = used
            skipColumns = ranges[0].equal.count
        default:
            return nil
        }
        return orderMatches(orderBy, columns: Array(index.properties.dropFirst(skipColumns)) + (index.kind == .primaryKey ? [] : primaryKey.properties))
    }

    static func orderIndex(_ orderBy: [PlanOrderKey], indexes: [AccessIndex], primaryKey: AccessIndex) -> (AccessIndex, Bool)? {
        for index in indexes {
            let columns = index.properties + (index.kind == .primaryKey ? [] : primaryKey.properties)
            if let reverse = orderMatches(orderBy, columns: columns) { return (index, reverse) }
        }
        return nil
    }

    /// `$orderby` is a prefix of the columns (the rest, ending in the primary key, only breaks
    /// ties, which the stable order needs anyway), all in one direction.
    static func orderMatches(_ orderBy: [PlanOrderKey], columns: [String]) -> Bool? {
        guard !orderBy.isEmpty, orderBy.count <= columns.count else { return nil }
        let descending = orderBy[0].descending
        for (key, column) in zip(orderBy, columns) {
            guard key.property == column, key.descending == descending else { return nil }
        }
        return descending
    }

    // MARK: helpers

    static func tighterLower(_ a: RangeBound, than b: RangeBound) -> Bool {
        guard let order = ODataValue.compare(a.value, b.value) else { return false }
        return order > 0 || (order == 0 && !a.inclusive)
    }

    static func tighterUpper(_ a: RangeBound, than b: RangeBound) -> Bool {
        guard let order = ODataValue.compare(a.value, b.value) else { return false }
        return order < 0 || (order == 0 && !a.inclusive)
    }

    static func uniqueSorted(_ values: [ODataValue]) -> [ODataValue] {
        var out: [ODataValue] = []
        for value in values.sorted(by: { (ODataValue.compare($0, $1) ?? 0) < 0 }) where !out.contains(where: { $0.isIdentical(to: value) }) {
            out.append(value)
        }
        return out
    }

    static func percent(_ fraction: Double) -> String {
        let tenths = Int((fraction * 1000).rounded())
        return "\(tenths / 10).\(tenths % 10)%"
    }
}

extension ODataValue {
    /// A short literal-like text for plans and messages.
    static func describe(_ value: ODataValue) -> String {
        (try? value.literal()) ?? "<\(value.kind?.rawValue ?? "value")>"
    }
}
