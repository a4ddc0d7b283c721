/// One ordered source: a memtable or a run. Both cursors are classes, so stepping mutates them
/// in place.
enum SourceCursor {
    case mem(MemCursor)
    case run(RunCursor)

    var isValid: Bool {
        switch self {
        case .mem(let c): c.isValid
        case .run(let c): c.isValid
        }
    }

    var key: [UInt8] {
        switch self {
        case .mem(let c): c.key
        case .run(let c): c.key
        }
    }

    var value: [UInt8]? {
        switch self {
        case .mem(let c): c.value
        case .run(let c): c.value
        }
    }

    @inline(__always) func withKey<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        switch self {
        case .mem(let c): try c.withKey(body)
        case .run(let c): try c.withKey(body)
        }
    }

    @inline(__always) func withValue<R>(_ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        switch self {
        case .mem(let c): try c.withValue(body)
        case .run(let c): try c.withValue(body)
        }
    }

    @inline(__always) func withEntry<R>(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        switch self {
        case .mem(let c): try c.withEntry(body)
        case .run(let c): try c.withEntry(body)
        }
    }

    var isTombstone: Bool {
        switch self {
        case .mem(let c): c.withValue { $0 == nil }
        case .run(let c): c.isTombstone
        }
    }

    func seek(_ key: [UInt8], forward: Bool) throws(EngineError) {
        switch self {
        case .mem(let c): if forward { c.seek(key) } else { c.seekForPrev(key) }
        case .run(let c): if forward { try c.seek(key) } else { try c.seekForPrev(key) }
        }
    }

    func step(forward: Bool) throws(EngineError) {
        switch self {
        case .mem(let c): if forward { c.next() } else { c.previous() }
        case .run(let c): if forward { try c.next() } else { try c.previous() }
        }
    }

    static func compare(_ a: SourceCursor, _ b: SourceCursor) -> Int {
        a.withKey { ka in b.withKey { kb in compareBytes(ka, kb) } }
    }
}

/// Merges sources (newest first) into one ordered view: for equal keys the newest source wins,
/// and tombstones hide older values. Moves in one direction, fixed at creation. Keys and values
/// can be borrowed (`withKey`/`withValue`) without copying.
struct MergeCursor {
    private let sources: [SourceCursor]
    private var valid: [Bool]
    /// How many of `valid` are true.
    private var live = 0
    private var best = -1
    /// While the only live source is a run: its cursor, unretained (`sources` owns it), so that
    /// path steps and reads with no reference counting (taking the cursor out of `sources` for
    /// each step and each read retained and released it: a third of an index `$count`).
    private var soloRun: Unmanaged<RunCursor>?
    let forward: Bool
    /// Include tombstones (compaction needs them; readers do not).
    let includeTombstones: Bool
    /// With many sources (a merge of a bulk load's sorted chunks, a compaction of many runs):
    /// the live sources as a binary heap, smallest key first going forward (largest going
    /// backward), newest source first among equal keys. A step then costs about log2(k)
    /// comparisons instead of the 2k of comparing every source (in a 1M-entity download's merge
    /// of small runs, memcmp was 16 % of the applying thread). Nil with few sources.
    private var heap: [Int]?
    /// The current key, copied before the sources at it step (heap path only).
    private var stepped: [UInt8] = []
    /// Sources from which the heap is used.
    static let heapSources = 8

    init(sources: [SourceCursor], forward: Bool, includeTombstones: Bool = false) {
        self.sources = sources
        self.valid = Array(repeating: false, count: sources.count)
        self.forward = forward
        self.includeTombstones = includeTombstones
        if sources.count >= Self.heapSources { heap = [] }
    }

    var isValid: Bool { best >= 0 }
    /// A copy of the current key.
    var key: [UInt8] { sources[best].key }
    /// A copy of the current value; nil for a tombstone.
    var value: [UInt8]? { sources[best].value }
    func withKey<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if let solo = soloRun { return try solo._withUnsafeGuaranteedRef { try $0.withKey(body) } }
        return try sources[best].withKey(body)
    }
    func withValue<R>(_ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R { try sources[best].withValue(body) }
    /// Key and value (nil: tombstone) in one call (no closure nesting that would capture the cursor).
    func withEntry<R>(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        if let solo = soloRun { return try solo._withUnsafeGuaranteedRef { try $0.withEntry(body) } }
        return try sources[best].withEntry(body)
    }

    mutating func seek(_ target: [UInt8]) throws(EngineError) {
        try seek(target, end: nil)
    }

    /// Seeks, then leaves out every source already at or past `end` (at or above it going
    /// forward, below it going backward): a memtable that holds only other trees' keys then
    /// costs nothing per step, and a range inside one run steps that run alone.
    mutating func seek(_ target: [UInt8], end: [UInt8]?) throws(EngineError) {
        live = 0
        soloRun = nil
        for i in sources.indices {
            // A run whose keys all lie outside the range is not positioned at all: seeking it
            // reads a leaf (and its index blocks) for nothing. After a bulk load most runs hold
            // one tree, and a store open scans its system trees through every run.
            if case .run(let c) = sources[i], !c.run.mayHoldKeys(from: target, to: end, forward: forward) {
                valid[i] = false
                continue
            }
            try sources[i].seek(target, forward: forward)
            var inRange = sources[i].isValid
            if inRange, let end {
                let c = end.withUnsafeBytes { e in sources[i].withKey { compareBytes($0, e) } }
                inRange = forward ? c < 0 : c >= 0
            }
            valid[i] = inRange
            if inRange { live += 1 }
        }
        if heap != nil {
            var h = sources.indices.filter { valid[$0] }
            for i in stride(from: h.count / 2 - 1, through: 0, by: -1) { siftDown(&h, i) }
            heap = h
        }
        try settle()
    }

    // MARK: heap path

    /// Whether source `a` comes before source `b`: its key first in the cursor's direction,
    /// or the same key in a newer source.
    @inline(__always)
    private func before(_ a: Int, _ b: Int) -> Bool {
        let c = SourceCursor.compare(sources[a], sources[b])
        if c != 0 { return forward ? c < 0 : c > 0 }
        return a < b
    }

    private func siftDown(_ h: inout [Int], _ start: Int) {
        var i = start
        while true {
            let l = 2 * i + 1
            guard l < h.count else { return }
            var m = l
            if l + 1 < h.count, before(h[l + 1], h[l]) { m = l + 1 }
            guard before(h[m], h[i]) else { return }
            h.swapAt(i, m)
            i = m
        }
    }

    /// Steps the source on top of the heap and restores the order (it leaves when exhausted).
    private mutating func stepTop(_ h: inout [Int]) throws(EngineError) {
        let top = h[0]
        try sources[top].step(forward: forward)
        if !sources[top].isValid {
            valid[top] = false
            live -= 1
            h[0] = h[h.count - 1]
            h.removeLast()
        }
        if !h.isEmpty { siftDown(&h, 0) }
    }

    /// `advancePastCurrent` on the heap: steps every source at the current key.
    private mutating func heapAdvancePastCurrent() throws(EngineError) {
        guard var h = heap, !h.isEmpty else { return }
        heap = nil
        defer { heap = h }
        sources[h[0]].withKey { stepped.removeAll(keepingCapacity: true); stepped.append(contentsOf: $0) }
        try stepTop(&h)
        while !h.isEmpty, stepped.withUnsafeBytes({ k in sources[h[0]].withKey { compareBytes($0, k) } }) == 0 {
            try stepTop(&h)
        }
    }

    mutating func next() throws(EngineError) {
        guard best >= 0 else { return }
        if let solo = soloRun {
            // The one live source: step it past tombstones (unless they are wanted).
            let (skipTombstones, fwd) = (!includeTombstones, forward)
            let stillValid = solo._withUnsafeGuaranteedRef { c -> Result<Bool, EngineError> in
                Result { () throws(EngineError) -> Bool in
                    repeat {
                        if fwd { try c.next() } else { try c.previous() }
                    } while skipTombstones && c.isValid && c.isTombstone
                    return c.isValid
                }
            }
            if try !stillValid.get() {
                valid[best] = false
                live = 0
                best = -1
                soloRun = nil
            }
            return
        }
        try advancePastCurrent()
        try settle()
    }

    /// Steps every source positioned at the current key (the winner and the versions it shadows).
    private mutating func advancePastCurrent() throws(EngineError) {
        if heap != nil { return try heapAdvancePastCurrent() }
        let current = sources[best]
        for i in sources.indices where i != best && valid[i] && SourceCursor.compare(sources[i], current) == 0 {
            try sources[i].step(forward: forward)
            if !sources[i].isValid { valid[i] = false; live -= 1 }
        }
        try current.step(forward: forward)
        if !current.isValid { valid[best] = false; live -= 1 }
    }

    /// Picks the next visible entry at or after the sources' positions.
    private mutating func settle() throws(EngineError) {
        while true {
            best = -1
            if let h = heap {
                if let top = h.first { best = top }
            } else {
                for i in sources.indices where valid[i] {
                    if best < 0 {
                        best = i
                        continue
                    }
                    let c = SourceCursor.compare(sources[i], sources[best])
                    if forward ? c < 0 : c > 0 { best = i }
                }
            }
            guard best >= 0 else { return }
            if includeTombstones || !sources[best].isTombstone {
                soloRun = nil
                if live == 1, case .run(let c) = sources[best] { soloRun = .passUnretained(c) }
                return
            }
            try advancePastCurrent()
        }
    }
}
