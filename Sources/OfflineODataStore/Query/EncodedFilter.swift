import OfflineODataModel
import OfflineODataQuery

/// A `$filter` made only of `and`/`or`/`not`, comparisons of a declared property with a literal
/// and `startswith`/`endswith`/`contains` of a declared string property, compiled once per scan
/// against the set's stored layout into a flat program evaluated straight on the encoded entity
/// bytes (docs/QueryExecution.md §6.1): no instance, no closure call, no `ODataValue`, no
/// reference counting per row (the program, the literals' bytes and the slots' declarations
/// live in buffers owned by this object).
///
/// It decides a row only when every property it reads is read in place (`EncodedScalar`);
/// otherwise (`.other`, a malformed header, a value of another shape) it answers `undecided`
/// and the caller evaluates the row with `CompiledFilter`, which gives the exact result and
/// error. Three-valued logic is `CompiledFilter`'s: `and`/`or` are decided by their first
/// deciding side, `not null` is null.
final class EncodedFilter {
    enum Kind { case and, or, not, compare, search }

    /// The literal side of a leaf, as ranges of `pool`.
    enum Operand {
        case string(start: Int, count: Int)
        /// An integer or finite decimal: sign, exponent and digits as a `DecimalKey`;
        /// `integer` for the integer kinds.
        case number(sign: Int, exponent: Int, start: Int, count: Int, integer: Int64?)
        /// Another literal: compared with `comparePromoted` (`literals[literal]`).
        case plain
    }

    /// One node; children are indices into the program. Trivially copyable.
    struct Instruction {
        var kind: Kind
        var left = 0
        var right = 0
        var slot = 0
        var expectation = SlotExpectation.any
        var op = BoundBinaryOperator.eq
        var function = CanonicalFunction.startswith
        var operand = Operand.plain
        var literal = 0
    }

    /// The outcome for one row.
    enum Outcome { case decided(Bool?), undecided }

    private let program: UnsafeMutableBufferPointer<Instruction>
    private let pool: UnsafeMutableBufferPointer<UInt8>
    private let literals: [ODataValue]
    private let root: Int

    /// Nil when some part of the filter is outside the shapes above or names a property that is
    /// not a declared slot of the stored layout.
    init?(_ filter: BoundExpr, info: SetInfo) {
        var builder = Builder(info: info)
        guard let root = builder.node(filter) else { return nil }
        self.root = root
        program = .allocate(capacity: builder.instructions.count)
        _ = program.initialize(from: builder.instructions)
        pool = .allocate(capacity: max(1, builder.pool.count))
        _ = pool.initialize(from: builder.pool)
        literals = builder.literals
    }

    deinit {
        program.deallocate()
        pool.deallocate()
    }

    struct Builder {
        let info: SetInfo
        var instructions: [Instruction] = []
        var pool: [UInt8] = []
        var literals: [ODataValue] = []

        mutating func append(_ instruction: Instruction) -> Int {
            instructions.append(instruction)
            return instructions.count - 1
        }

        mutating func node(_ expr: BoundExpr) -> Int? {
            switch expr.kind {
            case .binary(let op, let left, let right, _) where op == .and || op == .or:
                guard let l = node(left), let r = node(right) else { return nil }
                return append(Instruction(kind: op == .and ? .and : .or, left: l, right: r))
            case .unary(.not, let operand):
                guard let inner = node(operand) else { return nil }
                return append(Instruction(kind: .not, left: inner))
            case .binary(let op, let left, let right, _)
                where op.isComparison && CompiledFilter.isPlain(left.type) && CompiledFilter.isPlain(right.type):
                var op = op
                let step: BoundPropertyStep
                let literal: ODataValue
                if let s = CompiledFilter.declaredStep(left), let value = right.literalValue {
                    (step, literal) = (s, value)
                } else if let s = CompiledFilter.declaredStep(right), let value = left.literalValue {
                    // comparePromoted is antisymmetric: `5 lt P` is `P gt 5`.
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
                guard !literal.isNull, let (slot, expectation) = slot(step) else { return nil }
                literals.append(literal)
                return append(Instruction(kind: .compare, slot: slot, expectation: expectation, op: op,
                                          operand: operand(literal), literal: literals.count - 1))
            case .call(let function, let arguments)
                where (function == .startswith || function == .endswith || function == .contains) && arguments.count == 2
                    && arguments[0].type == .string && arguments[1].type == .string:
                guard let step = CompiledFilter.declaredStep(arguments[0]), case .string(let text)? = arguments[1].literalValue,
                      let (slot, expectation) = slot(step) else { return nil }
                let start = pool.count
                pool += Array(text.utf8)
                return append(Instruction(kind: .search, slot: slot, expectation: expectation, function: function,
                                          operand: .string(start: start, count: pool.count - start)))
            default:
                return nil
            }
        }

        mutating func operand(_ literal: ODataValue) -> Operand {
            if case .string(let text) = literal {
                let start = pool.count
                pool += Array(text.utf8)
                return .string(start: start, count: pool.count - start)
            }
            guard let key = DecimalKey(literal) else { return .plain }
            let start = pool.count
            pool += key.digits
            let integer: Int64?
            switch literal {
            case .byte(let v): integer = Int64(v)
            case .sbyte(let v): integer = Int64(v)
            case .int16(let v): integer = Int64(v)
            case .int32(let v): integer = Int64(v)
            case .int64(let v): integer = v
            default: integer = nil
            }
            return .number(sign: key.sign, exponent: key.exponent, start: start, count: key.digits.count, integer: integer)
        }

        /// The layout slot `StoredInstance.value(of:)` would read for a declared property.
        func slot(_ step: BoundPropertyStep) -> (Int, SlotExpectation)? {
            guard case .declared(let index) = step.access else { return nil }
            let layout = info.layout.properties
            guard index < layout.count, layout[index].name == step.name, let expectation = info.codec.expectation(at: index) else {
                return nil
            }
            return (index, expectation)
        }
    }

    func evaluate(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        evaluate(root, bytes)
    }

    private func evaluate(_ index: Int, _ bytes: UnsafeRawBufferPointer) -> Outcome {
        let instruction = program[index]
        switch instruction.kind {
        case .and, .or:
            let decisive = instruction.kind == .or
            guard case .decided(let lv) = evaluate(instruction.left, bytes) else { return .undecided }
            if lv == decisive { return .decided(decisive) }
            guard case .decided(let rv) = evaluate(instruction.right, bytes) else { return .undecided }
            if rv == decisive { return .decided(decisive) }
            return .decided(lv == nil || rv == nil ? nil : !decisive)
        case .not:
            guard case .decided(let value) = evaluate(instruction.left, bytes) else { return .undecided }
            return .decided(value.map { !$0 })
        case .compare:
            guard let scalar = read(instruction, bytes) else { return .undecided }
            switch order(scalar, instruction) {
            case .fallback: return .undecided
            case .null: return .decided(instruction.op == .ne)
            case .order(let order):
                switch instruction.op {
                case .eq: return .decided(order == 0)
                case .ne: return .decided(order != 0)
                case .gt: return .decided(order.map { $0 > 0 } ?? false)
                case .ge: return .decided(order.map { $0 >= 0 } ?? false)
                case .lt: return .decided(order.map { $0 < 0 } ?? false)
                default: return .decided(order.map { $0 <= 0 } ?? false)
                }
            }
        case .search:
            guard let scalar = read(instruction, bytes) else { return .undecided }
            guard case .string(let start, let count) = instruction.operand else { return .undecided }
            let needle = UnsafeBufferPointer(rebasing: pool[start..<start + count])
            switch scalar {
            case nil, .null?: return .decided(nil)
            case .string(let text)?:
                switch instruction.function {
                case .startswith: return .decided(Self.hasPrefix(text, needle))
                case .endswith: return .decided(Self.hasSuffix(text, needle))
                default: return .decided(Self.contains(text, needle))
                }
            default: return .undecided
            }
        }
    }

    /// `comparePromoted(property, literal)` on the bytes (as `CompiledFilter.encodedOrder`).
    private func order(_ scalar: EncodedScalar?, _ instruction: Instruction) -> CompiledFilter.EncodedOrder {
        guard let scalar else { return .null }
        switch (scalar, instruction.operand) {
        case (.null, _): return .null
        case (.other, _): return .fallback
        case let (.string(bytes), .string(start, count)):
            return .order(Self.compare(bytes, UnsafeBufferPointer(rebasing: pool[start..<start + count])))
        case let (.decimal(decimal), .number(sign, exponent, start, count, _)):
            return .order(decimal.compare(sign: sign, exponent: exponent, digits: UnsafeBufferPointer(rebasing: pool[start..<start + count])))
        case let (.integer(value, _), .number(_, _, _, _, integer?)):
            return .order(value < integer ? -1 : (value > integer ? 1 : 0))
        default:
            guard let plain = scalar.plainValue else { return .fallback }
            return .order(ODataValue.comparePromoted(plain, literals[instruction.literal]))
        }
    }

    /// The slot read in place: `.some(nil)` when absent, nil when it must be decoded (or the
    /// header is malformed: `CompiledFilter` then reports the error).
    private func read(_ instruction: Instruction, _ bytes: UnsafeRawBufferPointer) -> EncodedScalar?? {
        do throws(ODataError) {
            let scalar = try EntityCodec.scalar(at: instruction.slot, from: bytes, expecting: instruction.expectation)
            if case .other? = scalar { return nil }
            return .some(scalar)
        } catch {
            return nil
        }
    }

    static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let count = min(a.count, b.count)
        for index in 0..<count where a[index] != b[index] {
            return a[index] < b[index] ? -1 : 1
        }
        return a.count < b.count ? -1 : (a.count > b.count ? 1 : 0)
    }

    static func hasPrefix(_ bytes: UnsafeRawBufferPointer, _ part: UnsafeBufferPointer<UInt8>) -> Bool {
        guard part.count <= bytes.count else { return false }
        for index in 0..<part.count where bytes[index] != part[index] { return false }
        return true
    }

    static func hasSuffix(_ bytes: UnsafeRawBufferPointer, _ part: UnsafeBufferPointer<UInt8>) -> Bool {
        guard part.count <= bytes.count else { return false }
        let offset = bytes.count - part.count
        for index in 0..<part.count where bytes[offset + index] != part[index] { return false }
        return true
    }

    /// Short needles are compared at each offset (at most 16 steps per byte, no allocation);
    /// longer ones go through `Needle`, linear whatever the text, so a long literal cannot make
    /// the scan quadratic.
    static func contains(_ bytes: UnsafeRawBufferPointer, _ part: UnsafeBufferPointer<UInt8>) -> Bool {
        guard part.count <= bytes.count else { return false }
        if part.isEmpty { return true }
        if part.count > 16 { return Needle(Array(part)).firstOffset(in: bytes) != nil }
        var start = 0
        while start + part.count <= bytes.count {
            var index = 0
            while index < part.count, bytes[start + index] == part[index] { index += 1 }
            if index == part.count { return true }
            start += 1
        }
        return false
    }
}
