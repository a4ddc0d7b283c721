import OfflineODataModel

/// Constants of the entity storage format. Every byte is described in docs/StoreFormat.md;
/// the section is named next to each constant.
enum StoreFormat {
    /// docs/StoreFormat.md §2: value of the catalog record `format`.
    static let catalogVersion = 1
    /// docs/StoreFormat.md §4: last byte of every stored entity value.
    static let entityValueVersion: UInt8 = 1
    /// docs/StoreFormat.md §3: first byte of a persisted layout record.
    static let layoutRecordVersion: UInt8 = 1
    /// docs/StoreFormat.md §5: first byte of a persisted index definition.
    static let indexRecordVersion: UInt8 = 1

    /// docs/StoreFormat.md §1: tree names.
    static let catalogTree = "odata.catalog"
    static func entityTree(_ set: String) -> String { "odata.e." + set }
    static func indexTree(_ index: String) -> String { "odata.i." + index }
    static func linkTree(_ set: String, _ navigation: String) -> String { "odata.l." + set + "/" + navigation }
    static func reverseLinkTree(_ set: String, _ navigation: String) -> String { "odata.r." + set + "/" + navigation }
    static func systemTree(_ name: String) -> String { "odata.s." + name }

    /// docs/StoreFormat.md §2: catalog keys.
    static let formatKey: [UInt8] = Array("format".utf8)
    static func setKey(_ set: String) -> [UInt8] { Array(("set:" + set).utf8) }
    static func indexKey(_ index: String) -> [UInt8] { Array(("index:" + index).utf8) }
    static let indexKeyPrefix: [UInt8] = Array("index:".utf8)

    /// docs/StoreFormat.md §4 limits.
    static let maxPrimaryKeyBytes = 4096
    static let maxETagBytes = 0xFFFE
    static let maxTypeNameBytes = 0xFFFF
    /// The engine's key limit (WriteBatch.maxKeySize) bounds index and link keys.
    static let maxTreeKeyBytes = 16 << 10
    /// Engine tree names are at most 255 bytes.
    static let maxTreeNameBytes = 255
}

/// Flags stored with each entity (docs/StoreFormat.md §4, flags byte).
public struct EntityFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Created locally, not (yet) known to the back end.
    public static let local = EntityFlags(rawValue: 1 << 0)
    /// Changed locally; a request for it is waiting in the queue.
    public static let pending = EntityFlags(rawValue: 1 << 1)
    /// Deleted locally but kept until the deletion is sent (a tombstone the queue needs).
    public static let pendingDelete = EntityFlags(rawValue: 1 << 2)
}

/// Little helpers for the byte layouts of docs/StoreFormat.md.
struct ByteSink {
    var bytes: [UInt8] = []

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u16(_ v: Int) {
        bytes.append(UInt8(truncatingIfNeeded: v))
        bytes.append(UInt8(truncatingIfNeeded: v >> 8))
    }
    mutating func leb(_ value: Int) {
        var v = UInt64(max(0, value))
        repeat {
            var byte = UInt8(v & 0x7F)
            v >>= 7
            if v != 0 { byte |= 0x80 }
            bytes.append(byte)
        } while v != 0
    }
    mutating func string(_ s: String) {
        leb(s.utf8.count)
        bytes += s.utf8
    }
}

/// Bounds-checked reader for catalog records; throws `storedDataCorrupted`.
struct ByteSource {
    let bytes: [UInt8]
    var position = 0
    let what: String

    init(_ bytes: [UInt8], what: String) {
        self.bytes = bytes
        self.what = what
    }

    var atEnd: Bool { position >= bytes.count }

    mutating func u8() throws(ODataError) -> UInt8 {
        guard position < bytes.count else { throw .storeCorrupted(what, "truncated at offset \(position)") }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func leb() throws(ODataError) -> Int {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try u8()
            guard shift < 63 else { throw .storeCorrupted(what, "varint too long at offset \(position)") }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { break }
            shift += 7
        }
        guard result <= UInt64(Int32.max) else { throw .storeCorrupted(what, "count \(result) too large") }
        return Int(result)
    }

    mutating func string() throws(ODataError) -> String {
        let count = try leb()
        guard count <= bytes.count - position else { throw .storeCorrupted(what, "string runs past the end") }
        let slice = bytes[position..<position + count]
        position += count
        guard let text = String(validating: slice, as: UTF8.self) else {
            throw .storeCorrupted(what, "string is not UTF-8")
        }
        return text
    }
}
