import Foundation
import PropertyBased
import Testing
@testable import OfflineODataEngine

/// `BlockArena`: the memory of decoded blocks, outside the malloc heap. Slots never overlap while
/// in use, are reused last-freed first, and go back to the system when a size class has a spare
/// slab; blocks built on it read exactly as blocks built on the heap.
@Suite struct BlockArenaTests {
    @Test func sizeClassesFitTheRequestWithLittleWaste() {
        // Small blocks stay on the heap.
        for bytes in [1, 255, 2048] {
            #expect(BlockArena.sizeClass(for: bytes) == nil)
            let arena = BlockArena()
            let a = arena.allocate(bytes)
            #expect(a.source.isHeap && a.capacity >= bytes)
            arena.release(a)
            #expect(arena.mappedBytes == 0)
        }
        for bytes in [2049, 3072, 3073, 4096, 4097, 16_384, 17_000, 32_768, 32_769, 36_864, 65_536, 65_537,
                      131_072, 300_000, 524_288] {
            guard let c = BlockArena.sizeClass(for: bytes) else {
                Issue.record("no size class for \(bytes) bytes")
                continue
            }
            let arena = BlockArena()
            let a = arena.allocate(bytes)
            #expect(a.capacity >= bytes, "\(bytes) bytes got \(a.capacity)")
            // Above 2 KiB, slots are 1 KiB steps up to 32 KiB, then 4 KiB steps up to 64 KiB.
            if bytes > 2048, bytes <= 32_768 { #expect(a.capacity - bytes < 1024) }
            if bytes > 32_768, bytes <= 65_536 { #expect(a.capacity - bytes < 4096) }
            #expect(c < 41)
            arena.release(a)
        }
        #expect(BlockArena.sizeClass(for: 524_289) == nil)
    }

    @Test func liveSlotsNeverOverlapAndFreedOnesComeBackLastFirst() {
        let arena = BlockArena()
        var live: [BlockArena.Allocation] = []
        var rng = SystemRandomNumberGenerator()
        for round in 0..<4_000 {
            if !live.isEmpty, Bool.random(using: &rng) || live.count > 300 {
                let a = live.remove(at: Int.random(in: 0..<live.count, using: &rng))
                // Its pattern is intact: nobody else wrote into it.
                let p = a.pointer.assumingMemoryBound(to: UInt32.self)
                #expect(p[0] == UInt32(truncatingIfNeeded: UInt(bitPattern: a.pointer)))
                arena.release(a)
                // The next allocation of that size class gets the slot just freed.
                let again = arena.allocate(a.capacity)
                if case .slot = a.source { #expect(again.pointer == a.pointer, "round \(round): freed slot not reused first") }
                again.pointer.storeBytes(of: UInt32(truncatingIfNeeded: UInt(bitPattern: again.pointer)), as: UInt32.self)
                live.append(again)
            } else {
                let bytes = [300, 1_000, 5_000, 16_500, 70_000, 600_000][Int.random(in: 0..<6, using: &rng)]
                let a = arena.allocate(bytes)
                a.pointer.storeBytes(of: UInt32(truncatingIfNeeded: UInt(bitPattern: a.pointer)), as: UInt32.self)
                live.append(a)
            }
        }
        let ranges = live.map { UInt(bitPattern: $0.pointer)..<(UInt(bitPattern: $0.pointer) + UInt($0.capacity)) }
            .sorted { $0.lowerBound < $1.lowerBound }
        for (a, b) in zip(ranges, ranges.dropFirst()) { #expect(a.upperBound <= b.lowerBound, "slots overlap") }
        for a in live { arena.release(a) }
    }

    @Test func emptySlabsGoBackToTheSystemBeyondOneSpare() {
        let arena = BlockArena()
        // 16 KiB slots: 64 a slab; 640 of them fill 10 slabs.
        var held = (0..<640).map { _ in arena.allocate(16 << 10) }
        #expect(arena.mappedBytes == 10 * BlockArena.slabBytes)
        for a in held { arena.release(a) }
        held = []
        // One slab's worth of free slots stays for the next blocks; the rest is unmapped.
        #expect(arena.mappedBytes == BlockArena.slabBytes, "\(arena.mappedBytes) bytes still mapped")
        // A large block gets a mapping of its own, returned on release.
        let before = arena.mappedBytes
        let big = arena.allocate(3 << 20)
        #expect(arena.mappedBytes == before + (3 << 20))
        arena.release(big)
        #expect(arena.mappedBytes == before)
    }

    @Test func threadsAllocatingAndFreingAtOnceNeverShareASlot() async {
        let arena = BlockArena()
        await withTaskGroup(of: Bool.self) { group in
            for t in 0..<4 {
                group.addTask {
                    var ok = true
                    var mine: [BlockArena.Allocation] = []
                    for i in 0..<3_000 {
                        let a = arena.allocate(4_000 + (i % 3) * 5_000)
                        memset(a.pointer, Int32(t + 1), a.capacity)
                        mine.append(a)
                        if mine.count > 50 {
                            let old = mine.removeFirst()
                            let bytes = UnsafeRawBufferPointer(start: old.pointer, count: old.capacity)
                            if bytes.contains(where: { $0 != UInt8(t + 1) }) { ok = false }
                            arena.release(old)
                        }
                    }
                    for a in mine { arena.release(a) }
                    return ok
                }
            }
            for await ok in group { #expect(ok, "a slot was written by two threads") }
        }
    }

    /// Leaves built in the arena and on the heap answer every search alike, with and without
    /// the point index, and their bytes are the block's bytes.
    @Test func blocksInTheArenaReadLikeBlocksOnTheHeap() async throws {
        let arena = BlockArena()
        let input = BlockSearchTests.keyGen.array(of: 1...60)
        await propertyCheck(count: 200, input: input) { raw in
            let keys = Array(Set(raw)).sorted { compareBytes($0, $1) < 0 }
            var b = BlockBuilder(isLeaf: true, capacity: 4096)
            for k in keys { k.withUnsafeBytes { kb in [UInt8(k.count)].withUnsafeBytes { b.addLeaf(key: kb, value: $0) } } }
            let data = b.finish()
            for pointIndex in [false, true] {
                let heap = try Block(data: data, isLeaf: true, file: "t", offset: 0, pointIndex: pointIndex)
                let mapped = try Block(data: data, isLeaf: true, file: "t", offset: 0, pointIndex: pointIndex, arena: arena)
                #expect(Array(mapped.bytes) == data)
                #expect(mapped.count == heap.count)
                for k in keys + raw.map({ $0 + [0x00] }) {
                    #expect(mapped.lowerBound(k) == heap.lowerBound(k))
                    #expect(mapped.find(k) == heap.find(k))
                }
                for i in 0..<mapped.count { #expect(mapped.key(i) == heap.key(i) && mapped.value(i) == heap.value(i)) }
            }
        }
        // Every block is gone: its slots are free, and each size class keeps at most one slab.
        #expect(arena.slotsInUse == 0)
        #expect(arena.slabsPerClass.allSatisfy { $0 <= 1 }, "\(arena.slabsPerClass)")
    }

    /// `Block.decoding` decompresses a frame straight into the block's slot: blocks of large
    /// entries fit the first slot, blocks of small entries (index trees) move to a larger one;
    /// both read exactly like blocks built from the raw bytes. A damaged frame is a typed
    /// corruption error and its memory goes back to the arena.
    @Test func blocksDecodedFromFramesEqualTheirRawBytes() throws {
        let arena = BlockArena()
        for compress in [false, true] {
            let codec = FrameCodec(fileNumber: 7, cipher: nil, compress: compress, fileName: "t.run")
            for valueSize in [0, 3, 40, 500, 3_000] {
                var b = BlockBuilder(isLeaf: true, capacity: 16 << 10)
                var i = 0
                while b.estimatedSize < 16 << 10 {
                    let key = Array("key-\(100_000 + i)".utf8), value = [UInt8](repeating: UInt8(i & 0x7F), count: valueSize)
                    key.withUnsafeBytes { k in value.withUnsafeBytes { b.addLeaf(key: k, value: $0) } }
                    i += 1
                }
                let raw = b.finish()
                let frame = codec.encode(kind: .runLeaf, raw: raw, offset: 4096)
                for pointIndex in [false, true] {
                    let decoded = try Block.decoding(frame: frame, codec: codec, offset: 4096, kind: .runLeaf, isLeaf: true,
                                                     file: "t.run", verifyOrder: true, pointIndex: pointIndex, arena: arena)
                    let reference = try Block(data: raw, isLeaf: true, file: "t.run", offset: 4096, pointIndex: pointIndex)
                    #expect(Array(decoded.bytes) == raw)
                    #expect(decoded.count == reference.count && decoded.count == i)
                    #expect(decoded.memoryCost >= raw.count + 24 * i)
                    for j in stride(from: 0, to: i, by: 7) {
                        let key = Array("key-\(100_000 + j)".utf8)
                        #expect(decoded.find(key) == j && decoded.lowerBound(key) == j)
                        #expect(decoded.value(j) == reference.value(j))
                    }
                }
                // A sound frame around a damaged block (its entry count or an entry's offset
                // changed before sealing): parsing fails after the slot was taken.
                for at in [raw.count - 1, raw.count - 4, raw.count - 8, 0] {
                    var damaged = raw
                    damaged[at] ^= 0x11
                    let sealed = codec.encode(kind: .runLeaf, raw: damaged, offset: 4096)
                    #expect(throws: EngineError.self) {
                        _ = try Block.decoding(frame: sealed, codec: codec, offset: 4096, kind: .runLeaf, isLeaf: true,
                                               file: "t.run", verifyOrder: true, arena: arena)
                    }
                }
                // Damaged: every 97th byte of the frame flipped in turn.
                for at in stride(from: 0, to: frame.count, by: 97) {
                    var bad = frame
                    bad[at] ^= 0x20
                    do {
                        _ = try Block.decoding(frame: bad, codec: codec, offset: 4096, kind: .runLeaf, isLeaf: true,
                                               file: "t.run", verifyOrder: true, arena: arena)
                        Issue.record("byte \(at) flipped: the block decoded")
                    } catch {
                        #expect(error.kind == .corruption, "byte \(at): \(error)")
                    }
                }
            }
        }
        #expect(arena.slotsInUse == 0, "memory of failed decodes not returned: \(arena.slotsInUse) slots")
        #expect(arena.slabsPerClass.allSatisfy { $0 <= 1 }, "\(arena.slabsPerClass)")
    }
}
