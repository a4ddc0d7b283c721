/// Small text-formatting helpers shared by the value types.
enum ValueText {
    /// Formats picoseconds (0..<10^12) as `.ffff` with trailing zeros removed; empty for zero.
    /// Digits are made from the number, not by trimming a `String` character by character (a
    /// response with times spent about 4 % of a create's CPU there, perf).
    static func fractionText(_ picoseconds: Int64) -> String {
        guard picoseconds > 0 else { return "" }
        guard picoseconds < 1_000_000_000_000 else {
            // Out of the documented range: the plain digits, as before.
            var digits = String(picoseconds)
            while digits.hasSuffix("0") { digits.removeLast() }
            return "." + digits
        }
        var bytes: [UInt8] = []
        appendFraction(picoseconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `.ffff` (trailing zeros removed) for 0 < picoseconds < 10^12; nothing for 0.
    static func appendFraction(_ picoseconds: Int64, to bytes: inout [UInt8]) {
        guard picoseconds > 0, picoseconds < 1_000_000_000_000 else { return }
        var p = picoseconds, width = 12
        while p % 10 == 0 {
            p /= 10
            width -= 1
        }
        bytes.append(UInt8(ascii: "."))
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width))
        var i = start + width - 1
        while p > 0 {
            bytes[i] = UInt8(ascii: "0") + UInt8(p % 10)
            p /= 10
            i -= 1
        }
    }

    /// Zero-padded decimal text of a non-negative number.
    static func zeroPadded(_ value: Int, _ width: Int) -> String {
        guard value >= 0 else {
            let text = String(value)
            return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
        }
        var bytes: [UInt8] = []
        appendZeroPadded(value, width, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the zero-padded decimal digits of a non-negative number.
    static func appendZeroPadded(_ value: Int, _ width: Int, to bytes: inout [UInt8]) {
        var digits = 1, v = value
        while v >= 10 {
            v /= 10
            digits += 1
        }
        let count = max(digits, width)
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: count))
        var i = start + count - 1
        v = value
        repeat {
            bytes[i] = UInt8(ascii: "0") + UInt8(v % 10)
            v /= 10
            i -= 1
        } while v > 0
    }

    /// Two hexadecimal digits for a byte.
    static func hexByte(_ byte: UInt8, uppercase: Bool) -> String {
        let digits: [Character] = uppercase ? Array("0123456789ABCDEF") : Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
