import OfflineODataModel

/// Logic and comparison operators (docs/Query.md §3.3; URL §5.1.1.1).
extension Evaluator {
    func unary(_ op: BoundUnaryOperator, _ operand: ODataValue, at position: Int) throws(ODataError) -> ODataValue {
        switch (op, operand) {
        case (_, .null): return .null
        case (.not, .boolean(let flag)): return .boolean(!flag)
        case (.negate, _): return try Arithmetic.negate(operand, at: position)
        default: throw .evalTypeMismatch("'not' needs a Boolean operand", at: position)
        }
    }

    func binary(_ op: BoundBinaryOperator, _ left: BoundExpr, _ right: BoundExpr, operandType: BoundType,
                resultType: BoundType, _ ctx: Context, at position: Int) throws(ODataError) -> ODataValue {
        switch op {
        case .and, .or:
            // The side that decides wins: `false and X` is false and `true or X` is true even
            // when X fails, whichever side fails, so a planner may reorder the operands.
            let decisive = op == .or
            let l: Bool?
            do {
                l = try boolean(left, ctx)
            } catch {
                if try boolean(right, ctx) == decisive { return .boolean(decisive) }
                throw error
            }
            if l == decisive { return .boolean(decisive) }
            let r = try boolean(right, ctx)
            if r == decisive { return .boolean(decisive) }
            return l == nil || r == nil ? .null : .boolean(!decisive)
        case .eq, .ne:
            if case .entity = operandType {
                // `Nav eq null`: an entity is never null.
                let l = try item(left, ctx), r = try item(right, ctx)
                let equal = l.isNull && r.isNull
                return .boolean(op == .eq ? equal : !equal)
            }
            let equal = try valuesEqual(try value(left, ctx), try value(right, ctx))
            return .boolean(op == .eq ? equal : !equal)
        case .gt, .ge, .lt, .le:
            let l = try value(left, ctx), r = try value(right, ctx)
            // URL §5.1.1.1.3–6: null with an ordering operator is false, as is NaN.
            guard !l.isNull, !r.isNull, let order = Self.compareValues(l, r) else { return .boolean(false) }
            switch op {
            case .gt: return .boolean(order > 0)
            case .ge: return .boolean(order >= 0)
            case .lt: return .boolean(order < 0)
            default: return .boolean(order <= 0)
            }
        case .add, .sub, .mul, .div, .divby, .mod:
            return try Arithmetic.apply(op, try value(left, ctx), try value(right, ctx), at: position)
        }
    }

    /// true, false or nil (null) for a Boolean operand.
    func boolean(_ expr: BoundExpr, _ ctx: Context) throws(ODataError) -> Bool? {
        switch try value(expr, ctx) {
        case .boolean(let flag): return flag
        case .null: return nil
        default: throw .evalTypeMismatch("a logical operator needs Boolean operands", at: expr.position)
        }
    }

    /// `eq` semantics: null equals only null; NaN equals nothing; numbers promote; complex
    /// values and collections compare member by member.
    func valuesEqual(_ a: ODataValue, _ b: ODataValue) throws(ODataError) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case let (.complex(x), .complex(y)):
            guard x.properties.count == y.properties.count else { return false }
            for property in x.properties {
                guard let other = y[property.name], try valuesEqual(property.value, other) else { return false }
            }
            return true
        case let (.collection(x), .collection(y)):
            guard x.count == y.count else { return false }
            for (l, r) in zip(x, y) where try !valuesEqual(l, r) { return false }
            return true
        case let (.string(x), .enumValue(y)), let (.enumValue(y), .string(x)):
            return y.memberText == x
        default:
            return Self.compareValues(a, b) == 0
        }
    }

    /// Three-way comparison with numeric promotion; nil when incomparable (NaN, unrelated kinds).
    static func compareValues(_ a: ODataValue, _ b: ODataValue) -> Int? {
        switch (a, b) {
        case (.complex, _), (_, .complex), (.collection, _), (_, .collection), (.geo, _), (_, .geo):
            return nil
        default:
            return ODataValue.comparePromoted(a, b)
        }
    }
}
