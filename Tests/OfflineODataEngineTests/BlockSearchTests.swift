import PropertyBased
import Testing
@testable import OfflineODataEngine

/// `Block.lowerBound` searches the in-memory discriminators (8 key bytes after the prefix all
/// keys of the block share) and compares whole keys only on ties. It must answer exactly as a
/// search over the keys themselves, for keys that are prefixes of each other, hold 0x00 or 0xFF
/// bytes, are shorter than the shared prefix or differ only past the 8 discriminating bytes.
@Suite struct BlockSearchTests {
    /// Bytes chosen so that zero padding, 0xFF and ordinary bytes meet.
    static let alphabet: [UInt8] = [0x00, 0x01, 0x41, 0x7F, 0x80, 0xFF]

    static func key(prefix: Int, digits: [Int]) -> [UInt8] {
        let prefixes: [[UInt8]] = [[], [0, 0, 0, 7], [0, 0, 0, 7, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41]]
        return prefixes[prefix % prefixes.count] + digits.map { alphabet[$0 % alphabet.count] }
    }

    static let keyGen = zip(Gen.int(in: 0...2), Gen.int(in: 0...5).array(of: 0...12)).map { key(prefix: $0, digits: $1) }

    static func naiveLowerBound(_ keys: [[UInt8]], _ key: [UInt8]) -> Int {
        keys.firstIndex { compareBytes($0, key) >= 0 } ?? keys.count
    }

    static func leaf(_ keys: [[UInt8]], pointIndex: Bool = false) throws -> Block {
        var b = BlockBuilder(isLeaf: true, capacity: 4096)
        for k in keys {
            k.withUnsafeBytes { kb in [UInt8(k.count)].withUnsafeBytes { b.addLeaf(key: kb, value: $0) } }
        }
        return try Block(data: b.finish(), isLeaf: true, file: "test", offset: 0, pointIndex: pointIndex)
    }

    static func index(_ keys: [[UInt8]]) throws -> Block {
        var b = BlockBuilder(isLeaf: false, capacity: 4096)
        for (i, k) in keys.enumerated() { b.addIndex(lastKey: k, childOffset: UInt64(i), childLength: 1) }
        return try Block(data: b.finish(), isLeaf: false, file: "test", offset: 0)
    }

    @Test func lowerBoundAgreesWithASearchOverTheKeys() async {
        let input = zip(Self.keyGen.array(of: 1...40), Self.keyGen.array(of: 1...20))
        await propertyCheck(count: 300, input: input) { stored, probes in
            var keys: [[UInt8]] = []
            for k in stored.sorted(by: { compareBytes($0, $1) < 0 }) where keys.last.map({ compareBytes($0, k) != 0 }) ?? true {
                keys.append(k)
            }
            // Every stored key, its prefixes, its successors and unrelated keys.
            var targets = probes + keys
            for k in keys {
                targets.append(Array(k.dropLast()))
                targets.append(k + [0])
                targets.append(k + [0xFF])
            }
            // The same keys and targets behind a common prefix of 3, 12 and 20 bytes: the
            // block's shared prefix is then short (compared as words) or long (compared bytewise).
            for common in [[], [0, 0, 7], [UInt8](repeating: 0x41, count: 12), [UInt8](repeating: 0xFF, count: 20)] as [[UInt8]] {
                let ks = keys.map { common + $0 }
                var ts = targets.map { common + $0 }
                ts += [Array(common.dropLast()), common + [0xFF, 0xFF], Array(common.prefix(2)) + [0x42]]
                for block in [try Self.leaf(ks), try Self.index(ks)] {
                    for t in ts {
                        #expect(block.lowerBound(t) == Self.naiveLowerBound(ks, t), "keys \(ks), target \(t)")
                    }
                }
            }
        }
    }

    @Test func keysThatDifferOnlyPastTheDiscriminatorAreOrderedByTheirWholeBytes() throws {
        let shared: [UInt8] = [0, 0, 0, 9]
        let keys = (0..<50).map { shared + [UInt8](repeating: 0x41, count: 8) + [UInt8($0)] }
        let block = try Self.leaf(keys)
        for (i, k) in keys.enumerated() {
            #expect(block.lowerBound(k) == i)
            #expect(block.lowerBound(k + [0]) == i + 1)
        }
        #expect(block.lowerBound(shared) == 0)
        #expect(block.lowerBound([0, 0, 0, 10]) == keys.count)
        #expect(block.lowerBound([]) == 0)
    }
}

/// A leaf's point index (`Block.find`, built for leaves that point reads load) finds exactly
/// the stored keys, each at its own entry, and nothing else: prefixes, extensions and unrelated
/// keys are absent; and it answers as the block without the index does.
@Suite struct BlockPointIndexTests {
    @Test func findAnswersExactlyTheStoredKeys() async {
        let input = zip(BlockSearchTests.keyGen.array(of: 1...120), BlockSearchTests.keyGen.array(of: 1...30))
        await propertyCheck(count: 300, input: input) { stored, probes in
            var keys: [[UInt8]] = []
            for k in stored.sorted(by: { compareBytes($0, $1) < 0 }) where keys.last.map({ compareBytes($0, k) != 0 }) ?? true {
                keys.append(k)
            }
            let indexed = try BlockSearchTests.leaf(keys, pointIndex: true)
            let plain = try BlockSearchTests.leaf(keys)
            #expect(indexed.hasPointIndex && !plain.hasPointIndex)
            for (i, k) in keys.enumerated() {
                #expect(indexed.find(k) == i, "stored key \(k)")
                #expect(plain.find(k) == i)
            }
            for t in probes + keys.map({ Array($0.dropLast()) }) + keys.map({ $0 + [0] }) {
                let expected = keys.firstIndex { compareBytes($0, t) == 0 }
                #expect(indexed.find(t) == expected, "probe \(t)")
                #expect(plain.find(t) == expected)
            }
        }
    }
}

/// The block cache's key → slot table (open addressing, backward-shift deletion) against a
/// `Dictionary`, through random inserts, replacements and removals that crowd keys into clusters.
@Suite struct SlotIndexTests {
    @Test func behavesLikeADictionary() async {
        let op = zip(Gen.int(in: 0...9), Gen.int(in: 0...300), Gen.int(in: 0...1000))
        await propertyCheck(count: 200, input: op.array(of: 1...400)) { ops in
            var table = SlotIndex<Int>()
            var model: [UInt64: Int] = [:]
            for (kind, k, v) in ops {
                // Small keys collide in the table's low bits after hashing; cache-like keys too.
                let key = k % 3 == 0 ? UInt64(k) : UInt64(k) << 40 | UInt64(v % 7) * 16384
                switch kind {
                case 0..<6:
                    table.insert(key, v)
                    model[key] = v
                case 6..<9:
                    table.remove(key)
                    model[key] = nil
                default:
                    break
                }
                #expect(table.find(key) == model[key])
            }
            #expect(table.count == model.count)
            for (key, value) in model { #expect(table.find(key) == value) }
            for k in 0..<301 where model[UInt64(k)] == nil { #expect(table.find(UInt64(k)) == nil) }
        }
    }
}

/// The block cache's CLOCK replacement: bounded in bytes, second chance for blocks read since
/// the hand last passed, never the block being inserted.
@Suite struct BlockCacheTests {
    /// A block whose memory cost is `bytes` + 96 (the fixed part `memoryCost` counts).
    private func block(_ bytes: Int) -> Block { Block(filterBits: [UInt8](repeating: 0, count: bytes)) }

    @Test func staysWithinItsCapacity() {
        let cache = BlockCache(capacity: 64 << 10, shardCount: 1)
        for i in 0..<200 { cache.insert(UInt64(i), block(4096)) }
        #expect(cache.usedBytes <= 64 << 10)
        // 4192 bytes each: 15 fit in 64 KiB.
        #expect((0..<200).filter { cache.get(UInt64($0)) != nil }.count == 15)
        // The newest is there: an insert never evicts what it inserts.
        #expect(cache.get(199) != nil)
    }

    @Test func aBlockReadSinceTheLastSweepOutlivesOneThatWasNot() {
        let cache = BlockCache(capacity: 64 << 10, shardCount: 1)
        for i in 0..<15 { cache.insert(UInt64(i), block(4096)) }
        // Read every other block; then inserting 7 more must evict unread ones only.
        for i in stride(from: 0, to: 15, by: 2) { #expect(cache.get(UInt64(i)) != nil) }
        for i in 100..<107 { cache.insert(UInt64(i), block(4096)) }
        for i in stride(from: 0, to: 15, by: 2) { #expect(cache.get(UInt64(i)) != nil, "block \(i) was read, yet evicted") }
        #expect((0..<15).filter { $0 % 2 == 1 && cache.get(UInt64($0)) != nil }.isEmpty)
        #expect(cache.usedBytes <= 64 << 10)
    }

    @Test func aBlockLargerThanTheCacheIsKeptAloneAndRemovingAFileFreesItsBlocks() {
        let cache = BlockCache(capacity: 64 << 10, shardCount: 1)
        for i in 0..<4 { cache.insert(BlockCache.key(file: 7, offset: UInt64(i) * 100), block(1000)) }
        cache.insert(BlockCache.key(file: 9, offset: 0), block(100 << 10))
        #expect(cache.get(BlockCache.key(file: 9, offset: 0)) != nil)
        #expect((0..<4).allSatisfy { cache.get(BlockCache.key(file: 7, offset: UInt64($0) * 100)) == nil })
        cache.insert(BlockCache.key(file: 7, offset: 0), block(1000))
        cache.removeFile(9)
        #expect(cache.get(BlockCache.key(file: 9, offset: 0)) == nil)
        #expect(cache.get(BlockCache.key(file: 7, offset: 0)) != nil)
        #expect(cache.usedBytes == 1000 + 96)
    }
}
