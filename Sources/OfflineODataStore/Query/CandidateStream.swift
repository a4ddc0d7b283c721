import OfflineODataEngine
import OfflineODataModel
import OfflineODataQuery

/// The candidates an access path yields, one stored entity at a time, in the path's order
/// (docs/QueryExecution.md §2). Memory is independent of the set's size except for unions,
/// which collect the keys of their (selective) branches to return each entity once.
struct CandidateStream {
    enum Mode {
        case empty
        /// A cursor over the entity tree, stopping at `until` (exclusive bound in the scan
        /// direction; nil = to the end).
        case entities(EntityCursor)
        /// Ranges of a secondary index, one after the other.
        case index(name: String, ranges: [(lower: IndexBound?, upper: IndexBound?)], position: Int, cursor: IndexCursor?)
        /// Ranges of the primary key, one after the other.
        case keyRanges([(lower: IndexBound?, upper: IndexBound?)], position: Int, cursor: EntityCursor?)
        /// Explicit keys (unions, navigation results), fetched in order.
        case keys([[UInt8]], position: Int)
    }

    let reader: EntityReader
    let set: String
    let reverse: Bool
    var mode: Mode

    /// Entities visited (for `explain`/statistics and tests of plan efficiency).
    private(set) var visited = 0

    init(reader: EntityReader, set: String, access: AccessPath, reverse: Bool, primaryKey: [String], resumeAfterKey: [UInt8]? = nil) throws(ODataError) {
        self.reader = reader
        self.set = set
        self.reverse = reverse
        switch access {
        case .empty:
            mode = .empty
        case .scan:
            mode = .entities(try reader.scan(set, reverse: reverse, after: resumeAfterKey))
        case .index(let index, let ranges):
            let bounds = ranges.map(Self.bounds)
            let ordered = reverse ? Array(bounds.reversed()) : bounds
            if index.kind == .primaryKey {
                // Key ranges: a key scan per range (the primary key tree is ordered by key).
                var keys: [[UInt8]] = []
                let exactOnly = ranges.allSatisfy {
                    $0.equal.count == primaryKey.count && $0.lower == nil && $0.upper == nil && $0.prefix == nil
                }
                if exactOnly {
                    for range in ranges { keys.append(try reader.encodeKey(range.equal, in: set)) }
                    if reverse { keys.reverse() }
                    mode = .keys(keys, position: 0)
                } else {
                    mode = .keyRanges(ordered, position: 0, cursor: nil)
                }
            } else {
                mode = .index(name: index.name, ranges: ordered, position: 0, cursor: nil)
            }
        case .union:
            var collected = Set<[UInt8]>()
            try Self.collectKeys(access, reader: reader, set: set, primaryKey: primaryKey, into: &collected)
            var keys = collected.sorted { $0.lexicographicallyPrecedes($1) }
            if reverse { keys.reverse() }
            mode = .keys(keys, position: 0)
        }
    }

    /// Candidates given as explicit keys (a navigation result), in key order.
    init(reader: EntityReader, set: String, keys: [[UInt8]], reverse: Bool) {
        self.reader = reader
        self.set = set
        self.reverse = reverse
        var sorted = Array(Set(keys)).sorted { $0.lexicographicallyPrecedes($1) }
        if reverse { sorted.reverse() }
        mode = .keys(sorted, position: 0)
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
                            into keys: inout Set<[UInt8]>) throws(ODataError) {
        switch access {
        case .union(let parts):
            for part in parts { try collectKeys(part, reader: reader, set: set, primaryKey: primaryKey, into: &keys) }
        default:
            var stream = try CandidateStream(reader: reader, set: set, access: access, reverse: false, primaryKey: primaryKey)
            while let key = try stream.nextKey() { keys.insert(key) }
        }
    }

    /// The number of candidates left, reading no entity where the path allows (index ranges are
    /// counted on borrowed bytes; other paths walk their keys).
    mutating func countRemaining() throws(ODataError) -> Int {
        switch mode {
        case .index(let name, let ranges, let position, let cursor) where cursor == nil:
            var count = 0
            for range in ranges[position...] { count += try reader.indexCount(name, lower: range.lower, upper: range.upper) }
            mode = .empty
            return count
        default:
            var count = 0
            while try nextKey() != nil { count += 1 }
            return count
        }
    }

    /// The next candidate's encoded key without reading the entity, where the path allows.
    mutating func nextKey() throws(ODataError) -> [UInt8]? {
        switch mode {
        case .index:
            return try nextIndexEntry()?.primaryKeyBytes
        default:
            return try next()?.keyBytes
        }
    }

    mutating func next() throws(ODataError) -> StoredEntity? {
        while true {
            switch mode {
            case .empty:
                return nil
            case .entities(var cursor):
                let entity = try cursor.next()
                mode = .entities(cursor)
                if entity != nil { visited += 1 }
                return entity
            case .keys(let keys, let position):
                guard position < keys.count else { mode = .empty; return nil }
                mode = .keys(keys, position: position + 1)
                if let entity = try reader.entity(in: set, keyBytes: keys[position]) {
                    visited += 1
                    return entity
                }
            case .keyRanges(let ranges, let position, let cursor):
                if var cursor {
                    if let entity = try cursor.next() {
                        mode = .keyRanges(ranges, position: position, cursor: cursor)
                        visited += 1
                        return entity
                    }
                    mode = .keyRanges(ranges, position: position + 1, cursor: nil)
                    continue
                }
                guard position < ranges.count else { mode = .empty; return nil }
                let range = ranges[position]
                let opened = try reader.keyRangeScan(set, lower: range.lower, upper: range.upper, reverse: reverse)
                mode = .keyRanges(ranges, position: position, cursor: opened)
            case .index:
                guard let entry = try nextIndexEntry() else { return nil }
                if let entity = try reader.entity(in: set, keyBytes: entry.primaryKeyBytes) {
                    visited += 1
                    return entity
                }
            }
        }
    }

    private mutating func nextIndexEntry() throws(ODataError) -> IndexEntry? {
        while case .index(let name, let ranges, let position, let cursor) = mode {
            if var cursor {
                if let entry = try cursor.next() {
                    mode = .index(name: name, ranges: ranges, position: position, cursor: cursor)
                    return entry
                }
                mode = .index(name: name, ranges: ranges, position: position + 1, cursor: nil)
                continue
            }
            guard position < ranges.count else { mode = .empty; return nil }
            let range = ranges[position]
            let opened = try reader.indexScan(name, lower: range.lower, upper: range.upper, reverse: reverse)
            mode = .index(name: name, ranges: ranges, position: position, cursor: opened)
        }
        return nil
    }
}
