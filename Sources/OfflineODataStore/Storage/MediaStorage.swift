import Dispatch
import OfflineODataEngine
import OfflineODataModel
import Synchronization

/// What the store keeps about one stream: the media resource of an entity whose type has
/// `HasStream="true"` (property `""`), or the value of an `Edm.Stream` property
/// (docs/StoreFormat.md §11).
public struct MediaInfo: Sendable, Hashable {
    /// The MIME type given when the stream was written (`image/jpeg`).
    public var contentType: String
    /// Length in bytes.
    public var length: Int64
    /// The back end's media ETag (`@odata.mediaEtag`); nil for a stream written locally and not
    /// yet uploaded, or when the back end sent none.
    public var etag: String?
    /// The stream's bytes were written locally (a request for them is queued).
    public var isLocal: Bool
    /// What the back end's version of the stream was known by when it was downloaded or
    /// uploaded: its media ETag, or the entity's ETag when the back end sends no media ETag.
    /// A download fetches the stream again only when this differs.
    public var serverVersion: String?
    /// The back end has no stream for the entity (it answered 204): remembered so that the
    /// next download does not ask again while `serverVersion` holds. Reads answer 204.
    public var isAbsent: Bool
    /// Identifies the chunks of this version of the stream (a new write never reuses one).
    let generation: UInt64
    /// Bytes per chunk (the last chunk may be shorter).
    let chunkSize: Int

    var chunkCount: Int { length == 0 ? 0 : Int((length + Int64(chunkSize) - 1) / Int64(chunkSize)) }

    static let formatVersion: UInt8 = 1

    func encoded() -> [UInt8] {
        var sink = ByteSink()
        sink.u8(Self.formatVersion)
        for shift in stride(from: 56, through: 0, by: -8) { sink.u8(UInt8(truncatingIfNeeded: generation >> UInt64(shift))) }
        sink.leb(Int(length))
        sink.leb(chunkSize)
        sink.u8((isLocal ? 1 : 0) | (isAbsent ? 2 : 0))
        sink.string(contentType)
        for text in [etag, serverVersion] {
            if let text {
                sink.u8(1)
                sink.string(text)
            } else {
                sink.u8(0)
            }
        }
        return sink.bytes
    }

    init(contentType: String, length: Int64, etag: String?, isLocal: Bool, generation: UInt64, chunkSize: Int,
         serverVersion: String? = nil, isAbsent: Bool = false) {
        self.serverVersion = serverVersion
        self.isAbsent = isAbsent
        self.contentType = contentType
        self.length = length
        self.etag = etag
        self.isLocal = isLocal
        self.generation = generation
        self.chunkSize = chunkSize
    }

    init(decoding bytes: [UInt8]) throws(ODataError) {
        var source = ByteSource(bytes, what: "media record")
        guard try source.u8() == Self.formatVersion else { throw .storeCorrupted("media record", "unknown version") }
        var generation: UInt64 = 0
        for _ in 0..<8 { generation = generation << 8 | UInt64(try source.u8()) }
        self.generation = generation
        length = Int64(try source.leb())
        chunkSize = try source.leb()
        guard chunkSize > 0 else { throw .storeCorrupted("media record", "chunk size 0") }
        let flags = try source.u8()
        isLocal = flags & 1 != 0
        isAbsent = flags & 2 != 0
        contentType = try source.string()
        etag = try source.u8() != 0 ? try source.string() : nil
        serverVersion = try source.u8() != 0 ? try source.string() : nil
    }
}

/// The trees and keys of stored streams (docs/StoreFormat.md §11).
enum MediaFormat {
    /// `str(set) ‖ entity key bytes ‖ str(property)` → `MediaInfo`.
    static let infoTree = "media"
    /// `u64be generation ‖ u32be chunk index` → the chunk's bytes.
    static let chunkTree = "media.chunks"
    /// `u64be generation` → empty: a stream being written whose chunks no record names yet.
    static let pendingTree = "media.pending"

    /// Bytes per chunk: each chunk is one engine value, compressed and encrypted on its own.
    static let chunkSize = 64 << 10
    /// Streams up to this length are written in the one commit that names them.
    static let inlineLimit = 1 << 20
    /// Chunks per staging commit of a longer stream.
    static let chunksPerCommit = 16
    /// Past this many staged bytes, the rest of a stream is written straight into a run file
    /// of its own (a bulk load: written once, not through the log, the memtable and a flush).
    static let bulkThreshold = 8 << 20

    /// Media types whose bytes are compressed already: a long stream of one is written without
    /// trying LZ4 on its blocks (it would not shrink them).
    static func isCompressed(_ contentType: String) -> Bool {
        let type = contentType.lowercased()
        return ["image/jpeg", "image/png", "image/gif", "image/webp", "image/heic", "image/heif", "image/avif", "video/", "audio/",
                "application/pdf", "application/zip", "application/gzip", "application/x-7z", "application/x-rar",
                "application/vnd.openxmlformats"].contains { type.hasPrefix($0) }
    }

    static func entityPrefix(set: String, keyBytes: [UInt8]) -> [UInt8] {
        var sink = ByteSink()
        sink.string(set)
        sink.bytes += keyBytes
        return sink.bytes
    }

    static func infoKey(set: String, keyBytes: [UInt8], property: String) -> [UInt8] {
        var sink = ByteSink()
        sink.bytes = entityPrefix(set: set, keyBytes: keyBytes)
        sink.string(property)
        return sink.bytes
    }

    static func generationKey(_ generation: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: generation >> UInt64(56 - 8 * $0)) }
    }

    static func chunkKey(_ generation: UInt64, _ index: Int) -> [UInt8] {
        var key = generationKey(generation)
        let i = UInt32(truncatingIfNeeded: index)
        key += [UInt8(truncatingIfNeeded: i >> 24), UInt8(truncatingIfNeeded: i >> 16), UInt8(truncatingIfNeeded: i >> 8),
                UInt8(truncatingIfNeeded: i)]
        return key
    }

    /// The property name an info key ends with (after the entity prefix).
    static func property(ofInfoKey key: [UInt8], prefixCount: Int) throws(ODataError) -> String {
        var source = ByteSource(Array(key[prefixCount...]), what: "media record key")
        return try source.string()
    }
}

extension ODataError {
    /// 3270: a media request the store cannot take (no stream there, a bad content type or range).
    static func mediaInvalid(_ reason: String, _ location: String) -> ODataError {
        ODataError(.invalidInput, name: "invalidMediaRequest", code: 3270, message: reason, location: location)
    }

    /// 3271: a stored stream whose chunks are missing or do not add up to its length.
    static func mediaCorrupted(_ what: String, _ reason: String) -> ODataError {
        ODataError(.clientInternalError, name: "mediaCorrupted", code: 3271,
                   message: "stored stream \(what) is not readable: \(reason)", location: what)
    }

    /// 3272: a range outside the stream (HTTP 416).
    static func mediaRangeNotSatisfiable(_ range: String, length: Int64) -> ODataError {
        ODataError(.invalidInput, name: "rangeNotSatisfiable", code: 3272,
                   message: "the range '\(range)' is outside the stream of \(length) bytes", location: "Range")
    }
}

extension StoreErrorCode {
    /// 3270: a media request the store cannot take.
    public static let invalidMediaRequest = ODataErrorCode(.invalidInput, "invalidMediaRequest", 3270)
    /// 3271: a stored stream that does not read back.
    public static let mediaCorrupted = ODataErrorCode(.clientInternalError, "mediaCorrupted", 3271)
    /// 3272: a range outside the stream (HTTP 416).
    public static let rangeNotSatisfiable = ODataErrorCode(.invalidInput, "rangeNotSatisfiable", 3272)
}

// MARK: - Writing a stream

/// A stream being written: its bytes arrive in pieces of any size and are cut into chunks.
/// Up to `MediaFormat.inlineLimit` bytes stay in memory and are written by the commit that names
/// the stream (`EntityWriteBatch.putMedia`); past it, the chunks are committed in groups as
/// they come, without the storage's writer lock (other writers go on) and without a sync of
/// their own, under a *pending* record, so memory stays bounded whatever the length. The
/// commit that names the stream is synced and makes them durable; until it, no reader sees them,
/// and after a crash the next open removes them (`EntityStorage.sweepPendingMedia`).
///
/// Used by one task at a time. `abandon()` (or a failed write) removes what was staged.
public final class MediaStager: @unchecked Sendable {
    let storage: EntityStorage
    public let contentType: String
    let generation: UInt64
    private var buffer: [UInt8] = []
    private var chunks: [[UInt8]] = []
    private var stagedChunks = 0
    private var pendingWritten = false
    private(set) public var length: Int64 = 0
    private var finished = false
    /// The run file the chunks past `MediaFormat.bulkThreshold` go into, and the worker that
    /// writes them (compression, encryption and the file writes overlap with the app producing
    /// the next bytes).
    private var bulk: BulkLoad?
    private var pipe: ChunkPipe?

    init(storage: EntityStorage, contentType: String) throws(ODataError) {
        self.storage = storage
        self.contentType = contentType
        var generator = SystemRandomNumberGenerator()
        var candidate: UInt64 = 0
        while candidate == 0 { candidate = generator.next() }
        generation = candidate
        buffer.reserveCapacity(MediaFormat.chunkSize)
    }

    /// Adds the next bytes of the stream.
    public func append(_ bytes: some Collection<UInt8>) throws(ODataError) {
        guard !finished else { throw .mediaInvalid("the stream was already finished", "stream") }
        // A whole chunk handed over on a chunk boundary is kept as it is (no copy).
        if buffer.isEmpty, let whole = bytes as? [UInt8], whole.count == MediaFormat.chunkSize {
            length += Int64(whole.count)
            try take(whole)
            return
        }
        var rest = bytes[...]
        while !rest.isEmpty {
            let room = MediaFormat.chunkSize - buffer.count
            let piece = rest.prefix(room)
            buffer.append(contentsOf: piece)
            rest = rest.dropFirst(piece.count)
            length += Int64(piece.count)
            if buffer.count == MediaFormat.chunkSize {
                let full = buffer
                buffer.removeAll(keepingCapacity: true)
                try take(full)
            }
        }
    }

    /// A full chunk: held, and staged with the others once past the inline limit.
    private func take(_ chunk: [UInt8]) throws(ODataError) {
        chunks.append(chunk)
        if (chunks.count + stagedChunks) * MediaFormat.chunkSize > MediaFormat.inlineLimit,
           chunks.count >= MediaFormat.chunksPerCommit || stagedChunks * MediaFormat.chunkSize >= MediaFormat.bulkThreshold {
            try stageChunks()
        }
    }

    /// Commits the chunks held so far (after the pending record, when this is the first time),
    /// or, past `bulkThreshold`, adds them to the stream's own run file.
    private func stageChunks() throws(ODataError) {
        let engine = storage.engine
        let trees = try mapEngine("opening the media trees") { () throws(EngineError) -> (Tree, Tree) in
            (try engine.tree(StoreFormat.systemTree(MediaFormat.chunkTree)), try engine.tree(StoreFormat.systemTree(MediaFormat.pendingTree)))
        }
        if pendingWritten, stagedChunks * MediaFormat.chunkSize >= MediaFormat.bulkThreshold {
            let load: BulkLoad
            if let bulk {
                load = bulk
            } else {
                // A type known to be compressed, or chunks that LZ4 did not shrink (sampled
                // from what is about to go into the run): its blocks are not offered to LZ4.
                let sample = chunks.count <= 3 ? chunks : [chunks[0], chunks[chunks.count / 2], chunks[chunks.count - 1]]
                let compress = !MediaFormat.isCompressed(contentType) && (sample.isEmpty || sample.contains { StorageEngine.lz4Shrinks($0) })
                load = try mapEngine("starting a stream's run") { () throws(EngineError) in try engine.bulkLoad(compress: compress) }
                bulk = load
            }
            let pipe = self.pipe ?? ChunkPipe()
            self.pipe = pipe
            let tree = trees.0
            for chunk in chunks {
                let key = MediaFormat.chunkKey(generation, stagedChunks)
                try mapEngine("writing a stream's chunk") { () throws(EngineError) in
                    try pipe.submit { () throws(EngineError) in try load.put(key, chunk, in: tree) }
                }
                stagedChunks += 1
            }
            chunks.removeAll(keepingCapacity: true)
            return
        }
        var batch = WriteBatch()
        if !pendingWritten {
            batch.put(MediaFormat.generationKey(generation), [0], in: trees.1)
        }
        for chunk in chunks {
            batch.put(MediaFormat.chunkKey(generation, stagedChunks), chunk, in: trees.0)
            stagedChunks += 1
        }
        let staged = batch
        try mapEngine("staging a stream's chunks") { () throws(EngineError) in _ = try engine.commit(staged, durable: false) }
        pendingWritten = true
        chunks.removeAll(keepingCapacity: true)
    }

    /// The stream is complete: what `EntityWriteBatch.putMedia` needs to name it. A stream's
    /// run file is published here (synced, with the pending record that the same install
    /// flushes from the memtable), still named by no record.
    func finish() throws(ODataError) -> StagedMedia {
        finished = true
        if !buffer.isEmpty {
            chunks.append(buffer)
            buffer = []
        }
        if let load = bulk {
            if !chunks.isEmpty { try stageChunks() }
            let pipe = self.pipe
            try mapEngine("writing a stream's chunks") { () throws(EngineError) in try pipe?.drain() }
            bulk = nil
            self.pipe = nil
            let engine = storage.engine
            try mapEngine("publishing a stream's run") { () throws(EngineError) in try engine.install(load) }
        }
        return StagedMedia(generation: generation, length: length, contentType: contentType, firstInline: stagedChunks,
                           inline: chunks, pending: pendingWritten)
    }

    /// Removes the chunks staged so far (the write was cancelled or failed). Idempotent.
    public func abandon() {
        finished = true
        chunks = []
        buffer = []
        if let load = bulk {
            try? pipe?.drain()
            pipe = nil
            load.abandon()
            bulk = nil
        }
        guard pendingWritten else { return }
        pendingWritten = false
        try? storage.removeStagedMedia(generation: generation, chunkCount: stagedChunks)
    }
}

/// Runs the writes of a stream's run file in order on a worker of their own, at most
/// `depth` chunks ahead of the caller (memory stays bounded); the first failure is kept and
/// thrown by the next `submit` or by `drain`.
final class ChunkPipe: @unchecked Sendable {
    private let queue = DispatchQueue(label: "OfflineOData.media.stage")
    private let slots: DispatchSemaphore
    private let group = DispatchGroup()
    private let failure = Mutex<EngineError?>(nil)

    init(depth: Int = 4) { slots = DispatchSemaphore(value: depth) }

    func submit(_ work: @escaping @Sendable () throws(EngineError) -> Void) throws(EngineError) {
        if let error = failure.withLock({ $0 }) { throw error }
        slots.wait()
        group.enter()
        queue.async { [self] in
            defer {
                slots.signal()
                group.leave()
            }
            guard failure.withLock({ $0 }) == nil else { return }
            do throws(EngineError) { try work() } catch { failure.withLock { $0 = $0 ?? error } }
        }
    }

    /// Waits for every submitted write; throws the first failure.
    func drain() throws(EngineError) {
        group.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }
}

/// A finished stream, ready to be named by a commit.
struct StagedMedia: Sendable {
    let generation: UInt64
    let length: Int64
    let contentType: String
    /// Index of the first chunk in `inline` (the chunks before it are staged already).
    let firstInline: Int
    let inline: [[UInt8]]
    /// A pending record exists (chunks were staged).
    let pending: Bool
}

extension EntityStorage {
    /// Starts writing a stream (`MediaStager`).
    public func stageMedia(contentType: String) throws(ODataError) -> MediaStager {
        try MediaStager(storage: self, contentType: contentType)
    }

    /// Deletes the chunks of a generation no record names and its pending record.
    func removeStagedMedia(generation: UInt64, chunkCount: Int?) throws(ODataError) {
        let engine = self.engine
        try mapEngine("removing a staged stream") { () throws(EngineError) in
            let chunkTree = try engine.tree(StoreFormat.systemTree(MediaFormat.chunkTree))
            let pendingTree = try engine.tree(StoreFormat.systemTree(MediaFormat.pendingTree))
            var batch = WriteBatch()
            if let chunkCount {
                for i in 0..<chunkCount { batch.delete(MediaFormat.chunkKey(generation, i), in: chunkTree) }
            } else {
                let snapshot = try engine.snapshot()
                let prefix = MediaFormat.generationKey(generation)
                var end = prefix
                end[7] &+= 1
                var cursor = try snapshot.cursor(in: chunkTree, from: prefix, to: generation == UInt64.max ? nil : end, fillCache: false)
                while let (key, _) = try cursor.next() {
                    guard key.starts(with: prefix) else { break }
                    batch.delete(key, in: chunkTree)
                }
            }
            batch.delete(MediaFormat.generationKey(generation), in: pendingTree)
            _ = try engine.commit(batch)
        }
    }

    /// Removes the chunks of streams whose writing a crash (or a dropped stager) interrupted.
    /// Called when the store opens, before any write. Returns how many such streams it removed.
    @discardableResult
    public func sweepPendingMedia() throws(ODataError) -> Int {
        let reader = try reader()
        var cursor = try reader.systemScan(tree: MediaFormat.pendingTree)
        var generations: [UInt64] = []
        while let (key, _) = try cursor.next() {
            guard key.count == 8 else { throw .storeCorrupted("media.pending", "key of \(key.count) bytes") }
            generations.append(key.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        }
        for generation in generations { try removeStagedMedia(generation: generation, chunkCount: nil) }
        return generations.count
    }
}

extension EntityWriteBatch {
    /// Names a staged stream as the media of an entity (`property` `""`) or the value of its
    /// stream property, in this batch's commit: the record swaps to the new chunks, the old
    /// version's chunks and the pending record go. The entity must exist (in this batch's view).
    mutating func putMedia(_ staged: StagedMedia, set: String, keyBytes: [UInt8], property: String,
                           etag: String?, isLocal: Bool, serverVersion: String? = nil, isAbsent: Bool = false) throws(ODataError) {
        let infoKey = MediaFormat.infoKey(set: set, keyBytes: keyBytes, property: property)
        if let old = try systemValue(tree: MediaFormat.infoTree, key: infoKey) {
            try dropChunks(of: try MediaInfo(decoding: old))
        }
        for (offset, chunk) in staged.inline.enumerated() {
            try putSystem(tree: MediaFormat.chunkTree, key: MediaFormat.chunkKey(staged.generation, staged.firstInline + offset), value: chunk)
        }
        if staged.pending {
            try deleteSystem(tree: MediaFormat.pendingTree, key: MediaFormat.generationKey(staged.generation))
        }
        let info = MediaInfo(contentType: staged.contentType, length: staged.length, etag: etag, isLocal: isLocal,
                             generation: staged.generation, chunkSize: MediaFormat.chunkSize, serverVersion: serverVersion,
                             isAbsent: isAbsent)
        try putSystem(tree: MediaFormat.infoTree, key: infoKey, value: info.encoded())
    }

    /// The stored stream record as this batch sees it.
    func mediaInfo(set: String, keyBytes: [UInt8], property: String) throws(ODataError) -> MediaInfo? {
        guard let bytes = try systemValue(tree: MediaFormat.infoTree, key: MediaFormat.infoKey(set: set, keyBytes: keyBytes, property: property)) else {
            return nil
        }
        return try MediaInfo(decoding: bytes)
    }

    /// Changes a stream's record (its ETag, its local flag) without touching its bytes.
    mutating func updateMediaInfo(set: String, keyBytes: [UInt8], property: String, _ body: (inout MediaInfo) -> Void) throws(ODataError) {
        let key = MediaFormat.infoKey(set: set, keyBytes: keyBytes, property: property)
        guard let bytes = try systemValue(tree: MediaFormat.infoTree, key: key) else { return }
        var info = try MediaInfo(decoding: bytes)
        body(&info)
        try putSystem(tree: MediaFormat.infoTree, key: key, value: info.encoded())
    }

    /// Removes a stream (record and chunks). False when there was none.
    @discardableResult
    mutating func removeMedia(set: String, keyBytes: [UInt8], property: String) throws(ODataError) -> Bool {
        let key = MediaFormat.infoKey(set: set, keyBytes: keyBytes, property: property)
        guard let bytes = try systemValue(tree: MediaFormat.infoTree, key: key) else { return false }
        try dropChunks(of: try MediaInfo(decoding: bytes))
        try deleteSystem(tree: MediaFormat.infoTree, key: key)
        return true
    }

    /// The stream records of one entity (its media resource and stream properties), by property.
    func mediaOfEntity(set: String, keyBytes: [UInt8]) throws(ODataError) -> [(property: String, info: MediaInfo)] {
        let prefix = MediaFormat.entityPrefix(set: set, keyBytes: keyBytes)
        var found: [[UInt8]: [UInt8]] = [:]
        let reader = EntityReader(catalog: catalog, snapshot: snapshot, engine: storage.engine)
        var cursor = try reader.systemScan(tree: MediaFormat.infoTree, from: prefix)
        while let (key, value) = try cursor.next() {
            guard key.starts(with: prefix) else { break }
            found[key] = value
        }
        // This batch's own writes of the tree.
        if let tree = try? EntityStorage.tree(StoreFormat.systemTree(MediaFormat.infoTree), engine: storage.engine),
           let own = overlay[tree] {
            for (key, pending) in own where key.bytes.starts(with: prefix) {
                switch pending {
                case .put(let value): found[key.bytes] = value
                case .deleted: found[key.bytes] = nil
                }
            }
        }
        var out: [(String, MediaInfo)] = []
        for (key, value) in found.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            out.append((try MediaFormat.property(ofInfoKey: key, prefixCount: prefix.count), try MediaInfo(decoding: value)))
        }
        return out
    }

    /// Removes every stream of an entity (it is being deleted).
    mutating func removeAllMedia(set: String, keyBytes: [UInt8]) throws(ODataError) {
        for (property, _) in try mediaOfEntity(set: set, keyBytes: keyBytes) {
            try removeMedia(set: set, keyBytes: keyBytes, property: property)
        }
    }

    /// Moves every stream of an entity to its new key (the back end assigned another one).
    mutating func rekeyMedia(set: String, from oldKey: [UInt8], to newKey: [UInt8]) throws(ODataError) {
        for (property, info) in try mediaOfEntity(set: set, keyBytes: oldKey) {
            try deleteSystem(tree: MediaFormat.infoTree, key: MediaFormat.infoKey(set: set, keyBytes: oldKey, property: property))
            try putSystem(tree: MediaFormat.infoTree, key: MediaFormat.infoKey(set: set, keyBytes: newKey, property: property),
                          value: info.encoded())
        }
    }

    private mutating func dropChunks(of info: MediaInfo) throws(ODataError) {
        for i in 0..<info.chunkCount {
            try deleteSystem(tree: MediaFormat.chunkTree, key: MediaFormat.chunkKey(info.generation, i))
        }
    }
}

// MARK: - Reading a stream

extension EntityReader {
    /// The stored stream of an entity (`property` `""`: its media resource) at this reader's
    /// point in time; nil when there is none.
    public func mediaInfo(set: String, keyBytes: [UInt8], property: String = "") throws(ODataError) -> MediaInfo? {
        guard let bytes = try systemValue(tree: MediaFormat.infoTree,
                                          key: MediaFormat.infoKey(set: set, keyBytes: keyBytes, property: property)) else { return nil }
        return try MediaInfo(decoding: bytes)
    }

    /// The bytes of `range` (default: all) of a stored stream, chunk by chunk, without filling
    /// the block cache.
    public func mediaChunks(_ info: MediaInfo, range: Range<Int64>? = nil) throws(ODataError) -> MediaChunkCursor {
        let range = range ?? 0..<info.length
        guard range.lowerBound >= 0, range.upperBound <= info.length else {
            throw .mediaRangeNotSatisfiable("\(range.lowerBound)-\(range.upperBound - 1)", length: info.length)
        }
        return MediaChunkCursor(reader: self, info: info, range: range)
    }

    /// A whole stored stream in memory (small streams; use `mediaChunks` for large ones).
    public func mediaBytes(_ info: MediaInfo, range: Range<Int64>? = nil) throws(ODataError) -> [UInt8] {
        var cursor = try mediaChunks(info, range: range)
        var out: [UInt8] = []
        out.reserveCapacity(Int(clamping: (range ?? 0..<info.length).count))
        while let piece = try cursor.next() { out += piece }
        return out
    }
}

/// Reads a stored stream's bytes in chunk-sized pieces: one pass over the generation's chunk
/// keys in order (no lookup per chunk), without filling the block cache.
public struct MediaChunkCursor: Sendable {
    let reader: EntityReader
    let info: MediaInfo
    let range: Range<Int64>
    private var position: Int64
    private var index: Int
    private var cursor: SystemCursorBox?

    init(reader: EntityReader, info: MediaInfo, range: Range<Int64>) {
        self.reader = reader
        self.info = info
        self.range = range
        self.position = range.lowerBound
        self.index = Int(range.lowerBound / Int64(info.chunkSize))
    }

    /// The next piece (at most one chunk), or nil at the end of the range.
    public mutating func next() throws(ODataError) -> [UInt8]? {
        guard position < range.upperBound else { return nil }
        let chunkSize = Int64(info.chunkSize)
        let what = "media generation \(info.generation) chunk \(index)"
        if cursor == nil {
            let last = Int((range.upperBound - 1) / chunkSize)
            cursor = SystemCursorBox(try reader.systemScan(tree: MediaFormat.chunkTree, from: MediaFormat.chunkKey(info.generation, index),
                                                           to: MediaFormat.chunkKey(info.generation, last + 1), fillCache: false))
        }
        guard let (key, chunk) = try cursor?.cursor.next(), key == MediaFormat.chunkKey(info.generation, index) else {
            throw .mediaCorrupted(what, "the chunk is missing")
        }
        let chunkStart = Int64(index) * chunkSize
        let expected = Int(min(chunkSize, info.length - chunkStart))
        guard chunk.count == expected else { throw .mediaCorrupted(what, "\(chunk.count) bytes where \(expected) belong") }
        let from = Int(position - chunkStart)
        let to = Int(min(range.upperBound - chunkStart, Int64(chunk.count)))
        position = chunkStart + Int64(to)
        index += 1
        return from == 0 && to == chunk.count ? chunk : Array(chunk[from..<to])
    }
}

/// A system cursor held by a `Sendable` value (used by one reader at a time).
final class SystemCursorBox: @unchecked Sendable {
    var cursor: SystemCursor
    init(_ cursor: SystemCursor) { self.cursor = cursor }
}

/// Reads a stored stream's range in batches of chunks, the two halves of each batch read and
/// decrypted at once on two threads (decryption is what bounds a read), the pieces handed out
/// in order. Memory: one batch (`batchChunks` chunks).
final class MediaBatchReader: @unchecked Sendable {
    let reader: EntityReader
    let info: MediaInfo
    let range: Range<Int64>
    static let batchChunks = 8
    private var nextChunk: Int
    private let lastChunk: Int
    private var ready: [[UInt8]] = []
    private var readyPosition = 0
    private let lock = Mutex(())

    init(reader: EntityReader, info: MediaInfo, range: Range<Int64>?) throws(ODataError) {
        let range = range ?? 0..<info.length
        guard range.lowerBound >= 0, range.upperBound <= info.length else {
            throw .mediaRangeNotSatisfiable("\(range.lowerBound)-\(range.upperBound - 1)", length: info.length)
        }
        self.reader = reader
        self.info = info
        self.range = range
        let size = Int64(info.chunkSize)
        nextChunk = Int(range.lowerBound / size)
        lastChunk = range.isEmpty ? nextChunk - 1 : Int((range.upperBound - 1) / size)
    }

    /// The next piece, or nil at the end of the range.
    func next() throws(ODataError) -> [UInt8]? {
        try lock.withLock { _ throws(ODataError) -> [UInt8]? in
            if readyPosition < ready.count {
                defer { readyPosition += 1 }
                return ready[readyPosition]
            }
            guard nextChunk <= lastChunk else { return nil }
            let end = min(nextChunk + Self.batchChunks, lastChunk + 1)
            let middle = nextChunk + (end - nextChunk + 1) / 2
            let parts = [nextChunk..<middle, middle..<end].filter { !$0.isEmpty }
            let results = Mutex<[Int: Result<[[UInt8]], ODataError>]>([:])
            let size = Int64(info.chunkSize)
            DispatchQueue.concurrentPerform(iterations: parts.count) { n in
                let chunks = parts[n]
                let from = max(range.lowerBound, Int64(chunks.lowerBound) * size)
                let to = min(range.upperBound, Int64(chunks.upperBound) * size)
                let result = Result { () throws(ODataError) -> [[UInt8]] in
                    var cursor = MediaChunkCursor(reader: reader, info: info, range: from..<to)
                    var pieces: [[UInt8]] = []
                    while let piece = try cursor.next() { pieces.append(piece) }
                    return pieces
                }
                results.withLock { $0[n] = result }
            }
            var pieces: [[UInt8]] = []
            for n in parts.indices {
                guard let result = results.withLock({ $0[n] }) else { throw .mediaCorrupted("media generation \(info.generation)", "a part was not read") }
                pieces += try result.get()
            }
            nextChunk = end
            ready = pieces
            readyPosition = 1
            return pieces.first
        }
    }
}
