/// Comparison as OData defines it for `eq`/`lt`/`gt` and `$orderby`.
///
/// - Numbers of all kinds compare by exact mathematical value (a refinement of OData's numeric
///   promotion that never rounds: Decimal vs Int64 and Decimal vs Double are exact; Double
///   0.1 is greater than Decimal 0.1). -0.0 equals 0.0. NaN is incomparable (nil) with
///   everything, itself included; -INF and INF are below and above every finite number.
/// - Strings compare by Unicode code point (ordinal, no collation, no normalization).
/// - Booleans false < true; Guid by its bytes in written order; Binary bytewise (an extension:
///   OData itself only compares Binary with null; the ordered key encoding needs an order); Date,
///   TimeOfDay, Duration by value; DateTimeOffset by instant; enums by numeric value (when
///   both are known; otherwise equal only when type and members are the same).
/// - null equals null and sorts before every other value (the `$orderby` rule).
/// - Values of unrelated kinds, geo, complex and collection values are incomparable (nil).
extension ODataValue {
    public static func compare(_ a: ODataValue, _ b: ODataValue) -> Int? {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case let (.boolean(x), .boolean(y)): return threeWaySign(x == y ? 0 : (x ? 1 : -1))
        case let (.string(x), .string(y)): return threeWayBytes(x.utf8, y.utf8)
        case let (.binary(x), .binary(y)): return threeWayBytes(x, y)
        case let (.guid(x), .guid(y)): return threeWayOrder(x, y)
        case let (.date(x), .date(y)): return threeWayOrder(x, y)
        case let (.dateTimeOffset(x), .dateTimeOffset(y)): return threeWayOrder(x, y)
        case let (.timeOfDay(x), .timeOfDay(y)): return threeWayOrder(x, y)
        case let (.duration(x), .duration(y)): return threeWayOrder(x, y)
        case let (.enumValue(x), .enumValue(y)):
            if let left = x.numericValue, let right = y.numericValue { return threeWayOrder(left, right) }
            return x.typeName == y.typeName && x.members == y.members ? 0 : nil
        default:
            guard let left = a.exactNumericValue, let right = b.exactNumericValue else { return nil }
            return ExactNumeric.compare(left, right)
        }
    }

    /// The exact numeric value of a numeric case.
    var exactNumericValue: ExactNumeric? {
        switch self {
        case .byte(let v): return .integer(Int64(v))
        case .sbyte(let v): return .integer(Int64(v))
        case .int16(let v): return .integer(Int64(v))
        case .int32(let v): return .integer(Int64(v))
        case .int64(let v): return .integer(v)
        case .decimal(let v): return .decimal(v)
        case .single(let v): return .double(Double(v))
        case .double(let v): return .double(v)
        default: return nil
        }
    }

    static func threeWaySign(_ value: Int) -> Int { value < 0 ? -1 : (value > 0 ? 1 : 0) }

    static func threeWayOrder<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x > y ? 1 : 0) }

    static func threeWayBytes<A: Sequence<UInt8>, B: Sequence<UInt8>>(_ x: A, _ y: B) -> Int {
        var left = x.makeIterator()
        var right = y.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (l?, r?): if l != r { return l < r ? -1 : 1 }
            }
        }
    }
}

extension ODataValue {
    /// Comparison for `$filter` operators (`eq ne lt le gt ge`) with OData's binary numeric
    /// promotion (URL conventions 4.01 §5.1.1.18; the order Double, Single, Decimal, Int64, …):
    /// when either operand is Double both compare as Double, else when either is Single both
    /// compare as Single, else exactly (Decimal and the integers). So Double 0.1 eq Decimal 0.1.
    /// Non-numeric values compare as in `compare`. `compare` stays the total order used by
    /// `$orderby` and the ordered key encoding.
    public static func comparePromoted(_ a: ODataValue, _ b: ODataValue) -> Int? {
        guard let x = a.promotionRank, let y = b.promotionRank else { return compare(a, b) }
        switch max(x, y) {
        case 3:
            guard let l = a.promotedDouble, let r = b.promotedDouble, !l.isNaN, !r.isNaN else { return nil }
            return threeWayOrder(l, r)
        case 2:
            guard let l = a.promotedDouble.map(Float.init), let r = b.promotedDouble.map(Float.init), !l.isNaN, !r.isNaN else {
                return nil
            }
            return threeWayOrder(l, r)
        default:
            return compare(a, b)
        }
    }

    /// 3 Double, 2 Single, 1 Decimal and integers; nil for non-numeric values.
    private var promotionRank: Int? {
        switch self {
        case .double: 3
        case .single: 2
        case .decimal, .byte, .sbyte, .int16, .int32, .int64: 1
        default: nil
        }
    }

    private var promotedDouble: Double? {
        switch self {
        case .double(let v): v
        case .single(let v): Double(v)
        case .decimal(let v): v.doubleValue
        case .byte(let v): Double(v)
        case .sbyte(let v): Double(v)
        case .int16(let v): Double(v)
        case .int32(let v): Double(v)
        case .int64(let v): Double(v)
        default: nil
        }
    }
}
