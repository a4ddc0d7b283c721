import OfflineODataModel

/// `cast` and `isof` (docs/Query.md §3.5; URL §5.1.1.10). A failed cast is null, not an error.
extension Evaluator {
    func cast(_ input: Item, to target: BoundType, accepted: Set<String>, at position: Int) throws(ODataError) -> ODataValue {
        switch input {
        case .value(let value):
            if value.isNull { return .null }
            switch target {
            case .complex(let name):
                guard case .complex(let complex) = value, accepted.contains(complex.typeName ?? name) else { return .null }
                return value
            default:
                return Self.castValue(value, to: target) ?? .null
            }
        case .instance(let instance):
            if let complex = instance as? ComplexValueInstance {
                return accepted.contains(complex.typeName) ? .complex(complex.value) : .null
            }
            guard accepted.contains(instance.typeName) else { return .null }
            throw .evalNotSupported("cast of an entity used as a value", at: position)
        case .instances:
            throw .evalNotSupported("cast of an entity collection", at: position)
        }
    }

    func isOf(_ input: Item, _ target: BoundType, accepted: Set<String>, at position: Int) throws(ODataError) -> Bool {
        switch input {
        case .value(let value):
            switch target {
            case .complex(let name):
                guard case .complex(let complex) = value else { return false }
                return accepted.contains(complex.typeName ?? name)
            case .entity: return false
            default: return Self.castValue(value, to: target) != nil
            }
        case .instance(let instance): return accepted.contains(instance.typeName)
        case .instances: return false
        }
    }

    /// Primitive and enum casts; nil when the cast fails.
    static func castValue(_ value: ODataValue, to target: BoundType) -> ODataValue? {
        switch target {
        case .primitive(let kind):
            if value.kind == kind { return value }
            if kind == .untyped { return value }
            if kind == .string { return payloadText(value).map(ODataValue.string) }
            if case .string(let text) = value {
                guard let parsed = try? ODataValue.parseLiteral(text, as: kind), !parsed.isNull else { return nil }
                return parsed
            }
            if case .enumValue(let enumValue) = value {
                guard let number = enumValue.numericValue else { return nil }
                return castNumber(.int64(number), to: kind)
            }
            if value.isNumeric { return castNumber(value, to: kind) }
            return nil
        case .enumeration(let name):
            switch value {
            case .enumValue(let e): return e.typeName == name ? value : nil
            case .string(let text):
                return (try? EdmEnumValue(typeName: name, memberText: text)).map(ODataValue.enumValue)
            default:
                guard let number = NumericConversion.integer(value),
                      let e = try? EdmEnumValue(typeName: name, members: [String(number)], numericValue: number) else { return nil }
                return .enumValue(e)
            }
        default:
            return nil
        }
    }

    /// Numbers cast to each other with rounding (half away from zero); nil when the integer
    /// part does not fit.
    static func castNumber(_ value: ODataValue, to kind: EdmPrimitiveKind) -> ODataValue? {
        switch kind {
        case .double: return NumericConversion.double(value).map(ODataValue.double)
        case .single: return NumericConversion.double(value).map { .single(Float($0)) }
        case .decimal:
            switch value {
            case .double(let d): return decimalFromDouble(d)
            case .single(let f): return decimalFromDouble(Double(f))
            default: return NumericConversion.decimal(value).map(ODataValue.decimal)
            }
        case .byte, .sbyte, .int16, .int32, .int64:
            var whole = value
            if let d = NumericConversion.double(value), case .double = value { whole = d.isFinite ? .double(d.rounded(.toNearestOrAwayFromZero)) : value }
            if case .single(let f) = value { whole = f.isFinite ? .double(Double(f).rounded(.toNearestOrAwayFromZero)) : value }
            if case .decimal(let d) = value, let r = try? d.rounded(.halfAwayFromZero, at: 0) { whole = .decimal(r) }
            return NumericConversion.exact(whole, to: kind)
        case .boolean:
            return nil
        default:
            return nil
        }
    }

    /// The shortest decimal that reads back as the double (`0.1`, not its binary expansion).
    static func decimalFromDouble(_ d: Double) -> ODataValue? {
        guard d.isFinite else { return .decimal(NumericConversion.nonFinite(d)) }
        return (try? EdmDecimal(parsing: "\(d)")).map(ODataValue.decimal)
    }

    /// The JSON payload text of a primitive value (what `cast(x, Edm.String)` yields).
    static func payloadText(_ value: ODataValue) -> String? {
        switch value {
        case .string(let s): return s
        case .enumValue(let e): return e.memberText
        case .date(let d): return d.description
        case .dateTimeOffset(let t): return t.description
        case .timeOfDay(let t): return t.description
        case .duration(let d): return d.description
        case .decimal(let d): return d.description
        case .guid, .boolean, .byte, .sbyte, .int16, .int32, .int64, .single, .double, .binary:
            guard let literal = try? value.literal() else { return nil }
            if let quote = literal.firstIndex(of: "'"), literal.hasSuffix("'") {
                return String(literal[literal.index(after: quote)..<literal.index(before: literal.endIndex)])
            }
            return literal
        default: return nil
        }
    }
}
