/// A consistent, read-only view of the store at one commit. Later commits, flushes and
/// compactions do not change what a snapshot sees. Cheap to take; hold it only as long as
/// needed (it keeps the files and memory of its point in time alive).
public struct Snapshot: @unchecked Sendable {
    // Memtables are immutable once captured (copy-on-write); runs are immutable files.
    let mems: [MemTable]  // newest first
    let runs: [RunFile]  // newest first
    /// The sequence number of the last commit this snapshot includes.
    public let sequence: UInt64

    public func get(_ key: [UInt8], in tree: Tree) throws(EngineError) -> [UInt8]? {
        try getInternal(tree.internalKey(key))
    }

    /// `get(_:in:)` with the internal key built in `scratch` (its capacity is kept between
    /// calls): a loop of point reads, such as the entities an index range names, allocates no
    /// key per read.
    public func get(_ key: [UInt8], in tree: Tree, scratch: inout [UInt8]) throws(EngineError) -> [UInt8]? {
        tree.internalKey(key, into: &scratch)
        return try getInternal(scratch)
    }

    /// `get(_:in:)` for a read that is not expected to come again soon (the stored
    /// versions a delta download replaces): a leaf read from the file is decoded into memory
    /// that is reused at once and does not enter the block cache, so a burst of such reads
    /// neither evicts what readers use nor grows the cache into memory never touched before
    /// (each new page of it a page fault). A leaf already cached is used.
    public func getUncached(_ key: [UInt8], in tree: Tree) throws(EngineError) -> [UInt8]? {
        try Self.lookup(tree.internalKey(key), mems: mems, runs: runs, fillCache: false)
    }

    public func contains(_ key: [UInt8], in tree: Tree) throws(EngineError) -> Bool {
        try get(key, in: tree) != nil
    }

    func getInternal(_ k: [UInt8]) throws(EngineError) -> [UInt8]? {
        try Self.lookup(k, mems: mems, runs: runs)
    }

    /// `get(_:in:scratch:)` lending the value to `body` instead of copying it: valid only
    /// during the call, nil when the key is absent or deleted. A value in a run is read in its
    /// cached leaf; a point read that only decodes the value allocates nothing.
    public func withValue<R>(_ key: [UInt8], in tree: Tree, scratch: inout [UInt8],
                             _ body: (UnsafeRawBufferPointer?) throws -> R) throws -> R {
        tree.internalKey(key, into: &scratch)
        switch try Self.find(scratch, mems: mems, runs: runs) {
        case .memValue(let value): return try value.withUnsafeBytes { try body($0) }
        case .runEntry(let leaf, let i): return try leaf.withValue(i, body)
        case .none: return try body(nil)
        }
    }

    /// Where the newest version of a key is (a tombstone counts as none).
    enum Found {
        case memValue([UInt8])
        case runEntry(Block, Int)
        case none
    }

    /// Newest version of an internal key: memtables first, then runs, newest first.
    static func lookup(_ k: [UInt8], mems: some Sequence<MemTable>, runs: [RunFile], fillCache: Bool = true) throws(EngineError) -> [UInt8]? {
        switch try find(k, mems: mems, runs: runs, fillCache: fillCache) {
        case .memValue(let value): return value
        case .runEntry(let leaf, let i): return leaf.value(i)
        case .none: return nil
        }
    }

    /// `fillCache` false: a leaf read from a file is not added to the block cache (`getUncached`).
    static func find(_ k: [UInt8], mems: some Sequence<MemTable>, runs: [RunFile], fillCache: Bool = true) throws(EngineError) -> Found {
        for m in mems where !m.isEmpty {
            switch m.get(k) {
            case .value(let v): return .memValue(v)
            case .tombstone: return .none
            case .absent: continue
            }
        }
        let last = runs.count - 1
        let hash = k.withUnsafeBytes { BloomFilter.hash($0) }
        for (i, r) in runs.enumerated() {
            guard let (leaf, index) = try r.entry(k, hash: hash, filterFirst: i < last, fillCache: fillCache) else { continue }
            return leaf.isTombstone(index) ? .none : .runEntry(leaf, index)
        }
        return .none
    }

    func mergeCursor(forward: Bool, includeTombstones: Bool = false, fillCache: Bool = true) -> MergeCursor {
        // An empty memtable stays empty in a snapshot (copy on write): leaving it out lets a
        // store whose data is all in one run step a single source.
        var sources: [SourceCursor] = mems.filter { !$0.isEmpty }.map { .mem($0.cursor()) }
        sources += runs.map { .run(RunCursor(run: $0, fillCache: fillCache)) }
        return MergeCursor(sources: sources, forward: forward, includeTombstones: includeTombstones)
    }

    /// A cursor over `tree` from `start` (inclusive; nil = the first key, or the last key when
    /// `reverse`) up to `end` (exclusive; nil = the tree's end). `fillCache: false` for a one-pass
    /// scan over much data: leaves it reads from the files do not enter the block cache, so it
    /// neither evicts what other reads use nor grows the cache's share of memory (leaves already
    /// cached are still used).
    public func cursor(in tree: Tree, from start: [UInt8]? = nil, to end: [UInt8]? = nil, reverse: Bool = false,
                       fillCache: Bool = true) throws(EngineError) -> KeyValueCursor
    {
        var cursor = KeyValueCursor(merge: mergeCursor(forward: !reverse, fillCache: fillCache), prefixLength: 4)
        try cursor.reposition(in: tree, from: start, to: end)
        return cursor
    }

    /// Calls `body` for each entry in order until it returns false.
    public func scan(in tree: Tree, from start: [UInt8]? = nil, to end: [UInt8]? = nil, reverse: Bool = false,
                     _ body: (_ key: [UInt8], _ value: [UInt8]) throws -> Bool) throws {
        var c = try cursor(in: tree, from: start, to: end, reverse: reverse)
        while let (k, v) = try c.next() {
            if try !body(k, v) { return }
        }
    }

    /// Like `scan`, but lends the key and value bytes instead of copying them: no allocation per
    /// entry. The buffers are valid only during the call.
    public func forEach(in tree: Tree, from start: [UInt8]? = nil, to end: [UInt8]? = nil, reverse: Bool = false,
                        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool) throws {
        var c = try cursor(in: tree, from: start, to: end, reverse: reverse)
        while try c.advance() {
            if try !c.withCurrent(body) { return }
        }
    }

    /// Entries whose key starts with `prefix`.
    public func scan(in tree: Tree, prefix: [UInt8], reverse: Bool = false,
                     _ body: (_ key: [UInt8], _ value: [UInt8]) throws -> Bool) throws {
        try scan(in: tree, from: prefix, to: Self.prefixEnd(prefix), reverse: reverse, body)
    }

    /// Number of entries in `tree` (a scan).
    public func count(in tree: Tree) throws(EngineError) -> Int {
        var c = try cursor(in: tree)
        var n = 0
        while try c.advance() { n += 1 }
        return n
    }

    /// The smallest key greater than every key with this prefix; nil when there is none.
    static func prefixEnd(_ prefix: [UInt8]) -> [UInt8]? {
        var p = prefix
        while let last = p.last {
            if last < 0xFF {
                p[p.count - 1] = last + 1
                return p
            }
            p.removeLast()
        }
        return nil
    }
}

/// Steps through a range of one tree. Not thread-safe: use one cursor per task.
public struct KeyValueCursor {
    var merge: MergeCursor
    let prefixLength: Int
    /// Where the range ends: below a lower bound (backward cursors) or at or above an upper one
    /// (forward cursors), kept as bytes and flags so a step compares without copying optionals.
    private var bound: [UInt8] = []
    private var hasLower = false, hasUpper = false
    private var started = false

    /// A cursor that is not positioned yet: `reposition` gives it its range.
    init(merge: MergeCursor, prefixLength: Int) {
        self.merge = merge
        self.prefixLength = prefixLength
    }

    /// Moves the cursor to the range `start` (inclusive; nil = the tree's first key, or its last
    /// key going backward) up to `end` (exclusive; nil = the tree's end) of `tree`, in the
    /// direction it was made with, as `Snapshot.cursor` would place a new one. It keeps its
    /// snapshot, sources and blocks: a target in the leaf it stands on is found in that leaf
    /// (`RunCursor.seek`), so ranges visited in key order (the targets of one parent after
    /// another in `$expand`) cost a leaf search each instead of a new cursor and a descent from
    /// every run's root.
    public mutating func reposition(in tree: Tree, from start: [UInt8]?, to end: [UInt8]?) throws(EngineError) {
        started = false
        if merge.forward {
            let upper = end.map { tree.internalKey($0) } ?? tree.upperBound
            try merge.seek(tree.internalKey(start ?? []), end: upper)
            (bound, hasLower, hasUpper) = (upper, false, true)
        } else {
            // Start at the last key < end (or the tree's last key).
            let from = end.map { tree.internalKey($0) } ?? tree.upperBound
            let floor = start.map { tree.internalKey($0) } ?? tree.prefix
            try merge.seek(from, end: floor)
            if merge.isValid && compareBytes(merge.key, from) >= 0 { try merge.next() }
            (bound, hasLower, hasUpper) = (floor, true, false)
        }
    }

    /// The next entry (user key without the tree prefix, value), or nil at the end of the range.
    public mutating func next() throws(EngineError) -> (key: [UInt8], value: [UInt8])? {
        guard try advance() else { return nil }
        let p = prefixLength
        let key = merge.withKey { Array(UnsafeRawBufferPointer(rebasing: $0[p...])) }
        let value = merge.withValue { $0.map { Array($0) } ?? [] }
        return (key, value)
    }

    /// Moves to the next entry of the range; false at its end. With `withCurrent` it reads a
    /// range on borrowed bytes, copying only what the caller keeps.
    public mutating func advance() throws(EngineError) -> Bool {
        if started { try merge.next() } else { started = true }
        guard merge.isValid else { return false }
        // The bound is compared inside the key's closure, which captures only the bound's bytes
        // and two flags (capturing the cursor, or copying optional bounds, cost retains and
        // releases on every step).
        if !hasLower && !hasUpper { return true }
        let upper = hasUpper
        return bound.withUnsafeBytes { b in
            merge.withKey { k in
                let c = compareBytes(k, b)
                return upper ? c < 0 : c >= 0
            }
        }
    }

    /// Borrows the current entry's key (without the tree prefix) and value; valid only inside
    /// `body`, and only after `advance()` returned true.
    public func withCurrent<R>(_ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let p = prefixLength
        return try merge.withEntry { k, v in
            try body(UnsafeRawBufferPointer(rebasing: k[p...]), v ?? UnsafeRawBufferPointer(start: nil, count: 0))
        }
    }
}
