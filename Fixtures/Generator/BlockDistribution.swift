/// Assigns `perParent × parents` children to parents so that every parent has at least one
/// child, the counts vary (binomially around `perParent`), children of one parent are
/// contiguous, and both directions are answered in O(`blockSize`) without a prefix table:
///
/// parents are cut into blocks of `blockSize`; a block of `m` parents owns exactly
/// `perParent × m` consecutive children, starting at `firstParent × perParent`. Inside a block
/// every parent gets one child, and each of the remaining `(perParent − 1) × m` children goes to
/// a parent drawn from the block's own random stream.
struct BlockDistribution: Sendable, Hashable {
    static let blockSize = 16

    let parents: Int
    let perParent: Int
    let seed: UInt64
    let salt: UInt64

    var children: Int { parents * perParent }

    /// The first parent of `block` and the child counts of its parents.
    func counts(ofBlock block: Int) -> (firstParent: Int, counts: [Int]) {
        let first = block * Self.blockSize
        let size = Swift.max(0, Swift.min(Self.blockSize, parents - first))
        var counts = [Int](repeating: 1, count: size)
        guard size > 0 else { return (first, counts) }
        var rng = SplitMix64.derive(seed: seed, set: salt, index: UInt64(block))
        for _ in 0..<((perParent - 1) * size) {
            counts[rng.int(below: size)] += 1
        }
        return (first, counts)
    }

    /// The children of `parent` (empty when `parent` is out of range).
    func childRange(ofParent parent: Int) -> Range<Int> {
        guard parent >= 0, parent < parents else { return 0..<0 }
        let block = parent / Self.blockSize
        let (first, counts) = counts(ofBlock: block)
        var start = first * perParent
        for offset in 0..<(parent - first) {
            start += counts[offset]
        }
        return start..<(start + counts[parent - first])
    }

    /// The parent of `child` and the child's 0-based position among its siblings.
    func parent(ofChild child: Int) -> (parent: Int, ordinal: Int) {
        guard child >= 0, child < children, perParent > 0 else { return (0, 0) }
        let block = child / (Self.blockSize * perParent)
        let (first, counts) = counts(ofBlock: block)
        var start = first * perParent
        for (offset, count) in counts.enumerated() {
            if child < start + count {
                return (first + offset, child - start)
            }
            start += count
        }
        return (first + Swift.max(0, counts.count - 1), 0)
    }
}
