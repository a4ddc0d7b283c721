/// A finite decimal read in place from borrowed entity bytes (docs/EntityEncoding.md §2.3, tag
/// 0x08): sign, scale and the packed digits, compared with a `DecimalKey` without building an
/// `EdmDecimal` (whose digit array would be an allocation per row).
public struct EncodedDecimal {
    public let isNegative: Bool
    public let scale: Int
    public let digitCount: Int
    /// ⌈digitCount / 2⌉ bytes, two digits per byte, high nibble first.
    let packed: UnsafeRawBufferPointer

    /// Digit `index` (0-based, most significant first).
    @inline(__always)
    func digit(_ index: Int) -> UInt8 {
        let byte = packed[index >> 1]
        return index & 1 == 0 ? byte >> 4 : byte & 0x0F
    }

    /// The decimal as `EdmDecimal` (allocates its digits).
    public var value: EdmDecimal {
        var digits: [UInt8] = []
        digits.reserveCapacity(digitCount)
        for index in 0..<digitCount { digits.append(digit(index)) }
        return EdmDecimal(unchecked: isNegative, digits, scale)
    }

    /// Three-way numeric comparison with `key` (-1, 0, 1), equal to `EdmDecimal.compare`
    /// of the two values (the scale does not matter: 1.0 equals 1.00).
    public func compare(_ key: DecimalKey) -> Int {
        key.digits.withUnsafeBufferPointer { compare(sign: key.sign, exponent: key.exponent, digits: $0) }
    }

    /// `compare(_:)` with the key's parts given: `sign` -1/0/1, value = 0.d1 d2 … × 10^exponent,
    /// `digits` without leading zero (trailing zeros allowed).
    public func compare(sign: Int, exponent keyExponent: Int, digits: UnsafeBufferPointer<UInt8>) -> Int {
        let own = digitCount == 0 ? 0 : (isNegative ? -1 : 1)
        if own != sign { return own < sign ? -1 : 1 }
        if own == 0 { return 0 }
        let magnitude: Int
        let exponent = digitCount - scale
        if exponent != keyExponent {
            magnitude = exponent < keyExponent ? -1 : 1
        } else {
            var result = 0
            let count = max(digitCount, digits.count)
            for index in 0..<count {
                let left = index < digitCount ? digit(index) : 0
                let right = index < digits.count ? digits[index] : 0
                if left != right {
                    result = left < right ? -1 : 1
                    break
                }
            }
            magnitude = result
        }
        return isNegative ? -magnitude : magnitude
    }

    /// Reads the payload after the tag exactly as `EntityValueEncoding.read` does; nil for a
    /// non-finite decimal or anything the throwing decoder would reject.
    static func read(_ reader: inout RawReader) -> EncodedDecimal? {
        guard let sign = reader.byte(), sign <= 1 else { return nil }
        guard let scale = reader.varint(), let count = reader.varint(),
              scale <= UInt64(EdmDecimal.maxDigits), count <= UInt64(EdmDecimal.maxDigits) else { return nil }
        let length = (Int(count) + 1) / 2
        guard length <= reader.remaining else { return nil }
        let packed = UnsafeRawBufferPointer(rebasing: reader.bytes[reader.position..<reader.position + length])
        reader.position += length
        let decimal = EncodedDecimal(isNegative: sign == 1, scale: Int(scale), digitCount: Int(count), packed: packed)
        for index in 0..<decimal.digitCount where decimal.digit(index) > 9 { return nil }
        if decimal.digitCount > 0, decimal.digit(0) == 0 { return nil }
        return decimal
    }
}

/// An exact finite number prepared once for comparisons with encoded decimals:
/// value = sign × 0.d1 d2 … × 10^exponent, no leading or trailing zero digits.
public struct DecimalKey: Sendable, Hashable {
    /// -1, 0 or 1.
    public let sign: Int
    public let digits: [UInt8]
    public let exponent: Int

    /// Integers and finite decimals; nil for every other value (floating point included:
    /// those compare through `Double` in filters).
    public init?(_ value: ODataValue) {
        let decimal: EdmDecimal
        switch value {
        case .byte(let v): decimal = EdmDecimal(v)
        case .sbyte(let v): decimal = EdmDecimal(v)
        case .int16(let v): decimal = EdmDecimal(v)
        case .int32(let v): decimal = EdmDecimal(v)
        case .int64(let v): decimal = EdmDecimal(v)
        case .decimal(let v): decimal = v
        default: return nil
        }
        guard decimal.isFinite else { return nil }
        var digits = decimal.digits
        while digits.last == 0 { digits.removeLast() }
        self.sign = digits.isEmpty ? 0 : (decimal.isNegative ? -1 : 1)
        self.digits = digits
        self.exponent = digits.isEmpty ? 0 : decimal.digitCount - decimal.scale
    }
}
