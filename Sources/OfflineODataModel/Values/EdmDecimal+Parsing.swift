extension EdmDecimal {
    /// Parses `[+|-] 1*DIGIT ["." 1*DIGIT] [("e"|"E") [+|-] 1*DIGIT]` exactly, or `INF`, `-INF`, `NaN`.
    /// The exponent is applied exactly: `1.5e3` → 1500 (scale 0), `1.50e-1` → 0.150 (scale 3).
    public init(parsing text: String) throws(ODataError) {
        self = try Self.parse(text)
    }

    /// Parses the UTF-8 of `text` in place (no copy of the text).
    static func parse(_ text: String) throws(ODataError) -> EdmDecimal {
        var utf8 = text
        let result = utf8.withUTF8 { bytes in Result { () throws(ODataError) in try parse(bytes, text: text) } }
        return try result.get()
    }

    static func parse(_ bytes: [UInt8], text: @autoclosure () -> String) throws(ODataError) -> EdmDecimal {
        let result = bytes.withUnsafeBufferPointer { buffer in Result { () throws(ODataError) in try parse(buffer, text: text()) } }
        return try result.get()
    }

    /// The coefficient while it is read: inline up to `smallDigitLimit` digits (no
    /// allocation for the numbers services send), a digit array beyond.
    private struct CoefficientBuilder {
        var small: UInt64 = 0
        var large: [UInt8]?
        var count = 0

        mutating func append(_ digit: UInt8) {
            if count == 0 && digit == 0 { return }
            if large == nil && count < smallDigitLimit {
                small = small * 10 + UInt64(digit)
            } else {
                if large == nil { large = EdmDecimal(unchecked: false, small: small, count: count, 0).digits }
                large?.append(digit)
            }
            count += 1
        }

        func build(negative: Bool, scale: Int) -> EdmDecimal {
            if let large { return EdmDecimal(unchecked: negative, large, scale) }
            return EdmDecimal(unchecked: negative, small: small, count: count, scale)
        }
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, text: @autoclosure () -> String) throws(ODataError) -> EdmDecimal {
        // Only a text starting with a letter or "-I" can be INF, -INF or NaN: one byte test
        // keeps numbers off the (generic, byte-by-byte) comparisons.
        if bytes.count >= 3, bytes[0] >= UInt8(ascii: "A") || bytes[1] == UInt8(ascii: "I") {
            if bytes.elementsEqual("INF".utf8) { return .infinity }
            if bytes.elementsEqual("-INF".utf8) { return .negativeInfinity }
            if bytes.elementsEqual("NaN".utf8) { return .nan }
        }
        var index = 0
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        var coefficient = CoefficientBuilder()
        let integerStart = index
        while index < bytes.count, let digit = bytes[index].literalDigit {
            coefficient.append(digit)
            index += 1
            if coefficient.count > maxDigits { throw .valueDecimalTooLarge(text()) }
        }
        guard index > integerStart else {
            throw .valueInvalidLiteral(text(), "expected a digit", offset: index)
        }
        var fractionCount = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < bytes.count, let digit = bytes[index].literalDigit {
                coefficient.append(digit)
                fractionCount += 1
                index += 1
                if fractionCount > maxDigits || coefficient.count > maxDigits { throw .valueDecimalTooLarge(text()) }
            }
            guard index > fractionStart else {
                throw .valueInvalidLiteral(text(), "expected a digit after '.'", offset: index)
            }
        }
        var exponent = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            var exponentNegative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            let exponentStart = index
            while index < bytes.count, let digit = bytes[index].literalDigit {
                exponent = exponent * 10 + Int(digit)
                if exponent > 2 * maxDigits { throw .valueDecimalTooLarge(text()) }
                index += 1
            }
            guard index > exponentStart else {
                throw .valueInvalidLiteral(text(), "expected exponent digits", offset: index)
            }
            if exponentNegative { exponent = -exponent }
        }
        guard index == bytes.count else {
            throw .valueInvalidLiteral(text(), "unexpected character", offset: index)
        }
        var scale = fractionCount - exponent
        if scale < 0 {
            if coefficient.count > 0 {
                // Trailing zeros: appended one by one (at most 2 × maxDigits, checked above).
                for _ in 0 ..< -scale {
                    coefficient.append(0)
                    if coefficient.count > maxDigits { throw .valueDecimalTooLarge(text()) }
                }
            }
            scale = 0
        }
        guard scale <= maxDigits, coefficient.count <= maxDigits else { throw .valueDecimalTooLarge(text()) }
        return coefficient.build(negative: negative, scale: scale)
    }
}

extension UInt8 {
    /// The digit value of an ASCII digit byte.
    var literalDigit: UInt8? {
        self >= 0x30 && self <= 0x39 ? self - 0x30 : nil
    }

    /// The value of an ASCII hexadecimal digit (either case).
    var literalHexDigit: UInt8? {
        switch self {
        case 0x30...0x39: return self - 0x30
        case 0x41...0x46: return self - 0x41 + 10
        case 0x61...0x66: return self - 0x61 + 10
        default: return nil
        }
    }
}
