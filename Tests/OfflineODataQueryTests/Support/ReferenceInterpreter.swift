import OfflineODataModel
import OfflineODataQuery

/// A deliberately naive, independent `$filter` interpreter written from the OData 4.01 rules
/// (shared/corpora/odata-semantics-notes.md §2–§5), for differential tests against the real
/// binder + `Evaluator` (and, in store tests, against query plans).
///
/// It works directly on the untyped `SyntaxExpr` over a row `[String: ODataValue]` (a property
/// missing from the row is null), with no model. Supported subset:
/// - literals (Boolean, Int32, Int64, Double, String) and `null`;
/// - single-segment property paths (`Name`);
/// - `eq ne gt ge lt le` (null eq null is true; ordering with null is false; NaN equals
///   nothing; Int32/Int64 compare exactly, anything with a Double compares as Double; strings
///   ordinally by Unicode scalar; false < true);
/// - `and or not` with three-valued logic; a side that decides `and`/`or` (false/true) wins
///   even when the other side is an error;
/// - `add sub mul` on Int32/Int64/Double (Int32 op Int32 is Int32, with Int64 it is Int64,
///   with Double it is Double; integer overflow is an error; null operands give null);
/// - `in (list)`;
/// - `contains startswith endswith tolower length` (null argument gives null; `length`
///   counts Unicode scalars).
/// Anything else throws `ReferenceInterpreter.Failure.unsupported`.
public enum ReferenceInterpreter {
    public enum Failure: Error, Equatable {
        /// The expression uses something outside the subset.
        case unsupported(String)
        /// The expression is in the subset but invalid for these values (type error, overflow).
        case invalid(String)
    }

    /// The value of the expression for the row.
    public static func evaluate(_ expr: SyntaxExpr, row: [String: ODataValue]) throws(Failure) -> ODataValue {
        switch expr.kind {
        case .null: return .null
        case .literal(let value, _):
            switch value {
            case .boolean, .int32, .int64, .double, .string: return value
            default: throw .unsupported("literal \(value)")
            }
        case .path(let path):
            guard path.root == .implicit, path.segments.count == 1, case .member(let name, _) = path.segments[0] else {
                throw .unsupported("path")
            }
            return row[name] ?? .null
        case .unary(.not, let operand):
            switch try evaluate(operand, row: row) {
            case .null: return .null
            case .boolean(let b): return .boolean(!b)
            default: throw .invalid("not on a non-Boolean")
            }
        case .binary(let op, let left, let right):
            return try binary(op, left, right, row)
        case .call(let name, let arguments):
            return try call(name.lowercased(), arguments.map { (a: SyntaxExpr) throws(Failure) -> ODataValue in try evaluate(a, row: row) })
        default:
            throw .unsupported("expression kind")
        }
    }

    /// True exactly when the expression evaluates to `true` (the `$filter` rule).
    public static func matches(_ expr: SyntaxExpr, row: [String: ODataValue]) throws(Failure) -> Bool {
        try evaluate(expr, row: row) == .boolean(true)
    }

    // MARK: - Operators

    static func binary(_ op: SyntaxBinaryOperator, _ left: SyntaxExpr, _ right: SyntaxExpr,
                       _ row: [String: ODataValue]) throws(Failure) -> ODataValue {
        if op == .in {
            guard case .list(let items) = right.kind else { throw .unsupported("in without a list") }
            let probe = try evaluate(left, row: row)
            for item in items where try equal(probe, try evaluate(item, row: row)) { return .boolean(true) }
            return .boolean(false)
        }
        if op == .and || op == .or {
            // Both sides are evaluated; a side that decides the result (false for and, true
            // for or) wins even when the other side fails, so operand order never matters.
            let decisive = op == .or
            let a: Result<Bool?, Failure> = Result { () throws(Failure) -> Bool? in try truth(try evaluate(left, row: row)) }
            let b: Result<Bool?, Failure> = Result { () throws(Failure) -> Bool? in try truth(try evaluate(right, row: row)) }
            if case .success(decisive?) = a { return .boolean(decisive) }
            if case .success(decisive?) = b { return .boolean(decisive) }
            let x = try a.get(), y = try b.get()
            return x == nil || y == nil ? .null : .boolean(!decisive)
        }
        let l = try evaluate(left, row: row)
        let r = try evaluate(right, row: row)
        switch op {
        case .eq: return .boolean(try equal(l, r))
        case .ne: return .boolean(!(try equal(l, r)))
        case .gt, .ge, .lt, .le:
            if l == .null || r == .null { return .boolean(false) }
            guard let order = try order(l, r) else { return .boolean(false) }
            switch op {
            case .gt: return .boolean(order > 0)
            case .ge: return .boolean(order >= 0)
            case .lt: return .boolean(order < 0)
            default: return .boolean(order <= 0)
            }
        case .add, .sub, .mul:
            return try arithmetic(op, l, r)
        default:
            throw .unsupported("operator \(op.rawValue)")
        }
    }

    static func truth(_ value: ODataValue) throws(Failure) -> Bool? {
        switch value {
        case .null: return nil
        case .boolean(let b): return b
        default: throw .invalid("logical operator on a non-Boolean")
        }
    }

    static func equal(_ a: ODataValue, _ b: ODataValue) throws(Failure) -> Bool {
        if a == .null || b == .null { return a == .null && b == .null }
        return try order(a, b) == 0
    }

    /// -1/0/1, nil when incomparable (NaN).
    static func order(_ a: ODataValue, _ b: ODataValue) throws(Failure) -> Int? {
        func sign<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x > y ? 1 : 0) }
        switch (a, b) {
        case let (.string(x), .string(y)):
            let xs = x.unicodeScalars.map(\.value), ys = y.unicodeScalars.map(\.value)
            if xs == ys { return 0 }
            return xs.lexicographicallyPrecedes(ys) ? -1 : 1
        case let (.boolean(x), .boolean(y)):
            return x == y ? 0 : (x ? 1 : -1)
        default:
            guard let x = number(a), let y = number(b) else { throw .invalid("cannot compare \(a) with \(b)") }
            switch (x, y) {
            case let (.int(i), .int(j)): return sign(i, j)
            default:
                let p = x.double, q = y.double
                if p.isNaN || q.isNaN { return nil }
                return sign(p, q)
            }
        }
    }

    enum Number {
        case int(Int64)
        case double(Double)

        var double: Double {
            switch self {
            case .int(let i): Double(i)
            case .double(let d): d
            }
        }
    }

    static func number(_ value: ODataValue) -> Number? {
        switch value {
        case .int32(let i): .int(Int64(i))
        case .int64(let i): .int(i)
        case .double(let d): .double(d)
        default: nil
        }
    }

    static func arithmetic(_ op: SyntaxBinaryOperator, _ l: ODataValue, _ r: ODataValue) throws(Failure) -> ODataValue {
        if l == .null || r == .null { return .null }
        guard let x = number(l), let y = number(r) else { throw .invalid("arithmetic on non-numbers") }
        if case .int(let i) = x, case .int(let j) = y {
            let (value, overflow): (Int64, Bool)
            switch op {
            case .add: (value, overflow) = i.addingReportingOverflow(j)
            case .sub: (value, overflow) = i.subtractingReportingOverflow(j)
            default: (value, overflow) = i.multipliedReportingOverflow(by: j)
            }
            if overflow { throw .invalid("Int64 overflow") }
            if case .int32 = l, case .int32 = r {
                guard let narrow = Int32(exactly: value) else { throw .invalid("Int32 overflow") }
                return .int32(narrow)
            }
            return .int64(value)
        }
        let p = x.double, q = y.double
        switch op {
        case .add: return .double(p + q)
        case .sub: return .double(p - q)
        default: return .double(p * q)
        }
    }

    // MARK: - Functions

    static func call(_ name: String, _ args: [ODataValue]) throws(Failure) -> ODataValue {
        let arity = ["contains": 2, "startswith": 2, "endswith": 2, "tolower": 1, "length": 1]
        guard let expected = arity[name] else { throw .unsupported("function \(name)") }
        guard args.count == expected else { throw .invalid("\(name) takes \(expected) arguments") }
        if args.contains(.null) { return .null }
        var strings: [[Unicode.Scalar]] = []
        for arg in args {
            guard case .string(let s) = arg else { throw .invalid("\(name) needs strings") }
            strings.append(Array(s.unicodeScalars))
        }
        switch name {
        case "tolower":
            guard case .string(let s) = args[0] else { throw .invalid("tolower needs a string") }
            return .string(s.lowercased())
        case "length": return .int32(Int32(strings[0].count))
        case "startswith":
            return .boolean(strings[0].count >= strings[1].count && Array(strings[0].prefix(strings[1].count)) == strings[1])
        case "endswith":
            return .boolean(strings[0].count >= strings[1].count && Array(strings[0].suffix(strings[1].count)) == strings[1])
        default:
            let hay = strings[0], needle = strings[1]
            if needle.isEmpty { return .boolean(true) }
            if needle.count > hay.count { return .boolean(false) }
            for start in 0...(hay.count - needle.count) where Array(hay[start..<start + needle.count]) == needle {
                return .boolean(true)
            }
            return .boolean(false)
        }
    }
}
