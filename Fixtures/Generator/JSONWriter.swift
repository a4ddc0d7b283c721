/// Appends compact JSON to a byte buffer: objects, arrays, names, correctly escaped strings
/// (RFC 8259: `"` `\` and C0 controls escaped, all other Unicode written as raw UTF-8),
/// fixed-scale decimals and integers. Commas are placed automatically.
struct JSONWriter {
    var bytes: [UInt8] = []
    private var needsComma = false
    private var afterName = false

    init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    private mutating func separator() {
        if afterName {
            afterName = false
        } else if needsComma {
            bytes.append(UInt8(ascii: ","))
        }
    }

    mutating func beginObject() {
        separator()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    mutating func beginArray() {
        separator()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    mutating func name(_ name: String) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        appendQuoted(name)
        bytes.append(UInt8(ascii: ":"))
        afterName = true
        needsComma = false
    }

    /// Bytes that already form one complete JSON value (e.g. a generated entity).
    mutating func raw<S: Sequence<UInt8>>(_ value: S) {
        separator()
        bytes.append(contentsOf: value)
        needsComma = true
    }

    mutating func string(_ value: String) {
        separator()
        appendQuoted(value)
        needsComma = true
    }

    mutating func string(_ value: String?) {
        guard let value else { return null() }
        string(value)
    }

    mutating func null() {
        separator()
        bytes.append(contentsOf: [UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l")])
        needsComma = true
    }

    mutating func int(_ value: Int) {
        separator()
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    /// A decimal given in units of 10^-scale, written with exactly `scale` fraction digits
    /// (`1234500`, 3 → `1234.500`); quoted when `quoted` (IEEE754Compatible=true).
    mutating func decimal(_ units: Int64, scale: Int, quoted: Bool) {
        let text = Self.decimalText(units, scale: scale)
        if quoted {
            string(text)
        } else {
            separator()
            bytes.append(contentsOf: text.utf8)
            needsComma = true
        }
    }

    mutating func decimal(_ units: Int64?, scale: Int, quoted: Bool) {
        guard let units else { return null() }
        decimal(units, scale: scale, quoted: quoted)
    }

    static func decimalText(_ units: Int64, scale: Int) -> String {
        let negative = units < 0
        let magnitude = units.magnitude
        var digits = String(magnitude)
        if scale > 0 {
            if digits.count <= scale {
                digits = String(repeating: "0", count: scale - digits.count + 1) + digits
            }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -scale))
        }
        return negative ? "-" + digits : digits
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func appendQuoted(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0..<0x20:
                bytes.append(contentsOf: [
                    UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                    Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0x0F)],
                ])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
