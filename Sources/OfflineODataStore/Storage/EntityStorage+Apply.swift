import OfflineODataModel

extension EntityStorage {
    /// Stores downloaded entities of `set` (with their expanded navigation content, see
    /// `EntityWriteBatch.put(_:in:etag:flags:)`), each with its own `@odata.etag`.
    ///
    /// With `chunkSize` nil everything is one atomic commit (the engine holds the whole batch
    /// in memory). For very large inputs pass a chunk size: the entities are then committed
    /// every `chunkSize` entities, each chunk atomic, so memory stays bounded, but a failure
    /// leaves the chunks before it applied. Returns the number of top-level entities stored.
    @discardableResult
    public func apply(entities: some Sequence<ODataEntity>, to set: String, flags: EntityFlags = [],
                      chunkSize: Int? = nil) throws(ODataError) -> Int {
        var iterator = entities.makeIterator()
        var total = 0
        let limit = chunkSize.map { max(1, $0) } ?? Int.max
        while true {
            let (count, finished) = try write { (batch: inout EntityWriteBatch) throws(ODataError) -> (Int, Bool) in
                var count = 0
                while count < limit {
                    guard let entity = iterator.next() else { return (count, true) }
                    try batch.put(entity, in: set, flags: flags)
                    count += 1
                }
                return (count, false)
            }
            total += count
            if finished { return total }
        }
    }
}
