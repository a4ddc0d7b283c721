import OfflineODataModel
import OfflineODataQuery

/// A `$filter` made only of `and`/`or`/`not`, comparisons of a declared property with a literal
/// and `startswith`/`endswith`/`contains` of a declared string property, compiled once per scan
/// against the set's stored layout into a tree evaluated straight on the encoded entity bytes
/// (docs/QueryExecution.md §6): no instance, no closure call, no `ODataValue` per row.
///
/// It decides a row only when every property it reads is read in place (`EncodedScalar`);
/// otherwise (`.other`, a malformed header, a value of another shape) it answers `undecided`
/// and the caller evaluates the row with `CompiledFilter`, which gives the exact result and
/// error. Three-valued logic is `CompiledFilter`'s: `and`/`or` are decided by their first
/// deciding side, `not null` is null.
struct EncodedFilter {
    indirect enum Node {
        case and(Node, Node)
        case or(Node, Node)
        case not(Node)
        /// `slot op literal` (the property on the left; mirrored at compile time).
        case compare(slot: Int, op: BoundBinaryOperator, operand: CompiledFilter.EncodedOperand, literal: ODataValue)
        case search(slot: Int, function: CanonicalFunction, needle: [UInt8])
    }

    /// The outcome for one row.
    enum Outcome { case decided(Bool?), undecided }

    let root: Node
    let codec: EntityCodec

    /// Nil when some part of the filter is outside the shapes above or names a property that is
    /// not a declared slot of the stored layout.
    init?(_ filter: BoundExpr, info: SetInfo) {
        guard let root = Self.node(filter, info) else { return nil }
        self.root = root
        self.codec = info.codec
    }

    static func node(_ expr: BoundExpr, _ info: SetInfo) -> Node? {
        switch expr.kind {
        case .binary(let op, let left, let right, _) where op == .and || op == .or:
            guard let l = node(left, info), let r = node(right, info) else { return nil }
            return op == .and ? .and(l, r) : .or(l, r)
        case .unary(.not, let operand):
            return node(operand, info).map { .not($0) }
        case .binary(let op, let left, let right, _)
            where op.isComparison && CompiledFilter.isPlain(left.type) && CompiledFilter.isPlain(right.type):
            var op = op
            let step: BoundPropertyStep
            let literal: ODataValue
            if let s = CompiledFilter.declaredStep(left), let value = right.literalValue {
                (step, literal) = (s, value)
            } else if let s = CompiledFilter.declaredStep(right), let value = left.literalValue {
                (step, literal) = (s, value)
                switch op {
                case .lt: op = .gt
                case .le: op = .ge
                case .gt: op = .lt
                case .ge: op = .le
                default: break
                }
            } else {
                return nil
            }
            guard !literal.isNull, let slot = slot(step, info) else { return nil }
            return .compare(slot: slot, op: op, operand: CompiledFilter.EncodedOperand(literal), literal: literal)
        case .call(let function, let arguments)
            where (function == .startswith || function == .endswith || function == .contains) && arguments.count == 2
                && arguments[0].type == .string && arguments[1].type == .string:
            guard let step = CompiledFilter.declaredStep(arguments[0]), case .string(let text)? = arguments[1].literalValue,
                  let slot = slot(step, info) else { return nil }
            return .search(slot: slot, function: function, needle: Array(text.utf8))
        default:
            return nil
        }
    }

    /// The layout slot `StoredInstance.value(of:)` would read for a declared property.
    static func slot(_ step: BoundPropertyStep, _ info: SetInfo) -> Int? {
        guard case .declared(let index) = step.access else { return nil }
        let layout = info.layout.properties
        return index < layout.count && layout[index].name == step.name ? index : nil
    }

    func evaluate(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        evaluate(root, bytes)
    }

    private func evaluate(_ node: Node, _ bytes: UnsafeRawBufferPointer) -> Outcome {
        switch node {
        case .and(let left, let right), .or(let left, let right):
            let decisive: Bool
            if case .or = node { decisive = true } else { decisive = false }
            guard case .decided(let lv) = evaluate(left, bytes) else { return .undecided }
            if lv == decisive { return .decided(decisive) }
            guard case .decided(let rv) = evaluate(right, bytes) else { return .undecided }
            if rv == decisive { return .decided(decisive) }
            return .decided(lv == nil || rv == nil ? nil : !decisive)
        case .not(let inner):
            guard case .decided(let value) = evaluate(inner, bytes) else { return .undecided }
            return .decided(value.map { !$0 })
        case .compare(let slot, let op, let operand, let literal):
            guard let scalar = read(slot, bytes) else { return .undecided }
            switch CompiledFilter.encodedOrder(scalar, operand, literal) {
            case .fallback: return .undecided
            case .null: return .decided(op == .ne)
            case .order(let order):
                switch op {
                case .eq: return .decided(order == 0)
                case .ne: return .decided(order != 0)
                case .gt: return .decided(order.map { $0 > 0 } ?? false)
                case .ge: return .decided(order.map { $0 >= 0 } ?? false)
                case .lt: return .decided(order.map { $0 < 0 } ?? false)
                default: return .decided(order.map { $0 <= 0 } ?? false)
                }
            }
        case .search(let slot, let function, let needle):
            guard let scalar = read(slot, bytes) else { return .undecided }
            switch scalar {
            case nil, .null?: return .decided(nil)
            case .string(let text)?:
                switch function {
                case .startswith: return .decided(CompiledFilter.hasPrefix(text, needle))
                case .endswith: return .decided(CompiledFilter.hasSuffix(text, needle))
                default: return .decided(CompiledFilter.containsBytes(text, needle))
                }
            default: return .undecided
            }
        }
    }

    /// The slot read in place: `.some(nil)` when absent, nil when it must be decoded (or the
    /// header is malformed: `CompiledFilter` then reports the error).
    private func read(_ slot: Int, _ bytes: UnsafeRawBufferPointer) -> EncodedScalar?? {
        do throws(ODataError) {
            let scalar = try codec.scalar(at: slot, from: bytes)
            if case .other? = scalar { return nil }
            return .some(scalar)
        } catch {
            return nil
        }
    }
}
