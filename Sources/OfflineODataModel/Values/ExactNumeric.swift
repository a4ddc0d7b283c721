/// A number of any EDM numeric kind, compared exactly.
enum ExactNumeric {
    case integer(Int64)
    case decimal(EdmDecimal)
    case double(Double)

    static func compare(_ a: ExactNumeric, _ b: ExactNumeric) -> Int? {
        switch (a, b) {
        case let (.integer(x), .integer(y)): return ODataValue.threeWayOrder(x, y)
        case let (.double(x), .double(y)):
            guard !x.isNaN, !y.isNaN else { return nil }
            return ODataValue.threeWayOrder(x, y)
        default:
            guard let left = a.extended, let right = b.extended else { return nil }
            return compare(left, right)
        }
    }

    /// -INF, a finite exact decimal, or +INF; nil for NaN.
    var extended: (rank: Int, value: EdmDecimal)? {
        switch self {
        case .integer(let v): return (1, EdmDecimal(v))
        case .decimal(let v):
            switch v.nonFinite {
            case .nan: return nil
            case .positiveInfinity: return (2, EdmDecimal(0))
            case .negativeInfinity: return (0, EdmDecimal(0))
            case nil: return (1, v)
            }
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
