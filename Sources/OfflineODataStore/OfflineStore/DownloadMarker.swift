import OfflineODataModel

/// The record of a staged download in progress (`odata.s.store`, key `download`;
/// docs/OfflineStore.md §8.5, byte by byte). Written when a download starts staging, updated
/// by every commit of its apply phase, removed by its last commit. Found on open, it tells
/// whether to discard the staged download (phase staging) or finish the apply (phase applying).
struct DownloadMarker: Hashable {
    var phase: UInt8
    var generation: UInt64
    /// Pages staged (all of them, once the phase is applying).
    var pages: Int
    /// Pages applied (each commit of the apply phase counts its pages).
    var pagesApplied: Int = 0
    var applied: Int
    var removed: Int
    var kept: Int
    var rejected: Int
    var name: String
    var set: String
    /// Pages before the first spooled page: loaded in bulk while staging (§7.4), installed
    /// with the marker that counts them applied. The spool's first record is page `spoolBase`.
    var spoolBase: Int = 0

    func encode() -> [UInt8] {
        var out: [UInt8] = [OfflineStoreFormat.downloadVersion, phase]
        out += OfflineStoreFormat.be64(generation)
        for n in [pages, pagesApplied, applied, removed, kept, rejected] { out += OfflineStoreFormat.be64(UInt64(max(0, n))) }
        for text in [name, set] {
            let bytes = Array(text.utf8)
            out += OfflineStoreFormat.be32(UInt32(truncatingIfNeeded: bytes.count)) + bytes
        }
        out += OfflineStoreFormat.be64(UInt64(max(0, spoolBase)))
        return out
    }

    static func decode(_ value: [UInt8]) throws(ODataError) -> DownloadMarker {
        func corrupt(_ detail: String) -> ODataError { .offlineCorrupted("download in progress", detail) }
        // Version 1 (before bulk loads) has no spool base.
        guard value.count >= 2 + 8 * 7 + 8, value[0] == OfflineStoreFormat.downloadVersion || value[0] == 1 else {
            throw corrupt("bad version or a record of \(value.count) bytes")
        }
        let phase = value[1]
        guard phase == OfflineStoreFormat.phaseStaging || phase == OfflineStoreFormat.phaseApplying else {
            throw corrupt("unknown phase \(phase)")
        }
        var at = 2
        func u64() -> UInt64 {
            defer { at += 8 }
            return OfflineStoreFormat.readBE(value[at..<at + 8])
        }
        let generation = u64()
        var counts: [Int] = []
        for _ in 0..<6 {
            let n = u64()
            guard n <= UInt64(Int.max) else { throw corrupt("a count of \(n)") }
            counts.append(Int(n))
        }
        var texts: [String] = []
        for field in ["name", "set"] {
            guard at + 4 <= value.count else { throw corrupt("the \(field) is cut off") }
            let length = Int(OfflineStoreFormat.readBE(value[at..<at + 4]))
            at += 4
            guard length <= value.count - at, let text = String(validating: value[at..<at + length], as: UTF8.self) else {
                throw corrupt("the \(field) is cut off or not UTF-8")
            }
            texts.append(text)
            at += length
        }
        var spoolBase = 0
        if value[0] >= 2 {
            guard at + 8 <= value.count else { throw corrupt("the spool base is cut off") }
            let n = u64()
            guard n <= UInt64(counts[1]) else { throw corrupt("a spool base of \(n) over \(counts[1]) pages applied") }
            spoolBase = Int(n)
        }
        guard at == value.count else { throw corrupt("\(value.count - at) bytes after the last field") }
        return DownloadMarker(phase: phase, generation: generation, pages: counts[0], pagesApplied: counts[1], applied: counts[2],
                              removed: counts[3], kept: counts[4], rejected: counts[5], name: texts[0], set: texts[1],
                              spoolBase: spoolBase)
    }
}
