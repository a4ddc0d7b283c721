import Synchronization

/// A sharded LRU cache of decoded blocks, bounded in bytes: the engine's memory for data
/// read from run files never exceeds `capacity` (plus the blocks readers hold at the moment).
///
/// Index blocks and filter indexes of open runs (read on first use) are pinned outside the LRU
/// but counted against the same budget (`pin`/`unpin`), so leaves and filter partitions get what
/// is left: memory stays bounded by `capacity` as long as the pinned part fits in it (about 0.2%
/// of the data plus 12 bytes per 4096 keys; `stats` reports it).
final class BlockCache: Sendable {
    private let shards: [Shard]
    let capacity: Int
    private let pinnedBytes = Mutex<Int>(0)

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
        let state: Mutex<LRU>
        init(capacity: Int) { state = Mutex(LRU(capacity: capacity)) }
        func get(_ key: UInt64) -> Block? { state.withLock { $0.get(key) } }
        func insert(_ key: UInt64, _ block: Block) { state.withLock { $0.insert(key, block) } }
        func removeFile(_ file: UInt32) { state.withLock { $0.removeFile(file) } }
        func setCapacity(_ bytes: Int) { state.withLock { $0.setCapacity(bytes) } }
        var used: Int { state.withLock { $0.used } }
    }

    /// Doubly linked list threaded through a slot array; no per-entry class allocations.
    struct LRU: ~Copyable {
        struct Slot { var key: UInt64; var block: Block?; var prev: Int; var next: Int }
        var slots: [Slot] = []
        var free: [Int] = []
        var index = SlotIndex()
        var head = -1  // most recent
        var tail = -1  // least recent
        var used = 0
        var capacity: Int

        init(capacity: Int) { self.capacity = capacity }

        mutating func setCapacity(_ bytes: Int) {
            capacity = bytes
            while used > capacity, tail >= 0, tail != head { evict(tail) }
        }

        mutating func unlink(_ i: Int) {
            let p = slots[i].prev, n = slots[i].next
            if p >= 0 { slots[p].next = n } else { head = n }
            if n >= 0 { slots[n].prev = p } else { tail = p }
        }

        mutating func pushFront(_ i: Int) {
            slots[i].prev = -1
            slots[i].next = head
            if head >= 0 { slots[head].prev = i }
            head = i
            if tail < 0 { tail = i }
        }

        mutating func get(_ key: UInt64) -> Block? {
            guard let i = index.find(key) else { return nil }
            if head != i {
                unlink(i)
                pushFront(i)
            }
            return slots[i].block
        }

        mutating func insert(_ key: UInt64, _ block: Block) {
            if let i = index.find(key) {
                used -= slots[i].block?.memoryCost ?? 0
                slots[i].block = block
                used += block.memoryCost
                unlink(i)
                pushFront(i)
            } else {
                let i: Int
                if let f = free.popLast() {
                    i = f
                    slots[i] = Slot(key: key, block: block, prev: -1, next: -1)
                } else {
                    i = slots.count
                    slots.append(Slot(key: key, block: block, prev: -1, next: -1))
                }
                index.insert(key, i)
                used += block.memoryCost
                pushFront(i)
            }
            while used > capacity, tail >= 0, tail != head { evict(tail) }
        }

        mutating func evict(_ i: Int) {
            unlink(i)
            used -= slots[i].block?.memoryCost ?? 0
            index.remove(slots[i].key)
            slots[i].block = nil
            free.append(i)
        }

        mutating func removeFile(_ file: UInt32) {
            for i in slots.indices where slots[i].block != nil && UInt32(slots[i].key >> 40) == file { evict(i) }
        }
    }
}

/// Cache key → slot number: open addressing with linear probing and backward-shift deletion,
/// hashed by one multiplication. Replaces a `Dictionary`, whose SipHash and probing were 5 % of
/// a warm point read (two lookups per read: the filter partition and the leaf).
struct SlotIndex {
    private var keys: [UInt64]
    /// −1: empty.
    private var values: [Int32]
    private var shift: UInt64
    private(set) var count = 0

    init() {
        keys = [UInt64](repeating: 0, count: 16)
        values = [Int32](repeating: -1, count: 16)
        shift = 64 - 4
    }

    private var mask: Int { keys.count - 1 }

    @inline(__always) private func home(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    func find(_ key: UInt64) -> Int? {
        var i = home(key)
        while true {
            let v = values[i]
            if v < 0 { return nil }
            if keys[i] == key { return Int(v) }
            i = (i + 1) & mask
        }
    }

    /// Adds or replaces.
    mutating func insert(_ key: UInt64, _ value: Int) {
        if (count + 1) * 2 > keys.count { grow() }
        var i = home(key)
        while values[i] >= 0 {
            if keys[i] == key {
                values[i] = Int32(value)
                return
            }
            i = (i + 1) & mask
        }
        keys[i] = key
        values[i] = Int32(value)
        count += 1
    }

    mutating func remove(_ key: UInt64) {
        var i = home(key)
        while true {
            if values[i] < 0 { return }
            if keys[i] == key { break }
            i = (i + 1) & mask
        }
        // Backward shift: move later entries of the cluster into the hole when their home
        // position does not lie (cyclically) between the hole and them.
        var hole = i
        var j = (i + 1) & mask
        while values[j] >= 0 {
            let h = home(keys[j])
            let between = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j)
            if !between {
                keys[hole] = keys[j]
                values[hole] = values[j]
                hole = j
            }
            j = (j + 1) & mask
        }
        values[hole] = -1
        count -= 1
    }

    private mutating func grow() {
        let oldKeys = keys, oldValues = values
        keys = [UInt64](repeating: 0, count: oldKeys.count * 2)
        values = [Int32](repeating: -1, count: oldKeys.count * 2)
        shift -= 1
        count = 0
        for i in oldKeys.indices where oldValues[i] >= 0 { insert(oldKeys[i], Int(oldValues[i])) }
    }
}
