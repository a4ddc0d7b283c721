import OfflineODataModel

/// Operators: logic, comparison with promotion and literal retyping, `in`, `has`, arithmetic
/// (docs/Query.md §2.3–2.4).
extension ExpressionBinder {
    func bindUnary(_ op: SyntaxUnaryOperator, _ operand: SyntaxExpr, at position: Int, in scope: Scope) throws(ODataError) -> BoundExpr {
        let bound = try bind(operand, in: scope)
        switch op {
        case .not:
            try requireBoolean(bound, "the operand of 'not'")
            return BoundExpr(.unary(.not, bound), type: .boolean, at: position)
        case .negate:
            switch bound.type {
            case .null, .primitive(.untyped), .primitive(.duration): break
            case let type where type.isNumeric: break
            default:
                throw .bindTypeMismatch("'-' cannot be applied to a value of type \(bound.type)", at: position)
            }
            // Byte is unsigned: its negation is an Int16 (as `Arithmetic.negate` computes it).
            return BoundExpr(.unary(.negate, bound), type: bound.type == .primitive(.byte) ? .primitive(.int16) : bound.type, at: position)
        }
    }

    func bindBinary(_ op: SyntaxBinaryOperator, _ left: SyntaxExpr, _ right: SyntaxExpr, at position: Int,
                    in scope: Scope) throws(ODataError) -> BoundExpr {
        let l = try bind(left, in: scope)
        switch op {
        case .in:
            return try bindIn(l, right, at: position, in: scope)
        case .has:
            return try bindHas(l, try bind(right, in: scope), at: position)
        default: break
        }
        let r = try bind(right, in: scope)
        guard let bop = BoundBinaryOperator(rawValue: op.rawValue) else {
            throw .bindNotSupported("operator '\(op.rawValue)'", at: position)
        }
        switch bop {
        case .and, .or:
            try requireBoolean(l, "the left operand of '\(op.rawValue)'")
            try requireBoolean(r, "the right operand of '\(op.rawValue)'")
            return BoundExpr(.binary(bop, l, r, operandType: .boolean), type: .boolean, at: position)
        case .eq, .ne, .gt, .ge, .lt, .le:
            let (cl, cr, operandType) = try comparisonOperands(bop, l, r, at: position)
            return BoundExpr(.binary(bop, cl, cr, operandType: operandType), type: .boolean, at: position)
        case .add, .sub, .mul, .div, .divby, .mod:
            let (operandType, resultType) = try arithmeticTypes(bop, l.type, r.type, at: position)
            return BoundExpr(.binary(bop, l, r, operandType: operandType), type: resultType, at: position)
        }
    }

    /// Checks that two operands can be compared and returns them (a literal possibly retyped
    /// to the other side's type) with the type they are compared as.
    func comparisonOperands(_ op: BoundBinaryOperator, _ l: BoundExpr, _ r: BoundExpr, at position: Int)
        throws(ODataError) -> (BoundExpr, BoundExpr, BoundType)
    {
        var left = l, right = r
        if left.type.isUntyped || right.type.isUntyped { return (left, right, .untyped) }
        if left.type.isNull && right.type.isNull { return (left, right, .null) }
        // Retype a literal to the other side (exact numbers, enum members and durations in strings).
        if let value = right.literalValue, left.literalValue == nil, !right.type.isNull {
            right = try retyped(right, value, to: left.type, at: position)
        } else if let value = left.literalValue, right.literalValue == nil, !left.type.isNull {
            left = try retyped(left, value, to: right.type, at: position)
        }
        if left.type.isNull || right.type.isNull {
            let other = left.type.isNull ? right.type : left.type
            try requireComparable(op, other, nullOther: true, at: position)
            return (left, right, other)
        }
        if let a = left.type.primitiveKind, let b = right.type.primitiveKind, let promoted = Self.promotedKind(a, b) {
            return (left, right, .primitive(promoted))
        }
        guard left.type == right.type else {
            throw .bindTypeMismatch("cannot compare \(left.type) with \(right.type) using '\(op.rawValue)'", at: position)
        }
        try requireComparable(op, left.type, nullOther: false, at: position)
        return (left, right, left.type)
    }

    func retyped(_ expr: BoundExpr, _ value: ODataValue, to target: BoundType, at position: Int) throws(ODataError) -> BoundExpr {
        var promotedToTarget = false
        if let a = expr.type.primitiveKind, let b = target.primitiveKind, let promoted = Self.promotedKind(a, b) {
            promotedToTarget = promoted == b
            // Narrowing the literal to the other side's type must not change the result: every
            // value of that type must convert exactly to the promoted type (Int64 or Decimal
            // values do not all convert exactly to Double, so `DecimalProp eq 1e0` stays Double).
            if !promotedToTarget && !Self.embedsExactly(b, in: promoted) { return expr }
        }
        guard let converted = try convertLiteral(value, to: target, promoted: promotedToTarget, at: position) else { return expr }
        var result = expr
        switch expr.kind {
        case .aliasLiteral(let name, _): result.kind = .aliasLiteral(name: name, value: converted)
        default: result.kind = .literal(converted)
        }
        result.type = target
        return result
    }

    /// True when every value of `kind` converts exactly to `promoted`.
    static func embedsExactly(_ kind: EdmPrimitiveKind, in promoted: EdmPrimitiveKind) -> Bool {
        switch promoted {
        case .double: return [.byte, .sbyte, .int16, .int32, .single, .double].contains(kind)
        case .single: return [.byte, .sbyte, .int16, .single].contains(kind)
        default: return true
        }
    }

    func requireComparable(_ op: BoundBinaryOperator, _ type: BoundType, nullOther: Bool, at position: Int) throws(ODataError) {
        let ordering = op != .eq && op != .ne
        switch type {
        case .primitive(let kind):
            if kind == .binary || kind == .stream || kind.isGeo {
                guard nullOther && !ordering else {
                    throw .bindTypeMismatch("\(kind.rawValue) values can only be compared with null using eq or ne", at: position)
                }
            }
        case .enumeration, .null: break
        case .complex, .collection:
            if ordering { throw .bindTypeMismatch("'\(op.rawValue)' cannot order values of type \(type)", at: position) }
        case .entity:
            if ordering { throw .bindTypeMismatch("'\(op.rawValue)' cannot order entities", at: position) }
            if !nullOther { throw .bindNotSupported("comparing two entities", at: position) }
        }
    }

    func bindIn(_ left: BoundExpr, _ right: SyntaxExpr, at position: Int, in scope: Scope) throws(ODataError) -> BoundExpr {
        if case .list(let items) = right.kind {
            var bound: [BoundExpr] = []
            for item in items {
                let element = try bind(item, in: scope)
                guard element.literalValue != nil else {
                    throw .bindTypeMismatch("the list on the right of 'in' can only contain literals", at: element.position)
                }
                let (_, converted, _) = try comparisonOperands(.eq, left, element, at: element.position)
                bound.append(converted)
            }
            return BoundExpr(.inList(left, bound), type: .boolean, at: position)
        }
        let collection = try bind(right, in: scope)
        switch collection.type {
        case .primitive(.untyped), .null:
            break
        case .collection(let element):
            if !element.isNull {
                let elementExpr = BoundExpr(.path(BoundPath(root: .current, steps: [])), type: element, at: collection.position)
                _ = try comparisonOperands(.eq, left, elementExpr, at: position)
            }
        default:
            throw .bindTypeMismatch("the right operand of 'in' must be a list or a collection, not \(collection.type)", at: collection.position)
        }
        return BoundExpr(.inCollection(left, collection), type: .boolean, at: position)
    }

    func bindHas(_ left: BoundExpr, _ right: BoundExpr, at position: Int) throws(ODataError) -> BoundExpr {
        switch left.type {
        case .enumeration(let name):
            var flag = right
            if let value = right.literalValue, !value.isNull {
                flag = try retyped(right, value, to: .enumeration(name), at: right.position)
            }
            guard flag.type == left.type || flag.type.isNull else {
                throw .bindTypeMismatch("'has' needs a member of \(name) on the right, not \(right.type)", at: right.position)
            }
            return BoundExpr(.has(left, flag), type: .boolean, at: position)
        case .null, .primitive(.untyped):
            guard case .enumeration = right.type else {
                if right.type.isNull || right.type.isUntyped { return BoundExpr(.has(left, right), type: .boolean, at: position) }
                throw .bindTypeMismatch("'has' needs an enumeration value on the right, not \(right.type)", at: right.position)
            }
            return BoundExpr(.has(left, right), type: .boolean, at: position)
        default:
            throw .bindTypeMismatch("'has' needs an enumeration value on the left, not \(left.type)", at: left.position)
        }
    }

    /// (operand type, result type) of an arithmetic operator (URL §5.1.1.2).
    func arithmeticTypes(_ op: BoundBinaryOperator, _ a: BoundType, _ b: BoundType, at position: Int)
        throws(ODataError) -> (BoundType, BoundType)
    {
        if a.isUntyped || b.isUntyped { return (.untyped, .untyped) }
        if a.isNull && b.isNull { return (.null, .null) }
        if a.isNull || b.isNull {
            let other = a.isNull ? b : a
            guard other.isNumeric || [.duration, .date, .dateTimeOffset].contains(other.primitiveKind) else {
                throw .bindTypeMismatch("'\(op.rawValue)' cannot be applied to \(other)", at: position)
            }
            return (other, op == .divby && other.isNumeric ? .decimal : other)
        }
        if let x = a.primitiveKind, let y = b.primitiveKind {
            if let promoted = Self.promotedKind(x, y) {
                if op == .divby {
                    let floating = promoted == .double || promoted == .single
                    return (floating ? .double : .decimal, floating ? .double : .decimal)
                }
                return (.primitive(promoted), .primitive(promoted))
            }
            switch (op, x, y) {
            case (.add, .dateTimeOffset, .duration), (.sub, .dateTimeOffset, .duration): return (a, .primitive(.dateTimeOffset))
            case (.add, .duration, .dateTimeOffset): return (b, .primitive(.dateTimeOffset))
            case (.add, .date, .duration), (.sub, .date, .duration): return (a, .primitive(.date))
            case (.add, .duration, .date): return (b, .primitive(.date))
            case (.add, .duration, .duration), (.sub, .duration, .duration): return (a, a)
            case (.sub, .dateTimeOffset, .dateTimeOffset), (.sub, .date, .date): return (a, .primitive(.duration))
            case (.mul, .duration, _) where b.isNumeric: return (a, a)
            case (.mul, _, .duration) where a.isNumeric: return (b, b)
            case (.div, .duration, _) where b.isNumeric: return (a, a)
            default: break
            }
        }
        throw .bindTypeMismatch("'\(op.rawValue)' cannot be applied to \(a) and \(b)", at: position)
    }
}
