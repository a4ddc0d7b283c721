import OfflineODataModel

/// An untyped expression as written in `$filter`, `$orderby`, `$compute`, key predicates and
/// function parameters (OData 4.01 URL Conventions §5.1.1). The parser builds it without the
/// service model; the binder resolves names and types (docs/Query.md §2).
///
/// `position` is the 0-based offset of the expression's first character in the option value
/// after percent-decoding, so errors can point at the offending token.
public struct SyntaxExpr: Sendable, Hashable {
    public var kind: SyntaxExprKind
    public var position: Int

    public init(_ kind: SyntaxExprKind, at position: Int) {
        self.kind = kind
        self.position = position
    }
}

public indirect enum SyntaxExprKind: Sendable, Hashable {
    /// A primitive literal, typed the way the ABNF reads it (`1` Int32, `3000000000` Int64,
    /// `1.5` Decimal, `1e3` Double, `'x'` String, `2024-01-01` Date, `duration'P1D'`, enum
    /// literals `Ns.Color'Red'`, …). `text` is the literal exactly as written (for printing).
    case literal(ODataValue, text: String)
    /// `null`.
    case null
    /// A JSON array or object literal (4.01 §5.1.1.14), e.g. the right side of `in [1,2]`.
    case json(JSONValue)
    /// A parenthesised list: the right operand of `in`, e.g. `('a','b')`; also `()`.
    case list([SyntaxExpr])
    /// A parameter alias `@name`.
    case alias(String)
    /// A member path (properties, navigation, type casts, `$count`, lambdas), starting at the
    /// implicit instance, at `$it`, `$this`, `$root`, or at a lambda variable (the binder tells a
    /// variable from a property: the first segment's name).
    case path(SyntaxPath)
    /// A call of a canonical function or a namespace-qualified function, including `cast` and
    /// `isof` (whose type argument is a `.typeName`).
    case call(name: String, arguments: [SyntaxExpr])
    /// A qualified type name as an argument of `cast`/`isof` (`Edm.String`, `Ns.Employee`).
    case typeName(String)
    case unary(SyntaxUnaryOperator, SyntaxExpr)
    case binary(SyntaxBinaryOperator, SyntaxExpr, SyntaxExpr)
    /// `case(cond1:value1, cond2:value2, true:default)` (4.01 §5.1.1.12).
    case caseOf([SyntaxCaseBranch])
}

public struct SyntaxCaseBranch: Sendable, Hashable {
    public var condition: SyntaxExpr
    public var value: SyntaxExpr

    public init(condition: SyntaxExpr, value: SyntaxExpr) {
        self.condition = condition
        self.value = value
    }
}

public enum SyntaxUnaryOperator: String, Sendable, Hashable, CaseIterable {
    /// `-x` on numbers and durations.
    case negate = "-"
    case not
}

/// Binary operators, named as in the URL syntax (lower-case; the parser accepts any case).
public enum SyntaxBinaryOperator: String, Sendable, Hashable, CaseIterable {
    case or, and
    case eq, ne, gt, ge, lt, le
    case has, `in`
    case add, sub, mul, div, divby, mod
}

/// Where a member path starts.
public enum SyntaxPathRoot: Sendable, Hashable {
    /// The current instance (or, when the first segment names a lambda variable, that variable).
    case implicit
    /// `$it`: the instance the whole expression is about (outer instance inside `$expand`).
    case it
    /// `$this`: the current element inside `$select`/`$expand` options on a collection.
    case this
    /// `$root`: an absolute resource path into the service (segments start at an entity set).
    case root
}

public struct SyntaxPath: Sendable, Hashable {
    public var root: SyntaxPathRoot
    public var segments: [SyntaxPathSegment]

    public init(root: SyntaxPathRoot = .implicit, segments: [SyntaxPathSegment]) {
        self.root = root
        self.segments = segments
    }
}

public enum SyntaxPathSegment: Sendable, Hashable {
    /// A property, navigation property or lambda variable name.
    case member(String, position: Int)
    /// A qualified type-cast segment (`Ns.Manager`).
    case typeCast(String, position: Int)
    /// A key predicate after a collection (`$root/People('x')`, `Items(1)`, after a
    /// `/$filter(…)` segment): positional (`name` nil) or named values.
    case key([SyntaxKeyValue], position: Int)
    /// `/$count`, optionally with `($filter=…;$search=…)` (4.01 §5.1.1.15 / §4.8).
    case count(filter: SyntaxExpr?, search: SyntaxSearch?, position: Int)
    /// `/$filter(expr)` after a collection (4.01 §4.12, ABNF `filterExpr`): the members for which
    /// `expr` is true. Inside `expr` names refer to the members (`$this` is the member, `$it`
    /// stays the outer instance). Key predicates (`.key`), `$count`, lambdas and further
    /// `$filter(…)` may follow.
    case filter(SyntaxExpr, position: Int)
    /// `/any(v: expr)`; `variable` and `predicate` are nil for `any()`.
    case any(variable: String?, predicate: SyntaxExpr?, position: Int)
    /// `/all(v: expr)`.
    case all(variable: String, predicate: SyntaxExpr, position: Int)
    /// `/Ns.Function(p=…)`: a bound function call on the path.
    case function(String, parameters: [SyntaxKeyValue], position: Int)
    /// `/@Ns.Term`: an instance annotation value (null when absent).
    case annotation(String, position: Int)
}

/// One value in a key predicate or function parameter list: `name=value` or positional.
public struct SyntaxKeyValue: Sendable, Hashable {
    public var name: String?
    public var value: SyntaxExpr

    public init(name: String? = nil, value: SyntaxExpr) {
        self.name = name
        self.value = value
    }
}
