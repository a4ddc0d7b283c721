import OfflineODataModel

/// The facade's system trees (docs/OfflineStore.md §8, byte by byte). All live in the engine
/// as `odata.s.<tree>` and are written in the same commits as the entities they describe.
enum OfflineStoreFormat {
    /// `odata.s.store`: store-wide records.
    static let storeTree = "store"
    /// Key of the metadata record: version byte 1, then the `$metadata` bytes as given.
    static let metadataKey = Array("metadata".utf8)
    /// BLAKE2b-256 of the stored metadata (without its version byte), written with it: an open
    /// with the same `$metadata` compares 32 bytes instead of reading the document.
    static let metadataDigestKey = Array("metadataDigest".utf8)
    static let metadataVersion: UInt8 = 1

    /// `odata.s.dq`: the defining-query registry; key = the name's UTF-8 bytes.
    static let registryTree = "dq"
    static let registryVersion: UInt8 = 1

    /// `odata.s.dqm`: membership; key = name | 0x00 | set | 0x00 | encoded entity key, value =
    /// the download generation that stored it (u64 big-endian; a 1-byte value is generation 0).
    static let membershipTree = "dqm"

    /// `odata.s.store` key of a defining query's last completed download generation (§8.4).
    static func generationKey(_ name: String) -> [UInt8] { Array("generation".utf8) + [0] + Array(name.utf8) }

    /// `odata.s.store` key of the download in progress (§8.5).
    static let downloadKey = Array("download".utf8)
    static let downloadVersion: UInt8 = 2
    static let phaseStaging: UInt8 = 1
    static let phaseApplying: UInt8 = 2

    /// `odata.s.store` key of a defining query's removal in progress (§8.6): version 1, then the
    /// query's name in UTF-8 (the rest of the value).
    static let removalKey = Array("removal".utf8)
    /// Key of a defining query's sync state (`SyncQueryState`): delta link and counters.
    static func syncStateKey(_ name: String) -> [UInt8] { Array("sync".utf8) + [0] + Array(name.utf8) }
    static let removalVersion: UInt8 = 1

    static func encodeRemoval(_ name: String) -> [UInt8] { [removalVersion] + Array(name.utf8) }

    static func decodeRemoval(_ value: [UInt8]) throws(ODataError) -> String {
        guard value.count >= 2, value[0] == removalVersion, let name = String(validating: value[1...], as: UTF8.self) else {
            throw .offlineCorrupted("defining query removal in progress", "bad version or name in a record of \(value.count) bytes")
        }
        return name
    }

    static func be64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (56 - 8 * UInt64($0))) } }
    static func be32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * UInt32($0))) } }

    static func readBE(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var v: UInt64 = 0
        for b in bytes { v = v << 8 | UInt64(b) }
        return v
    }

    /// The generation of a membership value (older stores wrote a single byte: generation 0).
    static func generation(ofMembership value: [UInt8]) -> UInt64 {
        value.count == 8 ? readBE(value[...]) : 0
    }

    static func encode(_ query: DefiningQuery) -> [UInt8] {
        [registryVersion, query.automaticallyRetrievesStreams ? 1 : 0] + Array(query.url.utf8)
    }

    static func decodeQuery(name: [UInt8], value: [UInt8]) throws(ODataError) -> DefiningQuery {
        guard let text = String(validating: name, as: UTF8.self) else {
            throw .offlineCorrupted("defining query registry", "a name is not UTF-8")
        }
        guard value.count >= 2, value[0] == registryVersion, value[1] <= 1,
              let url = String(validating: value[2...], as: UTF8.self) else {
            throw .offlineCorrupted("defining query '\(text)'", "bad version, flags or URL bytes")
        }
        return DefiningQuery(name: text, url: url, automaticallyRetrievesStreams: value[1] == 1)
    }

    /// The prefix of every membership key of one defining query.
    static func membershipPrefix(_ name: String) -> [UInt8] { Array(name.utf8) + [0] }

    /// A membership key without its entity key: `membershipKey(name, set:, keyBytes:)` is this
    /// followed by the key bytes.
    static func membershipPrefix(_ name: String, set: String, room: Int = 0) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(name.utf8.count + set.utf8.count + 2 + room)
        key += name.utf8
        key.append(0)
        key += set.utf8
        key.append(0)
        return key
    }

    static func membershipKey(_ name: String, set: String, keyBytes: [UInt8]) -> [UInt8] {
        // One array (a download writes one membership per entity).
        var key = membershipPrefix(name, set: set, room: keyBytes.count)
        key += keyBytes
        return key
    }

    /// Splits a membership key (after the query's prefix) into set and entity key.
    static func splitMember(_ key: [UInt8], prefixLength: Int) throws(ODataError) -> EntityMember {
        guard prefixLength <= key.count, let zero = key[prefixLength...].firstIndex(of: 0),
              let set = String(validating: key[prefixLength..<zero], as: UTF8.self) else {
            throw .offlineCorrupted("defining query membership", "a key has no set name")
        }
        return EntityMember(set: set, keyBytes: Array(key[(zero + 1)...]))
    }

    /// The first key after every key starting with `prefix` (for range scans).
    static func end(of prefix: [UInt8]) -> [UInt8] {
        var end = prefix
        while let last = end.last {
            if last < 0xFF {
                end[end.count - 1] = last + 1
                return end
            }
            end.removeLast()
        }
        return [0xFF]
    }
}

/// One stored entity named by set and encoded key.
struct EntityMember: Hashable, Sendable {
    var set: String
    var keyBytes: [UInt8]

    /// The key bytes hashed as one run (`ByteKey`), not a byte at a time.
    func hash(into hasher: inout Hasher) {
        hasher.combine(set)
        keyBytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
