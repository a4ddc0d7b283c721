import OfflineODataModel

/// Binds untyped `SyntaxExpr` trees to typed `BoundExpr` trees against a service model
/// (docs/Query.md §2): resolves property, navigation and type names, lambda variables and
/// parameter aliases, checks operand types and records numeric promotion.
public struct ExpressionBinder: Sendable {
    /// Deepest nesting accepted (protects the recursive binder and evaluator).
    public static let maxDepth = 200

    public let model: ServiceModel
    /// The namespace-qualified entity type the expression is about (`$it`).
    public let entityType: String
    /// The entity set, when the binder was created from a set name (used to resolve the
    /// target sets of navigation properties).
    public let entitySet: String?
    /// The type `$it` refers to: `entityType`, except in a binder made by `expanded(_:)`, where
    /// `$it` stays the outer instance (URL §5.1.1.14).
    public private(set) var itEntityType: String
    public private(set) var itEntitySet: String?
    public var aliases: [String: SyntaxExpr]
    /// `$compute` aliases in scope (docs/Query.md §5): a bare name of the instance the
    /// expression is about that matches one binds to the computed expression itself, so
    /// filters, orderings and the planner see ordinary expressions. Not visible inside
    /// `Nav/$count($filter=…)` (another instance) nor in binders made by `expanded(_:)`.
    public var computed: [String: BoundExpr] = [:]

    /// `entityType` is an entity set name or a (namespace- or alias-) qualified entity type name.
    public init(model: ServiceModel, entityType nameOrSet: String, aliases: [String: SyntaxExpr] = [:]) throws(ODataError) {
        self.model = model
        self.aliases = aliases
        if let set = model.entitySet(named: nameOrSet), let type = model.entityType(qualifiedName: set.entityType) {
            entityType = type.qualifiedName
            entitySet = set.name
        } else if let type = model.entityType(qualifiedName: nameOrSet) {
            entityType = type.qualifiedName
            entitySet = model.entitySets.first { model.resolveAlias($0.entityType) == type.qualifiedName }?.name
        } else {
            throw .bindUnknownEntityType(nameOrSet)
        }
        itEntityType = entityType
        itEntitySet = entitySet
    }

    init(model: ServiceModel, entityType: String, entitySet: String?, it: String, itSet: String?,
         aliases: [String: SyntaxExpr]) {
        self.model = model
        self.entityType = entityType
        self.entitySet = entitySet
        self.itEntityType = it
        self.itEntitySet = itSet
        self.aliases = aliases
    }

    /// A binder for the options nested in `$expand=Nav(…)` (or `A/B(…)`): bare names refer to
    /// the navigation target, `$it` still to this binder's `$it`. Evaluate its expressions with
    /// `Evaluator.evaluate(_:on:it:)`.
    public func expanded(_ navigationPath: [String]) throws(ODataError) -> ExpressionBinder {
        var type = entityType
        var set = entitySet
        for name in navigationPath {
            let step = try bindMember(name, on: .entity(type), set: set, at: 0)
            guard case .navigation(let navigation) = step.step else {
                throw .bindInvalidPath("'\(name)' is not a navigation property of \(type)", at: 0)
            }
            type = navigation.targetEntityType
            set = navigation.targetSet
        }
        return ExpressionBinder(model: model, entityType: type, entitySet: set, it: itEntityType, itSet: itEntitySet,
                                aliases: aliases)
    }

    /// Binds any expression (a `$filter`, `$orderby` or `$compute` expression).
    public func bind(_ expr: SyntaxExpr) throws(ODataError) -> BoundExpr {
        try bind(expr, in: rootScope)
    }

    /// Binds a `$filter` expression: its type must be Boolean (or null / dynamic).
    public func bindFilter(_ expr: SyntaxExpr) throws(ODataError) -> BoundExpr {
        let bound = try bind(expr)
        try requireBoolean(bound, "$filter")
        return bound
    }

    /// Binds `$orderby` items; each must be a single primitive or enum value.
    public func bindOrderBy(_ items: [SyntaxOrderItem]) throws(ODataError) -> [BoundOrderItem] {
        try bindOrderBy(items, in: rootScope)
    }

    /// The scope of the elements of a collection-valued property of `element`'s type (URL §4.8,
    /// §5.1.1.11.4): bare names are members of the element (a complex one), and `$it` and `$this`
    /// are the element itself.
    func elementScope(_ element: CSDLTypeReference) -> Scope {
        var single = element
        single.isCollection = false
        var scope = Scope(current: boundType(single), currentSet: nil)
        scope.itIsCurrent = true
        scope.computedVisible = false
        return scope
    }

    /// A `$filter` over the elements of a collection-valued property whose elements are of
    /// `element`'s type (`People('x')/Emails?$filter=endswith($it,'.com')`); evaluate it with
    /// `Evaluator.evaluate(_:onElement:of:)`.
    public func bindElementFilter(_ expr: SyntaxExpr, element: CSDLTypeReference) throws(ODataError) -> BoundExpr {
        let bound = try bind(expr, in: elementScope(element))
        try requireBoolean(bound, "$filter")
        return bound
    }

    /// `$orderby` over the elements of a collection-valued property (as `bindElementFilter`).
    public func bindElementOrderBy(_ items: [SyntaxOrderItem], element: CSDLTypeReference) throws(ODataError) -> [BoundOrderItem] {
        try bindOrderBy(items, in: elementScope(element))
    }

    func bindOrderBy(_ items: [SyntaxOrderItem], in scope: Scope) throws(ODataError) -> [BoundOrderItem] {
        var result: [BoundOrderItem] = []
        for item in items {
            let bound = try bind(item.expression, in: scope)
            switch bound.type {
            case .primitive(let kind):
                if kind.isGeo || kind == .stream {
                    throw .bindTypeMismatch("$orderby cannot sort by a value of type \(kind.rawValue)", at: bound.position)
                }
            case .enumeration, .null: break
            default:
                throw .bindTypeMismatch("$orderby needs a primitive value, not \(bound.type)", at: bound.position)
            }
            result.append(BoundOrderItem(expression: bound, descending: item.descending))
        }
        return result
    }

    // MARK: - Scope

    struct Variable {
        var name: String
        var type: BoundType
        var entitySet: String?
    }

    /// What names mean at one point of the expression.
    struct Scope {
        /// Type of the implicit instance (`.current`).
        var current: BoundType
        var currentSet: String?
        var variables: [Variable] = []
        var depth = 0
        var aliasStack: [String] = []
        /// False where the implicit instance is not the one `computed` belongs to.
        var computedVisible = true
        /// True over the elements of a collection-valued property: `$it` is the element.
        var itIsCurrent = false

        func variable(_ name: String) -> Variable? { variables.last { $0.name == name } }
    }

    var rootScope: Scope { Scope(current: .entity(entityType), currentSet: entitySet) }

    func requireBoolean(_ bound: BoundExpr, _ what: String) throws(ODataError) {
        switch bound.type {
        case .primitive(.boolean), .primitive(.untyped), .null: return
        default:
            throw .bindTypeMismatch("\(what) must be a Boolean expression, not \(bound.type)", at: bound.position)
        }
    }

    // MARK: - Dispatch

    func bind(_ expr: SyntaxExpr, in outer: Scope) throws(ODataError) -> BoundExpr {
        var scope = outer
        scope.depth += 1
        guard scope.depth <= Self.maxDepth else { throw .bindTooDeep(Self.maxDepth, at: expr.position) }
        let position = expr.position
        switch expr.kind {
        case .literal(let value, _):
            return try bindLiteral(value, at: position)
        case .null:
            return BoundExpr(.null, type: .null, at: position)
        case .json(let json):
            return try bindJSON(json, at: position)
        case .list:
            throw .bindTypeMismatch("a parenthesised list is only allowed on the right of 'in'", at: position)
        case .alias(let name):
            return try bindAlias(name, at: position, in: scope)
        case .path(let path):
            return try bindPath(path, at: position, in: scope)
        case .call(let name, let arguments):
            return try bindCall(name, arguments, at: position, in: scope)
        case .typeName(let name):
            throw .bindTypeMismatch("type name '\(name)' is only allowed as an argument of cast or isof", at: position)
        case .unary(let op, let operand):
            return try bindUnary(op, operand, at: position, in: scope)
        case .binary(let op, let left, let right):
            return try bindBinary(op, left, right, at: position, in: scope)
        case .caseOf(let branches):
            return try bindCase(branches, at: position, in: scope)
        }
    }

    func bindAlias(_ name: String, at position: Int, in scope: Scope) throws(ODataError) -> BoundExpr {
        guard let value = aliases[name] else {
            // URL §5.3: an alias without a value is null.
            return BoundExpr(.null, type: .null, at: position)
        }
        guard !scope.aliasStack.contains(name) else { throw .bindAliasCycle(name, at: position) }
        var inner = scope
        inner.aliasStack.append(name)
        let bound = try bind(value, in: inner)
        if case .literal(let literal) = bound.kind {
            return BoundExpr(.aliasLiteral(name: name, value: literal), type: bound.type, at: position)
        }
        return bound
    }

    func bindCase(_ branches: [SyntaxCaseBranch], at position: Int, in scope: Scope) throws(ODataError) -> BoundExpr {
        var bound: [BoundCaseBranch] = []
        var resultType: BoundType = .null
        for branch in branches {
            let condition = try bind(branch.condition, in: scope)
            try requireBoolean(condition, "a case condition")
            let value = try bind(branch.value, in: scope)
            resultType = try commonType(resultType, value.type, at: value.position, what: "case values")
            bound.append(BoundCaseBranch(condition: condition, value: value))
        }
        return BoundExpr(.caseOf(bound), type: resultType, at: position)
    }

    /// The type two alternatives share (case branches): null fits all, numbers promote.
    func commonType(_ a: BoundType, _ b: BoundType, at position: Int, what: String) throws(ODataError) -> BoundType {
        if a == b || b == .null { return a }
        if a == .null { return b }
        if a.isUntyped || b.isUntyped { return .untyped }
        if let x = a.primitiveKind, let y = b.primitiveKind, let promoted = Self.promotedKind(x, y) {
            return .primitive(promoted)
        }
        throw .bindTypeMismatch("\(what) have different types \(a) and \(b)", at: position)
    }
}
