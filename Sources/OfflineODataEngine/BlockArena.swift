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
/// worth of free slots. Engines share one arena (`shared`), so once every store is closed each
/// size class keeps at most one slab of free slots for the next open (an arena of its own, as
/// tests make, returns everything when it goes). Blocks of at
/// most `smallest` bytes (the last leaves of small trees, filter indexes) stay on the heap: few,
/// small, and a slab per size for them made every open map and touch several more slabs.
final class BlockArena: Sendable {
    /// Bytes per slab (one mapping each; a slot's allocation remembers its slab).
    static let slabBytes = 1 << 20
    /// Blocks up to this size are allocated on the heap.
    static let smallest = 2048
    /// Slot sizes: 1 KiB steps from 3 KiB up to 32 KiB (leaves: a 16 KiB leaf with its entry table wastes under 1 KiB,
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
        /// The slab's address (slots only).
        var slab: UInt = 0
    }

    private struct SizeClass {
        let slotSize: Int
        var slotsPerSlab: Int { BlockArena.slabBytes / slotSize }
        /// Free slots' addresses and their slabs', the last freed on top.
        var free: [(slot: UInt, slab: UInt)] = []
        /// Slots in use per slab (by slab address).
        var used: [UInt: Int] = [:]
    }

    private struct State {
        var classes: [SizeClass]
        var mappedBytes = 0
    }

    private let state: Mutex<State>

    /// The arena of every engine in the process.
    static let shared = BlockArena()

    init() {
        var classes: [SizeClass] = []
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

    /// The size class of a block of `bytes` bytes; nil when it goes on the heap (at most
    /// `smallest`) or gets a mapping of its own (over `largestSlot`).
    static func sizeClass(for bytes: Int) -> Int? {
        if bytes <= smallest { return nil }
        if bytes <= 32 << 10 { return (bytes + 1023) >> 10 - 3 }
        if bytes <= 64 << 10 { return 21 + (bytes + 4095) >> 12 }
        if bytes <= 128 << 10 { return 38 }
        if bytes <= 256 << 10 { return 39 }
        if bytes <= largestSlot { return 40 }
        return nil
    }

    /// At least `bytes` bytes (8-byte aligned at least), from a slot, a mapping or the heap.
    func allocate(_ bytes: Int) -> Allocation {
        guard bytes > Self.smallest else { return Self.heap(bytes) }
        guard let c = Self.sizeClass(for: bytes) else {
            let size = (bytes + 4095) & ~4095
            if let p = mapAnonymous(size) {
                state.withLock { $0.mappedBytes += size }
                return Allocation(pointer: p, capacity: size, source: .mapping)
            }
            return Self.heap(bytes)
        }
        if let a = take(c) { return a }
        guard let slab = mapAnonymous(Self.slabBytes) else { return Self.heap(bytes) }
        return state.withLock { s in
            let base = UInt(bitPattern: slab)
            let size = s.classes[c].slotSize
            s.mappedBytes += Self.slabBytes
            s.classes[c].used[base] = 1
            // The first slot goes out now; the others are pushed so that lower addresses come first.
            for i in stride(from: s.classes[c].slotsPerSlab - 1, through: 1, by: -1) {
                s.classes[c].free.append((base + UInt(i * size), base))
            }
            return Allocation(pointer: slab, capacity: size, source: .slot(sizeClass: c), slab: base)
        }
    }

    private func take(_ c: Int) -> Allocation? {
        state.withLock { s -> Allocation? in
            guard let (address, slab) = s.classes[c].free.popLast(), let p = UnsafeMutableRawPointer(bitPattern: address) else { return nil }
            s.classes[c].used[slab, default: 0] += 1
            return Allocation(pointer: p, capacity: s.classes[c].slotSize, source: .slot(sizeClass: c), slab: slab)
        }
    }

    /// `bytes` from `arena`, or from the heap when there is none.
    static func allocate(_ bytes: Int, in arena: BlockArena?) -> Allocation {
        arena?.allocate(bytes) ?? heap(bytes)
    }

    /// Returns `a` to where it came from (`arena`: the one it was allocated in, if any).
    static func release(_ a: Allocation, to arena: BlockArena?) {
        if let arena { arena.release(a) } else { a.pointer.deallocate() }
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
            let base = a.slab
            let emptied = state.withLock { s -> Bool in
                s.classes[c].free.append((address, base))
                let left = (s.classes[c].used[base] ?? 1) - 1
                // Keep the slab while its class has no other slab's worth of free slots.
                guard left == 0, s.classes[c].free.count >= 2 * s.classes[c].slotsPerSlab else {
                    s.classes[c].used[base] = left
                    return false
                }
                s.classes[c].used[base] = nil
                s.classes[c].free.removeAll { $0.slab == base }
                s.mappedBytes -= Self.slabBytes
                return true
            }
            if emptied, let p = UnsafeMutableRawPointer(bitPattern: base) { unmapAnonymous(p, Self.slabBytes) }
        }
    }
}
