/// The numeric component of the ordered key encoding (docs/EntityEncoding.md §1.3): every
/// numeric kind on one scale (exact value), then a representation suffix (kind, decimal scale,
/// sign of a floating-point zero) so decoding restores the exact original.
enum OrderedNumber {
    // Value classes, in order.
    static let classNegativeInfinity: UInt8 = 0x01
    static let classNegative: UInt8 = 0x02
    static let classZero: UInt8 = 0x03
    static let classPositive: UInt8 = 0x04
    static let classPositiveInfinity: UInt8 = 0x05
    static let classNaN: UInt8 = 0x06

    // Kind suffix bytes.
    static let kindByte: UInt8 = 1, kindSByte: UInt8 = 2, kindInt16: UInt8 = 3, kindInt32: UInt8 = 4
    static let kindInt64: UInt8 = 5, kindDecimal: UInt8 = 6, kindSingle: UInt8 = 7, kindDouble: UInt8 = 8

    static func encode(_ value: ODataValue, into out: inout [UInt8]) {
        switch value {
        case .byte(let v): appendExact(EdmDecimal(v), into: &out); out.append(kindByte)
        case .sbyte(let v): appendExact(EdmDecimal(v), into: &out); out.append(kindSByte)
        case .int16(let v): appendExact(EdmDecimal(v), into: &out); out.append(kindInt16)
        case .int32(let v): appendExact(EdmDecimal(v), into: &out); out.append(kindInt32)
        case .int64(let v): appendExact(EdmDecimal(v), into: &out); out.append(kindInt64)
        case .decimal(let v):
            switch v.nonFinite {
            case .positiveInfinity: out.append(classPositiveInfinity)
            case .negativeInfinity: out.append(classNegativeInfinity)
            case .nan: out.append(classNaN)
            case nil: appendExact(v, into: &out)
            }
            out.append(kindDecimal)
            out.appendBigEndianUInt(UInt64(v.scale), 2)
        case .single(let v): appendFloating(Double(v), into: &out); out.append(kindSingle); out.append(floatFlag(Double(v)))
        case .double(let v): appendFloating(v, into: &out); out.append(kindDouble); out.append(floatFlag(v))
        default: break
        }
    }

    private static func floatFlag(_ value: Double) -> UInt8 { value == 0 && value.sign == .minus ? 1 : 0 }

    private static func appendFloating(_ value: Double, into out: inout [UInt8]) {
        if value.isNaN { out.append(classNaN); return }
        if value.isInfinite { out.append(value < 0 ? classNegativeInfinity : classPositiveInfinity); return }
        appendExact(EdmDecimal(exactly: value) ?? EdmDecimal(0), into: &out)
    }

    /// Class byte, then for nonzero values the adjusted exponent (Int16, sign-flipped) and the
    /// significant digits in base-100 bytes (pair + 1) ended by 0x00; all complemented when negative.
    static func appendExact(_ value: EdmDecimal, into out: inout [UInt8]) {
        guard !value.isZero else { out.append(classZero); return }
        var digits = value.digits
        while digits.last == 0 { digits.removeLast() }
        let exponent = value.adjustedExponent
        var body: [UInt8] = []
        body.appendBigEndianUInt(OrderedKeyEncoding.flip(Int64(exponent), bits: 16), 2)
        var index = 0
        while index < digits.count {
            let high = digits[index]
            let low = index + 1 < digits.count ? digits[index + 1] : 0
            body.append(high * 10 + low + 1)
            index += 2
        }
        body.append(0x00)
        if value.isNegative {
            out.append(classNegative)
            out += body.map { ~$0 }
        } else {
            out.append(classPositive)
            out += body
        }
    }

    static func decode(_ reader: inout EncodedBytesReader) throws(ODataError) -> ODataValue {
        let valueClass = try reader.byte()
        var exact = EdmDecimal(0)
        switch valueClass {
        case classNegativeInfinity, classPositiveInfinity, classNaN, classZero: break
        case classNegative, classPositive: exact = try readExact(&reader, negative: valueClass == classNegative)
        default: throw reader.invalid("number class byte 0x\(ValueText.hexByte(valueClass, uppercase: false))")
        }
        let isFinite = valueClass >= classNegative && valueClass <= classPositive
        let kind = try reader.byte()
        switch kind {
        case kindByte...kindInt64:
            guard isFinite, let whole = exact.int64Value else { throw reader.invalid("integer kind with a non-integer value") }
            switch kind {
            case kindByte: if let v = UInt8(exactly: whole) { return .byte(v) }
            case kindSByte: if let v = Int8(exactly: whole) { return .sbyte(v) }
            case kindInt16: if let v = Int16(exactly: whole) { return .int16(v) }
            case kindInt32: if let v = Int32(exactly: whole) { return .int32(v) }
            default: return .int64(whole)
            }
            throw reader.invalid("integer out of range for its kind")
        case kindDecimal:
            let scale = Int(try reader.bigEndian(2))
            if !isFinite && valueClass != classZero {
                guard scale == 0 else { throw reader.invalid("non-finite decimal with a scale") }
                switch valueClass {
                case classPositiveInfinity: return .decimal(.infinity)
                case classNegativeInfinity: return .decimal(.negativeInfinity)
                default: return .decimal(.nan)
                }
            }
            guard let rescaled = exact.rescaled(to: scale) else {
                throw reader.invalid("decimal scale \(scale) does not fit its digits")
            }
            return .decimal(rescaled)
        case kindSingle, kindDouble:
            let flag = try reader.byte()
            guard flag <= 1, flag == 0 || valueClass == classZero else { throw reader.invalid("floating flag byte") }
            var double: Double
            switch valueClass {
            case classNaN: double = .nan
            case classNegativeInfinity: double = -.infinity
            case classPositiveInfinity: double = .infinity
            case classZero: double = flag == 1 ? -0.0 : 0.0
            default: double = exact.doubleValue
            }
            if kind == kindSingle {
                let single = isFinite && valueClass != classZero ? Float(exact.description) ?? .nan : Float(double)
                guard single.isFinite || !isFinite else { throw reader.invalid("single out of range") }
                return .single(single)
            }
            guard double.isFinite || !isFinite else { throw reader.invalid("double out of range") }
            return .double(double)
        default:
            throw reader.invalid("numeric kind byte \(kind)")
        }
    }

    private static func readExact(_ reader: inout EncodedBytesReader, negative: Bool) throws(ODataError) -> EdmDecimal {
        let mask: UInt8 = negative ? 0xFF : 0x00
        let high = try reader.byte() ^ mask
        let low = try reader.byte() ^ mask
        let exponent = Int(OrderedKeyEncoding.unflip(UInt64(high) << 8 | UInt64(low), bits: 16))
        var digits: [UInt8] = []
        while true {
            let byte = try reader.byte() ^ mask
            if byte == 0 { break }
            guard byte <= 100 else { throw reader.invalid("digit pair byte \(byte)") }
            digits += [(byte - 1) / 10, (byte - 1) % 10]
            guard digits.count <= EdmDecimal.maxDigits + 2 else { throw reader.invalid("too many digits") }
        }
        while digits.last == 0 { digits.removeLast() }
        guard digits.first.map({ $0 != 0 }) == true else { throw reader.invalid("number without a leading digit") }
        var scale = digits.count - exponent
        if scale < 0 {
            digits += [UInt8](repeating: 0, count: -scale)
            scale = 0
        }
        guard scale <= EdmDecimal.maxDigits, digits.count <= EdmDecimal.maxDigits else {
            throw reader.invalid("number beyond \(EdmDecimal.maxDigits) digits")
        }
        return EdmDecimal(unchecked: negative, digits, scale)
    }
}
