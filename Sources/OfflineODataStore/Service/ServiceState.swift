import OfflineODataEngine
import OfflineODataModel

/// The local service's system trees (docs/LocalService.md §5, byte by byte):
/// `odata.s.service` (counters) and `odata.s.image` (server images and local creations).
enum ServiceFormat {
    /// docs/LocalService.md §5.1: system tree of the counters; its only key.
    static let serviceTree = "service"
    static let countersKey: [UInt8] = Array("counters".utf8)
    static let countersVersion: UInt8 = 1
    /// docs/LocalService.md §5.2: system tree of the server images.
    static let imageTree = "image"
    static let imageVersion: UInt8 = 3
    /// Images written before the back end's deletion was kept (no flags byte); still read.
    static let imageVersion2: UInt8 = 2
    /// Images written before the downloaded version was kept apart (no `fresh`); still read.
    static let imageVersion1: UInt8 = 1
    /// docs/LocalService.md §5.2: image kinds.
    static let kindServer: UInt8 = 1
    static let kindCreated: UInt8 = 2

    /// docs/LocalService.md §5.2: `set UTF-8 | 0x00 | encoded key`.
    static func imageKey(_ set: String, _ keyBytes: [UInt8]) -> [UInt8] {
        Array(set.utf8) + [0] + keyBytes
    }

    static func splitImageKey(_ key: [UInt8]) -> (set: String, keyBytes: [UInt8])? {
        guard let zero = key.firstIndex(of: 0), let set = String(validating: key[..<zero], as: UTF8.self) else { return nil }
        return (set, Array(key[(zero + 1)...]))
    }
}

/// docs/LocalService.md §5.1: the monotonic counters, in one record.
struct ServiceCounters: Equatable {
    /// Counters stay below 2^62 (a record claiming more is corrupt; no increment can overflow).
    static let maxCounter: Int64 = 1 << 62
    var maxCounter: Int64 { Self.maxCounter }
    var nextRequestID: Int64 = 1
    var nextETag: Int64 = 1
    var nextLocalKey: Int64 = 1
    var nextEventID: Int64 = 1

    func encode() -> [UInt8] {
        var out: [UInt8] = [ServiceFormat.countersVersion]
        for v in [nextRequestID, nextETag, nextLocalKey, nextEventID] { out += Self.le(UInt64(bitPattern: v)) }
        return out
    }

    static func decode(_ bytes: [UInt8]) throws(ODataError) -> ServiceCounters {
        guard bytes.count == 33, bytes[0] == ServiceFormat.countersVersion else {
            throw .queueCorrupted("odata.s.service/counters", "\(bytes.count) bytes, version \(bytes.first ?? 0) (expected 33 bytes, version 1)")
        }
        func at(_ i: Int) -> Int64 { Int64(bitPattern: readLE(bytes, 1 + 8 * i)) }
        let c = ServiceCounters(nextRequestID: at(0), nextETag: at(1), nextLocalKey: at(2), nextEventID: at(3))
        for value in [c.nextRequestID, c.nextETag, c.nextLocalKey, c.nextEventID] where value < 1 || value >= maxCounter {
            throw .queueCorrupted("odata.s.service/counters", "counter \(value) is outside 1…2^62")
        }
        return c
    }

    static func le(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
}

func readLE(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
    var v: UInt64 = 0
    for i in 0..<8 { v |= UInt64(bytes[offset + i]) << (8 * i) }
    return v
}

/// docs/LocalService.md §5.2: what the back end knows of a locally changed entity.
struct ServerImage: Equatable {
    struct Link: Equatable {
        var navigation: String
        var targetKey: [UInt8]
    }

    /// `kindServer`: the entity came from the back end; `stored` is its stored value as it was
    /// then (docs/StoreFormat.md §4: record bytes and trailer with the server's ETag and flags)
    /// and `links` its recorded links. `kindCreated`: created locally; the back end does not know it.
    var kind: UInt8
    /// The request that first changed (or created) the entity locally.
    var firstRequestID: Int64
    /// A temporary local key was generated for it (the upload replaces it).
    var keyGenerated: Bool
    var stored: [UInt8]
    var links: [Link] = []
    /// The back end's version that a download brought after the local changes were made
    /// (stored value, as `stored`); nil when none came. `stored` stays the version the local
    /// changes are based on: the upload's `If-Match` and the proof of an unchanged entity come
    /// from it, so another client's change in between is a conflict, never overwritten. Undo
    /// restores `fresh` when there is one.
    var fresh: [UInt8]? = nil
    /// A download said the back end deleted the entity after the local changes were made (a
    /// delta's tombstone, or a full download without it): undo and revert remove it instead of
    /// restoring a version the back end no longer has.
    var deletedOnServer = false

    /// The newest version of the back end the store has: what undo restores.
    var newest: [UInt8] { fresh ?? stored }

    func encode() -> [UInt8] {
        var out: [UInt8] = [ServiceFormat.imageVersion, kind] + ServiceCounters.le(UInt64(bitPattern: firstRequestID))
        out.append(keyGenerated ? 1 : 0)
        guard kind == ServiceFormat.kindServer else { return out }
        out += Self.u32(stored.count)
        out += stored
        out += Self.u32(links.count)
        for link in links {
            let name = Array(link.navigation.utf8)
            out += Self.u32(name.count) + name + Self.u32(link.targetKey.count) + link.targetKey
        }
        out += Self.u32(fresh?.count ?? 0)
        out += fresh ?? []
        out.append(deletedOnServer ? 1 : 0)
        return out
    }

    static func u32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    static func decode(_ bytes: [UInt8], what: String) throws(ODataError) -> ServerImage {
        guard bytes.count >= 11, [ServiceFormat.imageVersion, ServiceFormat.imageVersion2, ServiceFormat.imageVersion1].contains(bytes[0]),
              bytes[1] == ServiceFormat.kindServer || bytes[1] == ServiceFormat.kindCreated, bytes[10] <= 1 else {
            throw .queueCorrupted(what, "server image header is malformed")
        }
        var image = ServerImage(kind: bytes[1], firstRequestID: Int64(bitPattern: readLE(bytes, 2)), keyGenerated: bytes[10] == 1,
                                stored: [])
        guard image.kind == ServiceFormat.kindServer else {
            guard bytes.count == 11 else { throw .queueCorrupted(what, "bytes after a local-creation image") }
            return image
        }
        var p = 11
        func u32() throws(ODataError) -> Int {
            guard p + 4 <= bytes.count else { throw .queueCorrupted(what, "server image truncated at byte \(p)") }
            defer { p += 4 }
            return (0..<4).reduce(0) { $0 | Int(bytes[p + $1]) << (8 * $1) }
        }
        func take(_ n: Int) throws(ODataError) -> [UInt8] {
            guard n >= 0, p + n <= bytes.count else { throw .queueCorrupted(what, "server image truncated at byte \(p)") }
            defer { p += n }
            return Array(bytes[p..<p + n])
        }
        image.stored = try take(try u32())
        guard image.stored.count >= StoredValue.trailerSize else { throw .queueCorrupted(what, "server image without the stored entity") }
        let count = try u32()
        for _ in 0..<count {
            guard let name = String(validating: try take(try u32()), as: UTF8.self) else {
                throw .queueCorrupted(what, "navigation name is not UTF-8")
            }
            image.links.append(Link(navigation: name, targetKey: try take(try u32())))
        }
        if bytes[0] != ServiceFormat.imageVersion1 {
            let fresh = try take(try u32())
            if !fresh.isEmpty {
                guard fresh.count >= StoredValue.trailerSize else { throw .queueCorrupted(what, "server image with a truncated downloaded version") }
                image.fresh = fresh
            }
        }
        if bytes[0] == ServiceFormat.imageVersion {
            let flags = try take(1)[0]
            guard flags <= 1 else { throw .queueCorrupted(what, "server image flags \(flags)") }
            image.deletedOnServer = flags == 1
        }
        guard p == bytes.count else { throw .queueCorrupted(what, "\(bytes.count - p) bytes after the server image") }
        return image
    }
}

extension EntityWriteBatch {
    func systemTreeHandle(_ name: String) throws(ODataError) -> Tree {
        try EntityStorage.tree(StoreFormat.systemTree(name), engine: storage.engine)
    }

    /// Writes a system record so later reads in this batch see it.
    mutating func stageSystem(tree name: String, key: [UInt8], value: [UInt8]) throws(ODataError) {
        guard !key.isEmpty, key.count <= StoreFormat.maxTreeKeyBytes, value.count <= WriteBatch.maxValueSize else {
            throw .storeInvalidSystemTree(name, "key of \(key.count) or value of \(value.count) bytes out of range")
        }
        stage(key, value, in: try systemTreeHandle(name))
    }

    mutating func eraseSystem(tree name: String, key: [UInt8]) throws(ODataError) {
        erase(key, in: try systemTreeHandle(name))
    }

    /// Every record of a tree as this batch sees it, in key order.
    func allRecords(in tree: Tree) throws(ODataError) -> [(key: [UInt8], value: [UInt8])] {
        var found: [[UInt8]: [UInt8]] = [:]
        var cursor = try mapEngine("scanning \(tree.name)") { () throws(EngineError) in try snapshot.cursor(in: tree) }
        while let (key, value) = try mapEngine("scanning \(tree.name)", { () throws(EngineError) in try cursor.next() }) {
            found[key] = value
        }
        for (key, pending) in overlay[tree] ?? [:] {
            switch pending {
            case .put(let value): found[key.bytes] = value
            case .deleted: found[key.bytes] = nil
            }
        }
        return found.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { ($0.key, $0.value) }
    }

    /// The entities of a set whose keys come after `start`, as this batch sees them, in key order.
    func entities(of set: String, after start: [UInt8]) throws(ODataError) -> [StoredEntity] {
        let info = try catalog.set(set)
        var found: [[UInt8]: [UInt8]] = [:]
        var cursor = try mapEngine("scanning \(set)") { () throws(EngineError) in try snapshot.cursor(in: info.tree, from: start) }
        while let (key, value) = try mapEngine("scanning \(set)", { () throws(EngineError) in try cursor.next() }) {
            if key != start { found[key] = value }
        }
        // This batch's own writes: its puts after `start` are in, its deletions out (an upload's
        // batch holds many deletions of earlier rows: no comparison unless something was found).
        for (key, pending) in overlay[info.tree] ?? [:] {
            switch pending {
            case .put(let value): if start.lexicographicallyPrecedes(key.bytes) { found[key.bytes] = value }
            case .deleted: if !found.isEmpty { found[key.bytes] = nil }
            }
        }
        var out: [StoredEntity] = []
        for (key, value) in found.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            out.append(try StoredEntity(keyBytes: key, value: value, info: info))
        }
        return out
    }

    /// Every entity of a set as this batch sees it, in key order.
    func allEntities(of set: String) throws(ODataError) -> [StoredEntity] {
        let info = try catalog.set(set)
        var out: [StoredEntity] = []
        for (key, value) in try allRecords(in: info.tree) { out.append(try StoredEntity(keyBytes: key, value: value, info: info)) }
        return out
    }

    /// The stored entity as this batch sees it.
    func storedEntity(_ set: String, keyBytes: [UInt8]) throws(ODataError) -> StoredEntity? {
        let info = try catalog.set(set)
        guard let value = try current(keyBytes, in: info.tree) else { return nil }
        return try StoredEntity(keyBytes: keyBytes, value: value, info: info)
    }

    /// The raw stored value (record bytes and trailer) as this batch sees it.
    func storedValue(_ set: String, keyBytes: [UInt8]) throws(ODataError) -> [UInt8]? {
        try current(keyBytes, in: try catalog.set(set).tree)
    }

    /// Re-stores an entity from a raw stored value (a server image), keeping indexes right.
    mutating func restore(_ set: String, keyBytes: [UInt8], stored: [UInt8]) throws(ODataError) {
        let info = try catalog.set(set)
        var bytes = stored
        let meta = try StoredValue.split(&bytes, what: "server image of '\(set)'")
        let record = try info.codec.decode(bytes)
        let key = try put(record: record, info: info, etag: meta.etag, flags: meta.flags, typeName: meta.typeName)
        guard key == keyBytes else { throw .queueCorrupted("server image of '\(set)'", "the image's key differs from its record key") }
    }

    /// Re-stores an entity's record with other ETag and flags.
    mutating func restamp(_ set: String, keyBytes: [UInt8], etag: String?, flags: EntityFlags) throws(ODataError) {
        try restampStored(keyBytes, info: try catalog.set(set), etag: etag, flags: flags)
    }

    /// An entity's ETag, type name and flags, without decoding its properties.
    func storedMeta(_ set: String, keyBytes: [UInt8]) throws(ODataError) -> StoredValue.Meta? {
        try storedParts(keyBytes, info: try catalog.set(set))?.meta
    }

    /// Stores a record of `set` (values by layout) with this ETag, flags and type.
    mutating func putRecord(_ record: EntityRecord, in set: String, etag: String?, flags: EntityFlags,
                            typeName: String?) throws(ODataError) -> [UInt8] {
        let info = try catalog.set(set)
        return try put(record: record, info: info, etag: etag, flags: flags, typeName: typeName)
    }

    func setInfo(_ set: String) throws(ODataError) -> SetInfo { try catalog.set(set) }

    func navigationPlan(_ set: String, _ navigation: String) throws(ODataError) -> NavigationPlan {
        try catalog.plan(set, navigation)
    }

    func resolvedIndex(_ name: String) -> ResolvedIndex? { catalog.indexes[name] }
}

extension EntityFlags {
    /// The entity's last upload request failed; its request is in the ErrorArchive
    /// (docs/LocalService.md §5.3: bit 3 of the stored flags byte, set by the local service).
    public static let inError = EntityFlags(rawValue: 1 << 3)
}

extension EntityWriteBatch {
    func navigationPlans(of set: String) -> [String: NavigationPlan] { catalog.navigation[set] ?? [:] }

    func storedRecord(_ set: String, keyBytes: [UInt8]) throws(ODataError) -> (record: EntityRecord, meta: StoredValue.Meta)? {
        try stored(keyBytes, info: try catalog.set(set))
    }
}
