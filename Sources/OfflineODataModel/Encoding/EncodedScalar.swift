/// One encoded property value read in place from borrowed entity bytes (docs/EntityEncoding.md
/// §2.5): the kinds a filter or `$orderby` compares most, without allocating. Valid only as long
/// as the bytes it was read from.
public enum EncodedScalar {
    case null
    case boolean(Bool)
    /// Byte, SByte, Int16, Int32 or Int64 (`kind` says which), by value.
    case integer(Int64, kind: EdmPrimitiveKind)
    case single(Float)
    case double(Double)
    /// A finite decimal (non-finite ones are `.other`).
    case decimal(EncodedDecimal)
    /// A string's UTF-8 bytes, already validated.
    case string(UnsafeRawBufferPointer)
    /// Anything else, or bytes that do not read cleanly: decode with `readProperty`.
    case other

    /// The value as `ODataValue` for the kinds that need no allocation (null, Boolean, integers,
    /// Single, Double); nil for the others.
    public var plainValue: ODataValue? {
        switch self {
        case .null: return .null
        case .boolean(let flag): return .boolean(flag)
        case .integer(let value, let kind):
            switch kind {
            case .byte: return UInt8(exactly: value).map(ODataValue.byte)
            case .sbyte: return Int8(exactly: value).map(ODataValue.sbyte)
            case .int16: return Int16(exactly: value).map(ODataValue.int16)
            case .int32: return Int32(exactly: value).map(ODataValue.int32)
            default: return .int64(value)
            }
        case .single(let value): return .single(value)
        case .double(let value): return .double(value)
        default: return nil
        }
    }

    /// The decoded value, exactly what `EntityCodec.readProperty` returns for the same slot
    /// (strings and decimals allocate here); nil for `.other`.
    public var decodedValue: ODataValue? {
        switch self {
        case .decimal(let decimal): return .decimal(decimal.value)
        case .string(let bytes): return .string(String(decoding: bytes, as: UTF8.self))
        default: return plainValue
        }
    }

    /// True when the scalar is a value of the declared primitive `kind` (the layout check).
    func fits(_ kind: EdmPrimitiveKind) -> Bool {
        switch self {
        case .null, .other: return true
        case .boolean: return kind == .boolean
        case .integer(_, let own): return kind == own
        case .single: return kind == .single
        case .double: return kind == .double
        case .decimal: return kind == .decimal
        case .string: return kind == .string
        }
    }

    /// Reads one slot (tag and payload, docs/EntityEncoding.md §2.3) that must be consumed
    /// exactly; `.other` for every tag it does not read and for any irregularity.
    static func read(_ slot: UnsafeRawBufferPointer) -> EncodedScalar {
        guard let tag = slot.first else { return .other }
        var reader = RawReader(bytes: slot, position: 1)
        let result: EncodedScalar
        switch tag {
        case EntityValueEncoding.tagNull: result = .null
        case EntityValueEncoding.tagFalse: result = .boolean(false)
        case EntityValueEncoding.tagTrue: result = .boolean(true)
        case EntityValueEncoding.tagByte:
            guard let b = reader.byte() else { return .other }
            result = .integer(Int64(b), kind: .byte)
        case EntityValueEncoding.tagSByte:
            guard let b = reader.byte() else { return .other }
            result = .integer(Int64(Int8(bitPattern: b)), kind: .sbyte)
        case EntityValueEncoding.tagInt16:
            guard let v = reader.littleEndian(2) else { return .other }
            result = .integer(Int64(Int16(bitPattern: UInt16(truncatingIfNeeded: v))), kind: .int16)
        case EntityValueEncoding.tagInt32:
            guard let raw = reader.varint(), let v = Int32(exactly: RawReader.unzigzag(raw)) else { return .other }
            result = .integer(Int64(v), kind: .int32)
        case EntityValueEncoding.tagInt64:
            guard let raw = reader.varint() else { return .other }
            result = .integer(RawReader.unzigzag(raw), kind: .int64)
        case EntityValueEncoding.tagSingle:
            guard let v = reader.littleEndian(4) else { return .other }
            result = .single(Float(bitPattern: UInt32(truncatingIfNeeded: v)))
        case EntityValueEncoding.tagDouble:
            guard let v = reader.littleEndian(8) else { return .other }
            result = .double(Double(bitPattern: v))
        case EntityValueEncoding.tagString:
            guard let length = reader.varint(), length <= UInt64(reader.remaining) else { return .other }
            let text = UnsafeRawBufferPointer(rebasing: slot[reader.position..<reader.position + Int(length)])
            reader.position += Int(length)
            guard Self.isValidUTF8(text) else { return .other }
            result = .string(text)
        case EntityValueEncoding.tagDecimal:
            guard let decimal = EncodedDecimal.read(&reader) else { return .other }
            result = .decimal(decimal)
        default:
            return .other
        }
        return reader.position == slot.count ? result : .other
    }

    /// UTF-8 validation with an ASCII fast path (the common case needs no decoding).
    static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var ascii = true
        for byte in bytes where byte >= 0x80 {
            ascii = false
            break
        }
        if ascii { return true }
        return String(validating: bytes.bindMemory(to: UInt8.self), as: UTF8.self) != nil
    }
}

/// Bounds-checked reads over borrowed bytes that report failure as nil (the caller then falls
/// back to the throwing decoder, which reports the precise error).
struct RawReader {
    let bytes: UnsafeRawBufferPointer
    var position: Int

    var remaining: Int { bytes.count - position }

    mutating func byte() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func littleEndian(_ count: Int) -> UInt64? {
        guard count <= remaining else { return nil }
        var value: UInt64 = 0
        for index in (0..<count).reversed() { value = value << 8 | UInt64(bytes[position + index]) }
        position += count
        return value
    }

    /// As `EncodedBytesReader.varint` (at most 10 bytes, no overflow).
    mutating func varint() -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard let next = byte() else { return nil }
            if shift == 63, next > 1 { return nil }
            value |= UInt64(next & 0x7F) << shift
            if next & 0x80 == 0 { return value }
            shift += 7
            if shift > 63 { return nil }
        }
    }

    static func unzigzag(_ raw: UInt64) -> Int64 {
        Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }
}
