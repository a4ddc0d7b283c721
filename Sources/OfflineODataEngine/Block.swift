/// A decoded leaf or index block of a run file (docs/StorageFormat.md, "Run files").
/// Its layout is validated once when loaded, so lookups afterwards need no further checks.
final class Block: @unchecked Sendable {
    // Immutable after init.
    let data: [UInt8]
    let isLeaf: Bool
    /// Per entry: key start, key length, value start, value length (−1 for a tombstone);
    /// in index blocks the "value" is the 12-byte child pointer.
    private let layout: [Int32]
    let count: Int

    var memoryCost: Int { data.count + layout.count * 4 + 96 }

    /// A filter partition's encoded bits (docs/StorageFormat.md, "Run files"), cached like a
    /// block: no entries, `data` is the filter.
    init(filterBits: [UInt8]) {
        data = filterBits
        isLeaf = false
        layout = []
        count = 0
    }

    /// `verifyOrder`: check that keys increase (needed when only a CRC protects the bytes; an
    /// AEAD-authenticated block is exactly what the writer produced, and `check` verifies order).
    init(data: [UInt8], isLeaf: Bool, file: String, offset: UInt64, verifyOrder: Bool = true) throws(EngineError) {
        self.data = data
        self.isLeaf = isLeaf
        // One pass over the raw bytes with bounds checks; afterwards accessors trust `layout`.
        let parsed: Result<[Int32], EngineError> = data.withUnsafeBytes { buf in
            func bad(_ why: String) -> Result<[Int32], EngineError> {
                .failure(.corrupt("\(isLeaf ? "leaf" : "index") block: \(why)", file: file, offset: offset))
            }
            let size = buf.count
            guard size >= 4 else { return bad("too short") }
            let n = Int(readU32LE(buf, size - 4))
            guard n > 0, n <= (size - 4) / 4 else { return bad("entry count \(n) out of range") }
            let offsetsStart = size - 4 - 4 * n
            var layout = [Int32](repeating: 0, count: n * 4)
            var position = 0
            // Reads a varint at `position` that must end before `offsetsStart`.
            func varint() -> Int? {
                var result = 0
                var shift = 0
                while position < offsetsStart && shift < 35 {
                    let b = buf[position]
                    position += 1
                    result |= Int(b & 0x7f) << shift
                    if b < 0x80 { return result }
                    shift += 7
                }
                return nil
            }
            var previousKey: Range<Int>?
            for i in 0..<n {
                guard Int(readU32LE(buf, offsetsStart + 4 * i)) == position else { return bad("entry \(i) offset not contiguous") }
                guard let keyLen = varint() else { return bad("entry \(i) key length damaged") }
                var valueLen = 12
                if isLeaf {
                    guard let tag = varint() else { return bad("entry \(i) value length damaged") }
                    valueLen = tag - 1
                }
                let keyStart = position
                guard keyLen <= offsetsStart - position else { return bad("entry \(i) key overruns the block") }
                position += keyLen
                let valueStart = position
                if valueLen > 0 {
                    guard valueLen <= offsetsStart - position else { return bad("entry \(i) value overruns the block") }
                    position += valueLen
                }
                let key = keyStart..<(keyStart + keyLen)
                if verifyOrder, let previousKey,
                   compareBytes(UnsafeRawBufferPointer(rebasing: buf[previousKey]), UnsafeRawBufferPointer(rebasing: buf[key])) >= 0 {
                    return bad("keys out of order at entry \(i)")
                }
                previousKey = key
                layout[4 * i] = Int32(keyStart)
                layout[4 * i + 1] = Int32(keyLen)
                layout[4 * i + 2] = Int32(valueStart)
                layout[4 * i + 3] = Int32(valueLen)
            }
            guard position == offsetsStart else { return bad("entries do not fill the block") }
            return .success(layout)
        }
        self.layout = try parsed.get()
        self.count = layout.count / 4
    }

    @inline(__always) func keyRange(_ i: Int) -> Range<Int> {
        let s = Int(layout[4 * i])
        return s..<(s + Int(layout[4 * i + 1]))
    }

    func key(_ i: Int) -> [UInt8] { Array(data[keyRange(i)]) }

    /// nil for a tombstone.
    func value(_ i: Int) -> [UInt8]? {
        let len = Int(layout[4 * i + 3])
        guard len >= 0 else { return nil }
        let s = Int(layout[4 * i + 2])
        return Array(data[s..<(s + len)])
    }

    /// nil for a tombstone.
    @inline(__always) func valueRange(_ i: Int) -> Range<Int>? {
        let len = Int(layout[4 * i + 3])
        guard len >= 0 else { return nil }
        let s = Int(layout[4 * i + 2])
        return s..<(s + len)
    }

    func isTombstone(_ i: Int) -> Bool { layout[4 * i + 3] < 0 }

    func valueLength(_ i: Int) -> Int { max(0, Int(layout[4 * i + 3])) }

    /// Index blocks: the child frame's offset and total length.
    func child(_ i: Int) -> (offset: UInt64, length: Int) {
        let s = Int(layout[4 * i + 2])
        return data.withUnsafeBytes { (readU64LE($0, s), Int(readU32LE($0, s + 8))) }
    }

    /// Compares entry i's key with `key`.
    @inline(__always) func compare(_ i: Int, _ key: UnsafeRawBufferPointer) -> Int {
        data.withUnsafeBytes { compareBytes(UnsafeRawBufferPointer(rebasing: $0[keyRange(i)]), key) }
    }

    /// First index whose key is ≥ `key` (count if none).
    func lowerBound(_ key: [UInt8]) -> Int {
        key.withUnsafeBytes { k in
            data.withUnsafeBytes { buf in
                layout.withUnsafeBufferPointer { lay in
                    var lo = 0, hi = count
                    while lo < hi {
                        let mid = (lo + hi) >> 1
                        let s = Int(lay[4 * mid])
                        let entry = UnsafeRawBufferPointer(rebasing: buf[s..<(s + Int(lay[4 * mid + 1]))])
                        if compareBytes(entry, k) < 0 { lo = mid + 1 } else { hi = mid }
                    }
                    return lo
                }
            }
        }
    }
}

/// Builds the raw bytes of one block.
struct BlockBuilder {
    var bytes: [UInt8] = []
    var offsets: [UInt32] = []
    let isLeaf: Bool

    init(isLeaf: Bool, capacity: Int) {
        self.isLeaf = isLeaf
        bytes.reserveCapacity(capacity + 1024)
    }

    var isEmpty: Bool { offsets.isEmpty }
    var estimatedSize: Int { bytes.count + offsets.count * 4 + 4 }

    /// Where the last added key sits in `bytes`.
    private(set) var lastKeyRange: Range<Int> = 0..<0

    @inline(__always) private mutating func appendVarint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func addLeaf(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer?) {
        offsets.append(UInt32(bytes.count))
        appendVarint(UInt64(key.count))
        appendVarint(value.map { UInt64($0.count) + 1 } ?? 0)
        let keyStart = bytes.count
        bytes.append(contentsOf: key)
        lastKeyRange = keyStart..<bytes.count
        if let value { bytes.append(contentsOf: value) }
    }

    var lastKey: [UInt8] { Array(bytes[lastKeyRange]) }

    mutating func addIndex(lastKey: [UInt8], childOffset: UInt64, childLength: Int) {
        offsets.append(UInt32(bytes.count))
        var w = ByteWriter()
        w.varint(UInt64(lastKey.count))
        w.append(lastKey)
        w.u64(childOffset)
        w.u32(UInt32(childLength))
        bytes.append(contentsOf: w.bytes)
    }

    mutating func finish() -> [UInt8] {
        var w = ByteWriter()
        for o in offsets { w.u32(o) }
        w.u32(UInt32(offsets.count))
        var out = bytes
        out.append(contentsOf: w.bytes)
        bytes.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
        return out
    }
}
