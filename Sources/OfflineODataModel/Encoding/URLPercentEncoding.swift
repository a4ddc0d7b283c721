/// Percent-encoding of text put into a URL's resource path or query (RFC 3986 §2.1, OData 4.01
/// URL Conventions §2.1). Key predicates are formatted unencoded (`KeyPredicate.format`); a
/// string key may hold `/`, `?`, `#`, `%` or blanks, so every URL the store builds from one
/// (a `Location`, an `@odata.id`, a queued request's URL) passes it through here, and the URL
/// parser's single percent-decoding of each path segment gives the key back.
public enum URLPercentEncoding {
    /// `text` as one path segment: bytes outside RFC 3986 `pchar` (unreserved, sub-delims,
    /// `:` and `@`) become `%XX`, `%` included; non-ASCII text is encoded as its UTF-8 bytes.
    /// `'`, `(`, `)`, `,` and `=` stay, so `Orders('a b')` reads `Orders('a%20b')`.
    public static func pathSegment(_ text: String) -> String {
        encode(text) { byte in isPathCharacter(byte) }
    }

    /// `text` as a query option value: as `pathSegment`, and also `&`, `+`, `;` and `#`
    /// (which end or split an option) encoded; `/` and `?` stay (allowed in a query).
    public static func queryValue(_ text: String) -> String {
        encode(text) { byte in
            switch byte {
            case UInt8(ascii: "&"), UInt8(ascii: "+"), UInt8(ascii: ";"): return false
            case UInt8(ascii: "/"), UInt8(ascii: "?"): return true
            default: return isPathCharacter(byte)
            }
        }
    }

    /// A resource path of several segments: as `pathSegment`, with `/` kept.
    public static func resourcePath(_ text: String) -> String {
        encode(text) { byte in byte == UInt8(ascii: "/") || isPathCharacter(byte) }
    }

    /// A query option value whose raw `;` separates nested options (`$expand`, `$select`):
    /// as `queryValue`, with `;` kept.
    public static func nestedQueryValue(_ text: String) -> String {
        encode(text) { byte in
            switch byte {
            case UInt8(ascii: "&"), UInt8(ascii: "+"): return false
            case UInt8(ascii: "/"), UInt8(ascii: "?"): return true
            default: return isPathCharacter(byte)
            }
        }
    }

    /// `text` with each `%XX` replaced by its byte, once; nil when a `%` is not followed by two
    /// hexadecimal digits or the result is not UTF-8.
    public static func decode(_ text: String) -> String? {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "%") else {
                out.append(bytes[index])
                index += 1
                continue
            }
            guard index + 2 < bytes.count, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else { return nil }
            out.append(high << 4 | low)
            index += 3
        }
        return String(validating: out, as: UTF8.self)
    }

    /// The value of one hexadecimal digit (`0-9a-fA-F`), else nil.
    public static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// RFC 3986 `pchar` without `%`: ALPHA DIGIT `-._~` `!$&'()*+,;=` `:@`.
    static func isPathCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
             UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="),
             UInt8(ascii: ":"), UInt8(ascii: "@"):
            return true
        default:
            return false
        }
    }

    private static func encode(_ text: String, keeping keep: (UInt8) -> Bool) -> String {
        let utf8 = text.utf8
        guard !utf8.allSatisfy(keep) else { return text }
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count + 8)
        for byte in utf8 {
            if keep(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
