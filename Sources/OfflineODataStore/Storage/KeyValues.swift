import OfflineODataModel

/// Key and index values before encoding (docs/StoreFormat.md §6): every value is brought to its
/// declared kind and to one canonical representation, so that equal values give equal bytes:
/// Int64 5 for an Int32 column becomes Int32 5, decimals lose trailing fraction zeros, instants
/// are shown in UTC, -0.0 becomes 0.0.
enum KeyValues {
    /// The value as `kind` (nil kind: enum/untyped, only canonicalized), or nil when it cannot be
    /// represented exactly in that kind (5.5 as Int32, a string as Int32).
    static func normalize(_ value: ODataValue, to kind: EdmPrimitiveKind?) -> ODataValue? {
        if value.isNull { return .null }
        guard let kind, kind != .untyped else { return canonical(value) }
        if value.kind == kind { return canonical(value) }
        guard value.isNumeric else { return nil }
        switch kind {
        case .byte: return integer(value).flatMap { UInt8(exactly: $0) }.map { .byte($0) }
        case .sbyte: return integer(value).flatMap { Int8(exactly: $0) }.map { .sbyte($0) }
        case .int16: return integer(value).flatMap { Int16(exactly: $0) }.map { .int16($0) }
        case .int32: return integer(value).flatMap { Int32(exactly: $0) }.map { .int32($0) }
        case .int64: return integer(value).map { .int64($0) }
        case .decimal: return decimal(value).map { .decimal($0.normalized) }
        case .double: return double(value).map { canonical(.double($0)) }
        case .single:
            guard let d = double(value), let f = Float(exactly: d) else { return nil }
            return canonical(.single(f))
        default: return nil
        }
    }

    /// One representation per value (decimal scale, UTC, positive zero).
    static func canonical(_ value: ODataValue) -> ODataValue {
        switch value {
        case .decimal(let d): return .decimal(d.normalized)
        case .dateTimeOffset(let t): return .dateTimeOffset(t.utc)
        case .double(let d): return d == 0 ? .double(0) : value
        case .single(let f): return f == 0 ? .single(0) : value
        default: return value
        }
    }

    static func integer(_ value: ODataValue) -> Int64? {
        value.exactInt64Value
    }

    static func decimal(_ value: ODataValue) -> EdmDecimal? {
        if let i = integer(value), !(value.isFloating) { return EdmDecimal(i) }
        switch value {
        case .decimal(let d): return d
        case .single(let f): return EdmDecimal(exactly: Double(f))
        case .double(let d): return EdmDecimal(exactly: d)
        default: return nil
        }
    }

    static func double(_ value: ODataValue) -> Double? {
        switch value {
        case .double(let d): return d
        case .single(let f): return Double(f)
        case .decimal(let d):
            let x = d.doubleValue
            guard let back = EdmDecimal(exactly: x), back == d else { return nil }
            return x
        default: return integer(value).flatMap { Double(exactly: $0) }
        }
    }

    static func describe(_ value: ODataValue) -> String {
        if value.isNull { return "null" }
        if let kind = value.kind { return kind.rawValue }
        switch value {
        case .enumValue: return "an enum value"
        case .complex: return "a complex value"
        case .collection: return "a collection"
        default: return "a value"
        }
    }
}

extension ODataValue {
    var isFloating: Bool {
        switch self {
        case .single, .double: return true
        default: return false
        }
    }
}
