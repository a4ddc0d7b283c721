/// A decoded leaf or index block of a run file (docs/StorageFormat.md, "Run files").
/// Its layout is validated once when loaded, so lookups afterwards need no further checks.
///
/// The block's bytes, its entry table and its point index sit together in one allocation from the
/// engine's `BlockArena` (outside the malloc heap; see there why), released when the block goes.
final class Block: @unchecked Sendable {
    // Immutable after init.
    private let memory: BlockArena.Allocation
    /// The arena the memory came from (nil: heap), held so that it outlives the block.
    private let arena: BlockArena?
    /// The block's raw bytes (the start of `memory`).
    let bytes: UnsafeRawBufferPointer
    let isLeaf: Bool
    /// One entry's place in `bytes`, with its discriminator: the 8 key bytes after the prefix all
    /// keys of the block share, big-endian, zero-padded. Built when the block is loaded (not
    /// stored in the file). `lowerBound` searches the discriminators and compares whole keys only
    /// where two are equal; the entry found then has its ranges in the same cache line. (A binary
    /// search over the keys themselves touched a layout array and the scattered key bytes at every
    /// step: point reads spent 41 % of their time there, then 9 % on the layout loads after it.)
    struct Entry {
        var discriminator: UInt64
        var keyStart: Int32
        var keyLength: Int32
        var valueStart: Int32
        /// −1 for a tombstone; in index blocks the "value" is the 12-byte child pointer.
        var valueLength: Int32
    }

    /// `count` entries, in `memory` after the bytes.
    private let entries: UnsafeMutablePointer<Entry>
    let count: Int
    /// Length of the prefix every key of the block shares (keys are sorted, so the prefix the
    /// first and the last key share).
    private let sharedPrefix: Int
    /// The shared prefix as two big-endian words (zero-padded), when it is at most 16 bytes: the
    /// prefix check then reads the block object, not the key bytes (a cache miss per block, 8 %
    /// of a point read when it was a `memcmp`).
    private let prefixWords: (UInt64, UInt64)

    /// A leaf's point index, built when a point read loads the leaf (not by scans, which never
    /// use it): open addressing over the hashes of the whole keys, a slot = 16 tag bits of the
    /// hash and the entry number + 1 (0: empty), at most half full. A point read then touches one
    /// slot, one entry and the key's bytes instead of the five or six scattered entries of a
    /// binary search (`find`). Empty (`pointSlotCount` 0) when not built or when the block has
    /// 65,535 entries or more. In `memory` after the entries.
    private let pointSlots: UnsafeMutablePointer<UInt32>
    private let pointSlotCount: Int
    private let pointShift: UInt64

    /// The block cache's CLOCK reference bit (`BlockCache.Clock`): read and written only under
    /// the lock of the one cache shard that holds this block; nothing else in a block changes.
    var clockBit = false

    var memoryCost: Int { memory.capacity + 96 }

    deinit {
        BlockArena.release(memory, to: arena)
    }

    /// Lends the block's raw bytes to `body`.
    @inline(__always) func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try body(bytes) }

    /// `capacity` bytes from `arena` (or the heap) starting with a copy of `bytes`.
    private static func copy(_ bytes: [UInt8], capacity: Int, arena: BlockArena?) -> BlockArena.Allocation {
        let memory = BlockArena.allocate(capacity, in: arena)
        bytes.withUnsafeBytes { b in
            if let source = b.baseAddress, b.count > 0 { memory.pointer.copyMemory(from: source, byteCount: b.count) }
        }
        return memory
    }

    /// Bytes to ask for a block of `byteCount` bytes before it is parsed: room for an entry table
    /// of entries of 384 bytes or more (entities) and their point index; a block of smaller
    /// entries (index trees, index blocks) moves to a larger slot once parsed (`init(filled:)`).
    static func estimate(_ byteCount: Int, pointIndex: Bool) -> Int {
        ((byteCount + 7) & ~7) + byteCount / 16 + (pointIndex ? byteCount / 32 : 0) + 64
    }

    /// A filter partition's encoded bits (docs/StorageFormat.md, "Run files"), cached like a
    /// block: no entries, `bytes` are the filter.
    init(filterBits: [UInt8], arena: BlockArena? = nil) {
        let memory = Self.copy(filterBits, capacity: filterBits.count, arena: arena)
        self.memory = memory
        self.arena = arena
        bytes = UnsafeRawBufferPointer(start: memory.pointer, count: filterBits.count)
        entries = (memory.pointer + filterBits.count).bindMemory(to: Entry.self, capacity: 0)
        pointSlots = (memory.pointer + filterBits.count).bindMemory(to: UInt32.self, capacity: 0)
        isLeaf = false
        count = 0
        sharedPrefix = 0
        prefixWords = (0, 0)
        pointSlotCount = 0
        pointShift = 64
    }

    /// `verifyOrder`: check that keys increase (needed when only a CRC protects the bytes; an
    /// AEAD-authenticated block is exactly what the writer produced, and `check` verifies order).
    /// `pointIndex`: build the leaf's point index (`find`); for leaves loaded by point reads.
    convenience init(data: [UInt8], isLeaf: Bool, file: String, offset: UInt64, verifyOrder: Bool = true,
                     pointIndex: Bool = false, arena: BlockArena? = nil) throws(EngineError) {
        let memory = Self.copy(data, capacity: Self.estimate(data.count, pointIndex: pointIndex), arena: arena)
        try self.init(filled: memory, byteCount: data.count, arena: arena, isLeaf: isLeaf, file: file, offset: offset,
                      verifyOrder: verifyOrder, pointIndex: pointIndex)
    }

    /// A block straight from its frame: verified and decrypted by `codec`, then decompressed
    /// into the block's own memory (no intermediate copy of the raw bytes).
    static func decoding(frame: [UInt8], codec: FrameCodec, offset: UInt64, kind: FrameKind, isLeaf: Bool, file: String,
                         verifyOrder: Bool, pointIndex: Bool = false, arena: BlockArena?) throws(EngineError) -> Block {
        let opened = try codec.open(frame, offset: offset, expecting: [kind.rawValue])
        let size = estimate(opened.rawLength, pointIndex: pointIndex)
        let memory = BlockArena.allocate(size, in: arena)
        let filled = opened.body.withUnsafeBytes { body -> Bool in
            if opened.compressed { return LZ4.decompress(body, rawCount: opened.rawLength, into: memory.pointer) }
            if let source = body.baseAddress, body.count > 0 { memory.pointer.copyMemory(from: source, byteCount: body.count) }
            return true
        }
        guard filled else {
            BlockArena.release(memory, to: arena)
            throw FrameCodec.notDecompressing(opened.rawLength, file: file, offset: offset)
        }
        return try Block(filled: memory, byteCount: opened.rawLength, arena: arena, isLeaf: isLeaf, file: file, offset: offset,
                         verifyOrder: verifyOrder, pointIndex: pointIndex)
    }

    /// Parses the `byteCount` bytes at the start of `memory`, which it takes over (released when
    /// parsing fails); lays the entry table and the point index out after them, moving the block
    /// to a larger allocation when they do not fit.
    private init(filled: BlockArena.Allocation, byteCount: Int, arena: BlockArena?, isLeaf: Bool, file: String, offset: UInt64,
                 verifyOrder: Bool, pointIndex: Bool) throws(EngineError) {
        let table: [Entry], shared: Int, words: (UInt64, UInt64)
        do throws(EngineError) {
            (table, shared, words) = try Self.parse(UnsafeRawBufferPointer(start: filled.pointer, count: byteCount),
                                                    isLeaf: isLeaf, file: file, offset: offset, verifyOrder: verifyOrder)
        } catch {
            BlockArena.release(filled, to: arena)
            throw error
        }
        let count = table.count
        var bits: UInt64 = 0
        if pointIndex && isLeaf && count < 0xFFFF {
            bits = 3
            while (1 << bits) < 2 * count { bits += 1 }
        }
        let slotCount = bits == 0 ? 0 : 1 << Int(bits)
        let entriesAt = (byteCount + 7) & ~7
        let slotsAt = entriesAt + count * MemoryLayout<Entry>.stride
        let total = slotsAt + slotCount * 4
        var memory = filled
        if total > filled.capacity {
            memory = BlockArena.allocate(total, in: arena)
            memory.pointer.copyMemory(from: filled.pointer, byteCount: byteCount)
            BlockArena.release(filled, to: arena)
        }
        let entries = (memory.pointer + entriesAt).bindMemory(to: Entry.self, capacity: count)
        table.withUnsafeBufferPointer { t in
            if let source = t.baseAddress { entries.initialize(from: source, count: count) }
        }
        let slots = (memory.pointer + slotsAt).bindMemory(to: UInt32.self, capacity: slotCount)
        slots.initialize(repeating: 0, count: slotCount)
        let buf = UnsafeRawBufferPointer(start: memory.pointer, count: byteCount)
        if slotCount > 0 {
            let mask = slotCount - 1
            for i in 0..<count {
                let e = entries[i]
                let h = BloomFilter.hash(UnsafeRawBufferPointer(rebasing: buf[Int(e.keyStart)..<Int(e.keyStart + e.keyLength)]))
                var j = Int(truncatingIfNeeded: h >> (64 - bits))
                while slots[j] != 0 { j = (j + 1) & mask }
                slots[j] = UInt32(truncatingIfNeeded: h) << 16 | UInt32(i + 1)
            }
        }
        self.memory = memory
        self.arena = arena
        self.entries = entries
        self.pointSlots = slots
        self.isLeaf = isLeaf
        self.count = count
        self.sharedPrefix = shared
        self.prefixWords = words
        bytes = buf
        pointSlotCount = slotCount
        pointShift = slotCount > 0 ? 64 - bits : 64
    }

    /// One pass over the raw bytes with bounds checks (afterwards accessors trust the entries):
    /// the entry table with discriminators, the shared key prefix and its words.
    private static func parse(_ buf: UnsafeRawBufferPointer, isLeaf: Bool, file: String, offset: UInt64,
                              verifyOrder: Bool) throws(EngineError) -> ([Entry], Int, (UInt64, UInt64)) {
        func bad(_ why: String) -> EngineError {
            .corrupt("\(isLeaf ? "leaf" : "index") block: \(why)", file: file, offset: offset)
        }
        let size = buf.count
        guard size >= 4 else { throw bad("too short") }
        let n = Int(readU32LE(buf, size - 4))
        guard n > 0, n <= (size - 4) / 4 else { throw bad("entry count \(n) out of range") }
        let offsetsStart = size - 4 - 4 * n
        var layout: [Entry] = []
        layout.reserveCapacity(n)
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
            guard Int(readU32LE(buf, offsetsStart + 4 * i)) == position else { throw bad("entry \(i) offset not contiguous") }
            guard let keyLen = varint() else { throw bad("entry \(i) key length damaged") }
            var valueLen = 12
            if isLeaf {
                guard let tag = varint() else { throw bad("entry \(i) value length damaged") }
                valueLen = tag - 1
            }
            let keyStart = position
            guard keyLen <= offsetsStart - position else { throw bad("entry \(i) key overruns the block") }
            position += keyLen
            let valueStart = position
            if valueLen > 0 {
                guard valueLen <= offsetsStart - position else { throw bad("entry \(i) value overruns the block") }
                position += valueLen
            }
            let key = keyStart..<(keyStart + keyLen)
            if verifyOrder, let previousKey,
               compareBytes(UnsafeRawBufferPointer(rebasing: buf[previousKey]), UnsafeRawBufferPointer(rebasing: buf[key])) >= 0 {
                throw bad("keys out of order at entry \(i)")
            }
            previousKey = key
            layout.append(Entry(discriminator: 0, keyStart: Int32(keyStart), keyLength: Int32(keyLen),
                                valueStart: Int32(valueStart), valueLength: Int32(valueLen)))
        }
        guard position == offsetsStart else { throw bad("entries do not fill the block") }
        // `n` ≥ 1 (checked above).
        let (f, l) = (layout[0], layout[n - 1])
        let first = UnsafeRawBufferPointer(rebasing: buf[Int(f.keyStart)..<Int(f.keyStart + f.keyLength)])
        let last = UnsafeRawBufferPointer(rebasing: buf[Int(l.keyStart)..<Int(l.keyStart + l.keyLength)])
        var shared = 0
        let limit = min(first.count, last.count)
        while shared < limit && first[shared] == last[shared] { shared += 1 }
        for i in 0..<n {
            let e = layout[i]
            let key = UnsafeRawBufferPointer(rebasing: buf[Int(e.keyStart)..<Int(e.keyStart + e.keyLength)])
            layout[i].discriminator = discriminator(key, after: shared)
        }
        return (layout, shared, shared <= 16 ? words(first, shared) : (0, 0))
    }

    var hasPointIndex: Bool { pointSlotCount > 0 }

    /// The entry whose key is exactly `key`, through the point index; nil when absent. Falls back
    /// to `lowerBound` when the block has no point index.
    func find(_ key: [UInt8]) -> Int? { find(key, hash: key.withUnsafeBytes { BloomFilter.hash($0) }) }

    /// `h`: `BloomFilter.hash(key)` (a point read computes it once for every run it passes).
    func find(_ key: [UInt8], hash h: UInt64) -> Int? {
        key.withUnsafeBytes { k -> Int? in
            guard pointSlotCount > 0 else {
                let i = lowerBound(key)
                return i < count && compare(i, k) == 0 ? i : nil
            }
            let tag = UInt32(truncatingIfNeeded: h) << 16
            let slots = pointSlots
            let mask = pointSlotCount - 1
            var j = Int(truncatingIfNeeded: h >> pointShift)
            while true {
                let s = slots[j]
                if s == 0 { return nil }
                if s & 0xFFFF_0000 == tag {
                    let i = Int(s & 0xFFFF) - 1
                    if compare(i, k) == 0 { return i }
                }
                j = (j + 1) & mask
            }
        }
    }

    /// The first `count` (≤ 16) bytes of `key` as two big-endian words, zero-padded.
    @inline(__always) static func words(_ key: UnsafeRawBufferPointer, _ count: Int) -> (UInt64, UInt64) {
        let p = UnsafeRawBufferPointer(rebasing: key[0..<count])
        return (discriminator(p, after: 0), discriminator(p, after: 8))
    }

    /// The 8 bytes of `key` from `offset` on as a big-endian integer, zero-padded past the key's
    /// end. For two keys with the same first `offset` bytes, a smaller discriminator means a
    /// smaller key and a larger one a larger key; equal ones decide nothing.
    @inline(__always) static func discriminator(_ key: UnsafeRawBufferPointer, after offset: Int) -> UInt64 {
        let end = min(key.count, offset + 8)
        guard end > offset else { return 0 }
        var d: UInt64 = 0
        for i in offset..<end { d = d << 8 | UInt64(key[i]) }
        return d << UInt64(8 * (8 - (end - offset)))
    }

    @inline(__always) func keyRange(_ i: Int) -> Range<Int> {
        let e = entries[i]
        return Int(e.keyStart)..<Int(e.keyStart + e.keyLength)
    }

    func key(_ i: Int) -> [UInt8] { Array(bytes[keyRange(i)]) }

    /// nil for a tombstone.
    func value(_ i: Int) -> [UInt8]? {
        let e = entries[i]
        guard e.valueLength >= 0 else { return nil }
        return Array(bytes[Int(e.valueStart)..<Int(e.valueStart + e.valueLength)])
    }

    /// Lends entry `i`'s value (nil for a tombstone) to `body`, valid only during the call.
    func withValue<R>(_ i: Int, _ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        guard let range = valueRange(i) else { return try body(nil) }
        return try body(UnsafeRawBufferPointer(rebasing: bytes[range]))
    }

    /// nil for a tombstone.
    @inline(__always) func valueRange(_ i: Int) -> Range<Int>? {
        let e = entries[i]
        guard e.valueLength >= 0 else { return nil }
        return Int(e.valueStart)..<Int(e.valueStart + e.valueLength)
    }

    func isTombstone(_ i: Int) -> Bool { entries[i].valueLength < 0 }

    func valueLength(_ i: Int) -> Int { max(0, Int(entries[i].valueLength)) }

    /// Index blocks: the child frame's offset and total length.
    func child(_ i: Int) -> (offset: UInt64, length: Int) {
        let s = Int(entries[i].valueStart)
        return (readU64LE(bytes, s), Int(readU32LE(bytes, s + 8)))
    }

    /// Compares entry i's key with `key`.
    @inline(__always) func compare(_ i: Int, _ key: UnsafeRawBufferPointer) -> Int {
        compareBytes(UnsafeRawBufferPointer(rebasing: bytes[keyRange(i)]), key)
    }

    /// First index whose key is ≥ `key` (count if none).
    func lowerBound(_ key: [UInt8]) -> Int {
        key.withUnsafeBytes { k in
            withBytes { buf in
                // Every key of the block starts with the shared prefix: a search key that does not
                // is below or above all of them.
                let shared = sharedPrefix
                if shared <= 16 && k.count >= shared {
                    let w = Self.words(k, shared)
                    if w != prefixWords { return w < prefixWords ? 0 : count }
                } else {
                    let first = Int(entries[0].keyStart)
                    let c = compareBytes(UnsafeRawBufferPointer(rebasing: k[0..<min(k.count, shared)]),
                                         UnsafeRawBufferPointer(rebasing: buf[first..<(first + shared)]))
                    if c < 0 || (c == 0 && k.count < shared) { return 0 }
                    if c > 0 { return count }
                }
                let target = Self.discriminator(k, after: shared)
                do {
                    let es = entries
                    var lo = 0, hi = count
                    while lo < hi {
                        let mid = (lo + hi) >> 1
                        let e = es[mid]
                        let below: Bool
                        if e.discriminator != target {
                            below = e.discriminator < target
                        } else {
                            let s = Int(e.keyStart)
                            below = compareBytes(UnsafeRawBufferPointer(rebasing: buf[s..<(s + Int(e.keyLength))]), k) < 0
                        }
                        if below { lo = mid + 1 } else { hi = mid }
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
