import OfflineODataModel

/// Finds the index-usable conditions in a bound `$filter` (docs/QueryExecution.md §1).
/// Everything it does not understand becomes `.opaque`, which narrows nothing; the filter is
/// re-evaluated on every candidate anyway, so the extraction only has to over-approximate.
public enum ConditionExtractor {
    public static func conditions(of filter: BoundExpr?) -> ConditionTree {
        guard let filter else { return .and([]) }
        return extract(filter)
    }

    static func extract(_ expr: BoundExpr) -> ConditionTree {
        switch expr.kind {
        case .binary(.and, let left, let right, _):
            return flatten(.and([extract(left), extract(right)]))
        case .binary(.or, let left, let right, _):
            return flatten(.or([extract(left), extract(right)]))
        case .binary(let op, let left, let right, _) where op.isComparison:
            if let property = propertyPath(left), let value = right.literalValue {
                return comparison(property, op, value, propertyType: left.type)
            }
            if let property = propertyPath(right), let value = left.literalValue {
                return comparison(property, mirrored(op), value, propertyType: right.type)
            }
            return .opaque
        case .call(.startswith, let arguments) where arguments.count == 2:
            guard let property = propertyPath(arguments[0]), case .string(let prefix)? = arguments[1].literalValue,
                  arguments[0].type == .string
            else { return .opaque }
            return .atom(IndexCondition(property: property, op: .startsWith, value: .string(prefix)))
        case .inList(let subject, let members):
            guard let property = propertyPath(subject) else { return .opaque }
            var values: [ODataValue] = []
            for member in members {
                guard let value = member.literalValue, fits(value, subject.type) else { return .opaque }
                values.append(value)
            }
            if values.isEmpty { return .never }
            return .atom(IndexCondition(property: property, op: .in, values: values))
        case .path:
            // A Boolean property on its own: `IsActive` means `IsActive eq true`.
            guard expr.type == .boolean, let property = propertyPath(expr) else { return .opaque }
            return .atom(IndexCondition(property: property, op: .eq, value: .boolean(true)))
        case .literal(.boolean(false)):
            return .never
        case .null:
            return .never
        default:
            return .opaque
        }
    }

    static func comparison(_ property: String, _ op: BoundBinaryOperator, _ value: ODataValue, propertyType: BoundType) -> ConditionTree {
        if value.isNull {
            // `P eq null` selects the nulls (indexed, sorted first); `P gt null` etc. are
            // false for every row (URL §5.1.1.1); `ne null` is not a range.
            switch op {
            case .eq: return .atom(IndexCondition(property: property, op: .eq, value: .null))
            case .gt, .ge, .lt, .le: return .never
            default: return .opaque
            }
        }
        guard fits(value, propertyType) else { return .opaque }
        switch op {
        case .eq: return .atom(IndexCondition(property: property, op: .eq, value: value))
        case .lt: return .atom(IndexCondition(property: property, op: .lt, value: value))
        case .le: return .atom(IndexCondition(property: property, op: .le, value: value))
        case .gt: return .atom(IndexCondition(property: property, op: .gt, value: value))
        case .ge: return .atom(IndexCondition(property: property, op: .ge, value: value))
        default: return .opaque
        }
    }

    /// A literal may bound an index on the property only when it has the property's own kind
    /// (the binder converts literals that fit exactly). Promotion to floating point, NaN and
    /// mismatched kinds stay opaque; the residual filter decides those rows.
    static func fits(_ value: ODataValue, _ type: BoundType) -> Bool {
        guard let kind = type.primitiveKind, value.kind == kind else { return false }
        switch value {
        case .double(let v): return !v.isNaN
        case .single(let v): return !v.isNaN
        default: return true
        }
    }

    /// `Prop` or `Complex/Prop` on the current instance, as the store names index columns.
    public static func propertyPath(_ expr: BoundExpr) -> String? {
        guard case .path(let path) = expr.kind, path.root == .current, !path.steps.isEmpty else { return nil }
        var names: [String] = []
        for step in path.steps {
            guard case .property(let property) = step else { return nil }
            if case .dynamic = property.access { return nil }
            names.append(property.name)
        }
        return names.joined(separator: "/")
    }

    static func mirrored(_ op: BoundBinaryOperator) -> BoundBinaryOperator {
        switch op {
        case .lt: return .gt
        case .le: return .ge
        case .gt: return .lt
        case .ge: return .le
        default: return op
        }
    }

    static func flatten(_ tree: ConditionTree) -> ConditionTree {
        switch tree {
        case .and(let children):
            var out: [ConditionTree] = []
            for child in children {
                if case .and(let nested) = child { out += nested } else { out.append(child) }
            }
            return .and(out)
        case .or(let children):
            var out: [ConditionTree] = []
            for child in children {
                if case .or(let nested) = child { out += nested } else { out.append(child) }
            }
            return .or(out)
        default:
            return tree
        }
    }
}
