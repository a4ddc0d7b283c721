import OfflineODataEngine
import OfflineODataModel

/// Reader operations the query executor needs beyond the storage API: key properties, key
/// encoding and primary-key range scans.
extension EntityReader {
    /// The key property names of a set, in key order.
    public func keyProperties(of set: String) throws(ODataError) -> [String] {
        try catalog.set(set).keyNames
    }

    /// The encoded key (values normalized to the key kinds), as `StoredEntity.keyBytes`.
    public func encodeKey(_ key: [ODataValue], in set: String) throws(ODataError) -> [UInt8] {
        try EntityStorage.encodeKey(key, info: try catalog.set(set))
    }

    /// Entities whose key lies between the bounds, in key order (or reverse). Bounds work like
    /// index bounds (`IndexBound`) over the key columns: equality values on the first key
    /// properties, optionally a bound value or a string prefix on the next one.
    public func keyRangeScan(_ set: String, lower requestedLower: IndexBound?, upper requestedUpper: IndexBound?,
                             reverse: Bool = false) throws(ODataError) -> EntityCursor {
        let info = try catalog.set(set)
        var from: [UInt8]?
        var to: [UInt8]?
        // Key properties are never null. A bound on null (the planner bounds `lt`/`le` ranges
        // below by "above null", which keeps nulls out of secondary index ranges) would not
        // encode as a key: a lower one says nothing here and is cut back to the equal values
        // before it; an upper one admits no key at all.
        var lower = requestedLower
        if let bound = lower, bound.values.last?.isNull == true {
            let equal = Array(bound.values.dropLast())
            lower = equal.isEmpty ? nil : IndexBound(equal)
        }
        let upper = requestedUpper?.values.last?.isNull == true ? nil : requestedUpper
        if upper == nil, requestedUpper != nil {
            (from, to) = ([], [])  // below null: no key
        } else if let lower {
            let bytes = try Self.encode(lower, info)
            if lower.isInclusive || lower.stringPrefix != nil {
                from = bytes
            } else if let end = IndexBounds.prefixEnd(bytes) {
                from = end
            } else {
                from = bytes
                to = bytes  // nothing is greater than an all-0xFF prefix: an empty range
            }
        }
        if let upper, to == nil || from != to {
            let bytes = try Self.encode(upper, info)
            to = (upper.isInclusive || upper.stringPrefix != nil) ? IndexBounds.prefixEnd(bytes) : bytes
        }
        let (lowerBytes, upperBytes) = (from, to)
        let cursor = try mapEngine("scanning \(set) by key") { () throws(EngineError) in
            try snapshot.cursor(in: info.tree, from: lowerBytes, to: upperBytes, reverse: reverse)
        }
        return EntityCursor(cursor: cursor, info: info)
    }

    static func encode(_ bound: IndexBound, _ info: SetInfo) throws(ODataError) -> [UInt8] {
        var bytes = try EntityStorage.encodeKeyPrefix(bound.values, info: info)
        if let prefix = bound.stringPrefix {
            // As for index columns (docs/StoreFormat.md §5.2): the string tag and the escaped
            // bytes without the terminator are a byte prefix of every longer string's encoding.
            bytes.append(0x30)
            for byte in prefix.utf8 {
                bytes.append(byte)
                if byte == 0 { bytes.append(0xFF) }
            }
        }
        return bytes
    }
}
