/// Comparison as OData defines it for `eq`/`lt`/`gt` and `$orderby`.
///
/// - Numbers of all kinds compare by exact mathematical value (a refinement of OData's numeric
///   promotion that never rounds: Decimal vs Int64 and Decimal vs Double are exact; Double
///   0.1 is greater than Decimal 0.1). -0.0 equals 0.0. NaN is incomparable (nil) with
///   everything, itself included; -INF and INF are below and above every finite number.
/// - Strings compare by Unicode code point (ordinal, no collation, no normalization).
/// - Booleans false < true; Guid by its bytes in written order; Binary bytewise; Date,
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
        case let (.boolean(x), .boolean(y)): return sign(x == y ? 0 : (x ? 1 : -1))
        case let (.string(x), .string(y)): return compareBytes(x.utf8, y.utf8)
        case let (.binary(x), .binary(y)): return compareBytes(x, y)
        case let (.guid(x), .guid(y)): return order(x, y)
        case let (.date(x), .date(y)): return order(x, y)
        case let (.dateTimeOffset(x), .dateTimeOffset(y)): return order(x, y)
        case let (.timeOfDay(x), .timeOfDay(y)): return order(x, y)
        case let (.duration(x), .duration(y)): return order(x, y)
        case let (.enumValue(x), .enumValue(y)):
            if let left = x.numericValue, let right = y.numericValue { return order(left, right) }
            return x.typeName == y.typeName && x.members == y.members ? 0 : nil
        default:
            guard let left = a.numericValue, let right = b.numericValue else { return nil }
            return NumericValue.compare(left, right)
        }
    }

    /// The exact numeric value of a numeric case.
    var numericValue: NumericValue? {
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

    static func sign(_ value: Int) -> Int { value < 0 ? -1 : (value > 0 ? 1 : 0) }

    static func order<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x > y ? 1 : 0) }

    static func compareBytes<A: Sequence<UInt8>, B: Sequence<UInt8>>(_ x: A, _ y: B) -> Int {
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

/// A number of any EDM numeric kind, compared exactly.
enum NumericValue {
    case integer(Int64)
    case decimal(EdmDecimal)
    case double(Double)

    static func compare(_ a: NumericValue, _ b: NumericValue) -> Int? {
        switch (a, b) {
        case let (.integer(x), .integer(y)): return ODataValue.order(x, y)
        case let (.double(x), .double(y)):
            guard !x.isNaN, !y.isNaN else { return nil }
            return ODataValue.order(x, y)
        default:
            guard let left = a.extended, let right = b.extended else { return nil }
            return compare(left, right)
        }
    }

    /// -INF, a finite exact decimal, or +INF; nil for NaN.
    var extended: (rank: Int, value: EdmDecimal)? {
        switch self {
        case .integer(let v): return (1, EdmDecimal(v))
        case .decimal(let v): return (1, v)
        case .double(let v):
            if v.isNaN { return nil }
            if v.isInfinite { return (v < 0 ? 0 : 2, EdmDecimal(0)) }
            guard let exact = EdmDecimal(exactly: v) else { return nil }
            return (1, exact)
        }
    }

    private static func compare(_ a: (rank: Int, value: EdmDecimal), _ b: (rank: Int, value: EdmDecimal)) -> Int {
        if a.rank != b.rank { return a.rank < b.rank ? -1 : 1 }
        return EdmDecimal.compare(a.value, b.value)
    }
}
