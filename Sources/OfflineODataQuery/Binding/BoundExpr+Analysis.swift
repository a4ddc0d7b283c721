import OfflineODataModel

/// Small structural helpers for the planner (docs/Query.md §2.6).
extension BoundExpr {
    /// The operands of a chain of `and`, left to right (the expression itself when it is not an
    /// `and`). A filter matches exactly when every conjunct is true, so the planner can serve
    /// some with indexes and evaluate the rest.
    public var conjuncts: [BoundExpr] {
        guard case .binary(.and, let left, let right, _) = kind else { return [self] }
        return left.conjuncts + right.conjuncts
    }

    /// True when the value does not depend on any instance (literals, aliases, operators and
    /// functions over them, except `now()`), so it can be computed once per request.
    public var isConstant: Bool {
        switch kind {
        case .literal, .null, .aliasLiteral: return true
        case .path, .any, .all, .localState: return false
        case .unary(_, let operand): return operand.isConstant
        case .binary(_, let left, let right, _): return left.isConstant && right.isConstant
        case .inList(let left, let items): return left.isConstant && items.allSatisfy(\.isConstant)
        case .inCollection(let left, let right), .has(let left, let right): return left.isConstant && right.isConstant
        case .call(let function, let args): return function != .now && args.allSatisfy(\.isConstant)
        case .cast(let operand, _, _), .isOf(let operand, _, _): return operand?.isConstant ?? false
        case .caseOf(let branches): return branches.allSatisfy { $0.condition.isConstant && $0.value.isConstant }
        }
    }
}
