import OfflineODataModel
import OfflineODataQuery

/// Comparisons of a declared property with a literal evaluated on the encoded bytes
/// (docs/QueryExecution.md §6): strings compare as UTF-8 bytes (the same order as Unicode code
/// points), decimals and integers by exact value, without building a `String`, an `EdmDecimal`
/// or an `ODataValue` per row. Whatever the in-place reader does not read (`EncodedScalar.other`,
/// a property not in the stored layout) goes to the general closure, so the result and every
/// error stay exactly those of the decoded evaluation.
extension CompiledFilter {
    /// The literal side of an encoded comparison, prepared once.
    enum EncodedOperand {
        case string([UInt8])
        /// An integer or finite decimal (`integer` when it is an integer kind).
        case number(DecimalKey, integer: Int64?)
        /// Any other non-null literal: compared with `comparePromoted` when the row's value
        /// needs no allocation (`EncodedScalar.plainValue`).
        case plain(ODataValue)

        init(_ literal: ODataValue) {
            if case .string(let text) = literal {
                self = .string(Array(text.utf8))
                return
            }
            guard let key = DecimalKey(literal) else {
                self = .plain(literal)
                return
            }
            switch literal {
            case .byte(let v): self = .number(key, integer: Int64(v))
            case .sbyte(let v): self = .number(key, integer: Int64(v))
            case .int16(let v): self = .number(key, integer: Int64(v))
            case .int32(let v): self = .number(key, integer: Int64(v))
            case .int64(let v): self = .number(key, integer: v)
            default: self = .number(key, integer: nil)
            }
        }
    }

    /// What the in-place read of one row decided.
    enum EncodedOrder {
        /// The property is null or absent.
        case null
        /// `comparePromoted(property, literal)` (nil: incomparable).
        case order(Int?)
        /// Not read in place: evaluate on the decoded value.
        case fallback
    }

    static func encodedOrder(_ scalar: EncodedScalar?, _ operand: EncodedOperand, _ literal: ODataValue) -> EncodedOrder {
        guard let scalar else { return .null }
        switch (scalar, operand) {
        case (.null, _): return .null
        case (.other, _): return .fallback
        case let (.string(bytes), .string(text)): return .order(compareBytes(bytes, text))
        case let (.decimal(decimal), .number(key, _)): return .order(decimal.compare(key))
        case let (.integer(value, _), .number(_, integer?)): return .order(value < integer ? -1 : (value > integer ? 1 : 0))
        default:
            guard let plain = scalar.plainValue else { return .fallback }
            return .order(ODataValue.comparePromoted(plain, literal))
        }
    }

    static func compareBytes(_ a: UnsafeRawBufferPointer, _ b: [UInt8]) -> Int {
        let count = min(a.count, b.count)
        for index in 0..<count where a[index] != b[index] {
            return a[index] < b[index] ? -1 : 1
        }
        return a.count < b.count ? -1 : (a.count > b.count ? 1 : 0)
    }

    /// The declared single property of a path expression (what `value(_:_:)` reads by index).
    static func declaredStep(_ expr: BoundExpr) -> BoundPropertyStep? {
        if case .path(let path) = expr.kind, let step = path.singleProperty, step.declaredIndex != nil { return step }
        return nil
    }

    /// `property op literal` (or mirrored) on the encoded bytes; nil for other shapes.
    static func encodedComparison(_ op: BoundBinaryOperator, _ left: BoundExpr, _ right: BoundExpr, general: @escaping Truth) -> Truth? {
        let step: BoundPropertyStep
        let literal: ODataValue
        var op = op
        if let s = declaredStep(left), let value = right.literalValue {
            (step, literal) = (s, value)
        } else if let s = declaredStep(right), let value = left.literalValue {
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
        if literal.isNull { return nil }
        let operand = EncodedOperand(literal)
        let comparison = op
        return { (instance: StoredInstance) throws(ODataError) -> Bool? in
            let outcome = try instance.withScalar(step) { encodedOrder($0, operand, literal) } ?? .fallback
            switch outcome {
            case .fallback:
                return try general(instance)
            case .null:
                // null eq v is false, null ne v true; null lt/le/gt/ge v false.
                return comparison == .ne
            case .order(let order):
                switch comparison {
                case .eq: return order == 0
                case .ne: return order != 0
                case .gt: return order.map { $0 > 0 } ?? false
                case .ge: return order.map { $0 >= 0 } ?? false
                case .lt: return order.map { $0 < 0 } ?? false
                default: return order.map { $0 <= 0 } ?? false
                }
            }
        }
    }

    /// `startswith`/`endswith`/`contains(property, 'literal')` on the UTF-8 bytes: for valid
    /// UTF-8 a byte match is a match of whole Unicode scalars (UTF-8 is a prefix code and a
    /// match of a valid needle starts on a scalar boundary).
    static func encodedStringSearch(_ function: CanonicalFunction, _ haystack: BoundExpr, _ needle: BoundExpr,
                                    general: @escaping Truth) -> Truth? {
        guard let step = declaredStep(haystack), case .string(let text)? = needle.literalValue else { return nil }
        let part = Array(text.utf8)
        let needle = Needle(part)
        enum Outcome { case null, decided(Bool), fallback }
        return { (instance: StoredInstance) throws(ODataError) -> Bool? in
            let outcome = try instance.withScalar(step) { (scalar: EncodedScalar?) -> Outcome in
                switch scalar {
                case nil, .null?: return .null
                case .string(let bytes)?:
                    switch function {
                    case .startswith: return .decided(hasPrefix(bytes, part))
                    case .endswith: return .decided(hasSuffix(bytes, part))
                    default: return .decided(needle.firstOffset(in: bytes) != nil)
                    }
                default: return .fallback
                }
            } ?? .fallback
            switch outcome {
            case .null: return nil
            case .decided(let flag): return flag
            case .fallback: return try general(instance)
            }
        }
    }

    static func hasPrefix(_ bytes: UnsafeRawBufferPointer, _ part: [UInt8]) -> Bool {
        guard part.count <= bytes.count else { return false }
        for index in 0..<part.count where bytes[index] != part[index] { return false }
        return true
    }

    static func hasSuffix(_ bytes: UnsafeRawBufferPointer, _ part: [UInt8]) -> Bool {
        guard part.count <= bytes.count else { return false }
        let offset = bytes.count - part.count
        for index in 0..<part.count where bytes[offset + index] != part[index] { return false }
        return true
    }

}
