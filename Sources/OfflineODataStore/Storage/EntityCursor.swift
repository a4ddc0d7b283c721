import OfflineODataEngine
import OfflineODataModel

/// Entities of one set in key order, streamed (memory independent of the set's size).
public struct EntityCursor {
    var cursor: KeyValueCursor
    let info: SetInfo

    public mutating func next() throws(ODataError) -> StoredEntity? {
        guard let (key, value) = try mapEngine("scanning \(info.name)", { () throws(EngineError) in try cursor.next() }) else {
            return nil
        }
        return try StoredEntity(keyBytes: key, value: value, info: info)
    }
}
