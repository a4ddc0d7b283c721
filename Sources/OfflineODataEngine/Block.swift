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

    init(data: [UInt8], isLeaf: Bool, file: String, offset: UInt64) throws(EngineError) {
        self.data = data
        self.isLeaf = isLeaf
        let what = isLeaf ? "leaf block" : "index block"
        func bad(_ why: String) -> EngineError { .corrupt("\(what): \(why)", file: file, offset: offset) }
        guard data.count >= 4 else { throw bad("too short") }
        let n = data.withUnsafeBytes { Int(readU32LE($0, data.count - 4)) }
        guard n > 0, n <= (data.count - 4) / 4 else { throw bad("entry count \(n) out of range") }
        let offsetsStart = data.count - 4 - 4 * n
        var layout = [Int32]()
        layout.reserveCapacity(n * 4)
        var previousEnd = 0
        for i in 0..<n {
            let entryOffset = data.withUnsafeBytes { Int(readU32LE($0, offsetsStart + 4 * i)) }
            guard entryOffset == previousEnd else { throw bad("entry \(i) offset \(entryOffset) not contiguous") }
            var r = ByteReader(data, from: entryOffset, to: offsetsStart, context: what, file: file, baseOffset: nil)
            let keyLen = try r.length(max: offsetsStart)
            var valueLen: Int
            if isLeaf {
                let tag = try r.varint()
                guard tag <= UInt64(offsetsStart) + 1 else { throw bad("value length out of range") }
                valueLen = tag == 0 ? -1 : Int(tag - 1)
            } else {
                valueLen = 12
            }
            let keyStart = r.position
            try r.need(keyLen)
            r.position += keyLen
            let valueStart = r.position
            if valueLen > 0 {
                try r.need(valueLen)
                r.position += valueLen
            }
            previousEnd = r.position
            layout.append(Int32(keyStart))
            layout.append(Int32(keyLen))
            layout.append(Int32(valueStart))
            layout.append(Int32(valueLen))
        }
        guard previousEnd == offsetsStart else { throw bad("entries do not fill the block") }
        self.layout = layout
        self.count = n
        // Keys must be strictly increasing.
        for i in 1..<max(n, 1) where compareKeys(i - 1, i) >= 0 {
            throw bad("keys out of order at entry \(i)")
        }
    }

    @inline(__always) private func compareKeys(_ a: Int, _ b: Int) -> Int {
        data.withUnsafeBytes { buf in
            compareBytes(UnsafeRawBufferPointer(rebasing: buf[keyRange(a)]), UnsafeRawBufferPointer(rebasing: buf[keyRange(b)]))
        }
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
            var lo = 0, hi = count
            while lo < hi {
                let mid = (lo + hi) >> 1
                if compare(mid, k) < 0 { lo = mid + 1 } else { hi = mid }
            }
            return lo
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

    mutating func addLeaf(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer?) {
        offsets.append(UInt32(bytes.count))
        var w = ByteWriter()
        w.varint(UInt64(key.count))
        w.varint(value.map { UInt64($0.count) + 1 } ?? 0)
        bytes.append(contentsOf: w.bytes)
        bytes.append(contentsOf: key)
        if let value { bytes.append(contentsOf: value) }
    }

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
