/// `Edm.Guid`: 16 bytes in the order they are written (`01234567-89ab-...` is bytes 0x01, 0x23, …).
/// Text is lowercase 8-4-4-4-12; ordering is by these bytes (the textual order).
public struct EdmGuid: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Bytes 0–7 (big-endian).
    public let high: UInt64
    /// Bytes 8–15 (big-endian).
    public let low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    public init(bytes: [UInt8]) throws(ODataError) {
        guard bytes.count == 16 else { throw .valueInvalidFields("a guid has 16 bytes, not \(bytes.count)") }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for index in 0..<8 { high = high << 8 | UInt64(bytes[index]) }
        for index in 8..<16 { low = low << 8 | UInt64(bytes[index]) }
        self.init(high: high, low: low)
    }

    /// Parses 8-4-4-4-12 hexadecimal digits (either case).
    public init(parsing text: String) throws(ODataError) {
        let chars = Array(text.utf8)
        guard chars.count == 36 else { throw .valueInvalidGuid(text) }
        var nibbles: [UInt8] = []
        nibbles.reserveCapacity(32)
        for (index, char) in chars.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard char == UInt8(ascii: "-") else { throw .valueInvalidGuid(text) }
            } else {
                guard let value = char.literalHexDigit else { throw .valueInvalidGuid(text) }
                nibbles.append(value)
            }
        }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 32, by: 2) { bytes.append(nibbles[index] << 4 | nibbles[index + 1]) }
        try self.init(bytes: bytes)
    }

    public var bytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
    }

    public var description: String {
        let hex = bytes.map { ValueText.hexByte($0, uppercase: false) }.joined()
        var out = ""
        for (index, char) in hex.enumerated() {
            if index == 8 || index == 12 || index == 16 || index == 20 { out.append("-") }
            out.append(char)
        }
        return out
    }

    public static func < (lhs: EdmGuid, rhs: EdmGuid) -> Bool { (lhs.high, lhs.low) < (rhs.high, rhs.low) }
}
