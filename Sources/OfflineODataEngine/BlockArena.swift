import Synchronization

/// Memory for decoded blocks (leaves, index blocks, filter partitions), kept out of the malloc
/// heap: slabs of `slabBytes` mapped from the system, each cut into slots of one size.
///
/// Why not the heap: cached blocks live long, and while the cache turns over (a query that reads
/// more blocks than fit), every block loaded lands between the result rows the query allocates at
/// the same time. When those rows are freed, the holes between cached blocks stay behind as
/// thousands of small free chunks, and glibc serves later allocations of those sizes from them,
/// first in, first out: each allocation of a later query then touched a cold chunk somewhere in
/// hundreds of megabytes. Measured on the 1M-SalesOrder benchmark store: `$orderby`+`$top 20`
/// took 122–137 µs right after an indexed range query, 42–65 µs on the same heap with glibc's
/// per-size cache enlarged (`glibc.malloc.tcache_count`), 47–72 µs with a 4 MiB block cache,
/// and 45–93 µs with this arena (docs/StorageFormat.md, "Block memory").
///
/// Slots are handed out last-freed first (the most recently used memory is the warmest). A slab
/// whose slots are all free is returned to the system once its size class has another slab's
/// worth of free slots; everything is returned when the arena goes, which is when the engine is
/// closed and the last block it loaded is released (each block holds its arena).
final class BlockArena: Sendable {
    /// Bytes per slab; slabs are aligned to it, so a slot's slab is its address rounded down.
    static let slabBytes = 1 << 20
    /// Slot sizes: 256 B to 2 KiB by powers of two (small index blocks and filter indexes), then
    /// 1 KiB steps up to 32 KiB (leaves: a 16 KiB leaf with its entry table wastes under 1 KiB,
    /// so the cache holds as many blocks as it did on the heap; 4 KiB steps held 14 % fewer and
    /// a scan of the 1M benchmark store decompressed 22 % more blocks), 4 KiB steps up to 64 KiB,
    /// then 128, 256 and 512 KiB; a larger block gets a mapping of its own.
    static let largestSlot = 512 << 10

    /// Where a block's memory came from, so that it goes back to the same place.
    enum Source: Sendable {
        /// A slot of size class `sizeClass`.
        case slot(sizeClass: Int)
        /// A mapping of its own (`capacity` bytes).
        case mapping
        /// The heap (no arena, or the system refused a mapping).
        case heap

        var isHeap: Bool { if case .heap = self { true } else { false } }
    }

    /// Owned by one block (which alone uses the pointer), so it may cross threads with it.
    struct Allocation: @unchecked Sendable {
        let pointer: UnsafeMutableRawPointer
        let capacity: Int
        let source: Source
    }

    private struct SizeClass {
        let slotSize: Int
        var slotsPerSlab: Int { BlockArena.slabBytes / slotSize }
        /// Free slots' addresses, the last freed on top.
        var free: [UInt] = []
        /// Slots in use per slab (by slab address).
        var used: [UInt: Int] = [:]
    }

    private struct State {
        var classes: [SizeClass]
        var mappedBytes = 0
    }

    private let state: Mutex<State>

    init() {
        var classes: [SizeClass] = []
        for size in [256, 512, 1024, 2048] { classes.append(SizeClass(slotSize: size)) }
        for k in 3...32 { classes.append(SizeClass(slotSize: k << 10)) }
        for k in 9...16 { classes.append(SizeClass(slotSize: k << 12)) }
        for size in [128 << 10, 256 << 10, 512 << 10] { classes.append(SizeClass(slotSize: size)) }
        state = Mutex(State(classes: classes))
    }

    deinit {
        // Every block holds its arena: none is left, so every slot is free.
        let slabs = state.withLock { s in s.classes.flatMap { $0.used.keys } }
        for base in slabs {
            if let p = UnsafeMutableRawPointer(bitPattern: base) { unmapAnonymous(p, Self.slabBytes) }
        }
    }

    /// Bytes mapped for slabs and large blocks (resident or not).
    var mappedBytes: Int { state.withLock { $0.mappedBytes } }

    /// Slots handed out and not yet released (tests: 0 once every block is gone).
    var slotsInUse: Int { state.withLock { s in s.classes.reduce(0) { $0 + $1.used.values.reduce(0, +) } } }

    /// Slabs mapped per size class (tests: with no block alive, each class keeps at most one).
    var slabsPerClass: [Int] { state.withLock { s in s.classes.map { $0.used.count } } }

    static func sizeClass(for bytes: Int) -> Int? {
        if bytes <= 256 { return 0 }
        if bytes <= 512 { return 1 }
        if bytes <= 1024 { return 2 }
        if bytes <= 2048 { return 3 }
        if bytes <= 32 << 10 { return 1 + (bytes + 1023) >> 10 }
        if bytes <= 64 << 10 { return 25 + (bytes + 4095) >> 12 }
        if bytes <= 128 << 10 { return 42 }
        if bytes <= 256 << 10 { return 43 }
        if bytes <= largestSlot { return 44 }
        return nil
    }

    /// At least `bytes` bytes (8-byte aligned at least), from a slot, a mapping or the heap.
    func allocate(_ bytes: Int) -> Allocation {
        guard let c = Self.sizeClass(for: bytes) else {
            let size = (bytes + 4095) & ~4095
            if let p = mapAlignedAnonymous(size, alignment: 4096) {
                state.withLock { $0.mappedBytes += size }
                return Allocation(pointer: p, capacity: size, source: .mapping)
            }
            return Self.heap(bytes)
        }
        if let a = take(c) { return a }
        guard let slab = mapAlignedAnonymous(Self.slabBytes, alignment: Self.slabBytes) else { return Self.heap(bytes) }
        return state.withLock { s in
            let base = UInt(bitPattern: slab)
            let size = s.classes[c].slotSize
            s.mappedBytes += Self.slabBytes
            s.classes[c].used[base] = 1
            // The first slot goes out now; the others are pushed so that lower addresses come first.
            for i in stride(from: s.classes[c].slotsPerSlab - 1, through: 1, by: -1) {
                s.classes[c].free.append(base + UInt(i * size))
            }
            return Allocation(pointer: slab, capacity: size, source: .slot(sizeClass: c))
        }
    }

    private func take(_ c: Int) -> Allocation? {
        state.withLock { s -> Allocation? in
            guard let address = s.classes[c].free.popLast(), let p = UnsafeMutableRawPointer(bitPattern: address) else { return nil }
            s.classes[c].used[address & ~UInt(Self.slabBytes - 1), default: 0] += 1
            return Allocation(pointer: p, capacity: s.classes[c].slotSize, source: .slot(sizeClass: c))
        }
    }

    static func heap(_ bytes: Int) -> Allocation {
        let size = max(bytes, 16)
        return Allocation(pointer: UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16), capacity: size, source: .heap)
    }

    func release(_ a: Allocation) {
        switch a.source {
        case .heap:
            a.pointer.deallocate()
        case .mapping:
            unmapAnonymous(a.pointer, a.capacity)
            state.withLock { $0.mappedBytes -= a.capacity }
        case .slot(let c):
            let address = UInt(bitPattern: a.pointer)
            let base = address & ~UInt(Self.slabBytes - 1)
            let emptied = state.withLock { s -> Bool in
                s.classes[c].free.append(address)
                let left = (s.classes[c].used[base] ?? 1) - 1
                // Keep the slab while its class has no other slab's worth of free slots.
                guard left == 0, s.classes[c].free.count >= 2 * s.classes[c].slotsPerSlab else {
                    s.classes[c].used[base] = left
                    return false
                }
                s.classes[c].used[base] = nil
                let end = base + UInt(Self.slabBytes)
                s.classes[c].free.removeAll { $0 >= base && $0 < end }
                s.mappedBytes -= Self.slabBytes
                return true
            }
            if emptied, let p = UnsafeMutableRawPointer(bitPattern: base) { unmapAnonymous(p, Self.slabBytes) }
        }
    }
}
