import OfflineODataEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import OfflineODataModel
import OfflineODataQuery

/// The candidates an access path yields, one stored entity at a time, in the path's order
/// (docs/QueryExecution.md §2). Memory is independent of the set's size except for unions,
/// which collect the keys of their (selective) branches to return each entity once.
struct CandidateStream {
    /// Where the candidates come from. The cursors and positions live in the stream's own
    /// stored properties, not in the cases' payloads: a payload is copied out to be advanced
    /// and stored back, a retain and release of every reference in it per candidate (about 8 %
    /// of an indexed equality query in a perf profile).
    enum Mode {
        case empty
        /// `entityCursor` over the entity tree.
        case entities
        /// `ranges` of the secondary index `indexName`, one after the other (`indexCursor`).
        case index
        /// `ranges` of the primary key, one after the other (`entityCursor`).
        case keyRanges
        /// Explicit `keys` (unions, navigation results), fetched in order.
        case keys
    }

    let reader: EntityReader
    let set: String
    let reverse: Bool
    private(set) var mode: Mode
    private var ranges: [(lower: IndexBound?, upper: IndexBound?)] = []
    private var indexName = ""
    private var position = 0
    private var entityCursor: EntityCursor?
    private var indexCursor: IndexCursor?
    private var keys: [[UInt8]] = []
    /// The set, resolved once (nil until the first fetch when the set is not stored).
    private var info: SetInfo?
    /// The engine key of each point read is built here (`EntityReader.entity(_:_:scratch:)`).
    private var scratch: [UInt8] = []

    /// Entities visited (for `explain`/statistics and tests of plan efficiency).
    private(set) var visited = 0

    init(reader: EntityReader, set: String, access: AccessPath, reverse: Bool, primaryKey: [String], resumeAfterKey: [UInt8]? = nil) throws(ODataError) {
        self.reader = reader
        self.set = set
        self.reverse = reverse
        self.info = try reader.catalog.set(set)
        switch access {
        case .empty:
            mode = .empty
        case .scan:
            entityCursor = try reader.scan(set, reverse: reverse, after: resumeAfterKey)
            mode = .entities
        case .index(let index, let ranges):
            let bounds = ranges.map(Self.bounds)
            self.ranges = reverse ? Array(bounds.reversed()) : bounds
            if index.kind == .primaryKey {
                // Key ranges: a key scan per range (the primary key tree is ordered by key).
                let exactOnly = ranges.allSatisfy {
                    $0.equal.count == primaryKey.count && $0.lower == nil && $0.upper == nil && $0.prefix == nil
                }
                if exactOnly {
                    for range in ranges { keys.append(try reader.encodeKey(range.equal, in: set)) }
                    if reverse { keys.reverse() }
                    mode = .keys
                } else {
                    mode = .keyRanges
                }
            } else {
                indexName = index.name
                mode = .index
            }
        case .union:
            var collected = Set<ByteKey>()
            try Self.collectKeys(access, reader: reader, set: set, primaryKey: primaryKey, into: &collected)
            keys = collected.map(\.bytes).sorted { $0.lexicographicallyPrecedes($1) }
            if reverse { keys.reverse() }
            mode = .keys
        }
    }

    /// Candidates given as explicit keys (a navigation result, or the primary keys of index
    /// ranges), in key order, each once.
    init(reader: EntityReader, set: String, keys: [[UInt8]], reverse: Bool) {
        self.reader = reader
        self.set = set
        self.reverse = reverse
        var sorted: [[UInt8]] = []
        sorted.reserveCapacity(keys.count)
        for position in EncodedKeyOrder.positions(count: keys.count, key: { keys[$0] }) where sorted.last != keys[position] {
            sorted.append(keys[position])
        }
        if reverse { sorted.reverse() }
        self.keys = sorted
        self.info = try? reader.catalog.set(set)
        mode = .keys
    }

    static func bounds(_ range: IndexRange) -> (lower: IndexBound?, upper: IndexBound?) {
        if let prefix = range.prefix {
            let bounds = IndexBound.startsWith(range.equal, prefix: prefix)
            return (bounds.lower, bounds.upper)
        }
        let lower = range.lower.map { IndexBound(range.equal + [$0.value], inclusive: $0.inclusive) }
            ?? (range.equal.isEmpty ? nil : IndexBound(range.equal))
        let upper = range.upper.map { IndexBound(range.equal + [$0.value], inclusive: $0.inclusive) }
            ?? (range.equal.isEmpty ? nil : IndexBound(range.equal))
        return (lower, upper)
    }

    static func collectKeys(_ access: AccessPath, reader: EntityReader, set: String, primaryKey: [String],
                            into keys: inout Set<ByteKey>) throws(ODataError) {
        switch access {
        case .union(let parts):
            for part in parts { try collectKeys(part, reader: reader, set: set, primaryKey: primaryKey, into: &keys) }
        default:
            var stream = try CandidateStream(reader: reader, set: set, access: access, reverse: false, primaryKey: primaryKey)
            while let key = try stream.nextKey() { keys.insert(ByteKey(key)) }
        }
    }

    /// True when the candidates are the entries of secondary index ranges, which come in
    /// index order, not key order.
    var readsIndexRanges: Bool {
        if case .index = mode { return true }
        return false
    }

    /// The number of candidates left, reading no entity where the path allows (index ranges are
    /// counted on borrowed bytes; other paths walk their keys).
    mutating func countRemaining() throws(ODataError) -> Int {
        if case .index = mode, indexCursor == nil {
            var count = 0
            for range in ranges[position...] { count += try reader.indexCount(indexName, lower: range.lower, upper: range.upper) }
            mode = .empty
            return count
        }
        var count = 0
        while try nextKey() != nil { count += 1 }
        return count
    }

    /// How many candidates are left, when that is known without reading an entity or stepping
    /// through entries: explicit keys, or index ranges not started yet (counted by the index,
    /// about 1 % of reading the rows). Nil otherwise. An index entry whose entity is gone still
    /// counts, so it is an upper bound.
    func knownCount() throws(ODataError) -> Int? {
        switch mode {
        case .keys:
            return keys.count - position
        case .index where indexCursor == nil:
            var counting = self
            return try counting.countRemaining()
        default:
            return nil
        }
    }

    /// The next candidate's encoded key without reading the entity, where the path allows.
    mutating func nextKey() throws(ODataError) -> [UInt8]? {
        if case .index = mode { return try nextIndexKey() }
        return try next()?.keyBytes
    }

    mutating func next() throws(ODataError) -> StoredEntity? {
        try nextBorrowed { (entity) throws(ODataError) in try entity.owned() }
    }

    /// `next()` lending each candidate instead of returning a copy: `body` sees the entity's
    /// bytes where the engine holds them (a cached leaf), valid only during the call. The same
    /// candidates in the same order; nil at the end.
    mutating func nextBorrowed<R>(_ body: (BorrowedEntity) throws(ODataError) -> R) throws(ODataError) -> R? {
        while true {
            switch mode {
            case .empty:
                return nil
            case .entities:
                guard let result = try entityCursor?.nextBorrowed(body) else {
                    entityCursor = nil
                    mode = .empty
                    return nil
                }
                visited += 1
                return result
            case .keys:
                guard position < keys.count else {
                    keys = []
                    mode = .empty
                    return nil
                }
                position += 1
                if let result = try fetchBorrowed(keys[position - 1], body) {
                    visited += 1
                    return result
                }
            case .keyRanges:
                if entityCursor != nil {
                    if let result = try entityCursor?.nextBorrowed(body) {
                        visited += 1
                        return result
                    }
                    entityCursor = nil
                    position += 1
                    continue
                }
                guard position < ranges.count else {
                    mode = .empty
                    return nil
                }
                let range = ranges[position]
                entityCursor = try reader.keyRangeScan(set, lower: range.lower, upper: range.upper, reverse: reverse)
            case .index:
                guard let key = try nextIndexKey() else { return nil }
                if let result = try fetchBorrowed(key, body) {
                    visited += 1
                    return result
                }
            }
        }
    }

    /// The entity with encoded key `key` lent to `body`, or nil (an index entry whose entity
    /// is gone).
    private mutating func fetchBorrowed<R>(_ key: [UInt8], _ body: (BorrowedEntity) throws(ODataError) -> R) throws(ODataError) -> R? {
        let info = try setInfo()
        return try reader.withEntity(info, key, scratch: &scratch, body)
    }

    private mutating func setInfo() throws(ODataError) -> SetInfo {
        if let known = self.info { return known }
        let info = try reader.catalog.set(set)
        self.info = info
        return info
    }

    /// The primary key of the next entry of the index ranges, copied from the borrowed entry.
    private mutating func nextIndexKey() throws(ODataError) -> [UInt8]? {
        guard case .index = mode else { return nil }
        while true {
            if indexCursor != nil {
                if let key = try indexCursor?.nextPrimaryKey() { return key }
                indexCursor = nil
                position += 1
                continue
            }
            guard position < ranges.count else {
                mode = .empty
                return nil
            }
            let range = ranges[position]
            indexCursor = try reader.indexScan(indexName, lower: range.lower, upper: range.upper, reverse: reverse)
        }
    }
}

/// Sorting encoded keys (byte-wise, a prefix first). The keys are copied into one buffer first,
/// so a comparison is a `memcmp` of two slices and touches no reference count (comparing the
/// arrays themselves cost about 12 % of an indexed range query of 2,400 rows in a perf profile).
enum EncodedKeyOrder {
    /// The positions `0..<count` in ascending order of `key(position)`; equal keys keep their
    /// relative order.
    static func positions(count: Int, key: (Int) -> [UInt8]) -> [Int] {
        var packed: [UInt8] = []
        var bounds: [(start: Int, count: Int)] = []
        bounds.reserveCapacity(count)
        for position in 0..<count {
            let bytes = key(position)
            bounds.append((packed.count, bytes.count))
            packed.append(contentsOf: bytes)
        }
        var positions = Array(0..<count)
        packed.withUnsafeBufferPointer { buffer in
            bounds.withUnsafeBufferPointer { bounds in
                guard let base = buffer.baseAddress else { return }
                positions.sort { a, b in
                    let x = bounds[a], y = bounds[b]
                    let order = memcmp(base + x.start, base + y.start, min(x.count, y.count))
                    return order != 0 ? order < 0 : (x.count != y.count ? x.count < y.count : a < b)
                }
            }
        }
        return positions
    }
}
