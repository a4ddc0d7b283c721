import OfflineODataModel

/// `$orderby` ordering (docs/Query.md §3.6; P1 §11.2.6.2): null first ascending (last
/// descending), false before true, numbers compared with promotion, strings ordinally by
/// Unicode scalar, enums by value. Unlike the `$filter` comparison this is a total order:
/// NaN sorts after every number, and values of unrelated kinds order by kind so that sorting
/// is deterministic.
public enum ODataOrdering {
    /// -1, 0 or 1 for ascending order.
    public static func compare(_ a: ODataValue, _ b: ODataValue) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        default: break
        }
        if let order = ODataValue.comparePromoted(a, b) { return order }
        let nanA = isNaN(a), nanB = isNaN(b)
        if (nanA || nanB) && kindRank(a) == kindRank(b) { return nanA == nanB ? 0 : (nanA ? 1 : -1) }
        if let order = ODataValue.compare(a, b) { return order }
        let rankA = kindRank(a), rankB = kindRank(b)
        if rankA != rankB { return rankA < rankB ? -1 : 1 }
        // Same kind but incomparable (geo, complex, collections): order by literal text.
        let x = (try? a.literal()) ?? "", y = (try? b.literal()) ?? ""
        return x == y ? 0 : (Array(x.unicodeScalars.map(\.value)).lexicographicallyPrecedes(y.unicodeScalars.map(\.value)) ? -1 : 1)
    }

    /// Compares two rows' sort keys (one value per `$orderby` item, in item order).
    public static func compare(_ a: [ODataValue], _ b: [ODataValue], descending: [Bool]) -> Int {
        for index in 0..<min(a.count, b.count) {
            let order = compare(a[index], b[index])
            if order != 0 { return index < descending.count && descending[index] ? -order : order }
        }
        return 0
    }

    /// The sort key of an instance: the value of each `$orderby` expression.
    public static func sortKey(_ items: [BoundOrderItem], of instance: any EvaluationInstance,
                               evaluator: Evaluator) throws(ODataError) -> [ODataValue] {
        var key: [ODataValue] = []
        key.reserveCapacity(items.count)
        for item in items { key.append(try evaluator.evaluate(item.expression, on: instance)) }
        return key
    }

    /// Sorts instances by `$orderby` items (stable: equal keys keep their input order).
    public static func sorted<Instance: EvaluationInstance>(_ instances: [Instance], by items: [BoundOrderItem],
                                                            evaluator: Evaluator) throws(ODataError) -> [Instance] {
        var keyed: [(key: [ODataValue], offset: Int, instance: Instance)] = []
        keyed.reserveCapacity(instances.count)
        for (offset, instance) in instances.enumerated() {
            keyed.append((try sortKey(items, of: instance, evaluator: evaluator), offset, instance))
        }
        let descending = items.map(\.descending)
        keyed.sort { lhs, rhs in
            let order = compare(lhs.key, rhs.key, descending: descending)
            return order != 0 ? order < 0 : lhs.offset < rhs.offset
        }
        return keyed.map(\.instance)
    }

    static func isNaN(_ value: ODataValue) -> Bool {
        switch value {
        case .double(let d): d.isNaN
        case .single(let f): f.isNaN
        case .decimal(let d): d.nonFinite == .nan
        default: false
        }
    }

    static func kindRank(_ value: ODataValue) -> Int {
        switch value {
        case .null: 0
        case .boolean: 1
        case .byte, .sbyte, .int16, .int32, .int64, .decimal, .single, .double: 2
        case .string: 3
        case .binary: 4
        case .guid: 5
        case .date: 6
        case .dateTimeOffset: 7
        case .timeOfDay: 8
        case .duration: 9
        case .enumValue: 10
        case .geo: 11
        case .complex: 12
        case .collection: 13
        }
    }
}
