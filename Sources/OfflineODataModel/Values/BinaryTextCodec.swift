/// Base64 (RFC 4648 §4), base64url (§5) and hexadecimal text for `Edm.Binary`.
enum BinaryTextCodec {
    private static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let url = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Padded base64 (`url: true` uses `-` and `_`).
    static func base64(_ bytes: [UInt8], url useURL: Bool) -> String {
        let alphabet = useURL ? url : standard
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let b0 = bytes[index]
            let b1: UInt8 = index + 1 < bytes.count ? bytes[index + 1] : 0
            let b2: UInt8 = index + 2 < bytes.count ? bytes[index + 2] : 0
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
            out.append(index + 1 < bytes.count ? alphabet[Int((b1 & 0x0F) << 2 | b2 >> 6)] : UInt8(ascii: "="))
            out.append(index + 2 < bytes.count ? alphabet[Int(b2 & 0x3F)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func sextet(_ char: UInt8, allowStandard: Bool, allowURL: Bool) -> UInt8? {
        switch char {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return char - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return char - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return char - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+") where allowStandard, UInt8(ascii: "-") where allowURL: return 62
        case UInt8(ascii: "/") where allowStandard, UInt8(ascii: "_") where allowURL: return 63
        default: return nil
        }
    }

    /// Decodes base64 with optional padding. Which alphabets are allowed is chosen by the caller.
    /// Non-zero leftover bits, stray characters (any non-ASCII byte included) and impossible
    /// lengths are errors.
    static func decodeBase64(_ text: String, allowStandard: Bool = true, allowURL: Bool = true) throws(ODataError) -> [UInt8] {
        let chars = Array(text.utf8)
        var end = chars.count
        var padding = 0
        while end > 0, chars[end - 1] == UInt8(ascii: "="), padding < 2 { end -= 1; padding += 1 }
        if padding > 0, chars.count % 4 != 0 {
            throw .valueInvalidBinary(text, "padded base64 length is not a multiple of 4")
        }
        guard end % 4 != 1 else { throw .valueInvalidBinary(text, "impossible base64 length") }
        var out: [UInt8] = []
        out.reserveCapacity(end / 4 * 3 + 2)
        var accumulator: UInt32 = 0
        var bits = 0
        for index in 0..<end {
            guard let value = sextet(chars[index], allowStandard: allowStandard, allowURL: allowURL) else {
                throw .valueInvalidBinary(text, "character is not base64", offset: index)
            }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        guard accumulator == 0 else { throw .valueInvalidBinary(text, "non-zero trailing base64 bits") }
        if padding > 0, (end + padding) / 4 * 3 - padding != out.count {
            throw .valueInvalidBinary(text, "padding does not match the length")
        }
        return out
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { ValueText.hexByte($0, uppercase: true) }.joined() }

    static func decodeHex(_ text: String) throws(ODataError) -> [UInt8] {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { throw .valueInvalidBinary(text, "odd number of hex digits") }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 2)
        for index in stride(from: 0, to: chars.count, by: 2) {
            guard let high = chars[index].literalHexDigit, let low = chars[index + 1].literalHexDigit else {
                throw .valueInvalidBinary(text, "not a hex digit", offset: index)
            }
            out.append(high << 4 | low)
        }
        return out
    }
}

/// Base64 text of binary content for other layers (a JSON `$batch` carries a binary body as
/// base64url, OData JSON Format 4.01 §19.1).
public enum Base64Text {
    /// Padded base64url.
    public static func encodeURL(_ bytes: [UInt8]) -> String { BinaryTextCodec.base64(bytes, url: true) }
    /// Base64 or base64url, padded or not; `invalidLiteral`-style error otherwise.
    public static func decode(_ text: String) throws(ODataError) -> [UInt8] { try BinaryTextCodec.decodeBase64(text) }
}
