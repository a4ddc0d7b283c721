import OfflineODataModel
import OfflineODataQuery

/// A bound `$filter` turned into closures once per query, so a scan does not walk the
/// expression tree (and copy its nodes) for every row (docs/QueryExecution.md §6).
///
/// Only the shapes that dominate real filters are compiled — `and`/`or`/`not`, comparisons of
/// primitive values, `startswith`/`endswith`/`contains`, literals and single declared
/// properties — with exactly the `Evaluator`'s semantics (three-valued logic with the deciding
/// side winning over an error, null and NaN rules, numeric promotion through
/// `ODataValue.comparePromoted`, ordinal string search by Unicode scalar). Every other subtree
/// is handed to the `Evaluator` as it is, so the result never differs from evaluating the
/// whole tree; `IndexPlanEquivalenceTests` checks compiled against evaluated on every row and
/// both against the reference interpreter.
struct CompiledFilter {
    typealias Truth = (StoredInstance) throws(ODataError) -> Bool?
    typealias Value = (StoredInstance) throws(ODataError) -> ODataValue

    let truth: Truth

    init(_ filter: BoundExpr, evaluator: Evaluator) {
        truth = Self.truth(filter, evaluator)
    }

    /// True only when the filter is `true` for the instance (URL §5.1.2).
    func matches(_ instance: StoredInstance) throws(ODataError) -> Bool {
        try truth(instance) == true
    }

    static func truth(_ expr: BoundExpr, _ evaluator: Evaluator) -> Truth {
        switch expr.kind {
        case .binary(let op, let left, let right, _) where op == .and || op == .or:
            let l = truth(left, evaluator), r = truth(right, evaluator)
            let decisive = op == .or
            return { (instance: StoredInstance) throws(ODataError) -> Bool? in
                let lv: Bool?
                do throws(ODataError) {
                    lv = try l(instance)
                } catch {
                    if try r(instance) == decisive { return decisive }
                    throw error
                }
                if lv == decisive { return decisive }
                let rv = try r(instance)
                if rv == decisive { return decisive }
                return lv == nil || rv == nil ? nil : !decisive
            }
        case .unary(.not, let operand):
            let inner = truth(operand, evaluator)
            return { (instance: StoredInstance) throws(ODataError) -> Bool? in try inner(instance).map { !$0 } }
        case .binary(let op, let left, let right, _) where op.isComparison && isPlain(left.type) && isPlain(right.type):
            let general = comparison(op, left, right, evaluator)
            return encodedComparison(op, left, right, general: general) ?? general
        case .call(let function, let arguments)
            where (function == .startswith || function == .endswith || function == .contains) && arguments.count == 2
                && arguments[0].type == .string && arguments[1].type == .string:
            let general = stringSearch(function, arguments[0], arguments[1], evaluator)
            return encodedStringSearch(function, arguments[0], arguments[1], general: general) ?? general
        default:
            // Anything else: the evaluator decides, with its own type checks and messages.
            return { (instance: StoredInstance) throws(ODataError) -> Bool? in
                switch try evaluator.evaluate(expr, on: instance) {
                case .boolean(let flag): return flag
                case .null: return nil
                default:
                    throw ODataError(.invalidInput, name: "evaluationTypeMismatch", code: 1704,
                                     message: "a logical operator needs Boolean operands", location: "$filter, position \(expr.position)")
                }
            }
        }
    }

    /// A comparison of two plain values, evaluated on decoded values.
    static func comparison(_ op: BoundBinaryOperator, _ left: BoundExpr, _ right: BoundExpr, _ evaluator: Evaluator) -> Truth {
        let l = value(left, evaluator), r = value(right, evaluator)
        switch op {
        case .eq, .ne:
            let wantEqual = op == .eq
            return { (instance: StoredInstance) throws(ODataError) -> Bool? in
                let a = try l(instance), b = try r(instance)
                let equal: Bool
                switch (a, b) {
                case (.null, .null): equal = true
                case (.null, _), (_, .null): equal = false
                default: equal = ODataValue.comparePromoted(a, b) == 0
                }
                return equal == wantEqual
            }
        default:
            return { (instance: StoredInstance) throws(ODataError) -> Bool? in
                let a = try l(instance), b = try r(instance)
                guard !a.isNull, !b.isNull, let order = ODataValue.comparePromoted(a, b) else { return false }
                switch op {
                case .gt: return order > 0
                case .ge: return order >= 0
                case .lt: return order < 0
                default: return order <= 0
                }
            }
        }
    }

    /// `startswith`/`endswith`/`contains` on decoded strings (ordinal, by Unicode scalar).
    static func stringSearch(_ function: CanonicalFunction, _ haystack: BoundExpr, _ needle: BoundExpr, _ evaluator: Evaluator) -> Truth {
        let h = value(haystack, evaluator), n = value(needle, evaluator)
        return { (instance: StoredInstance) throws(ODataError) -> Bool? in
            guard case .string(let hay) = try h(instance), case .string(let needle) = try n(instance) else { return nil }
            let text = hay.unicodeScalars, part = needle.unicodeScalars
            switch function {
            case .startswith: return text.starts(with: part)
            case .endswith: return text.reversed().starts(with: part.reversed())
            default: return contains(text, part)
            }
        }
    }

    static func value(_ expr: BoundExpr, _ evaluator: Evaluator) -> Value {
        if let literal = expr.literalValue { return { (_: StoredInstance) throws(ODataError) -> ODataValue in literal } }
        if case .path(let path) = expr.kind, let step = path.singleProperty, step.declaredIndex != nil {
            return { (instance: StoredInstance) throws(ODataError) -> ODataValue in try instance.value(of: step) ?? .null }
        }
        return { (instance: StoredInstance) throws(ODataError) -> ODataValue in try evaluator.evaluate(expr, on: instance) }
    }

    /// Primitive, non-geo, non-binary-special operand types compared by `comparePromoted`
    /// exactly as the evaluator compares them (enums, complex values, collections, entities and
    /// untyped dynamic properties stay with the evaluator).
    static func isPlain(_ type: BoundType) -> Bool {
        switch type {
        case .null: return true
        case .primitive(let kind): return kind != .untyped && !kind.isGeo && kind != .stream
        default: return false
        }
    }

    static func contains(_ text: String.UnicodeScalarView, _ part: String.UnicodeScalarView) -> Bool {
        Needle(Array(part)).firstOffset(in: text) != nil
    }
}
