import Synchronization

/// A sharded cache of decoded blocks, bounded in bytes: the engine's memory for data read from
/// run files never exceeds `capacity` (plus the blocks readers hold at the moment).
///
/// Index blocks and filter indexes of open runs (read on first use) are pinned outside the cache
/// but counted against the same budget (`pin`/`unpin`), so leaves and filter partitions get what
/// is left: memory stays bounded by `capacity` as long as the pinned part fits in it (about 0.2%
/// of the data plus 12 bytes per 4096 keys, plus the filter bits of runs whose filters take at
/// most 256 KiB, `RunFile.pinnedFilterLimit`; `stats` reports it).
final class BlockCache: Sendable {
    private let shards: [Shard]
    let capacity: Int
    private let pinnedBytes = Mutex<Int>(0)
    /// Where the blocks of this cache's engine get their memory: the process's arena, shared by
    /// every engine, so that reopening a store reuses slabs already mapped and touched (a fresh
    /// arena per engine made reopen to first query 0.5–1.4 ms slower: new mappings and a page
    /// fault on every page of every block it read).
    let arena = BlockArena.shared

    func pin(_ bytes: Int) {
        let pinned = pinnedBytes.withLock { p in
            p += bytes
            return p
        }
        let perShard = max(capacity - pinned, 0) / shards.count
        for s in shards { s.setCapacity(max(perShard, 64 << 10)) }
    }

    func unpin(_ bytes: Int) { pin(-bytes) }

    var pinned: Int { pinnedBytes.withLock { $0 } }

    init(capacity: Int, shardCount: Int = 8) {
        self.capacity = capacity
        let per = max(capacity / shardCount, 64 << 10)
        shards = (0..<shardCount).map { _ in Shard(capacity: per) }
    }

    static func key(file: UInt32, offset: UInt64) -> UInt64 { UInt64(file) << 40 | (offset & 0xFF_FFFF_FFFF) }

    private func shard(_ key: UInt64) -> Shard {
        let h = (key ^ (key >> 29)) &* 0x9E37_79B9_7F4A_7C15
        return shards[Int(h >> 58) % shards.count]
    }

    func get(_ key: UInt64) -> Block? { shard(key).get(key) }

    func insert(_ key: UInt64, _ block: Block) { shard(key).insert(key, block) }

    func removeFile(_ file: UInt32) { for s in shards { s.removeFile(file) } }

    var usedBytes: Int { shards.reduce(0) { $0 + $1.used } }

    final class Shard: Sendable {
        let state: Mutex<Clock>
        init(capacity: Int) { state = Mutex(Clock(capacity: capacity)) }
        func get(_ key: UInt64) -> Block? { state.withLock { $0.get(key) } }
        func insert(_ key: UInt64, _ block: Block) { state.withLock { $0.insert(key, block) } }
        func removeFile(_ file: UInt32) { state.withLock { $0.removeFile(file) } }
        func setCapacity(_ bytes: Int) { state.withLock { $0.setCapacity(bytes) } }
        var used: Int { state.withLock { $0.used } }
    }

    /// CLOCK replacement (second chance) over a slot array, no per-entry allocations. A hit only
    /// sets its block's reference bit; an LRU's move-to-front also wrote the two neighbours' links,
    /// two more scattered cache lines on every warm read (the LRU unlink alone was 3 % of a warm
    /// point read). Eviction sweeps a hand over the slots: a referenced block loses its bit and
    /// stays for one more sweep, an unreferenced one goes. A block enters unreferenced, so a
    /// one-pass read of many blocks evicts its own blocks before the ones readers come back to.
    /// The index maps a key straight to its block and the bit lives in the block (`Block.clockBit`,
    /// only touched under this shard's lock), so a hit touches the index entry and the block, which
    /// the reader touches anyway: the slot array is only for the hand (a hit that went through the
    /// slot array paid one more scattered cache line, about 5 % of a warm point read).
    struct Clock: ~Copyable {
        struct Slot { var key: UInt64; var block: Block? }
        var slots: [Slot] = []
        var free: [Int] = []
        var index = SlotIndex<Block?>()
        var hand = 0
        var used = 0
        var live = 0
        var capacity: Int

        init(capacity: Int) { self.capacity = capacity }

        mutating func setCapacity(_ bytes: Int) {
            capacity = bytes
            evictWhileOver(protecting: -1)
        }

        mutating func get(_ key: UInt64) -> Block? {
            guard let found = index.find(key), let block = found else { return nil }
            if !block.clockBit { block.clockBit = true }
            return block
        }

        /// A block already cached under `key` (another reader loaded it at the same time) stays;
        /// the new one is not added.
        mutating func insert(_ key: UInt64, _ block: Block) {
            if index.find(key) != nil { return }
            let i: Int
            if let f = free.popLast() {
                i = f
                slots[i] = Slot(key: key, block: block)
            } else {
                i = slots.count
                slots.append(Slot(key: key, block: block))
            }
            block.clockBit = false
            index.insert(key, block)
            live += 1
            used += block.memoryCost
            evictWhileOver(protecting: i)
        }

        /// Evicts until the blocks fit, keeping at least one block and never the one just
        /// inserted (`protecting`). Ends: each step clears a bit, skips an empty slot or evicts,
        /// and a full sweep leaves no bit set.
        private mutating func evictWhileOver(protecting: Int) {
            while used > capacity, live > 1 {
                if hand >= slots.count { hand = 0 }
                let i = hand
                hand += 1
                guard let block = slots[i].block, i != protecting else { continue }
                if block.clockBit {
                    block.clockBit = false
                } else {
                    evict(i)
                }
            }
        }

        mutating func evict(_ i: Int) {
            used -= slots[i].block?.memoryCost ?? 0
            index.remove(slots[i].key)
            slots[i].block = nil
            free.append(i)
            live -= 1
        }

        mutating func removeFile(_ file: UInt32) {
            for i in slots.indices where slots[i].block != nil && UInt32(slots[i].key >> 40) == file { evict(i) }
        }
    }
}

/// What a `SlotIndex` maps keys to, with a value that marks an empty entry.
protocol SlotIndexValue {
    static var emptySlot: Self { get }
    var isEmptySlot: Bool { get }
}

extension Int: SlotIndexValue {
    static var emptySlot: Int { -1 }
    var isEmptySlot: Bool { self < 0 }
}

extension Optional: SlotIndexValue where Wrapped == Block {
    static var emptySlot: Block? { nil }
    var isEmptySlot: Bool { self == nil }
}

/// Cache key → slot number (or block): open addressing with linear probing and backward-shift
/// deletion, hashed by one multiplication; key and value share one 16-byte entry, so a lookup
/// touches one cache line. Replaces a `Dictionary`, whose SipHash and probing were 5 % of a warm
/// point read (two lookups per read: the filter partition and the leaf).
struct SlotIndex<Value: SlotIndexValue> {
    private struct Entry {
        var key: UInt64
        /// `Value.emptySlot`: empty.
        var value: Value
    }

    private var entries: [Entry]
    private var shift: UInt64
    private(set) var count = 0

    init() {
        entries = [Entry](repeating: Entry(key: 0, value: .emptySlot), count: 16)
        shift = 64 - 4
    }

    private var mask: Int { entries.count - 1 }

    @inline(__always) private func home(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    func find(_ key: UInt64) -> Value? {
        entries.withUnsafeBufferPointer { e in
            var i = home(key)
            while true {
                if e[i].value.isEmptySlot { return nil }
                if e[i].key == key { return e[i].value }
                i = (i + 1) & mask
            }
        }
    }

    /// Adds or replaces.
    mutating func insert(_ key: UInt64, _ value: Value) {
        if (count + 1) * 2 > entries.count { grow() }
        var i = home(key)
        while !entries[i].value.isEmptySlot {
            if entries[i].key == key {
                entries[i].value = value
                return
            }
            i = (i + 1) & mask
        }
        entries[i] = Entry(key: key, value: value)
        count += 1
    }

    mutating func remove(_ key: UInt64) {
        var i = home(key)
        while true {
            if entries[i].value.isEmptySlot { return }
            if entries[i].key == key { break }
            i = (i + 1) & mask
        }
        // Backward shift: move later entries of the cluster into the hole when their home
        // position does not lie (cyclically) between the hole and them.
        var hole = i
        var j = (i + 1) & mask
        while !entries[j].value.isEmptySlot {
            let h = home(entries[j].key)
            let between = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j)
            if !between {
                entries[hole] = entries[j]
                hole = j
            }
            j = (j + 1) & mask
        }
        entries[hole].value = .emptySlot
        count -= 1
    }

    private mutating func grow() {
        let old = entries
        entries = [Entry](repeating: Entry(key: 0, value: .emptySlot), count: old.count * 2)
        shift -= 1
        count = 0
        for e in old where !e.value.isEmptySlot { insert(e.key, e.value) }
    }
}
