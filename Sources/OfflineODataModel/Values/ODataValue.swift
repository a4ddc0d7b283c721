/// A value of any OData type with exact EDM semantics.
///
/// `==`/Hashable follow the wrapped types: numeric for `EdmDecimal` (1.0 == 1.00) and by
/// instant for `EdmDateTimeOffset`; cases never equal each other (`.int32(1) != .int64(1)`).
/// Doubles compare with Swift's `==` except that NaN equals NaN here (so the type is a lawful
/// Equatable and a value round-trip check is possible); OData comparison semantics, where NaN
/// is incomparable, are in `ODataValue.compare`. Use `isIdentical(to:)` to also compare the
/// written representation (decimal scale, offset, -0.0).
public enum ODataValue: Sendable, Hashable {
    case null
    case boolean(Bool)
    case byte(UInt8)
    case sbyte(Int8)
    case int16(Int16)
    case int32(Int32)
    case int64(Int64)
    case decimal(EdmDecimal)
    case single(Float)
    case double(Double)
    case string(String)
    case binary([UInt8])
    case guid(EdmGuid)
    case date(EdmDate)
    case dateTimeOffset(EdmDateTimeOffset)
    case timeOfDay(EdmTimeOfDay)
    case duration(EdmDuration)
    /// Boxed (`indirect`): inline, its 33 bytes would make every `ODataValue` that large.
    indirect case enumValue(EdmEnumValue)
    case geo(EdmGeo)
    case complex(ODataComplexValue)
    case collection([ODataValue])

    /// The primitive kind of a primitive value; nil for null, enum, complex and collection.
    public var kind: EdmPrimitiveKind? {
        switch self {
        case .null, .enumValue, .complex, .collection: return nil
        case .boolean: return .boolean
        case .byte: return .byte
        case .sbyte: return .sbyte
        case .int16: return .int16
        case .int32: return .int32
        case .int64: return .int64
        case .decimal: return .decimal
        case .single: return .single
        case .double: return .double
        case .string: return .string
        case .binary: return .binary
        case .guid: return .guid
        case .date: return .date
        case .dateTimeOffset: return .dateTimeOffset
        case .timeOfDay: return .timeOfDay
        case .duration: return .duration
        case .geo(let geo): return geo.kind
        }
    }

    public var isNull: Bool { if case .null = self { return true } else { return false } }

    /// True for the numeric kinds (Byte … Double).
    public var isNumeric: Bool { numericKindRank != nil }

    var numericKindRank: Int? {
        switch self {
        case .byte: return 1
        case .sbyte: return 2
        case .int16: return 3
        case .int32: return 4
        case .int64: return 5
        case .decimal: return 6
        case .single: return 7
        case .double: return 8
        default: return nil
        }
    }

    public static func == (lhs: ODataValue, rhs: ODataValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.boolean(a), .boolean(b)): return a == b
        case let (.byte(a), .byte(b)): return a == b
        case let (.sbyte(a), .sbyte(b)): return a == b
        case let (.int16(a), .int16(b)): return a == b
        case let (.int32(a), .int32(b)): return a == b
        case let (.int64(a), .int64(b)): return a == b
        case let (.decimal(a), .decimal(b)): return a == b
        case let (.single(a), .single(b)): return a == b || (a.isNaN && b.isNaN)
        case let (.double(a), .double(b)): return a == b || (a.isNaN && b.isNaN)
        case let (.string(a), .string(b)): return a.unicodeScalars.elementsEqual(b.unicodeScalars)
        case let (.binary(a), .binary(b)): return a == b
        case let (.guid(a), .guid(b)): return a == b
        case let (.date(a), .date(b)): return a == b
        case let (.dateTimeOffset(a), .dateTimeOffset(b)): return a == b
        case let (.timeOfDay(a), .timeOfDay(b)): return a == b
        case let (.duration(a), .duration(b)): return a == b
        case let (.enumValue(a), .enumValue(b)): return a == b
        case let (.geo(a), .geo(b)): return a == b
        case let (.complex(a), .complex(b)): return a == b
        case let (.collection(a), .collection(b)): return a == b
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .boolean(let v): hasher.combine(1); hasher.combine(v)
        case .byte(let v): hasher.combine(2); hasher.combine(v)
        case .sbyte(let v): hasher.combine(3); hasher.combine(v)
        case .int16(let v): hasher.combine(4); hasher.combine(v)
        case .int32(let v): hasher.combine(5); hasher.combine(v)
        case .int64(let v): hasher.combine(6); hasher.combine(v)
        case .decimal(let v): hasher.combine(7); hasher.combine(v)
        case .single(let v): hasher.combine(8); hasher.combine(v.isNaN ? Float.nan.bitPattern : (v == 0 ? 0 : v.bitPattern))
        case .double(let v): hasher.combine(9); hasher.combine(v.isNaN ? Double.nan.bitPattern : (v == 0 ? 0 : v.bitPattern))
        case .string(let v): hasher.combine(10); for scalar in v.unicodeScalars { hasher.combine(scalar.value) }
        case .binary(let v): hasher.combine(11); hasher.combine(v)
        case .guid(let v): hasher.combine(12); hasher.combine(v)
        case .date(let v): hasher.combine(13); hasher.combine(v)
        case .dateTimeOffset(let v): hasher.combine(14); hasher.combine(v)
        case .timeOfDay(let v): hasher.combine(15); hasher.combine(v)
        case .duration(let v): hasher.combine(16); hasher.combine(v)
        case .enumValue(let v): hasher.combine(17); hasher.combine(v)
        case .geo(let v): hasher.combine(18); hasher.combine(v)
        case .complex(let v): hasher.combine(19); hasher.combine(v)
        case .collection(let v): hasher.combine(20); hasher.combine(v)
        }
    }

    /// Representation equality: like `==`, but 1.0 ≠ 1.00, the same instant at different
    /// offsets differs, -0.0 ≠ 0.0, and nested values are compared the same way.
    public func isIdentical(to other: ODataValue) -> Bool {
        switch (self, other) {
        case let (.decimal(a), .decimal(b)): return a.isIdentical(to: b)
        case let (.dateTimeOffset(a), .dateTimeOffset(b)): return a.isIdentical(to: b)
        case let (.single(a), .single(b)): return a.isNaN ? b.isNaN : a.bitPattern == b.bitPattern
        case let (.double(a), .double(b)): return a.isNaN ? b.isNaN : a.bitPattern == b.bitPattern
        case let (.string(a), .string(b)): return Array(a.utf8) == Array(b.utf8)
        case let (.complex(a), .complex(b)):
            return a.typeName == b.typeName && a.properties.count == b.properties.count
                && zip(a.properties, b.properties).allSatisfy { $0.name == $1.name && $0.value.isIdentical(to: $1.value) }
        case let (.collection(a), .collection(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.isIdentical(to: $1) }
        default: return self == other
        }
    }
}
