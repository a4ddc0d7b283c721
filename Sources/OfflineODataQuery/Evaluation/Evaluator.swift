import OfflineODataModel

/// Evaluates bound expressions against instances with OData 4.01 semantics (docs/Query.md §3):
/// null propagation, three-valued logic, numeric promotion, exact decimals, date/time
/// arithmetic, canonical functions, lambdas and `$count`.
public struct Evaluator: Sendable {
    /// The value of `now()` for the whole request (fixed so every row sees the same instant);
    /// nil only if the system clock could not be read (then `now()` is null).
    public var now: EdmDateTimeOffset?
    /// Resolves `$root/Set(key)` paths; without one such paths fail with `evaluationNotSupported`.
    public var rootResolver: (any EvaluationRootResolver & Sendable)?
    /// Compiled `matchesPattern` patterns, shared by copies of this evaluator.
    let patternCache = PatternCache()

    public init(now: EdmDateTimeOffset? = nil, rootResolver: (any EvaluationRootResolver & Sendable)? = nil) {
        self.now = now ?? SystemClock.now()
        self.rootResolver = rootResolver
    }

    /// The value of `expr` for `instance` (which is both `$it` and the current instance).
    public func evaluate(_ expr: BoundExpr, on instance: any EvaluationInstance) throws(ODataError) -> ODataValue {
        try value(expr, Context(it: instance, current: .instance(instance)))
    }

    /// The value of `expr` for `instance` when `$it` is another (outer) instance: expressions
    /// of a binder made by `ExpressionBinder.expanded(_:)` (nested `$filter` in `$expand`).
    public func evaluate(_ expr: BoundExpr, on instance: any EvaluationInstance, it outer: any EvaluationInstance) throws(ODataError) -> ODataValue {
        try value(expr, Context(it: outer, current: .instance(instance)))
    }

    /// The value of `expr` for one element of a collection-valued property (bound by
    /// `ExpressionBinder.bindElementFilter` or `bindElementOrderBy`): the element is the current
    /// instance and `$it`; `owner` holds the collection.
    public func evaluate(_ expr: BoundExpr, onElement element: ODataValue, of owner: any EvaluationInstance) throws(ODataError) -> ODataValue {
        try value(expr, Context(it: owner, current: .value(element)))
    }

    /// `matches` for a nested filter: true only for `true`, with `$it` the outer instance.
    public func matches(_ filter: BoundExpr, on instance: any EvaluationInstance, it outer: any EvaluationInstance) throws(ODataError) -> Bool {
        try evaluate(filter, on: instance, it: outer) == .boolean(true)
    }

    /// True only when the filter evaluates to `true` (false and null drop the instance, URL §5.1.2).
    public func matches(_ filter: BoundExpr, on instance: any EvaluationInstance) throws(ODataError) -> Bool {
        try evaluate(filter, on: instance) == .boolean(true)
    }

    // MARK: - Context

    /// What a path step starts from or produces.
    enum Item {
        case value(ODataValue)
        case instance(any EvaluationInstance)
        case instances([any EvaluationInstance])

        static var null: Item { .value(.null) }

        var isNull: Bool {
            if case .value(.null) = self { return true }
            return false
        }
    }

    struct Context {
        var it: any EvaluationInstance
        var current: Item
        var variables: [(name: String, item: Item)] = []

        func variable(_ name: String) -> Item? { variables.last { $0.name == name }?.item }

        func with(_ name: String, _ item: Item) -> Context {
            var copy = self
            copy.variables.append((name, item))
            return copy
        }

        func withCurrent(_ item: Item) -> Context {
            var copy = self
            copy.current = item
            return copy
        }
    }

    // MARK: - Dispatch

    func value(_ expr: BoundExpr, _ ctx: Context) throws(ODataError) -> ODataValue {
        switch expr.kind {
        case .literal(let value), .aliasLiteral(_, let value): return value
        case .null: return .null
        case .path(let path): return try plainValue(try item(path, ctx, at: expr.position), at: expr.position)
        case .unary(let op, let operand): return try unary(op, try value(operand, ctx), at: expr.position)
        case .binary(let op, let left, let right, let operandType):
            return try binary(op, left, right, operandType: operandType, resultType: expr.type, ctx, at: expr.position)
        case .inList(let left, let items):
            let probe = try value(left, ctx)
            for item in items where try valuesEqual(probe, try value(item, ctx)) { return .boolean(true) }
            return .boolean(false)
        case .inCollection(let left, let right):
            let probe = try value(left, ctx)
            switch try value(right, ctx) {
            case .null: return .null
            case .collection(let elements):
                for element in elements where try valuesEqual(probe, element) { return .boolean(true) }
                return .boolean(false)
            case let other:
                throw .evalTypeMismatch("the right operand of 'in' is \(other.kind?.rawValue ?? "not a collection")", at: expr.position)
            }
        case .has(let left, let right):
            let l = try value(left, ctx), r = try value(right, ctx)
            guard case .enumValue(let x) = l, case .enumValue(let y) = r else {
                if l.isNull || r.isNull { return .null }
                throw .evalTypeMismatch("'has' needs enumeration values", at: expr.position)
            }
            guard let a = x.numericValue, let b = y.numericValue else { return .null }
            return .boolean(a & b == b)
        case .call(let function, let args):
            var values: [ODataValue] = []
            values.reserveCapacity(args.count)
            for arg in args { values.append(try value(arg, ctx)) }
            return try call(function, values, args, at: expr.position)
        case .cast(let operand, let target, let accepted):
            let input = try operand.map { (e: BoundExpr) throws(ODataError) -> Item in try self.item(e, ctx) } ?? ctx.current
            return try cast(input, to: target, accepted: accepted, at: expr.position)
        case .isOf(let operand, let target, let accepted):
            let input = try operand.map { (e: BoundExpr) throws(ODataError) -> Item in try self.item(e, ctx) } ?? ctx.current
            if input.isNull { return .null }
            return .boolean(try isOf(input, target, accepted: accepted, at: expr.position))
        case .any(let collection, let variable, let predicate):
            let elements = try self.elements(try item(collection, ctx, at: expr.position), at: expr.position)
            guard let variable, let predicate else { return .boolean(!elements.isEmpty) }
            var sawNull = false
            for element in elements {
                switch try value(predicate, ctx.with(variable, element)) {
                case .boolean(true): return .boolean(true)
                case .null: sawNull = true
                default: break
                }
            }
            return sawNull ? .null : .boolean(false)
        case .all(let collection, let variable, let predicate):
            let elements = try self.elements(try item(collection, ctx, at: expr.position), at: expr.position)
            var sawNull = false
            for element in elements {
                switch try value(predicate, ctx.with(variable, element)) {
                case .boolean(false): return .boolean(false)
                case .null: sawNull = true
                default: break
                }
            }
            return sawNull ? .null : .boolean(true)
        case .caseOf(let branches):
            for branch in branches where try value(branch.condition, ctx) == .boolean(true) {
                let result = try value(branch.value, ctx)
                if let kind = expr.type.primitiveKind, result.isNumeric, result.kind != kind,
                   let converted = NumericConversion.promote(result, to: kind) {
                    return converted
                }
                return result
            }
            return .null
        case .localState(let function):
            guard case .instance(let instance) = ctx.current else { return .null }
            return .boolean(try instance.localState()?.value(of: function) ?? false)
        }
    }

    /// Evaluates an expression that may denote an instance (paths, `$it`).
    func item(_ expr: BoundExpr, _ ctx: Context) throws(ODataError) -> Item {
        if case .path(let path) = expr.kind { return try item(path, ctx, at: expr.position) }
        return .value(try value(expr, ctx))
    }

    /// An item as a value; a single entity cannot be used as a value.
    func plainValue(_ item: Item, at position: Int) throws(ODataError) -> ODataValue {
        switch item {
        case .value(let value): return value
        case .instance(let instance):
            if let complex = instance as? ComplexValueInstance { return .complex(complex.value) }
            throw .evalNotSupported("an entity used as a value", at: position)
        case .instances:
            throw .evalNotSupported("an entity collection used as a value", at: position)
        }
    }

    /// The elements of a collection item (null is empty).
    func elements(_ item: Item, at position: Int) throws(ODataError) -> [Item] {
        switch item {
        case .instances(let instances): return instances.map(Item.instance)
        case .value(.collection(let values)): return values.map(Item.value)
        case .value(.null): return []
        default: throw .evalTypeMismatch("a lambda or $count needs a collection", at: position)
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Wall-clock time without Foundation.
enum SystemClock {
    static func now() -> EdmDateTimeOffset? {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return try? EdmDateTimeOffset(utcSeconds: Int64(spec.tv_sec), picoseconds: Int64(spec.tv_nsec) * 1000)
    }
}
