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
        guard let info = try reader.mediaInfo(set: set, keyBytes: keyBytes, property: property), !info.isAbsent else { return nil }
        return info
    }

    /// The bytes of a stored stream (or of `range` of it), in pieces of at most 64 KiB, read from
    /// the store as they are consumed: the stream as it was when this call was made, whatever
    /// is written after. `invalidMediaRequest` when the entity has no such stream.
    public func readMedia(set: String, key: [ODataValue], property: String = "",
                          range: Range<Int64>? = nil) throws(ODataError) -> AsyncThrowingStream<[UInt8], any Error> {
        try ensureOpen()
        let reader = try storage.reader()
        let keyBytes = try storage.encodeKey(key, in: set)
        guard let info = try reader.mediaInfo(set: set, keyBytes: keyBytes, property: property), !info.isAbsent else {
            throw .mediaInvalid("\(set) has no stored stream \(property.isEmpty ? "(media resource)" : property) for this key", set)
        }
        let box = try MediaBatchReader(reader: reader, info: info, range: range)
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
        let request = try Self.mediaRequest(.put, "", contentType: contentType, adding: ["If-Match": ifMatch], options: options,
                                            headers: headers)
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
        let request = try Self.mediaRequest(.post, set, contentType: contentType, adding: ["Slug": slug], options: options, headers: headers)
        guard let type = model.entityType(ofSet: set), model.isMediaType(type) else {
            throw ODataError.mediaInvalid("entity set '\(set)' does not hold media entities (its type has no HasStream)", set)
        }
        return try await stageAndApply(.createMedia(set: set), request, from: chunks)
    }

    /// The request a stream write stands for: the app's headers, its content type and the given
    /// ones that are set, the option headers read into its options (checked).
    private static func mediaRequest(_ method: ODataMethod, _ url: String, contentType: String, adding extra: [String: String?],
                                     options: RequestOptions, headers: [String: String]) throws(ODataError) -> ODataRequest {
        var all = headers
        all["Content-Type"] = contentType
        for (name, value) in extra { if let value { all[name] = value } }
        let request = ODataRequest(method, url, headers: all, options: try options.applyingHeaders(headers))
        try request.options.validate()
        return request
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
            let staged = try stager.finish()
            return try service.perform { (tx: inout ServiceTransaction) throws(ODataError) -> ODataResponse in
                try service.applyMediaWrite(route, staged, request: request, tx: &tx)
            }
        } catch {
            stager.abandon()
            throw error
        }
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

// MARK: - Door for sync (docs/Sync.md §8)

extension OfflineStore {
    /// The key bytes of `set` for a canonical key predicate (`(42)`, `('A')`).
    func keyBytes(_ set: String, predicate: String) throws(ODataError) -> [UInt8] {
        try storage.encodeKey(try KeyPredicate.parse(predicate, keys: try keyProperties(of: set), version: model.urlVersion), in: set)
    }

    /// The stream property a queued media request writes: `""` for `…/$value` and a media
    /// entity's `POST`, else the URL's last segment (`Products('p')/Manual`).
    package static func mediaProperty(of request: QueuedRequest) -> String {
        if request.method == "POST" { return "" }
        let path = request.url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? request.url
        guard let last = path.split(separator: "/").last, path.contains("/") else { return "" }
        return last == "$value" ? "" : String(last)
    }

    /// The bytes a queued media request sends: the entity's stored stream now (empty when the
    /// entity or its stream is gone: a later queued request deletes it).
    package func queuedMediaBytes(_ request: QueuedRequest) throws(ODataError) -> [UInt8] {
        try ensureOpen()
        let reader = try storage.reader()
        let keyBytes = try keyBytes(request.affectedEntitySet, predicate: request.affectedEntityKey)
        guard let info = try reader.mediaInfo(set: request.affectedEntitySet, keyBytes: keyBytes,
                                              property: Self.mediaProperty(of: request)) else { return [] }
        return try reader.mediaBytes(info)
    }

    /// The stored stream a queued media request sends, to be read piece by piece: its length
    /// and a function that starts a pass over it (every pass reads the stream as it was when
    /// this was called). Nil when the entity or its stream is gone (a later queued request
    /// deletes it: an empty body is sent).
    package func queuedMediaSource(_ request: QueuedRequest) throws(ODataError)
        -> (length: Int64, open: @Sendable () throws(ODataError) -> MediaPieceReader)? {
        try ensureOpen()
        let reader = try storage.reader()
        let keyBytes = try keyBytes(request.affectedEntitySet, predicate: request.affectedEntityKey)
        guard let info = try reader.mediaInfo(set: request.affectedEntitySet, keyBytes: keyBytes,
                                              property: Self.mediaProperty(of: request)), !info.isAbsent else { return nil }
        return (info.length, { () throws(ODataError) -> MediaPieceReader in
            MediaPieceReader(try MediaBatchReader(reader: reader, info: info, range: nil))
        })
    }

    /// The stored stream of an entity named by its key predicate (nil when there is none;
    /// `includingAbsent`: also the record of a stream the back end said it does not have).
    package func mediaInfo(set: String, predicate: String, property: String = "",
                           includingAbsent: Bool = false) throws(ODataError) -> MediaInfo? {
        try ensureOpen()
        guard let info = try storage.reader().mediaInfo(set: set, keyBytes: try keyBytes(set, predicate: predicate),
                                                        property: property) else { return nil }
        return info.isAbsent && !includingAbsent ? nil : info
    }

    /// Records the back end's media ETag of a stream after its upload, and the version the
    /// back end knows it by (`MediaInfo.serverVersion`).
    package func setMediaETag(set: String, predicate: String, property: String = "", etag: String?,
                              serverVersion: String?) throws(ODataError) {
        try ensureOpen()
        let keyBytes = try keyBytes(set, predicate: predicate)
        try storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
            try batch.updateMediaInfo(set: set, keyBytes: keyBytes, property: property) {
                $0.etag = etag
                $0.serverVersion = serverVersion
            }
        }
    }

    /// Stores a stream the back end sent (a download with `automaticallyRetrievesStreams`): it
    /// replaces the stored one unless that was written locally and is not uploaded yet, or the
    /// entity is gone. False when it was not stored.
    @discardableResult
    package func storeDownloadedMedia<Chunks: AsyncSequence>(set: String, predicate: String, property: String = "",
                                                             contentType: String, etag: String?, serverVersion: String?,
                                                             from chunks: Chunks) async throws -> Bool
    where Chunks.Element == [UInt8] {
        try ensureOpen()
        let keyBytes = try keyBytes(set, predicate: predicate)
        let stager = try storage.stageMedia(contentType: contentType)
        do {
            for try await piece in chunks {
                if Task.isCancelled { throw ODataError.offlineCancelled("downloading the stream of \(set)\(predicate)") }
                try stager.append(piece)
            }
            let staged = try stager.finish()
            let stored = try storage.write { (batch: inout EntityWriteBatch) throws(ODataError) -> Bool in
                guard try batch.storedValue(set, keyBytes: keyBytes) != nil else { return false }
                if let current = try batch.mediaInfo(set: set, keyBytes: keyBytes, property: property), current.isLocal { return false }
                try batch.putMedia(staged, set: set, keyBytes: keyBytes, property: property, etag: etag, isLocal: false,
                                   serverVersion: serverVersion)
                return true
            }
            if !stored { stager.abandon() }
            return stored
        } catch {
            stager.abandon()
            throw error
        }
    }

    /// The back end has no stream for the entity (it answered 204 or 404): any downloaded one
    /// goes, and the absence is remembered with `serverVersion` (unless a local stream waits
    /// for upload, or the entity is gone).
    package func markDownloadedMediaAbsent(set: String, predicate: String, property: String = "",
                                           serverVersion: String?) throws(ODataError) {
        try ensureOpen()
        let keyBytes = try keyBytes(set, predicate: predicate)
        let stager = try storage.stageMedia(contentType: "application/octet-stream")
        let staged = try stager.finish()
        try storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
            guard try batch.storedValue(set, keyBytes: keyBytes) != nil else { return }
            if let current = try batch.mediaInfo(set: set, keyBytes: keyBytes, property: property), current.isLocal { return }
            try batch.putMedia(staged, set: set, keyBytes: keyBytes, property: property, etag: nil, isLocal: false,
                               serverVersion: serverVersion, isAbsent: true)
        }
    }
}

/// One pass over a stored stream, piece by piece (for sync's streamed upload bodies).
package final class MediaPieceReader: @unchecked Sendable {
    private let reader: MediaBatchReader
    init(_ reader: MediaBatchReader) { self.reader = reader }
    /// The next piece (at most 64 KiB), nil at the end.
    package func next() throws(ODataError) -> [UInt8]? { try reader.next() }
}
