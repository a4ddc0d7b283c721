import OfflineODataModel
import OfflineODataQuery
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One matching entity with its `$orderby` values.
struct ResultRow {
    var entity: StoredEntity
    var sortValues: [ODataValue]
}

/// The page among rows kept in the order offered (`ResultCollector.admit(into:)`): kept rows
/// `skip + 1 … skip + take`, as `ResultCollector.finish` pages the rows it holds.
struct AdmittedPage {
    let skip: Int
    let take: Int?
    private var kept = 0
    /// A kept row fell after the page: more rows follow it.
    private(set) var more = false

    init(skip: Int, take: Int?) {
        self.skip = skip
        self.take = take
    }

    /// Counts a kept row; true when it belongs to the page.
    mutating func keep() -> Bool {
        kept += 1
        guard kept > skip else { return false }
        if let take, kept > RowCount.sum(skip, take) {
            more = true
            return false
        }
        return true
    }
}

/// Collects the matching rows of a query in result order (docs/QueryExecution.md §3): streams
/// when the candidates already come in order (and stops early), keeps a bounded top-k heap
/// when the number of rows needed is known, and sorts everything only when it is not.
/// The order is the `$orderby` keys, then the encoded primary key in the direction of the
/// first key (ascending without `$orderby`), so it is total and stable across requests.
struct ResultCollector {
    enum Decision { case more, stop }

    let orderBy: [BoundOrderItem]
    let evaluator: Evaluator
    let context: EvaluationContext
    /// Rows needed (`$skip` + page + 1 to detect a further page); nil = all.
    let limit: Int?
    let streams: Bool
    /// Resume strictly after this position (`$skiptoken`): sort values and encoded key.
    let after: (values: [ODataValue], key: [UInt8])?
    let countAll: Bool
    /// `/$count`: only `matched` is needed (no row is kept).
    let countOnly: Bool

    /// `$orderby` expressions compiled once (`CompiledFilter.value`).
    let sortKeys: [CompiledFilter.Value]
    /// Rows that stream in `$orderby` order from the start need no sort values to be ordered
    /// or compared: only the page's last row does, for its next link (`completed(_:)`). They
    /// are then not evaluated for every row (about 5 % of an indexed `$orderby` + `$top`).
    let defersSortValues: Bool
    private var instance: StoredInstance?
    private(set) var matched = 0
    private var rows: [ResultRow] = []
    /// Rows kept outside a heap: `rows.count`, or the rows the caller holds (`admit`).
    private var admitted = 0
    private var heap: TopKHeap<ResultRow>?
    /// One `$orderby` key that is a declared property: with a full heap, rows are compared
    /// with the worst row kept on their encoded bytes first, and most are dropped unread.
    private let singleKey: BoundPropertyStep?
    /// The worst kept row's key value, prepared for encoded comparisons (nil: recompute).
    private var threshold: CompiledFilter.EncodedOperand?
    private var thresholdValue: ODataValue = .null
    /// `singleKey`'s slot in the scanned set's layout (`prepareBorrowedScan`).
    private var keySlot: (index: Int, expectation: SlotExpectation)?

    init(orderBy: [BoundOrderItem], evaluator: Evaluator, context: EvaluationContext, limit: Int?, streams: Bool,
         after: (values: [ODataValue], key: [UInt8])?, countAll: Bool, countOnly: Bool = false) {
        self.orderBy = orderBy
        self.evaluator = evaluator
        self.context = context
        self.limit = limit
        self.streams = streams
        self.after = after
        self.countAll = countAll
        self.countOnly = countOnly && limit == nil && after == nil
        self.sortKeys = orderBy.map { CompiledFilter.value($0.expression, evaluator) }
        self.defersSortValues = streams && after == nil && !orderBy.isEmpty
        self.singleKey = orderBy.count == 1 ? CompiledFilter.declaredStep(orderBy[0].expression) : nil
        if !streams, let limit {
            let descending = orderBy.first?.descending ?? false
            let items = orderBy
            heap = TopKHeap(capacity: limit) { Self.compare($0.sortValues, $0.entity.keyBytes, $1.sortValues, $1.entity.keyBytes, items, descending) < 0 }
        }
    }

    /// What `admit` decided for a matching row.
    private enum Admission {
        /// Kept; more rows may follow.
        case keep
        /// Kept, and the rows needed are complete.
        case keepAndStop
        /// Counted (`matched`), not kept.
        case counted
        /// Not kept, and no further row is needed.
        case stop
    }

    /// True when rows are kept exactly in the order offered and nothing is evaluated or
    /// compared to keep them (no heap, no page start, no sort values needed now): the caller
    /// may then use `admit` and hold the kept rows itself, in any form (the executor projects
    /// each at once: `QueryExecutor.collection`), instead of offering them.
    var keepsRowsAsOffered: Bool { keepsRowsUnevaluated && streams }

    /// No heap, no page start, no sort values needed now: a row is kept or not by counting
    /// alone (`admit`).
    private var keepsRowsUnevaluated: Bool {
        heap == nil && after == nil && (sortKeys.isEmpty || defersSortValues)
    }

    /// Counts a matching row and decides whether it is kept, without the row. The decisions
    /// of `offer` in the cases `offer` answers without evaluating anything; the caller keeps
    /// the rows admitted (`finish` then knows nothing of them).
    private mutating func admit() -> Admission {
        matched += 1
        if countOnly { return .counted }
        if let limit, admitted >= limit { return countAll ? .counted : .stop }
        admitted += 1
        if streams, let limit, admitted >= limit, !countAll { return .keepAndStop }
        return .keep
    }

    /// `admit` for a caller that holds the rows itself, placed in `page`: whether the row
    /// belongs to the page, and whether no further row is needed.
    mutating func admit(into page: inout AdmittedPage) -> (inPage: Bool, stop: Bool) {
        switch admit() {
        case .keep: return (page.keep(), false)
        case .keepAndStop: return (page.keep(), true)
        case .counted: return (false, false)
        case .stop: return (false, true)
        }
    }

    mutating func offer(_ entity: consuming StoredEntity) throws(ODataError) -> Decision {
        if keepsRowsUnevaluated {
            // Nothing to evaluate or compare: the row is kept as it is, without an instance
            // and without a copy of the entity.
            switch admit() {
            case .keep:
                rows.append(ResultRow(entity: entity, sortValues: []))
                return .more
            case .keepAndStop:
                rows.append(ResultRow(entity: entity, sortValues: []))
                return .stop
            case .counted: return .more
            case .stop: return .stop
            }
        }
        let current: StoredInstance
        if let instance {
            instance.reset(entity)
            current = instance
        } else {
            current = StoredInstance(entity, context: context)
            instance = current
        }
        return try offer(current)
    }

    /// Offers the entity an instance points at (owned or borrowed). A borrowed entity is
    /// copied only when it is kept: rows that a full top-k heap would drop, rows before the
    /// page start and rows past a streamed limit never are.
    mutating func offer(_ current: StoredInstance) throws(ODataError) -> Decision {
        matched += 1
        if countOnly { return .more }
        if try dropsUnread(current) { return .more }
        let values = defersSortValues ? [] : try sortValues(of: current)
        if let after, order(values, current, after.values, after.key) <= 0 {
            // Before the page start: counted, not returned.
            return .more
        }
        if let worst = heap?.worst, heap?.isFull == true, order(values, current, worst.sortValues, worst.entity.keyBytes) >= 0 {
            // Not better than the worst row kept: the heap would drop it.
            return .more
        }
        if heap == nil, let limit, admitted >= limit {
            return countAll ? .more : .stop
        }
        let row = ResultRow(entity: try current.entity(), sortValues: values)
        if heap != nil {
            if heap?.insert(row) == true { threshold = nil }
            return .more
        }
        rows.append(row)
        admitted += 1
        if streams, let limit, admitted >= limit, !countAll { return .stop }
        return .more
    }

    /// The row with its sort values, evaluated now when they were deferred.
    func completed(_ row: ResultRow) throws(ODataError) -> ResultRow {
        guard defersSortValues, row.sortValues.isEmpty else { return row }
        return ResultRow(entity: row.entity, sortValues: try sortValues(of: StoredInstance(row.entity, context: context)))
    }

    /// The `$orderby` values of the row `instance` points at ([] without `$orderby`).
    private func sortValues(of instance: StoredInstance) throws(ODataError) -> [ODataValue] {
        guard !sortKeys.isEmpty else { return [] }
        var values: [ODataValue] = []
        values.reserveCapacity(sortKeys.count)
        for key in sortKeys { values.append(try key(instance)) }
        return values
    }

    /// Prepares `offerDropping` for a scan of the set `info` describes.
    mutating func prepareBorrowedScan(_ info: SetInfo) {
        guard let step = singleKey, case .declared(let index) = step.access else { return }
        let layout = info.layout.properties
        guard index < layout.count, layout[index].name == step.name, let expectation = info.codec.expectation(at: index) else { return }
        keySlot = (index, expectation)
    }

    /// Counts a matching borrowed row and returns true when a full heap would drop it (its
    /// single `$orderby` value, read in place from `codec`, sorts strictly after the worst row
    /// kept); false leaves the row to `offer`. No instance is needed for the rows dropped.
    mutating func offerDropping(_ codec: UnsafeRawBufferPointer) -> Bool {
        guard !countOnly, let slot = keySlot, heap?.isFull == true, let worst = heap?.worst, let first = orderBy.first else { return false }
        if threshold == nil {
            guard let value = worst.sortValues.first, !value.isNull else { return false }
            threshold = CompiledFilter.EncodedOperand(value)
            thresholdValue = value
        }
        guard let operand = threshold else { return false }
        let scalar: EncodedScalar?
        do throws(ODataError) {
            scalar = try EntityCodec.scalar(at: slot.index, from: codec, expecting: slot.expectation)
        } catch {
            return false
        }
        guard case .order(let order?) = CompiledFilter.encodedOrder(scalar, operand, thresholdValue), order != 0,
              (first.descending ? -order : order) > 0 else { return false }
        matched += 1
        return true
    }

    /// True when the heap is full and the row's single `$orderby` value, read in place, sorts
    /// strictly after the worst row kept (so `offer` would drop it). Equal values, nulls,
    /// incomparable values and anything not read in place go the full way.
    private mutating func dropsUnread(_ current: StoredInstance) throws(ODataError) -> Bool {
        guard let step = singleKey, heap?.isFull == true, let worst = heap?.worst, let first = orderBy.first else { return false }
        if threshold == nil {
            guard let value = worst.sortValues.first, !value.isNull else { return false }
            threshold = CompiledFilter.EncodedOperand(value)
            thresholdValue = value
        }
        guard let operand = threshold else { return false }
        let literal = thresholdValue
        let outcome = try current.withScalar(step) { CompiledFilter.encodedOrder($0, operand, literal) }
        guard case .order(let order?)? = outcome, order != 0 else { return false }
        return (first.descending ? -order : order) > 0
    }

    /// `compare` with the current row's key read from the instance (no copy).
    func order(_ values: [ODataValue], _ current: StoredInstance, _ other: [ODataValue], _ otherKey: [UInt8]) -> Int {
        let order = Self.compareValues(values, other, orderBy)
        if order != 0 { return order }
        let keyOrder = current.compareKey(otherKey)
        return (orderBy.first?.descending ?? false) ? -keyOrder : keyOrder
    }

    /// The rows of the page (after `skip`, at most `take`) and whether more rows follow.
    mutating func finish(skip: Int, take: Int?) -> (rows: [ResultRow], more: Bool) {
        let ordered: [ResultRow]
        if let heap {
            ordered = heap.sorted()
            self.heap = nil
        } else if streams {
            ordered = rows
        } else {
            // Positions are sorted, not rows: a row is large (a stored entity and its sort
            // values), and moving it costs a retain and release of each of its references.
            let descending = orderBy.first?.descending ?? false
            let items = orderBy
            let kept = rows
            var positions = Array(kept.indices)
            if items.isEmpty {
                positions = Self.keyOrder(kept)
            } else {
                kept.withUnsafeBufferPointer { rows in
                    positions.sort { a, b in
                        Self.compare(rows[a].sortValues, rows[a].entity.keyBytes, rows[b].sortValues, rows[b].entity.keyBytes, items, descending) < 0
                    }
                }
            }
            rows = []
            let start = min(skip, positions.count)
            let end = take.map { min(positions.count, RowCount.sum(start, $0)) } ?? positions.count
            var page: [ResultRow] = []
            page.reserveCapacity(end - start)
            for position in positions[start..<end] { page.append(kept[position]) }
            return (page, positions.count > end)
        }
        let start = min(skip, ordered.count)
        let end = take.map { min(ordered.count, RowCount.sum(start, $0)) } ?? ordered.count
        // The whole array is returned as it is: a copy of the range retains every row's references.
        if start == 0, end == ordered.count { return (ordered, false) }
        return (Array(ordered[start..<end]), ordered.count > end)
    }

    /// The positions of `rows` in ascending encoded-key order (no `$orderby`: a range of a
    /// secondary index yields its entries in index order, the result is in key order).
    static func keyOrder(_ rows: [ResultRow]) -> [Int] {
        EncodedKeyOrder.positions(count: rows.count) { rows[$0].entity.keyBytes }
    }

    func compare(_ a: [ODataValue], _ aKey: [UInt8], _ b: [ODataValue], _ bKey: [UInt8]) -> Int {
        Self.compare(a, aKey, b, bKey, orderBy, orderBy.first?.descending ?? false)
    }

    static func compare(_ a: [ODataValue], _ aKey: [UInt8], _ b: [ODataValue], _ bKey: [UInt8],
                        _ orderBy: [BoundOrderItem], _ firstDescending: Bool) -> Int {
        let order = compareValues(a, b, orderBy)
        if order != 0 { return order }
        let keyOrder = compareBytes(aKey, bKey)
        return firstDescending ? -keyOrder : keyOrder
    }

    /// Byte-wise order of two encoded keys in one pass (-1, 0, 1; a prefix sorts first).
    static func compareBytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                let n = min(a.count, b.count)
                var i = 0
                while i < n {
                    if a[i] != b[i] { return a[i] < b[i] ? -1 : 1 }
                    i += 1
                }
                return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
            }
        }
    }

    /// The `$orderby` part of `compare` (0 when every key is equal).
    static func compareValues(_ a: [ODataValue], _ b: [ODataValue], _ orderBy: [BoundOrderItem]) -> Int {
        for (index, item) in orderBy.enumerated() where index < a.count && index < b.count {
            let order = ODataOrdering.compare(a[index], b[index])
            if order != 0 { return item.descending ? -order : order }
        }
        return 0
    }
}
