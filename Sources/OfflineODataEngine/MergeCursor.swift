/// One ordered source: a memtable or a run.
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

    mutating func seek(_ key: [UInt8], forward: Bool) throws(EngineError) {
        switch self {
        case .mem(var c):
            if forward { c.seek(key) } else { c.seekForPrev(key) }
            self = .mem(c)
        case .run(var c):
            if forward { try c.seek(key) } else { try c.seekForPrev(key) }
            self = .run(c)
        }
    }

    mutating func step(forward: Bool) throws(EngineError) {
        switch self {
        case .mem(var c):
            if forward { c.next() } else { c.previous() }
            self = .mem(c)
        case .run(var c):
            if forward { try c.next() } else { try c.previous() }
            self = .run(c)
        }
    }
}

/// Merges sources (newest first) into one ordered view: for equal keys the newest source wins,
/// and tombstones hide older values. Moves in one direction, fixed at creation.
struct MergeCursor {
    private var sources: [SourceCursor]
    private var keys: [[UInt8]?]
    let forward: Bool
    /// Include tombstones (compaction needs them; readers do not).
    let includeTombstones: Bool
    private(set) var key: [UInt8] = []
    private(set) var value: [UInt8]?
    private(set) var isValid = false

    init(sources: [SourceCursor], forward: Bool, includeTombstones: Bool = false) {
        self.sources = sources
        self.keys = Array(repeating: nil, count: sources.count)
        self.forward = forward
        self.includeTombstones = includeTombstones
    }

    mutating func seek(_ target: [UInt8]) throws(EngineError) {
        for i in sources.indices {
            try sources[i].seek(target, forward: forward)
            keys[i] = sources[i].isValid ? sources[i].key : nil
        }
        try settle()
    }

    mutating func next() throws(EngineError) {
        guard isValid else { return }
        let current = key
        for i in sources.indices where keys[i] == current {
            try sources[i].step(forward: forward)
            keys[i] = sources[i].isValid ? sources[i].key : nil
        }
        try settle()
    }

    /// Finds the next visible entry at or after the sources' positions.
    private mutating func settle() throws(EngineError) {
        while true {
            var best = -1
            for i in sources.indices {
                guard let k = keys[i] else { continue }
                if best < 0 {
                    best = i
                } else if let bk = keys[best] {
                    let c = compareBytes(k, bk)
                    if forward ? c < 0 : c > 0 { best = i }
                }
            }
            guard best >= 0, let bestKey = keys[best] else {
                isValid = false
                return
            }
            let v = sources[best].value
            if v != nil || includeTombstones {
                key = bestKey
                value = v
                isValid = true
                return
            }
            // A tombstone: skip this key in every source.
            for i in sources.indices where keys[i] == bestKey {
                try sources[i].step(forward: forward)
                keys[i] = sources[i].isValid ? sources[i].key : nil
            }
        }
    }
}
