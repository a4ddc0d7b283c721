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
        separator()
        if quoted { bytes.append(UInt8(ascii: "\"")) }
        Self.appendDecimal(units, scale: scale, to: &bytes)
        if quoted { bytes.append(UInt8(ascii: "\"")) }
        needsComma = true
    }

    mutating func decimal(_ units: Int64?, scale: Int, quoted: Bool) {
        guard let units else { return null() }
        decimal(units, scale: scale, quoted: quoted)
    }

    /// A quoted `Edm.Date`: `"YYYY-MM-DD"`.
    mutating func date(days: Int64) {
        separator()
        bytes.append(UInt8(ascii: "\""))
        CivilTime.appendDate(days: days, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// A quoted `Edm.DateTimeOffset` with milliseconds (see `CivilTime.appendDateTimeOffset`).
    mutating func dateTimeOffset(millis: Int64, offsetMinutes: Int) {
        separator()
        bytes.append(UInt8(ascii: "\""))
        CivilTime.appendDateTimeOffset(millis: millis, offsetMinutes: offsetMinutes, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    static func decimalText(_ units: Int64, scale: Int) -> String {
        var bytes: [UInt8] = []
        appendDecimal(units, scale: scale, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the digits of `units / 10^scale` with exactly `scale` fraction digits and at
    /// least one integer digit, without building a String.
    static func appendDecimal(_ units: Int64, scale: Int, to bytes: inout [UInt8], minimumDigits: Int = 1) {
        if units < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = units.magnitude
        var digitCount = 1
        var probe = magnitude / 10
        while probe > 0 {
            digitCount += 1
            probe /= 10
        }
        let fraction = Swift.max(0, scale)
        let total = Swift.max(digitCount, fraction + 1, minimumDigits)
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: total + (fraction > 0 ? 1 : 0)))
        var value = magnitude
        var position = bytes.count - 1
        for produced in 0..<total {
            if produced == fraction, fraction > 0 {
                bytes[position] = UInt8(ascii: ".")
                position -= 1
            }
            bytes[position] = UInt8(ascii: "0") + UInt8(value % 10)
            value /= 10
            position -= 1
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// `pattern` quoted, with `#` replaced by a random digit and `@` by a random digit 2–9
    /// (phone numbers and postal codes; the patterns are ASCII without characters to escape).
    mutating func filledPattern(_ pattern: String, _ rng: inout SplitMix64) {
        separator()
        bytes.append(UInt8(ascii: "\""))
        for byte in pattern.utf8 {
            switch byte {
            case UInt8(ascii: "#"): bytes.append(UInt8(ascii: "0") + UInt8(rng.int(below: 10)))
            case UInt8(ascii: "@"): bytes.append(UInt8(ascii: "2") + UInt8(rng.int(below: 8)))
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0..<0x20: break
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    private mutating func appendQuoted(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { buffer in
            // Fast path: nothing to escape (the common case) is copied in one go.
            var clean = true
            for byte in buffer where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                clean = false
                break
            }
            if clean {
                bytes.append(contentsOf: buffer)
            } else {
                appendEscaped(buffer)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscaped(_ buffer: UnsafeBufferPointer<UInt8>) {
        for byte in buffer {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "\\"))
            case 0x0A: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "t"))
            case 0x08: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "f"))
            case 0..<0x20:
                for escaped in [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0x0F)]] {
                    bytes.append(escaped)
                }
            default: bytes.append(byte)
            }
        }
    }
}
