/// All pages of one entity set, produced lazily one at a time (O(page) memory), in the order a
/// client following `@odata.nextLink`s would receive them.
public struct SalesPageSequence: Sequence, Sendable {
    public let generator: SalesServiceGenerator
    public let set: SalesEntitySet
    public let pageSize: Int
    public let options: PageOptions

    public struct Iterator: IteratorProtocol, Sendable {
        let sequence: SalesPageSequence
        var start = 0
        var done = false

        public mutating func next() -> [UInt8]? {
            guard !done else { return nil }
            let total = sequence.generator.count(of: sequence.set)
            let bytes = sequence.generator.renderPage(
                set: sequence.set, start: start, pageSize: sequence.pageSize, options: sequence.options)
            start += Swift.min(sequence.pageSize, total - start)
            done = start >= total
            return bytes
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(sequence: self)
    }

    /// The number of pages (at least 1).
    public var underestimatedCount: Int {
        let total = generator.count(of: set)
        return total == 0 ? 1 : (total - 1) / pageSize + 1
    }
}

extension SalesServiceGenerator {
    /// Every page of `set`, lazily (see `SalesPageSequence`).
    public func pages(
        of set: SalesEntitySet, pageSize: Int, options: PageOptions = PageOptions()
    ) throws(FixtureError) -> SalesPageSequence {
        guard pageSize >= 1 else { throw .invalidPageSize(pageSize) }
        return SalesPageSequence(generator: self, set: set, pageSize: pageSize, options: options)
    }
}
