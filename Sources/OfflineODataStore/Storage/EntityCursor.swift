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

    /// Steps to the next entity and lends it to `body`, valid only during the call: neither its
    /// key nor its value is copied. Nil at the end of the range.
    mutating func nextBorrowed<R>(_ body: (BorrowedEntity) throws(ODataError) -> R) throws(ODataError) -> R? {
        guard try mapEngine("scanning \(info.name)", { () throws(EngineError) in try cursor.advance() }) else { return nil }
        let info = self.info
        let result = cursor.withCurrent { key, value -> Result<R, ODataError> in
            Result { () throws(ODataError) -> R in try body(try BorrowedEntity(key: key, value: value, info: info)) }
        }
        return try result.get()
    }
}
