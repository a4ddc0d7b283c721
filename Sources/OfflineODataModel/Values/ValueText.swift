/// Small text-formatting helpers shared by the value types.
enum ValueText {
    /// Formats picoseconds (0..<10^12) as `.ffff` with trailing zeros removed; empty for zero.
    static func fractionText(_ picoseconds: Int64) -> String {
        guard picoseconds > 0 else { return "" }
        var digits = String(picoseconds)
        digits = String(repeating: "0", count: 12 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "." + digits
    }

    /// Zero-padded decimal text of a non-negative number.
    static func zeroPadded(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    /// Two hexadecimal digits for a byte.
    static func hexByte(_ byte: UInt8, uppercase: Bool) -> String {
        let digits: [Character] = uppercase ? Array("0123456789ABCDEF") : Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
