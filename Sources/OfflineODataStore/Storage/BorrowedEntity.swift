import OfflineODataEngine
import OfflineODataModel

/// An entity whose stored bytes are only lent by the engine (`Snapshot.forEach`): valid during
/// the callback that received it, never stored past it. A scan evaluates its filter and
/// `$orderby` keys on these bytes and copies (`owned()`) only the entities it keeps
/// (docs/QueryExecution.md §6).
struct BorrowedEntity {
    /// The encoded key (as `StoredEntity.keyBytes`).
    let key: UnsafeRawBufferPointer
    /// The whole stored value: codec bytes, then the trailer (docs/StoreFormat.md §4).
    let value: UnsafeRawBufferPointer
    /// The EntityCodec bytes (the value without its trailer).
    let codec: UnsafeRawBufferPointer
    let info: SetInfo
    let flags: EntityFlags
    /// Bytes of the stored type name inside `value` (empty: the set's type).
    let typeNameRange: Range<Int>
    /// Bytes of the ETag inside `value` (nil: none).
    let etagRange: Range<Int>?

    /// Reads the trailer in place with the checks of `StoredValue.split`.
    init(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, info: SetInfo) throws(ODataError) {
        let n = value.count
        guard n >= StoredValue.trailerSize else { throw .storeCorrupted("entity of set '\(info.name)'", "entity value of \(n) bytes is shorter than its trailer") }
        guard value[n - 1] == StoreFormat.entityValueVersion else {
            throw .storeCorrupted("entity of set '\(info.name)'", "entity value version \(value[n - 1]) (expected \(StoreFormat.entityValueVersion))")
        }
        let typeLength = Int(value[n - 4]) | Int(value[n - 3]) << 8
        let etagLengthRaw = Int(value[n - 6]) | Int(value[n - 5]) << 8
        let etagLength = etagLengthRaw == StoredValue.noETag ? 0 : etagLengthRaw
        let codecEnd = n - StoredValue.trailerSize - typeLength - etagLength
        guard codecEnd >= 1 else { throw .storeCorrupted("entity of set '\(info.name)'", "entity value trailer lengths exceed the value") }
        self.key = key
        self.value = value
        self.codec = UnsafeRawBufferPointer(rebasing: value[0..<codecEnd])
        self.info = info
        self.flags = EntityFlags(rawValue: value[n - 2])
        let typeStart = codecEnd + etagLength
        self.typeNameRange = typeStart..<typeStart + typeLength
        self.etagRange = etagLengthRaw == StoredValue.noETag ? nil : codecEnd..<typeStart
    }

    /// The entity's type: the stored derived type, else the set's type (an undecodable name
    /// is reported by `owned()`).
    var typeName: String {
        if typeNameRange.isEmpty { return info.typeName }
        let bytes = UnsafeRawBufferPointer(rebasing: value[typeNameRange])
        return String(validating: bytes.bindMemory(to: UInt8.self), as: UTF8.self) ?? info.typeName
    }

    /// The entity with its properties and ETag: what `owned().toODataEntity()` returns, with the
    /// same checks and errors, decoded from the lent bytes without copying them.
    func toODataEntity() throws(ODataError) -> ODataEntity {
        var etag: String?
        if let etagRange {
            guard let text = validUTF8String(UnsafeRawBufferPointer(rebasing: value[etagRange])) else {
                throw .storeCorrupted("entity of set '\(info.name)'", "ETag is not UTF-8")
            }
            etag = text
        }
        var typeName = info.typeName
        if !typeNameRange.isEmpty {
            guard let text = validUTF8String(UnsafeRawBufferPointer(rebasing: value[typeNameRange])) else {
                throw .storeCorrupted("entity of set '\(info.name)'", "type name is not UTF-8")
            }
            typeName = text
        }
        let entity = ODataEntity(typeName: typeName, properties: try info.codec.decodeProperties(borrowing: codec),
                                 control: ODataControlInformation(etag: etag))
        return info.containment == nil ? entity : try StoredEntity.showingContained(entity, keyBytes: key, info: info)
    }

    /// A copy that outlives the callback (exactly what a cursor would have returned).
    func owned() throws(ODataError) -> StoredEntity {
        try StoredEntity(keyBytes: Array(key), value: Array(value), info: info)
    }
}

extension EntityReader {
    /// Lends every entity of a set in key order (or reverse) to `body` until it returns false:
    /// no copy and no allocation per entity (`Snapshot.forEach`). `after`: resume after this
    /// encoded key (exclusive), as `scan(_:reverse:after:)`.
    func forEachEntity(_ set: String, reverse: Bool = false, after: [UInt8]? = nil,
                       _ body: (BorrowedEntity) throws(ODataError) -> Bool) throws(ODataError) {
        let info = try catalog.set(set)
        var from: [UInt8]?
        var to: [UInt8]?
        if let after {
            if reverse { to = after } else { from = after + [0] }
        }
        do {
            try snapshot.forEach(in: info.tree, from: from, to: to, reverse: reverse) { key, value in
                try body(try BorrowedEntity(key: key, value: value, info: info))
            }
        } catch let error as ODataError {
            throw error
        } catch let error as EngineError {
            throw .storageEngine(error, "scanning \(set)")
        } catch {
            throw .storeCorrupted("set '\(set)'", "\(error)")
        }
    }
}
