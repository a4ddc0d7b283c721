#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import OfflineODataEngine
import OfflineODataModel
import Synchronization

/// The bulk way of applying a staged download (docs/OfflineStore.md §7.4): when the download's
/// set holds no entity and none of its entities has pending changes, its stored-form pages are
/// written straight into run files (`BulkLoad`) with their index entries and membership rows,
/// and installed at once, together with the marker that counts them as applied. Nothing of a
/// commit's work is needed there: no older version to look up or unindex, no local change to
/// keep, no page to log as refused.
///
/// Pages are taken while they allow it: stored form, every entity within the store's limits,
/// no entity that may have been taken already (`takeKeys`: an entity put twice would keep its
/// first version's index entries). Keys may come in any order. The first page that does not
/// allow it is applied by commits, like every page after it; the pages taken so far are
/// installed first.
struct DownloadBulk {
    /// What a page reader needs to make a page's records (`records`), on its own thread.
    struct Form: Sendable {
        let info: SetInfo
        let indexes: [ResolvedIndex]
        let name: String
        let generation: [UInt8]
        /// Buffers of pages already loaded, for the next pages' records.
        let buffers: RecordBuffers
        /// The forms of the sets whose expanded entities are loaded with the page's (§7.2), by
        /// set name.
        var nested: [String: Form] = [:]

        /// The records of a page's entities, or nil when an entity cannot be stored as it is
        /// (the page then takes the commit way, which reports the entity).
        /// The index entries are read from the stored values (only the indexed properties).
        func records(_ entries: [StagedPage.Entry]) -> Records? {
            var out = buffers.take(pieces: 3 + indexes.count)
            out.hashes.reserveCapacity(entries.count)
            out.bounds.reserveCapacity(1 + entries.count * out.pieces)
            let prefix = OfflineStoreFormat.membershipPrefix(name, set: info.name)
            var estimate = 0
            for entry in entries { estimate += 2 * entry.key.count + entry.value.count }
            out.bytes.reserveCapacity(estimate + entries.count * (prefix.count + indexes.count * 32))
            out.bounds.append(0)
            let codec = info.codec
            for entry in entries {
                guard entry.value.count <= WriteBatch.maxValueSize, entry.key.count <= StoreFormat.maxTreeKeyBytes else { return nil }
                out.bytes += entry.key
                out.bounds.append(out.bytes.count)
                out.bytes += entry.value
                out.bounds.append(out.bytes.count)
                out.bytes += prefix
                out.bytes += entry.key
                out.bounds.append(out.bytes.count)
                for n in indexes.indices {
                    do throws(ODataError) {
                        try EntityWriteBatch.appendIndexKey(indexes[n], stored: entry.value, entry.key, info: info, codec: codec,
                                                            to: &out.bytes)
                    } catch {
                        return nil
                    }
                    out.bounds.append(out.bytes.count)
                }
                out.hashes.append(KeyFilter.hash(entry.key))
            }
            return out
        }
    }

    /// A page's records, made by a reader, in one buffer: per entity its key, its stored value,
    /// its membership row's key and its index entries (in `Form.indexes` order), back to back.
    /// One buffer instead of four or more arrays per entity: allocation, freeing and reference
    /// counting were about a fifth of a 1M-entity bulk download's CPU samples (perf), much of
    /// it for these arrays (3.27-3.59 s against 4.02-4.26 s before, alternating runs).
    struct Records: Sendable {
        /// Pieces per entity: key, value, membership key, then one per index.
        let pieces: Int
        var bytes: [UInt8] = []
        /// Where each piece ends, after a first 0: piece `p` of entity `i` is
        /// `bounds[i * pieces + p] ..< bounds[i * pieces + p + 1]`.
        var bounds: [Int] = []
        /// `KeyFilter.hash` of each entity's key, computed by the reader (the applying thread
        /// only looks it up).
        var hashes: [UInt64] = []

        init(pieces: Int, bytes: [UInt8] = [], bounds: [Int] = [], hashes: [UInt64] = []) {
            self.pieces = pieces
            self.bytes = bytes
            self.bounds = bounds
            self.hashes = hashes
        }

        var count: Int { hashes.count }

        /// Each entity's key and stored value (a page the load did not take is spooled).
        func entries() -> [StagedPage.Entry] {
            bytes.withUnsafeBytes { bytes in
                (0..<count).map { StagedPage.Entry(key: Array(piece($0, 0, in: bytes)), value: Array(piece($0, 1, in: bytes))) }
            }
        }

        /// Piece `piece` of entity `entity` in `bytes` (this value's `bytes`, borrowed).
        @inline(__always)
        func piece(_ entity: Int, _ piece: Int, in bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
            let i = entity * pieces + piece
            return UnsafeRawBufferPointer(rebasing: bytes[bounds[i]..<bounds[i + 1]])
        }
    }

    /// The buffers of loaded pages' records, kept for the records of later pages: a page's
    /// records are a few large buffers (about 300 KiB for 1,000 sales order items), which a
    /// reader otherwise allocated and the applying thread freed for every page (1M-entity
    /// download 3.27-3.59 s before, 2.46-2.81 s after; store-bench worker, separate runs).
    final class RecordBuffers: Sendable {
        private let free = Mutex<[(bytes: [UInt8], bounds: [Int], hashes: [UInt64])]>([])
        /// Buffers kept at most: the pages a download holds at once (read ahead, being loaded).
        static let limit = 8

        /// Empty buffers (of a loaded page when there is one).
        func take(pieces: Int) -> Records {
            guard let buffers = free.withLock({ $0.popLast() }) else { return Records(pieces: pieces) }
            return Records(pieces: pieces, bytes: buffers.bytes, bounds: buffers.bounds, hashes: buffers.hashes)
        }

        /// Keeps a loaded page's buffers (emptied) for a later page.
        func give(_ records: consuming Records) {
            // Moved out, not copied: emptying a buffer that `records` still shared allocated a
            // new one of the same capacity (6 MiB of a 100k download's heap peak, heaptrack).
            var records = consume records
            var buffers = (bytes: [UInt8](), bounds: [Int](), hashes: [UInt64]())
            swap(&buffers.bytes, &records.bytes)
            swap(&buffers.bounds, &records.bounds)
            swap(&buffers.hashes, &records.hashes)
            buffers.bytes.removeAll(keepingCapacity: true)
            buffers.bounds.removeAll(keepingCapacity: true)
            buffers.hashes.removeAll(keepingCapacity: true)
            free.withLock { free in
                if free.count < Self.limit { free.append(buffers) }
            }
        }
    }

    let buffers = RecordBuffers()
    let load: BulkLoad
    let info: SetInfo
    let indexes: [ResolvedIndex]
    let membership: Tree
    let store: Tree
    let name: String
    let generation: [UInt8]
    /// The keys taken so far: the last one (while keys ascend, a key past it is new) and a
    /// filter of all of them (a key that does not ascend must be absent from it).
    var lastKey: [UInt8]?
    /// The filter of the keys taken, once a page did not ascend (`filtering`); until then the
    /// keys taken ascend, and only their hashes are kept, up to `ascendingLimit` of them, from
    /// which the filter is made when a page first does not ascend. A download in key order (the
    /// usual one) so never fills 4 MiB of filter with keys it never looks up (about 12 % of the
    /// applying thread of a 1M-entity download, perf, and the filter's pages in the peak
    /// memory). Past `ascendingLimit` keys in order, the hashes go: a page that does not ascend
    /// after that takes the commit way, as every page after it.
    var taken = KeyFilter()
    var filtering = false
    var ascendingHashes: [UInt64]? = []
    var ascendingLimit = DownloadBulk.defaultAscendingLimit
    static let defaultAscendingLimit = 1 << 16
    /// Pages and entities taken so far.
    var pages = 0
    var applied = 0
    /// False once a page could not be taken: later pages go the commit way.
    var isOpen = true
    /// The loads of the fresh sets whose expanded entities (read in place, §7.2) come with the
    /// download's pages, by set name: each with its own set, indexes and keys taken, all into
    /// the one `load`. A page with nested entities of a set not here is not loaded in bulk.
    var nested: [String: DownloadBulk] = [:]

    var form: Form {
        var form = Form(info: info, indexes: indexes, name: name, generation: generation, buffers: buffers)
        for (set, load) in nested { form.nested[set] = load.form }
        return form
    }

    init(load: BulkLoad, info: SetInfo, indexes: [ResolvedIndex], membership: Tree, store: Tree, name: String, generation: [UInt8]) {
        self.load = load
        self.info = info
        self.indexes = indexes
        self.membership = membership
        self.store = store
        self.name = name
        self.generation = generation
    }

    /// Whether a page's keys are surely all new (none taken before, none twice in the page);
    /// if so they are recorded as taken. An entity twice in a download would leave the index
    /// entries of its first version behind, so such a page (or one the filter cannot clear)
    /// takes the commit way, which replaces versions.
    mutating func takeKeys(_ records: Records) -> Bool {
        records.bytes.withUnsafeBytes { bytes in takeKeys(records, bytes) }
    }

    private static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let n = min(a.count, b.count)
        if n > 0, let pa = a.baseAddress, let pb = b.baseAddress {
            let c = memcmp(pa, pb, n)
            if c != 0 { return Int(c) }
        }
        return a.count - b.count
    }

    /// How `key` compares with the last key taken (nil: none taken yet).
    private func compareLast(_ key: UnsafeRawBufferPointer) -> Int? {
        lastKey.map { last in last.withUnsafeBytes { Self.compare($0, key) } }
    }

    private mutating func takeKeys(_ records: Records, _ bytes: UnsafeRawBufferPointer) -> Bool {
        // Keys that ascend from past the last key taken (a download in key order) are all new
        // and none is twice in the page: no lookup at all.
        let count = records.count
        var ascending = true
        for i in 0..<count {
            let key = records.piece(i, 0, in: bytes)
            let order = i > 0 ? Self.compare(records.piece(i - 1, 0, in: bytes), key) : compareLast(key)
            if let order, order >= 0 {
                ascending = false
                break
            }
        }
        if ascending {
            if filtering {
                for hash in records.hashes { taken.insert(hash) }
            } else if let kept = ascendingHashes?.count {
                if kept + count > ascendingLimit {
                    ascendingHashes = nil
                } else {
                    ascendingHashes?.append(contentsOf: records.hashes)
                }
            }
            if count > 0 { lastKey = Array(records.piece(count - 1, 0, in: bytes)) }
            return true
        }
        if !filtering {
            // The first page that does not ascend: the filter is made of the keys taken so far,
            // when their hashes were kept.
            guard let hashes = ascendingHashes else { return false }
            for hash in hashes { taken.insert(hash) }
            ascendingHashes = nil
            filtering = true
        }
        var greatest: Int?  // the page's greatest key past `lastKey` so far
        var page: Set<UInt64> = []
        page.reserveCapacity(count)
        for i in 0..<count {
            let key = records.piece(i, 0, in: bytes), hash = records.hashes[i]
            guard page.insert(hash).inserted else { return false }
            let order = greatest.map { Self.compare(records.piece($0, 0, in: bytes), key) } ?? compareLast(key)
            if let order, order >= 0 {
                // Not past every key taken: it must not be in the filter either.
                if taken.mightContain(hash) { return false }
            } else {
                greatest = i
            }
        }
        for hash in page { taken.insert(hash) }
        if let greatest { lastKey = Array(records.piece(greatest, 0, in: bytes)) }
        return true
    }

    /// Takes a page whose records a reader made, with the records of its nested entities by
    /// set, or nothing (false). Keys taken by a page that is then not taken (a nested set's keys
    /// refused) stay recorded: the load takes no later page anyway.
    mutating func add(records: Records, nested: [(set: String, records: Records)] = []) throws(ODataError) -> Bool {
        guard takeKeys(records) else { return false }
        for (set, records) in nested {
            guard self.nested[set]?.takeKeys(records) == true else { return false }
        }
        try load(records)
        for (set, records) in nested {
            try self.nested[set]?.load(records)
            applied += records.count
        }
        pages += 1
        applied += records.count
        return true
    }

    /// Writes a page's records (their keys taken) into the load.
    private mutating func load(_ records: Records) throws(ODataError) {
        let load = self.load, tree = info.tree, indexTrees = indexes.map(\.tree), membership = self.membership
        try mapEngine("loading a downloaded page") { () throws(EngineError) in
            let r: Result<Void, EngineError> = records.bytes.withUnsafeBytes { bytes in
                generation.withUnsafeBytes { generation in
                    Result { () throws(EngineError) in
                        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
                        for i in 0..<records.count {
                            try load.put(records.piece(i, 0, in: bytes), records.piece(i, 1, in: bytes), in: tree)
                            for n in indexTrees.indices {
                                try load.put(records.piece(i, 3 + n, in: bytes), empty, in: indexTrees[n])
                            }
                            try load.put(records.piece(i, 2, in: bytes), generation, in: membership)
                        }
                    }
                }
            }
            try r.get()
        }
    }
}

extension DownloadApply {
    /// The records a download's bulk load sorts at once (index entries of non-key properties):
    /// with 8 MiB, the sort's buffers made a 1M-entity download's peak memory grow with its
    /// size (1.72x the 100k figure), since a 100k download never fills one chunk.
    static let bulkChunkBytes = 1 << 20

    /// A bulk load for this download when its set is fresh: no entity stored, none with a server
    /// image (a pending local change); nil otherwise.
    mutating func freshBulk() throws(ODataError) -> DownloadBulk? {
        var next = marker
        let name = self.name, set = self.set
        typealias Fresh = (info: SetInfo, indexes: [ResolvedIndex], nested: [(SetInfo, [ResolvedIndex])])
        let fresh: Fresh? = try writer.write { (batch: inout EntityWriteBatch) throws(ODataError) -> Fresh? in
            try loadState(&next, batch)
            let pending = self.pending
            // A set holding no entity and none with a pending change, and its indexes.
            func freshSet(_ set: String) throws(ODataError) -> (SetInfo, [ResolvedIndex])? {
                guard let info = batch.catalog.sets[set], !OfflineSystemSets.all.contains(set) else { return nil }
                if let pending, pending.keys.contains(where: { $0.set == set }) { return nil }
                let empty = try mapEngine("reading the downloaded set") { () throws(EngineError) -> Bool in
                    var cursor = try batch.snapshot.cursor(in: info.tree)
                    return try cursor.next() == nil
                }
                guard empty else { return nil }
                return (info, (batch.catalog.indexesBySet[set] ?? []).compactMap { batch.catalog.indexes[$0] })
            }
            guard let (info, indexes) = try freshSet(set) else { return nil }
            // The sets of expanded content read in place, when fresh too (not the set itself:
            // its keys are taken once).
            var nested: [(SetInfo, [ResolvedIndex])] = []
            var seen: Set<String> = [set]
            for expansion in FlatExpansion.resolve(batch.catalog, set: info) where seen.insert(expansion.target.name).inserted {
                if let target = try freshSet(expansion.target.name) { nested.append(target) }
            }
            return (info, indexes, nested)
        }
        guard let fresh else { return nil }
        marker.generation = next.generation
        let engine = writer.storage.engine
        let membership = try EntityStorage.tree(StoreFormat.systemTree(OfflineStoreFormat.membershipTree), engine: engine)
        let store = try EntityStorage.tree(StoreFormat.systemTree(OfflineStoreFormat.storeTree), engine: engine)
        let load = try mapEngine("starting a bulk download") { () throws(EngineError) in try engine.bulkLoad(chunkBytes: Self.bulkChunkBytes) }
        let generation = OfflineStoreFormat.be64(next.generation)
        var bulk = DownloadBulk(load: load, info: fresh.info, indexes: fresh.indexes, membership: membership, store: store, name: name,
                                generation: generation)
        for (info, indexes) in fresh.nested {
            bulk.nested[info.name] = DownloadBulk(load: load, info: info, indexes: indexes, membership: membership, store: store,
                                                  name: name, generation: generation)
        }
        return bulk
    }

    /// Installs the pages taken, with the marker that counts them as applied, in one step.
    mutating func installBulk(_ bulk: DownloadBulk) throws(ODataError) {
        guard bulk.pages > 0 else {
            bulk.load.abandon()
            return
        }
        var next = marker
        next.phase = OfflineStoreFormat.phaseApplying
        next.pagesApplied += bulk.pages
        next.applied += bulk.applied
        let engine = writer.storage.engine
        try mapEngine("installing a bulk download") { () throws(EngineError) in
            try bulk.load.put(OfflineStoreFormat.downloadKey, next.encode(), in: bulk.store)
            try engine.install(bulk.load)
        }
        marker = next
        pagesApplied += bulk.pages
        report()
    }
}

/// A Bloom filter of the keys a bulk download took: 4 MiB (allocated with the first key), 16
/// bits a key, blocked: a key's bits all lie in one 512-bit block (one cache line), so a key
/// costs one cache miss instead of 16 (the probes of a plain filter were about 4 % of a 100k
/// download's samples, on the applying thread). After a million keys, 3 of 500,000 keys not
/// taken were taken for taken ones (`KeyFilterTests`); such an error only sends the rest of
/// the download the commit way, and a filter that fills up (many millions of keys that do not
/// ascend) does the same more often. Keys that ascend are never looked up.
struct KeyFilter {
    static let bits = 1 << 25
    /// 64-bit words per block (512 bits).
    static let blockWords = 8
    private var words: [UInt64] = []

    static func hash(_ key: [UInt8]) -> UInt64 {
        // FNV-1a, then a SplitMix64 finish: stable, and spread over all 64 bits.
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in key { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        h = (h ^ (h >> 30)) &* 0xBF58_476D_1CE4_E5B9
        h = (h ^ (h >> 27)) &* 0x94D0_49BB_1331_11EB
        return h ^ (h >> 31)
    }

    /// Odd multipliers, one per probe: the probe's bit is the top 9 bits of the key's low 32
    /// hash bits times its multiplier (as a split-block filter places bits), so two keys share
    /// all 16 bits only when their 32 bits agree (double hashing within a block, tried first,
    /// gave 536 false positives in a million).
    private static let salts: [UInt32] = [
        0x47B6_137B, 0x4497_4D91, 0x8824_AD5B, 0xA2B7_289D, 0x7054_95C7, 0x2DF1_424B, 0x9EFC_4947, 0x5C6B_FB31,
        0x9E37_79B1, 0x85EB_CA77, 0xC2B2_AE3D, 0x27D4_EB2F, 0x1656_67B1, 0xD3A2_646D, 0xFD70_46C5, 0xB55A_4F09,
    ]

    /// The first word of the key's block (its top 16 hash bits pick one of 65,536 blocks).
    @inline(__always)
    private static func block(_ hash: UInt64) -> Int {
        Int(hash >> 48) % (bits / (64 * blockWords)) * blockWords
    }

    func mightContain(_ hash: UInt64) -> Bool {
        guard !words.isEmpty else { return false }
        let block = Self.block(hash), low = UInt32(truncatingIfNeeded: hash)
        return words.withUnsafeBufferPointer { w in
            for salt in Self.salts {
                let bit = Int((low &* salt) >> 23)
                if w[block + bit >> 6] & (1 << UInt64(bit & 63)) == 0 { return false }
            }
            return true
        }
    }

    mutating func insert(_ hash: UInt64) {
        if words.isEmpty { words = [UInt64](repeating: 0, count: Self.bits / 64) }
        let block = Self.block(hash), low = UInt32(truncatingIfNeeded: hash)
        words.withUnsafeMutableBufferPointer { w in
            for salt in Self.salts {
                let bit = Int((low &* salt) >> 23)
                w[block + bit >> 6] |= 1 << UInt64(bit & 63)
            }
        }
    }
}
