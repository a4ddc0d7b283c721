import OfflineODataModel
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Streams of media entities and stream properties, written from and read to byte sequences or
/// files, so that an app never holds a whole stream in memory (docs/LocalService.md §2.10).
/// `execute` offers the same through requests (`PUT Photos(1)/$value` with the bytes as body).
extension OfflineStore {
    /// The stored stream of an entity: its media resource (`property` `""`) or the value of an
    /// `Edm.Stream` property. Nil when the entity has none; `entityNotFound` without the entity.
    public func mediaInfo(set: String, key: [ODataValue], property: String = "") throws(ODataError) -> MediaInfo? {
        try ensureOpen()
        let reader = try storage.reader()
        let keyBytes = try storage.encodeKey(key, in: set)
        guard try reader.entity(in: set, keyBytes: keyBytes) != nil else {
            throw .serviceEntityNotFound(set, "")
        }
        return try reader.mediaInfo(set: set, keyBytes: keyBytes, property: property)
    }

    /// The bytes of a stored stream (or of `range` of it), in pieces of at most 64 KiB, read from
    /// the store as they are consumed: the stream as it was when this call was made, whatever
    /// is written after. `invalidMediaRequest` when the entity has no such stream.
    public func readMedia(set: String, key: [ODataValue], property: String = "",
                          range: Range<Int64>? = nil) throws(ODataError) -> AsyncThrowingStream<[UInt8], any Error> {
        try ensureOpen()
        let reader = try storage.reader()
        let keyBytes = try storage.encodeKey(key, in: set)
        guard let info = try reader.mediaInfo(set: set, keyBytes: keyBytes, property: property) else {
            throw .mediaInvalid("\(set) has no stored stream \(property.isEmpty ? "(media resource)" : property) for this key", set)
        }
        let box = CursorBox(try reader.mediaChunks(info, range: range))
        return AsyncThrowingStream(unfolding: {
            try Task.checkCancellation()
            return try box.next()
        })
    }

    /// Writes a stored stream into a file (created or truncated). Returns the bytes written.
    @discardableResult
    public func readMedia(set: String, key: [ODataValue], property: String = "", toFile path: String) async throws -> Int64 {
        let pieces = try readMedia(set: set, key: key, property: property)
        let fd = posixOpen(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ODataError.offlineFileError(path, "opening for writing: \(String(cString: strerror(errno)))") }
        defer { posixClose(fd) }
        var total: Int64 = 0
        for try await piece in pieces {
            let failure: Int32 = piece.withUnsafeBytes { raw -> Int32 in
                var offset = 0
                while offset < raw.count {
                    guard let base = raw.baseAddress else { return 0 }
                    let n = write(fd, base + offset, raw.count - offset)
                    if n < 0 {
                        if errno == EINTR { continue }
                        return errno
                    }
                    offset += n
                }
                return 0
            }
            if failure != 0 { throw ODataError.offlineFileError(path, "writing: \(String(cString: strerror(failure)))") }
            total += Int64(piece.count)
        }
        return total
    }

    /// Replaces the stream of an existing entity (`PUT …/$value`, or a stream property) with the
    /// bytes of `chunks`, of any size each. The bytes are staged as they come, without blocking
    /// other writers; then, in one commit, the stream is swapped, the entity takes a new ETag
    /// and is pending, and the request is queued for upload. Cancelled (the task) or failed,
    /// nothing changes and the staged bytes are removed. `ifMatch` is checked against the
    /// entity's ETag.
    @discardableResult
    public func writeMedia<Chunks: AsyncSequence>(set: String, key: [ODataValue], property: String = "", contentType: String,
                                                  from chunks: Chunks, ifMatch: String? = nil,
                                                  options: RequestOptions = RequestOptions(),
                                                  headers: [String: String] = [:]) async throws -> ODataResponse
    where Chunks.Element == [UInt8] {
        try ensureOpen()
        var all = headers
        all["Content-Type"] = contentType
        if let ifMatch { all["If-Match"] = ifMatch }
        let request = ODataRequest(.put, "", headers: all, options: try options.applyingHeaders(headers))
        try request.options.validate()
        return try await stageAndApply(.putMedia(set: set, key: key, property: property), request, from: chunks)
    }

    /// Creates a media entity with the bytes of `chunks` as its stream (`POST Photos` with the
    /// bytes as body; `slug` is sent to the back end as `Slug`). Its key is temporary until the
    /// upload brings the back end's. 201 with the created entity.
    @discardableResult
    public func createMedia<Chunks: AsyncSequence>(in set: String, contentType: String, slug: String? = nil, from chunks: Chunks,
                                                   options: RequestOptions = RequestOptions(),
                                                   headers: [String: String] = [:]) async throws -> ODataResponse
    where Chunks.Element == [UInt8] {
        try ensureOpen()
        var all = headers
        all["Content-Type"] = contentType
        if let slug { all["Slug"] = slug }
        let request = ODataRequest(.post, set, headers: all, options: try options.applyingHeaders(headers))
        try request.options.validate()
        guard let type = model.entityType(ofSet: set), model.isMediaType(type) else {
            throw ODataError.mediaInvalid("entity set '\(set)' does not hold media entities (its type has no HasStream)", set)
        }
        return try await stageAndApply(.createMedia(set: set), request, from: chunks)
    }

    /// `writeMedia` from a file, read in 64 KiB pieces.
    @discardableResult
    public func writeMedia(set: String, key: [ODataValue], property: String = "", contentType: String, fromFile path: String,
                           ifMatch: String? = nil, options: RequestOptions = RequestOptions()) async throws -> ODataResponse {
        try await writeMedia(set: set, key: key, property: property, contentType: contentType,
                             from: try FileChunks(path: path), ifMatch: ifMatch, options: options)
    }

    private func stageAndApply<Chunks: AsyncSequence>(_ route: LocalService.Route, _ request: ODataRequest,
                                                      from chunks: Chunks) async throws -> ODataResponse
    where Chunks.Element == [UInt8] {
        let contentType = try LocalService.mediaContentType(request)
        let stager = try storage.stageMedia(contentType: contentType)
        do {
            for try await piece in chunks {
                if Task.isCancelled { throw ODataError.offlineCancelled("writing a stream of '\(request.url)'") }
                try stager.append(piece)
            }
            if Task.isCancelled { throw ODataError.offlineCancelled("writing a stream of '\(request.url)'") }
            let staged = stager.finish()
            return try service.perform { (tx: inout ServiceTransaction) throws(ODataError) -> ODataResponse in
                try service.applyMediaWrite(route, staged, request: request, tx: &tx)
            }
        } catch {
            stager.abandon()
            throw error
        }
    }
}

/// The cursor of a stream being read, shared with the `AsyncThrowingStream` that drains it.
private final class CursorBox: @unchecked Sendable {
    private var cursor: MediaChunkCursor
    private let lock = Mutex(())
    init(_ cursor: MediaChunkCursor) { self.cursor = cursor }
    func next() throws(ODataError) -> [UInt8]? {
        try lock.withLock { _ throws(ODataError) -> [UInt8]? in try cursor.next() }
    }
}

/// A file's bytes in 64 KiB pieces.
public struct FileChunks: AsyncSequence, Sendable {
    public typealias Element = [UInt8]
    let path: String

    public init(path: String) throws(ODataError) {
        var status = stat()
        guard stat(path, &status) == 0 else { throw .offlineFileError(path, "reading: \(String(cString: strerror(errno)))") }
        self.path = path
    }

    public func makeAsyncIterator() -> Iterator { Iterator(path: path) }

    public final class Iterator: AsyncIteratorProtocol {
        let path: String
        var fd: Int32 = -1
        var done = false
        init(path: String) { self.path = path }
        deinit { if fd >= 0 { posixClose(fd) } }

        public func next() async throws -> [UInt8]? {
            if done { return nil }
            if fd < 0 {
                fd = posixOpen(path, O_RDONLY | O_CLOEXEC, 0)
                guard fd >= 0 else { throw ODataError.offlineFileError(path, "opening: \(String(cString: strerror(errno)))") }
            }
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw ODataError.offlineFileError(path, "reading: \(String(cString: strerror(errno)))")
                }
                if n == 0 {
                    done = true
                    return nil
                }
                buffer.removeSubrange(n...)
                return buffer
            }
        }
    }
}

private func posixOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func posixClose(_ fd: Int32) { _ = close(fd) }
