import Foundation
import PropertyBased
import Testing
@testable import OfflineODataEngine

/// `BlockArena`: the memory of decoded blocks, outside the malloc heap. Slots never overlap while
/// in use, are reused last-freed first, and go back to the system when a size class has a spare
/// slab; blocks built on it read exactly as blocks built on the heap.
@Suite struct BlockArenaTests {
    @Test func sizeClassesFitTheRequestWithLittleWaste() {
        for bytes in [1, 255, 256, 257, 2048, 2049, 4096, 4097, 16_384, 17_000, 65_536, 65_537, 131_072, 300_000, 524_288] {
            guard let c = BlockArena.sizeClass(for: bytes) else {
                Issue.record("no size class for \(bytes) bytes")
                continue
            }
            let arena = BlockArena()
            let a = arena.allocate(bytes)
            #expect(a.capacity >= bytes, "\(bytes) bytes got \(a.capacity)")
            // Above 2 KiB, slots are 4 KiB steps up to 64 KiB: at most 4 KiB over.
            if bytes > 2048, bytes <= 65_536 { #expect(a.capacity - bytes < 4096) }
            #expect(c < 23)
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
        // Every block is gone: each size class keeps at most one slab of free slots.
        #expect(arena.slabsPerClass.allSatisfy { $0 <= 1 }, "\(arena.slabsPerClass)")
    }
}
