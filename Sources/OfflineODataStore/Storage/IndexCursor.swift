import OfflineODataEngine
import OfflineODataModel

/// Entries of one index, streamed.
public struct IndexCursor {
    var cursor: KeyValueCursor
    let columns: Int
    let index: String
    var isEmpty: Bool

    public mutating func next() throws(ODataError) -> IndexEntry? {
        if isEmpty { return nil }
        guard let (key, _) = try mapEngine("scanning index \(index)", { () throws(EngineError) in try cursor.next() }) else {
            isEmpty = true
            return nil
        }
        guard let split = OrderedKeySkipper.skip(key, components: columns) else {
            throw .storeCorrupted("entry of index '\(index)'", "the indexed values do not decode")
        }
        return IndexEntry(keyBytes: key, primaryKeyOffset: split)
    }

    /// The next entry's primary key (`IndexEntry.primaryKeyBytes`), copied straight from the
    /// borrowed entry: one array per entry instead of the entry and then its key.
    public mutating func nextPrimaryKey() throws(ODataError) -> [UInt8]? {
        if isEmpty { return nil }
        guard try mapEngine("scanning index \(index)", { () throws(EngineError) in try cursor.advance() }) else {
            isEmpty = true
            return nil
        }
        let columns = columns
        let key: [UInt8]? = cursor.withCurrent { key, _ in
            guard let split = OrderedKeySkipper.skip(key, components: columns) else { return nil }
            return Array(UnsafeRawBufferPointer(rebasing: key[split...]))
        }
        guard let key else { throw .storeCorrupted("entry of index '\(index)'", "the indexed values do not decode") }
        return key
    }
}

/// Encoding of index bounds (docs/StoreFormat.md §5.2).
enum IndexBounds {
    static func encode(_ bound: IndexBound, _ index: ResolvedIndex) throws(ODataError) -> [UInt8] {
        let name = index.definition.name
        let used = bound.values.count + (bound.stringPrefix == nil ? 0 : 1)
        guard used <= index.columns.count else {
            throw .storeInvalidBound(name, "\(used) values for \(index.columns.count) columns")
        }
        var values: [ODataValue] = []
        for (value, column) in zip(bound.values, index.columns) {
            switch value {
            case .complex, .collection: throw .storeInvalidBound(name, "column '\(column.name)' cannot be bounded by a complex or collection value")
            default: values.append(KeyValues.normalize(value, to: column.kind) ?? KeyValues.canonical(value))
            }
        }
        var bytes = try OrderedKeyEncoding.encode(values)
        if let prefix = bound.stringPrefix {
            let column = index.columns[bound.values.count]
            guard column.kind == .string else {
                throw .storeInvalidBound(name, "startswith on column '\(column.name)' which is not a string")
            }
            // Tag and escaped bytes of the string without its terminator: every string that
            // starts with `prefix` encodes to bytes that start with these (docs/StoreFormat.md §5.2).
            bytes.append(0x30)
            for byte in prefix.utf8 {
                bytes.append(byte)
                if byte == 0 { bytes.append(0xFF) }
            }
        }
        return bytes
    }

    /// The smallest byte string greater than every string starting with `prefix`; nil if none.
    static func prefixEnd(_ prefix: [UInt8]) -> [UInt8]? {
        var p = prefix
        while let last = p.last {
            if last < 0xFF {
                p[p.count - 1] = last + 1
                return p
            }
            p.removeLast()
        }
        return nil
    }
}
