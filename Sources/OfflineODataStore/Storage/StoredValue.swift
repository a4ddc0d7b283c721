import OfflineODataModel

/// The value of an entity record (docs/StoreFormat.md §4): the EntityCodec bytes first, so the
/// reader can cut the trailer off in place (no copy) and hand the codec its bytes, then
///
///     etag UTF-8 | type name UTF-8 | etagLength u16 LE (0xFFFF = none) |
///     typeNameLength u16 LE (0 = the set's type) | flags u8 | version u8 (= 1)
enum StoredValue {
    static let trailerSize = 6
    static let noETag = 0xFFFF

    struct Meta {
        var etag: String?
        var typeName: String?
        var flags: EntityFlags
    }

    /// `codec` is consumed: the trailer is appended to its buffer (every stored entity passes
    /// here; no second array).
    static func encode(codec: consuming [UInt8], etag: String?, typeName: String?, flags: EntityFlags) -> [UInt8] {
        var out = codec
        let etagCount = etag?.utf8.count, typeCount = typeName?.utf8.count ?? 0
        out.reserveCapacity(out.count + (etagCount ?? 0) + typeCount + trailerSize)
        if let etag { out += etag.utf8 }
        if let typeName { out += typeName.utf8 }
        let etagLength = etagCount ?? noETag
        out.append(UInt8(truncatingIfNeeded: etagLength))
        out.append(UInt8(truncatingIfNeeded: etagLength >> 8))
        out.append(UInt8(truncatingIfNeeded: typeCount))
        out.append(UInt8(truncatingIfNeeded: typeCount >> 8))
        out.append(flags.rawValue)
        out.append(StoreFormat.entityValueVersion)
        return out
    }

    /// Reads the trailer and truncates `value` to the codec bytes (in place).
    static func split(_ value: inout [UInt8], what: @autoclosure () -> String) throws(ODataError) -> Meta {
        let n = value.count
        guard n >= trailerSize else { throw .storeCorrupted(what(), "entity value of \(n) bytes is shorter than its trailer") }
        guard value[n - 1] == StoreFormat.entityValueVersion else {
            throw .storeCorrupted(what(), "entity value version \(value[n - 1]) (expected \(StoreFormat.entityValueVersion))")
        }
        let flags = EntityFlags(rawValue: value[n - 2])
        let typeLength = Int(value[n - 4]) | Int(value[n - 3]) << 8
        let etagLengthRaw = Int(value[n - 6]) | Int(value[n - 5]) << 8
        let etagLength = etagLengthRaw == noETag ? 0 : etagLengthRaw
        let codecEnd = n - trailerSize - typeLength - etagLength
        guard codecEnd >= 1 else { throw .storeCorrupted(what(), "entity value trailer lengths exceed the value") }
        var meta = Meta(etag: nil, typeName: nil, flags: flags)
        if etagLengthRaw != noETag {
            guard let text = String(validating: value[codecEnd..<codecEnd + etagLength], as: UTF8.self) else {
                throw .storeCorrupted(what(), "ETag is not UTF-8")
            }
            meta.etag = text
        }
        if typeLength > 0 {
            let start = codecEnd + etagLength
            guard let text = String(validating: value[start..<start + typeLength], as: UTF8.self) else {
                throw .storeCorrupted(what(), "type name is not UTF-8")
            }
            meta.typeName = text
        }
        value.removeSubrange(codecEnd...)
        return meta
    }
}
