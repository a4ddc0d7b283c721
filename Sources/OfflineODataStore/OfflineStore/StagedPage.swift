import OfflineODataModel

/// A downloaded page staged in its stored form (docs/OfflineStore.md §7.3): the key and stored
/// value of each of its entities, as `EntityWriteBatch.prepare` made them while the page was
/// checked. Applying such a page puts the bytes as they are: the page's JSON is read once, not
/// a second time when it is applied. Pages that need their JSON when applied (expanded
/// entities, `@odata.bind`, an entity the store refuses) are staged as JSON, as before; a
/// spool may mix both.
///
/// Layout (all lengths big-endian):
///
/// | offset | size | field |
/// | --- | --- | --- |
/// | 0 | 1 | `tag` 0x00 (a JSON page never starts with it) |
/// | 1 | 1 | `version` 1 |
/// | 2 | 4 | properties of the set's stored layout when staged |
/// | 6 | 4 | size of the page as downloaded (its JSON bytes) |
/// | 10 | 4 | entity count n |
/// | 14 | … | n × (4-byte key length, key, 4-byte value length, stored value) |
///
/// Version 2 is a page with expanded entities read in place (§7.2), each to be put after its
/// top-level entity: after the same 14-byte header (version 2), a 2-byte count m of the nested
/// entities' sets, m × (2-byte name length, UTF-8 name, 4-byte properties of its layout when
/// staged), a 4-byte count q of nested entities, the n top-level entities as above, then
/// q × (4-byte index of its top-level entity, 2-byte set number, 4-byte key length, key,
/// 4-byte value length, stored value), in the order they are put.
enum StagedPage {
    /// docs/OfflineStore.md §7.3.
    static let tag: UInt8 = 0x00
    static let version: UInt8 = 1
    static let versionNested: UInt8 = 2
    static let headerSize = 14

    struct Entry: Sendable {
        let key: [UInt8]
        let value: [UInt8]
    }

    /// Whether spooled bytes are a staged page (else they are a page of JSON).
    static func isStaged(_ bytes: [UInt8]) -> Bool { bytes.first == tag }

    /// The size of the page as downloaded: a staged page's recorded JSON size, else its own
    /// size. Applying commits about `downloadBatchBytes` of downloaded JSON at a time whatever
    /// form the pages were staged in (the stored form is smaller than the JSON: counting its
    /// own bytes made commits of twice as many entities, and a 1M-entity download's peak
    /// memory 20 % higher).
    static func downloadedSize(_ bytes: [UInt8]) -> Int {
        guard isStaged(bytes), bytes.count >= headerSize else { return bytes.count }
        return Int(OfflineStoreFormat.readBE(bytes[6..<10]))
    }

    static func encode(_ entries: [Entry], layoutCount: Int, downloadedSize: Int) -> [UInt8] {
        var size = headerSize
        for entry in entries { size += 8 + entry.key.count + entry.value.count }
        var out: [UInt8] = []
        out.reserveCapacity(size)
        appendHeader(version, layoutCount: layoutCount, downloadedSize: downloadedSize, count: entries.count, to: &out)
        for entry in entries { appendEntry(entry, to: &out) }
        return out
    }

    /// The 14-byte header of either version.
    private static func appendHeader(_ version: UInt8, layoutCount: Int, downloadedSize: Int, count: Int, to out: inout [UInt8]) {
        out.append(tag)
        out.append(version)
        appendBE32(UInt32(truncatingIfNeeded: layoutCount), to: &out)
        appendBE32(UInt32(clamping: downloadedSize), to: &out)
        appendBE32(UInt32(truncatingIfNeeded: count), to: &out)
    }

    /// One entity: 4-byte key length, key, 4-byte value length, stored value.
    private static func appendEntry(_ entry: Entry, to out: inout [UInt8]) {
        appendBE32(UInt32(truncatingIfNeeded: entry.key.count), to: &out)
        out += entry.key
        appendBE32(UInt32(truncatingIfNeeded: entry.value.count), to: &out)
        out += entry.value
    }

    /// `OfflineStoreFormat.be32` written in place (no array per length: two per entity here).
    private static func appendBE32(_ v: UInt32, to out: inout [UInt8]) {
        for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: v >> UInt32(shift))) }
    }

    private static func appendBE16(_ v: Int, to out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: v >> 8))
        out.append(UInt8(truncatingIfNeeded: v))
    }

    /// A page with nested entities (version 2); nil when its sets or names exceed the format's
    /// 2-byte fields (the page is then spooled as JSON).
    static func encode(_ entries: [Entry], nested: [PageReadAhead.Page.NestedEntry], layoutCount: Int,
                       downloadedSize: Int) -> [UInt8]? {
        var sets: [SetInfo] = []
        var numbers: [ObjectIdentifier: Int] = [:]
        for child in nested where numbers[ObjectIdentifier(child.info)] == nil {
            numbers[ObjectIdentifier(child.info)] = sets.count
            sets.append(child.info)
        }
        guard sets.count <= Int(UInt16.max), sets.allSatisfy({ $0.name.utf8.count <= Int(UInt16.max) }) else { return nil }
        var size = headerSize + 6
        for info in sets { size += 6 + info.name.utf8.count }
        for entry in entries { size += 8 + entry.key.count + entry.value.count }
        for child in nested { size += 14 + child.entry.key.count + child.entry.value.count }
        var out: [UInt8] = []
        out.reserveCapacity(size)
        appendHeader(versionNested, layoutCount: layoutCount, downloadedSize: downloadedSize, count: entries.count, to: &out)
        appendBE16(sets.count, to: &out)
        for info in sets {
            appendBE16(info.name.utf8.count, to: &out)
            out += Array(info.name.utf8)
            appendBE32(UInt32(truncatingIfNeeded: info.layout.properties.count), to: &out)
        }
        appendBE32(UInt32(truncatingIfNeeded: nested.count), to: &out)
        for entry in entries { appendEntry(entry, to: &out) }
        for child in nested {
            appendBE32(UInt32(truncatingIfNeeded: child.parent), to: &out)
            appendBE16(numbers[ObjectIdentifier(child.info)] ?? 0, to: &out)
            appendEntry(child.entry, to: &out)
        }
        return out
    }

    /// The entries of a staged page. A page that does not parse, or was staged for a longer
    /// layout than the set's (`layoutCount`), is `offlineCorrupted`.
    static func decode(_ bytes: [UInt8], layoutCount: Int, page number: Int) throws(ODataError) -> [Entry] {
        try decode(bytes, layoutCount: layoutCount, page: number, nestedSet: { _ in nil }).entries
    }

    /// A staged page of either version; `nestedSet` gives the set a version 2 page names (nil:
    /// unknown, the page is corrupt).
    static func decode(_ bytes: [UInt8], layoutCount: Int, page number: Int,
                       nestedSet: (String) -> SetInfo?) throws(ODataError) -> (entries: [Entry], nested: [PageReadAhead.Page.NestedEntry]) {
        func corrupt(_ detail: String) -> ODataError {
            .offlineCorrupted("staged download page \(number + 1)", detail)
        }
        guard bytes.count >= headerSize, bytes[0] == tag else { throw corrupt("\(bytes.count) bytes, not a staged page") }
        guard bytes[1] == version || bytes[1] == versionNested else { throw corrupt("format version \(bytes[1]) (expected \(version))") }
        let staged = Int(OfflineStoreFormat.readBE(bytes[2..<6]))
        guard staged <= layoutCount else {
            throw corrupt("staged for a layout of \(staged) properties, the set has \(layoutCount)")
        }
        let count = Int(OfflineStoreFormat.readBE(bytes[10..<14]))
        // Each entry takes at least its two lengths.
        guard count <= (bytes.count - headerSize) / 8 else { throw corrupt("\(count) entities in \(bytes.count) bytes") }
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        var at = headerSize
        func readNumber(_ width: Int, _ what: String) throws(ODataError) -> Int {
            guard bytes.count - at >= width else { throw corrupt("\(what) is cut off at byte \(at)") }
            defer { at += width }
            return Int(OfflineStoreFormat.readBE(bytes[at..<at + width]))
        }
        func field(_ what: String, _ index: Int) throws(ODataError) -> [UInt8] {
            guard bytes.count - at >= 4 else { throw corrupt("entity \(index + 1): its \(what) length is cut off at byte \(at)") }
            let length = Int(OfflineStoreFormat.readBE(bytes[at..<at + 4]))
            at += 4
            guard length <= bytes.count - at else {
                throw corrupt("entity \(index + 1): its \(what) of \(length) bytes runs past the page at byte \(at)")
            }
            defer { at += length }
            return Array(bytes[at..<at + length])
        }
        var sets: [SetInfo] = []
        var nestedCount = 0
        if bytes[1] == versionNested {
            let setCount = try readNumber(2, "the count of nested sets")
            for n in 0..<setCount {
                let length = try readNumber(2, "the name of nested set \(n + 1)")
                guard length <= bytes.count - at else { throw corrupt("the name of nested set \(n + 1) runs past the page") }
                let name = String(decoding: bytes[at..<at + length], as: UTF8.self)
                at += length
                let layout = try readNumber(4, "the layout of nested set '\(name)'")
                guard let info = nestedSet(name) else { throw corrupt("nested entities of '\(name)', which is not an expanded set") }
                guard layout <= info.layout.properties.count else {
                    throw corrupt("nested set '\(name)' staged for a layout of \(layout) properties, the set has \(info.layout.properties.count)")
                }
                sets.append(info)
            }
            nestedCount = try readNumber(4, "the count of nested entities")
            guard nestedCount <= (bytes.count - at) / 14 else { throw corrupt("\(nestedCount) nested entities in \(bytes.count) bytes") }
        }
        for index in 0..<count {
            let key = try field("key", index)
            let value = try field("value", index)
            guard !key.isEmpty, !value.isEmpty else { throw corrupt("entity \(index + 1) has an empty key or value") }
            entries.append(Entry(key: key, value: value))
        }
        var nested: [PageReadAhead.Page.NestedEntry] = []
        nested.reserveCapacity(nestedCount)
        var lastParent = 0
        for index in 0..<nestedCount {
            let parent = try readNumber(4, "nested entity \(index + 1)")
            let set = try readNumber(2, "nested entity \(index + 1)")
            guard parent < count, parent >= lastParent, set < sets.count else {
                throw corrupt("nested entity \(index + 1) names top-level entity \(parent + 1) of \(count) and set \(set + 1) of \(sets.count)")
            }
            lastParent = parent
            let key = try field("nested key", index)
            let value = try field("nested value", index)
            guard !key.isEmpty, !value.isEmpty else { throw corrupt("nested entity \(index + 1) has an empty key or value") }
            nested.append(PageReadAhead.Page.NestedEntry(parent: parent, info: sets[set], entry: Entry(key: key, value: value)))
        }
        guard at == bytes.count else { throw corrupt("\(bytes.count - at) bytes after the last entity") }
        return (entries, nested)
    }
}
