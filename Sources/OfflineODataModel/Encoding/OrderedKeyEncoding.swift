/// Order-preserving encoding of key and index values (format version 1, described byte by byte
/// in docs/EntityEncoding.md §1).
///
/// For any two values a, b: when `ODataValue.compare(a, b)` is -1 or 1, `memcmp` of the
/// encodings has the same sign; when it is 0 the encodings are equal exactly when the values
/// are identical (`isIdentical`): 1.0 and 1.00, the same instant at two offsets, -0.0 and 0.0,
/// Int32 5 and Int64 5 are numerically equal but encode differently (adjacent, ordered by the
/// representation suffix) so that decoding is exact. Normalize first (`EdmDecimal.normalized`,
/// `EdmDateTimeOffset.utc`) when representation must not matter. Nulls sort first. Each
/// component is self-delimiting and starts with a type tag, so the encoding of a prefix of a
/// composite key is a byte prefix of the whole key's encoding.
public enum OrderedKeyEncoding {
    /// docs/EntityEncoding.md §1. Not stored in the bytes: stores record it once.
    public static let formatVersion: UInt8 = 1

    // Type tags (docs/EntityEncoding.md §1.2); their order is the order across kinds.
    static let tagNull: UInt8 = 0x01
    static let tagBoolean: UInt8 = 0x10
    static let tagNumber: UInt8 = 0x20
    static let tagString: UInt8 = 0x30
    static let tagBinary: UInt8 = 0x40
    static let tagGuid: UInt8 = 0x50
    static let tagDate: UInt8 = 0x60
    static let tagDateTimeOffset: UInt8 = 0x70
    static let tagTimeOfDay: UInt8 = 0x80
    static let tagDuration: UInt8 = 0x90
    static let tagEnum: UInt8 = 0xA0
    static let tagGeo: UInt8 = 0xB0

    /// Encodes the components in order. Complex and collection values are not key material
    /// (`layoutMismatch`).
    public static func encode(_ values: [ODataValue]) throws(ODataError) -> [UInt8] {
        var out: [UInt8] = []
        for (index, value) in values.enumerated() { try encode(value, into: &out, index: index) }
        return out
    }

    /// Decodes every component (the encoding names the kinds).
    public static func decode(_ bytes: [UInt8]) throws(ODataError) -> [ODataValue] {
        var reader = EncodedBytesReader(bytes, what: "ordered key")
        var values: [ODataValue] = []
        while !reader.atEnd { values.append(try decodeComponent(&reader)) }
        return values
    }

    /// Decodes and checks that there is one component per kind and that each is that kind or
    /// null (`nil` in `kinds` accepts anything, e.g. an enum).
    public static func decode(_ bytes: [UInt8], kinds: [EdmPrimitiveKind?]) throws(ODataError) -> [ODataValue] {
        let values = try decode(bytes)
        guard values.count == kinds.count else {
            throw .encodingInvalid("ordered key has \(values.count) components, expected \(kinds.count)", offset: 0)
        }
        for (index, (value, kind)) in zip(values, kinds).enumerated() {
            if let kind, !value.isNull, value.kind != kind {
                throw .encodingInvalid("component \(index) is \(value.kind?.rawValue ?? "non-primitive"), expected \(kind.rawValue)", offset: 0)
            }
        }
        return values
    }

    // MARK: encoding

    /// Appends one component (the `index`th, for errors) to `out`: what `encode` writes for it.
    public static func append(_ value: ODataValue, to out: inout [UInt8], index: Int) throws(ODataError) {
        try encode(value, into: &out, index: index)
    }

    static func encode(_ value: ODataValue, into out: inout [UInt8], index: Int) throws(ODataError) {
        switch value {
        case .null: out.append(tagNull)
        case .boolean(let v): out.append(tagBoolean); out.append(v ? 1 : 0)
        case .byte, .sbyte, .int16, .int32, .int64, .decimal, .single, .double:
            out.append(tagNumber)
            OrderedNumber.encode(value, into: &out)
        case .string(let v): out.append(tagString); appendEscaped(v, into: &out)
        case .binary(let v): out.append(tagBinary); appendEscaped(v, into: &out)
        case .guid(let v): out.append(tagGuid); out += v.bytes
        case .date(let v):
            out.append(tagDate)
            out.appendBigEndianUInt(flip(Int64(v.year), bits: 32), 4)
            out += [UInt8(v.month), UInt8(v.day)]
        case .dateTimeOffset(let v):
            out.append(tagDateTimeOffset)
            out.appendBigEndianUInt(flip(v.utcSeconds, bits: 64), 8)
            out.append(v.isLeapSecond ? 1 : 0)
            out.appendBigEndianUInt(UInt64(v.picoseconds), 5)
            out.appendBigEndianUInt(flip(Int64(v.offsetMinutes), bits: 16), 2)
        case .timeOfDay(let v):
            out.append(tagTimeOfDay)
            out.appendBigEndianUInt(UInt64(v.secondsSinceMidnight), 3)
            out.append(v.isLeapSecond ? 1 : 0)
            out.appendBigEndianUInt(UInt64(v.picoseconds), 5)
        case .duration(let v):
            out.append(tagDuration)
            var body: [UInt8] = []
            body.appendBigEndianUInt(v.seconds, 8)
            body.appendBigEndianUInt(UInt64(v.picoseconds), 5)
            if v.isNegative {
                out.append(0x00)
                out += body.map { ~$0 }
            } else {
                out.append(0x01)
                out += body
            }
        case .enumValue(let v):
            out.append(tagEnum)
            if let number = v.numericValue {
                out.append(0x01)
                out.appendBigEndianUInt(flip(number, bits: 64), 8)
            } else {
                out.append(0x02)
            }
            if let typeName = v.typeName {
                out.append(0x01)
                appendEscaped(typeName, into: &out)
            } else {
                out.append(0x00)
            }
            appendEscaped(v.memberText, into: &out)
        case .geo(let v):
            out.append(tagGeo)
            appendEscaped(v.kind.rawValue, into: &out)
            appendEscaped(v.geoJSON, into: &out)
        case .complex, .collection:
            throw .encodingLayoutMismatch("a complex or collection value cannot be a key component", path: "component \(index)")
        }
    }

    /// Two's complement value with the sign bit inverted, as an unsigned number of `bits` bits,
    /// so unsigned big-endian order equals signed order.
    static func flip(_ value: Int64, bits: Int) -> UInt64 {
        let mask: UInt64 = bits == 64 ? ~0 : (1 << UInt64(bits)) - 1
        return (UInt64(bitPattern: value) & mask) ^ (1 << UInt64(bits - 1))
    }

    static func unflip(_ raw: UInt64, bits: Int) -> Int64 {
        let toggled = raw ^ (1 << UInt64(bits - 1))
        if bits == 64 { return Int64(bitPattern: toggled) }
        let shift = UInt64(64 - bits)
        return Int64(bitPattern: toggled << shift) >> Int64(shift)
    }

    /// 0x00 is written as 0x00 0xFF; the end is 0x00 0x01.
    static func appendEscaped(_ bytes: [UInt8], into out: inout [UInt8]) {
        bytes.withUnsafeBufferPointer { appendEscaped($0, into: &out) }
    }

    /// The same for a string's UTF-8, in place (no array of it).
    static func appendEscaped(_ text: String, into out: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendEscaped($0, into: &out) }
    }

    /// Bytes without a 0x00 are copied as they are (the common case: one copy, no per-byte append).
    static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        out.reserveCapacity(out.count + bytes.count + 2)
        if !bytes.contains(0) {
            out.append(contentsOf: bytes)
        } else {
            for byte in bytes {
                out.append(byte)
                if byte == 0 { out.append(0xFF) }
            }
        }
        out.append(0x00)
        out.append(0x01)
    }

    static func readEscaped(_ reader: inout EncodedBytesReader) throws(ODataError) -> [UInt8] {
        var out: [UInt8] = []
        while true {
            let byte = try reader.byte()
            guard byte == 0 else { out.append(byte); continue }
            switch try reader.byte() {
            case 0xFF: out.append(0)
            case 0x01: return out
            default:
                reader.position -= 1
                throw reader.invalid("0x00 followed by neither 0xFF nor 0x01")
            }
        }
    }

    static func readEscapedString(_ reader: inout EncodedBytesReader) throws(ODataError) -> String {
        let start = reader.position
        let raw = try readEscaped(&reader)
        guard let text = String(validating: raw, as: UTF8.self) else {
            throw .encodingInvalid("ordered key: string is not valid UTF-8", offset: start)
        }
        return text
    }
}
