/// Little-endian and varint encoding helpers used by every on-disk structure
/// (docs/StorageFormat.md, "Conventions").
struct ByteWriter {
    var bytes: [UInt8]

    init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    mutating func u8(_ v: UInt8) { bytes.append(v) }

    mutating func u16(_ v: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: v))
        bytes.append(UInt8(truncatingIfNeeded: v >> 8))
    }

    mutating func u32(_ v: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: v >> UInt32(shift))) }
    }

    mutating func u64(_ v: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: v >> UInt64(shift))) }
    }

    mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func append<C: Collection>(_ other: C) where C.Element == UInt8 { bytes.append(contentsOf: other) }

    /// Length-prefixed (varint) byte string.
    mutating func lengthPrefixed<C: Collection>(_ other: C) where C.Element == UInt8 {
        varint(UInt64(other.count))
        bytes.append(contentsOf: other)
    }
}

/// Bounds-checked reader. Every read past the end throws instead of trapping, so damaged
/// bytes surface as a typed corruption error.
struct ByteReader {
    let bytes: [UInt8]
    var position: Int
    let end: Int
    /// Describes what is being read, for error messages.
    let context: String
    let file: String?
    let baseOffset: UInt64?

    init(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil, context: String,
         file: String? = nil, baseOffset: UInt64? = nil) {
        self.bytes = bytes
        self.position = start
        self.end = min(end ?? bytes.count, bytes.count)
        self.context = context
        self.file = file
        self.baseOffset = baseOffset
    }

    var remaining: Int { end - position }
    var isAtEnd: Bool { position >= end }

    func failure(_ what: String) -> EngineError {
        let off = baseOffset.map { $0 + UInt64(position) }
        return .corrupt("\(context): \(what) at byte \(position)", file: file, offset: off)
    }

    mutating func need(_ n: Int) throws(EngineError) {
        if n < 0 || n > end - position { throw failure("truncated (needed \(n) more bytes, \(end - position) left)") }
    }

    mutating func u8() throws(EngineError) -> UInt8 {
        try need(1)
        defer { position += 1 }
        return bytes[position]
    }

    mutating func u16() throws(EngineError) -> UInt16 {
        try need(2)
        defer { position += 2 }
        return UInt16(bytes[position]) | UInt16(bytes[position + 1]) << 8
    }

    mutating func u32() throws(EngineError) -> UInt32 {
        try need(4)
        var v: UInt32 = 0
        for i in 0..<4 { v |= UInt32(bytes[position + i]) << UInt32(8 * i) }
        position += 4
        return v
    }

    mutating func u64() throws(EngineError) -> UInt64 {
        try need(8)
        var v: UInt64 = 0
        for i in 0..<8 { v |= UInt64(bytes[position + i]) << UInt64(8 * i) }
        position += 8
        return v
    }

    mutating func varint() throws(EngineError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try u8()
            if shift == 63 && b > 1 { throw failure("varint overflows 64 bits") }
            result |= UInt64(b & 0x7f) << shift
            if b < 0x80 { return result }
            shift += 7
            if shift > 63 { throw failure("varint too long") }
        }
    }

    mutating func length(max: Int = Int(Int32.max)) throws(EngineError) -> Int {
        let v = try varint()
        guard v <= UInt64(max) else { throw failure("length \(v) exceeds \(max)") }
        return Int(v)
    }

    mutating func bytes(_ n: Int) throws(EngineError) -> [UInt8] {
        try need(n)
        defer { position += n }
        return Array(bytes[position..<(position + n)])
    }

    mutating func lengthPrefixed() throws(EngineError) -> [UInt8] {
        let n = try length()
        return try bytes(n)
    }
}

@inline(__always)
func readU32LE(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
    bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian
}

@inline(__always)
func readU64LE(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> UInt64 {
    bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self).littleEndian
}

/// Lexicographic comparison of byte strings (memcmp order, shorter prefix first).
@inline(__always)
func compareBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
    let n = min(a.count, b.count)
    if n > 0, let pa = a.baseAddress, let pb = b.baseAddress {
        let c = memcmpShim(pa, pb, n)
        if c != 0 { return c < 0 ? -1 : 1 }
    }
    return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
}

@inline(__always)
func compareBytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
    a.withUnsafeBytes { pa in b.withUnsafeBytes { pb in compareBytes(pa, pb) } }
}
