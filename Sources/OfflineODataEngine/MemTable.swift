/// The in-memory table of recent writes: a copy-on-write B+tree. Copying the struct is O(1) and
/// gives a snapshot; the writer then copies only the nodes it changes (path copying through
/// `isKnownUniquelyReferenced`), so readers of a snapshot never see later writes.
/// Deletes are tombstones (`value == nil`); nothing is ever removed, so nodes only split.
struct MemTable: @unchecked Sendable {
    // Nodes reachable from a snapshot are never mutated (see above), so sharing is safe.
    fileprivate var root: MemNode
    private(set) var count = 0
    /// Approximate memory held: keys, values and per-entry overhead.
    private(set) var byteSize = 0

    static let fanout = 64
    static let entryOverhead = 48

    init() { root = MemNode(leaf: true) }

    var isEmpty: Bool { count == 0 }

    enum Lookup: Equatable { case absent, tombstone, value([UInt8]) }

    func get(_ key: [UInt8]) -> Lookup {
        var node = root
        while !node.isLeaf { node = node.children[node.childIndex(for: key)] }
        let (i, found) = node.search(key)
        guard found else { return .absent }
        if let v = node.values[i] { return .value(v) }
        return .tombstone
    }

    /// Inserts or replaces; `value == nil` records a tombstone.
    mutating func set(_ key: [UInt8], _ value: [UInt8]?) {
        if !isKnownUniquelyReferenced(&root) { root = root.copy() }
        let (split, delta) = root.insert(key, value)
        if delta.added { count += 1; byteSize += key.count + Self.entryOverhead }
        byteSize += delta.valueBytes
        if let (separator, right) = split {
            let newRoot = MemNode(leaf: false)
            newRoot.keys = [separator]
            newRoot.children = [root, right]
            root = newRoot
        }
    }

    /// A cursor positioned before the first entry ≥ `key` (forward) or ≤ `key` (backward).
    func cursor() -> MemCursor { MemCursor(root: root) }
}

final class MemNode {
    // Exclusivity is guaranteed by construction (only the writer mutates, and only nodes no
    // snapshot shares), so the runtime checks on these hot arrays are skipped.
    let isLeaf: Bool
    @exclusivity(unchecked) var keys: [[UInt8]] = []
    @exclusivity(unchecked) var values: [[UInt8]?] = []  // leaves
    @exclusivity(unchecked) var children: [MemNode] = []  // internal: children.count == keys.count + 1

    init(leaf: Bool) { isLeaf = leaf }

    func copy() -> MemNode {
        let n = MemNode(leaf: isLeaf)
        n.keys = keys
        n.values = values
        n.children = children
        return n
    }

    /// Index of the first key ≥ `key`, and whether it is equal.
    func search(_ key: [UInt8]) -> (Int, Bool) {
        var lo = 0, hi = keys.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            let c = compareBytes(keys[mid], key)
            if c == 0 { return (mid, true) }
            if c < 0 { lo = mid + 1 } else { hi = mid }
        }
        return (lo, false)
    }

    /// Child that may hold `key`: keys[i] is the smallest key of children[i + 1].
    func childIndex(for key: [UInt8]) -> Int {
        var lo = 0, hi = keys.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if compareBytes(keys[mid], key) <= 0 { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    struct Delta { var added: Bool; var valueBytes: Int }

    func insert(_ key: [UInt8], _ value: [UInt8]?) -> ((separator: [UInt8], right: MemNode)?, Delta) {
        var delta: Delta
        if isLeaf {
            let (i, found) = search(key)
            if found {
                delta = Delta(added: false, valueBytes: (value?.count ?? 0) - (values[i]?.count ?? 0))
                values[i] = value
            } else {
                keys.insert(key, at: i)
                values.insert(value, at: i)
                delta = Delta(added: true, valueBytes: value?.count ?? 0)
            }
        } else {
            let i = childIndex(for: key)
            if !isKnownUniquelyReferenced(&children[i]) { children[i] = children[i].copy() }
            let (split, d) = children[i].insert(key, value)
            delta = d
            if let (sep, right) = split {
                keys.insert(sep, at: i)
                children.insert(right, at: i + 1)
            }
        }
        guard keys.count > MemTable.fanout else { return (nil, delta) }
        return (splitHalf(), delta)
    }

    private func splitHalf() -> (separator: [UInt8], right: MemNode) {
        let right = MemNode(leaf: isLeaf)
        let mid = keys.count / 2
        if isLeaf {
            right.keys = Array(keys[mid...])
            right.values = Array(values[mid...])
            keys.removeSubrange(mid...)
            values.removeSubrange(mid...)
            return (right.keys[0], right)
        }
        let separator = keys[mid]
        right.keys = Array(keys[(mid + 1)...])
        right.children = Array(children[(mid + 1)...])
        keys.removeSubrange(mid...)
        children.removeSubrange((mid + 1)...)
        return (separator, right)
    }
}

/// Bidirectional cursor over a memtable snapshot (a class, so stepping never copies its path).
final class MemCursor {
    private let root: MemNode
    // One cursor is used by one thread at a time; no runtime exclusivity checks needed.
    @exclusivity(unchecked) private var path: [(node: MemNode, index: Int)] = []

    init(root: MemNode) { self.root = root }

    func withKey<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try path[path.count - 1].node.keys[path[path.count - 1].index].withUnsafeBytes(body)
    }

    func withValue<R>(_ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        guard let v = path[path.count - 1].node.values[path[path.count - 1].index] else { return try body(nil) }
        return try v.withUnsafeBytes { try body($0) }
    }

    func withEntry<R>(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        try withKey { k in try withValue { v in try body(k, v) } }
    }

    var isValid: Bool {
        guard let last = path.last else { return false }
        return last.index >= 0 && last.index < last.node.keys.count
    }

    var key: [UInt8] { path[path.count - 1].node.keys[path[path.count - 1].index] }
    var value: [UInt8]? { path[path.count - 1].node.values[path[path.count - 1].index] }

    /// Positions at the first entry ≥ key.
    func seek(_ key: [UInt8]) {
        path.removeAll(keepingCapacity: true)
        var node = root
        while !node.isLeaf {
            let i = node.childIndex(for: key)
            path.append((node, i))
            node = node.children[i]
        }
        let (i, _) = node.search(key)
        path.append((node, i))
        if i >= node.keys.count { advanceLeaf(forward: true) }
    }

    /// Positions at the last entry ≤ key.
    func seekForPrev(_ key: [UInt8]) {
        seek(key)
        if !isValid {
            seekToLast()
            return
        }
        if compareBytes(self.key, key) > 0 { previous() }
    }

    func seekToFirst() {
        path.removeAll(keepingCapacity: true)
        var node = root
        while !node.isLeaf {
            path.append((node, 0))
            node = node.children[0]
        }
        path.append((node, 0))
        if node.keys.isEmpty { path.removeAll() }
    }

    func seekToLast() {
        path.removeAll(keepingCapacity: true)
        var node = root
        while !node.isLeaf {
            path.append((node, node.children.count - 1))
            node = node.children[node.children.count - 1]
        }
        path.append((node, node.keys.count - 1))
        if node.keys.isEmpty { path.removeAll() }
    }

    func next() {
        guard !path.isEmpty else { return }
        path[path.count - 1].index += 1
        if path[path.count - 1].index >= path[path.count - 1].node.keys.count { advanceLeaf(forward: true) }
    }

    func previous() {
        guard !path.isEmpty else { return }
        path[path.count - 1].index -= 1
        if path[path.count - 1].index < 0 { advanceLeaf(forward: false) }
    }

    /// Moves to the first (or last) entry of the next (or previous) leaf; empties the path at the end.
    private func advanceLeaf(forward: Bool) {
        path.removeLast()
        while let top = path.last {
            let next = top.index + (forward ? 1 : -1)
            if next >= 0 && next < top.node.children.count {
                path[path.count - 1].index = next
                var node = top.node.children[next]
                while !node.isLeaf {
                    let i = forward ? 0 : node.children.count - 1
                    path.append((node, i))
                    node = node.children[i]
                }
                path.append((node, forward ? 0 : node.keys.count - 1))
                if !node.keys.isEmpty { return }
                path.removeLast()
            } else {
                path.removeLast()
            }
        }
    }
}
