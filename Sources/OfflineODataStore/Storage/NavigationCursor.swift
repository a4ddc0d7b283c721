import OfflineODataEngine
import OfflineODataModel

/// Encoded keys of navigation targets, streamed.
public struct NavigationCursor {
    enum Mode {
        case links(KeyValueCursor, prefixLength: Int)
        /// The target entities themselves, in key order (a key-prefix range of the target set).
        case entities(EntityCursor)
        case one([UInt8])
        case index(IndexCursor)
        case done
    }

    /// The entity set the keys belong to.
    public let targetSet: String
    var mode: Mode

    /// The next target's encoded key (`EntityReader.entity(in: targetSet, keyBytes:)`).
    public mutating func next() throws(ODataError) -> [UInt8]? {
        switch mode {
        case .done: return nil
        case .one(let key):
            mode = .done
            return key
        case .entities(var cursor):
            let entity = try cursor.next()
            mode = entity == nil ? .done : .entities(cursor)
            return entity?.keyBytes
        case .index(var cursor):
            let entry = try cursor.next()
            mode = entry == nil ? .done : .index(cursor)
            return entry?.primaryKeyBytes
        case .links(var cursor, let prefixLength):
            guard let (key, _) = try mapEngine("reading links", { () throws(EngineError) in try cursor.next() }) else {
                mode = .done
                return nil
            }
            mode = .links(cursor, prefixLength: prefixLength)
            return Array(key[prefixLength...])
        }
    }

    /// True when the cursor reads the target entities themselves, in key order (`nextEntity`
    /// then costs no lookup).
    public var readsEntities: Bool {
        if case .entities = mode { return true }
        return false
    }

    /// The next target entity when `readsEntities` (nil at the end, and for the other modes:
    /// use `next()` and a lookup).
    public mutating func nextEntity() throws(ODataError) -> StoredEntity? {
        guard case .entities(var cursor) = mode else { return nil }
        let entity = try cursor.next()
        mode = entity == nil ? .done : .entities(cursor)
        return entity
    }
}
