/// A bounds-checked cursor over encoded bytes; every read that would pass the end throws
/// `truncatedEncoding` with the offset, never traps.
struct EncodedBytesReader {
    let bytes: [UInt8]
    var position: Int
    /// Reads stop here (≤ bytes.count); movable so one reader can visit several slots.
    var end: Int
    let what: String

    init(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil, what: String) {
        self.bytes = bytes
        self.position = start
        self.end = min(end ?? bytes.count, bytes.count)
        self.what = what
    }

    var atEnd: Bool { position >= end }
    var remaining: Int { max(0, end - position) }

    func truncated() -> ODataError { .encodingTruncated(what, offset: position) }
    func invalid(_ reason: String) -> ODataError { .encodingInvalid("\(what): \(reason)", offset: position) }

    mutating func byte() throws(ODataError) -> UInt8 {
        guard position < end else { throw truncated() }
        defer { position += 1 }
        return bytes[position]
    }

    func peek() throws(ODataError) -> UInt8 {
        guard position < end else { throw truncated() }
        return bytes[position]
    }

    mutating func take(_ count: Int) throws(ODataError) -> [UInt8] {
        guard count >= 0, count <= remaining else { throw truncated() }
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    /// `count` decimal digits packed two per byte, high nibble first (docs/EntityEncoding.md
    /// §2.3, tag 0x08), unpacked into one array allocated once. Every digit must be 0–9 and the
    /// first not 0 (coefficients carry no leading zeros); the pad nibble of an odd count is
    /// ignored.
    mutating func packedDigits(_ count: Int) throws(ODataError) -> [UInt8] {
        var digits: [UInt8] = []
        digits.reserveCapacity(max(0, min(count, 2 * remaining)))
        try readPackedDigits(count) { digits.append($0) }
        return digits
    }

    /// `count` packed digits (at most `EdmDecimal.smallDigitLimit`) as one integer, with the
    /// checks of `packedDigits`: no allocation.
    mutating func packedCoefficient(_ count: Int) throws(ODataError) -> UInt64 {
        guard count <= EdmDecimal.smallDigitLimit else { throw truncated() }
        var value: UInt64 = 0
        try readPackedDigits(count) { value = value &* 10 &+ UInt64($0) }
        return value
    }

    /// Reads `count` digits packed two per byte (high nibble first), each 0...9 and the first
    /// nonzero, handing each to `body`; the position moves past them only when all are valid.
    private mutating func readPackedDigits(_ count: Int, _ body: (UInt8) -> Void) throws(ODataError) {
        let byteCount = (count + 1) / 2
        guard count >= 0, byteCount <= remaining else { throw truncated() }
        var valid = true
        for i in 0..<count {
            let byte = bytes[position + i / 2]
            let digit = i & 1 == 0 ? byte >> 4 : byte & 0x0F
            if digit > 9 || (i == 0 && digit == 0) { valid = false }
            body(digit)
        }
        guard valid else { throw invalid("decimal digits") }
        position += byteCount
    }

    /// Big-endian unsigned integer of `count` bytes (count <= 8).
    mutating func bigEndian(_ count: Int) throws(ODataError) -> UInt64 {
        guard count <= remaining else { throw truncated() }
        var value: UInt64 = 0
        for index in 0..<count { value = value << 8 | UInt64(bytes[position + index]) }
        position += count
        return value
    }

    /// Little-endian unsigned integer of `count` bytes (count <= 8).
    mutating func littleEndian(_ count: Int) throws(ODataError) -> UInt64 {
        guard count <= remaining else { throw truncated() }
        var value: UInt64 = 0
        for index in (0..<count).reversed() { value = value << 8 | UInt64(bytes[position + index]) }
        position += count
        return value
    }

    /// LEB128 unsigned varint (at most 10 bytes, no overflow).
    mutating func varint() throws(ODataError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte()
            if shift == 63, next > 1 { throw invalid("varint overflows 64 bits") }
            value |= UInt64(next & 0x7F) << shift
            if next & 0x80 == 0 { return value }
            shift += 7
            if shift > 63 { throw invalid("varint longer than 10 bytes") }
        }
    }

    mutating func zigzag() throws(ODataError) -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    /// A varint used as a length or count, bounded by the remaining bytes (each counted item
    /// takes at least `minimumItemSize` bytes), so hostile counts cannot allocate.
    mutating func count(minimumItemSize: Int = 1) throws(ODataError) -> Int {
        let raw = try varint()
        guard raw <= UInt64(remaining / max(1, minimumItemSize)) else { throw truncated() }
        return Int(raw)
    }

    mutating func utf8String() throws(ODataError) -> String {
        let length = try count()
        let start = position
        guard length >= 0, length <= remaining else { throw truncated() }
        position += length
        // Validated in place: no intermediate array (`EntityValueEncoding.validString`).
        let text = bytes.withUnsafeBufferPointer { buffer -> String? in
            EntityValueEncoding.validString(UnsafeBufferPointer(rebasing: buffer[start..<start + length]))
        }
        guard let text else { throw .encodingInvalid("\(what): string is not valid UTF-8", offset: start) }
        return text
    }
}

/// Append helpers for writers.
extension Array where Element == UInt8 {
    mutating func appendBigEndianUInt(_ value: UInt64, _ count: Int) {
        for index in (0..<count).reversed() { append(UInt8(truncatingIfNeeded: value >> UInt64(8 * index))) }
    }

    mutating func appendLittleEndianUInt(_ value: UInt64, _ count: Int) {
        for index in 0..<count { append(UInt8(truncatingIfNeeded: value >> UInt64(8 * index))) }
    }

    mutating func appendLEB128(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 { append(UInt8(truncatingIfNeeded: rest) | 0x80); rest >>= 7 }
        append(UInt8(rest))
    }

    mutating func appendZigZagLEB128(_ value: Int64) {
        appendLEB128(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    mutating func appendLengthPrefixedUTF8(_ text: String) {
        appendLEB128(UInt64(text.utf8.count))
        append(contentsOf: text.utf8)
    }
}
