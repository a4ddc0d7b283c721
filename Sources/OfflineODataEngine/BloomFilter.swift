/// A Bloom filter over a run's keys (10 bits per key, 7 probes: ~1% false positives), so a point
/// read skips the runs that cannot hold its key (docs/StorageFormat.md, "Run files").
/// Since format version 2 a run has one filter per partition of `partitionKeys` consecutive keys,
/// read on demand through the block cache, so neither opening a store nor keeping it open costs
/// memory in proportion to its number of keys.
struct BloomFilter: Sendable {
    static let bitsPerKey = 10
    static let probes = 7
    /// Keys per filter partition (format version 2): a partition's filter is about 5 KiB.
    static let partitionKeys = 4096
    private(set) var words: [UInt64]

    /// A filter sized for and holding exactly the keys with these hashes (`hash(_:)`).
    init(hashes: [UInt64]) {
        self.init(expectedEntries: hashes.count)
        for h in hashes { insert(hash: h) }
    }

    init(expectedEntries: Int) {
        let bits = max(512, expectedEntries * Self.bitsPerKey)
        words = [UInt64](repeating: 0, count: (bits + 511) / 512 * 8)
    }

    init?(encoded: [UInt8]) {
        guard encoded.count >= 64, encoded.count % 64 == 0 else { return nil }
        words = encoded.withUnsafeBytes { b in (0..<(b.count / 8)).map { readU64LE(b, $0 * 8) } }
    }

    var encoded: [UInt8] {
        var w = ByteWriter(capacity: words.count * 8)
        for x in words { w.u64(x) }
        return w.bytes
    }

    var byteSize: Int { words.count * 8 }

    /// Blocked layout: all of a key's probes fall in one 512-bit block (one 64-byte cache line),
    /// so a lookup costs one memory access. The block is the hash's low 32 bits modulo the block
    /// count; probe i tests bit ((g >> 9i) & 511) of the block, g = rotate(hash, 32) · 0x9E3779B97F4A7C15.
    mutating func insert(_ key: UnsafeRawBufferPointer) {
        insert(hash: Self.hash(key))
    }

    mutating func insert(hash h: UInt64) {
        let blocks = max(1, words.count / 8)
        let block = Int((h & 0xFFFF_FFFF) % UInt64(blocks))
        let g = ((h >> 32) | (h << 32)) &* 0x9E37_79B9_7F4A_7C15
        for i in 0..<Self.probes {
            let bit = Int(truncatingIfNeeded: g >> UInt64(9 * i)) & 511
            words[block * 8 + (bit >> 6)] |= 1 << UInt64(bit & 63)
        }
    }

    func mayContain(_ key: [UInt8]) -> Bool {
        mayContain(hash: key.withUnsafeBytes { Self.hash($0) })
    }

    /// `h`: `hash(_:)` of the key.
    func mayContain(hash h: UInt64) -> Bool {
        let blocks = max(1, words.count / 8)
        let block = Int((h & 0xFFFF_FFFF) % UInt64(blocks))
        let g = ((h >> 32) | (h << 32)) &* 0x9E37_79B9_7F4A_7C15
        return words.withUnsafeBufferPointer { w in
            for i in 0..<Self.probes {
                let bit = Int(truncatingIfNeeded: g >> UInt64(9 * i)) & 511
                if w[block * 8 + (bit >> 6)] & (1 << UInt64(bit & 63)) == 0 { return false }
            }
            return true
        }
    }

    /// Probes an encoded filter (little-endian `u64` words, a whole number of 64-byte blocks, as
    /// `init?(encoded:)` accepts) without copying it.
    static func mayContain(hash h: UInt64, encoded: UnsafeRawBufferPointer) -> Bool {
        let blocks = max(1, encoded.count / 64)
        let block = Int((h & 0xFFFF_FFFF) % UInt64(blocks))
        let g = ((h >> 32) | (h << 32)) &* 0x9E37_79B9_7F4A_7C15
        for i in 0..<probes {
            let bit = Int(truncatingIfNeeded: g >> UInt64(9 * i)) & 511
            if readU64LE(encoded, block * 64 + (bit >> 6) * 8) & (1 << UInt64(bit & 63)) == 0 { return false }
        }
        return true
    }

    /// 64-bit hash of a byte string: 8-byte multiply-xorshift rounds and a SplitMix64 finish.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0x243F_6A88_85A3_08D3 ^ UInt64(bytes.count)
        var i = 0
        while i + 8 <= bytes.count {
            h = (h ^ readU64LE(bytes, i)) &* 0x9E37_79B9_7F4A_7C15
            h ^= h >> 29
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < bytes.count {
            tail |= UInt64(bytes[i]) << shift
            shift += 8
            i += 1
        }
        h = (h ^ tail) &* 0xBF58_476D_1CE4_E5B9
        h ^= h >> 31
        h = h &* 0x94D0_49BB_1331_11EB
        return h ^ (h >> 29)
    }
}
