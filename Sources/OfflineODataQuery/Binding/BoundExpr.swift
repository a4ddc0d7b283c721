import OfflineODataModel

/// A typed expression: names resolved against the service model, operators checked and
/// numeric operands promoted (docs/Query.md §2). Built by `ExpressionBinder`, read by the
/// planner and `Evaluator`. `position` is the offset of the source text (as in `SyntaxExpr`).
public struct BoundExpr: Sendable, Hashable {
    public var kind: BoundExprKind
    public var type: BoundType
    public var position: Int

    public init(_ kind: BoundExprKind, type: BoundType, at position: Int) {
        self.kind = kind
        self.type = type
        self.position = position
    }

    /// The literal value when the expression is a literal, an alias bound to a literal, or null.
    public var literalValue: ODataValue? {
        switch kind {
        case .literal(let value), .aliasLiteral(_, let value): value
        case .null: .null
        default: nil
        }
    }
}

public indirect enum BoundExprKind: Sendable, Hashable {
    /// A literal, already converted to `BoundExpr.type` (a numeric literal compared with a
    /// narrower property is retyped when it fits exactly: `Int16Prop eq 5` holds `.int16(5)`).
    case literal(ODataValue)
    /// `null`.
    case null
    /// A parameter alias whose value is a literal (`@p` with `@p=5`), converted like `.literal`.
    case aliasLiteral(name: String, value: ODataValue)
    /// A member path: properties, navigation, casts, `$count`, from the current instance,
    /// `$it`, a lambda variable or `$root`. A path with no steps is the root itself (`$it`,
    /// a lambda variable `x` over a primitive collection).
    case path(BoundPath)
    case unary(BoundUnaryOperator, BoundExpr)
    /// A binary operator; `operandType` is the type both operands are promoted to before the
    /// operation (`Int64` for Int32 eq Int64; `Edm.Date` for Date sub Duration; `null`/untyped
    /// when one side is null or dynamic).
    case binary(BoundBinaryOperator, BoundExpr, BoundExpr, operandType: BoundType)
    /// `x in (a, b, …)`: a list of literals (4.01 §5.1.1.1.12), converted to `x`'s type where exact.
    case inList(BoundExpr, [BoundExpr])
    /// `x in Collection`: the right side evaluates to a collection.
    case inCollection(BoundExpr, BoundExpr)
    /// `x has Ns.Flags'A,B'`.
    case has(BoundExpr, BoundExpr)
    /// A canonical function call.
    case call(CanonicalFunction, [BoundExpr])
    /// `cast(x, T)`; `operand` nil for the one-argument form (the current instance).
    /// `acceptedTypes`: for a structured `T`, `T` and its derived types (an instance of
    /// another type fails the cast); empty for primitive and enum targets.
    case cast(BoundExpr?, BoundType, acceptedTypes: Set<String>)
    /// `isof(x, T)` / `isof(T)`; `acceptedTypes` as for `cast`.
    case isOf(BoundExpr?, BoundType, acceptedTypes: Set<String>)
    /// `collection/any(variable: predicate)`; `any()` has neither.
    case any(collection: BoundPath, variable: String?, predicate: BoundExpr?)
    /// `collection/all(variable: predicate)`.
    case all(collection: BoundPath, variable: String, predicate: BoundExpr)
    /// `case(c1: v1, …)`: the value of the first true condition, else null.
    case caseOf([BoundCaseBranch])
    /// `sap.islocal()`, `sap.haspendingchanges()`, `sap.inerrorstate()` of the current
    /// instance (docs/OfflineStore.md §6); false for instances without a local state.
    case localState(LocalStateFunction)
}

public struct BoundCaseBranch: Sendable, Hashable {
    public var condition: BoundExpr
    public var value: BoundExpr

    public init(condition: BoundExpr, value: BoundExpr) {
        self.condition = condition
        self.value = value
    }
}

public enum BoundUnaryOperator: String, Sendable, Hashable, CaseIterable {
    case negate = "-"
    case not
}

public enum BoundBinaryOperator: String, Sendable, Hashable, CaseIterable {
    case or, and
    case eq, ne, gt, ge, lt, le
    case add, sub, mul, div, divby, mod

    public var isComparison: Bool {
        switch self {
        case .eq, .ne, .gt, .ge, .lt, .le: true
        default: false
        }
    }

    public var isLogical: Bool { self == .and || self == .or }

    public var isArithmetic: Bool { !isComparison && !isLogical }
}

/// One `$orderby` item after binding.
public struct BoundOrderItem: Sendable, Hashable {
    public var expression: BoundExpr
    public var descending: Bool

    public init(expression: BoundExpr, descending: Bool = false) {
        self.expression = expression
        self.descending = descending
    }
}
