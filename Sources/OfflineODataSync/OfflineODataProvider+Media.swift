import Foundation
import Synchronization
import OfflineODataModel
import OfflineODataStore

/// Streams in sync (docs/Sync.md §8): queued media writes are uploaded one by one with their
/// bytes and content type (never inside `$batch`), and defining queries with
/// `automaticallyRetrievesStreams` bring the media of their entities after the download,
/// fetched in parallel (bounded) and only where the back end's media ETag differs from the
/// stored one.
extension OfflineODataProvider {
    // MARK: upload

    /// Sends a queued media request (`PUT …/$value`, `PUT` of a stream property, `POST` of a media
    /// entity) alone, with the stored stream as its body, and confirms or archives it. After a
    /// success that names no ETag, the entity is read once for its ETag and media ETag (odatapy
    /// and SAP Gateway answer a media `PUT` with 204 and no ETag). True when the confirmation
    /// re-keyed later requests.
    func sendMedia(_ request: QueuedRequest, run: inout UploadRun, store: OfflineStore) async throws(ODataError) -> Bool {
        let entity = request.entityIdentity ?? ""
        let attempt = try store.beginUploadAttempt(requestID: request.requestID, repeatabilityID: Self.randomUUID(),
                                                   firstSent: Self.imfDate(Date()))
        let current = try? store.currentServerETag(of: request.affectedEntitySet, key: request.affectedEntityKey)
        let ifMatch = run.etags[entity] ?? current ?? request.serverETag
        var http = uploadRequest(request, ifMatch: ifMatch, store: store)
        if transport.acceptsStreamedBodies, let source = try store.queuedMediaSource(request) {
            // Read from the store as it is sent: a 200 MB video is never held whole.
            let open = source.open
            http.streamedBody = HTTPStreamedBody(length: source.length) { StoreBodyReader(try open()) }
        } else {
            http.body = try store.queuedMediaBytes(request)
        }
        if parameters.enableRepeatableRequests {
            http.headers.append((name: "Repeatability-Request-ID", value: attempt.requestID))
            http.headers.append((name: "Repeatability-First-Sent", value: attempt.firstSent))
        }
        let (response, body) = try await writeExchange(http)
        var etag = response.header("ETag") ?? Self.bodyETag(body)
        var mediaETag = Self.bodyMediaETag(body)
        let success = (200..<300).contains(response.status)
        if success, etag == nil || mediaETag == nil {
            // The entity as the back end has it now: its ETag (for the next request's If-Match)
            // and its media ETag (so the next download does not fetch the same bytes again).
            let entityURL = request.method == "POST"
                ? response.header("Location") ?? ""
                : request.affectedEntitySet + URLPercentEncoding.pathSegment(request.affectedEntityKey)
            if !entityURL.isEmpty, let read = try? await readEntityTags(entityURL, store: store) {
                etag = etag ?? read.etag
                mediaETag = mediaETag ?? read.mediaETag
            }
        }
        let outcome = try self.outcome(request, status: response.status, header: { name in
            name.lowercased() == "etag" ? etag : response.header(name)
        }, body: body, run: run, store: store)
        let confirmation = (try store.settleUploads([outcome])).first ?? nil
        if success, let confirmation {
            try store.setMediaETag(set: confirmation.entitySet, predicate: confirmation.entityKey,
                                   property: OfflineStore.mediaProperty(of: request), etag: mediaETag,
                                   serverVersion: mediaETag ?? etag)
        }
        let rekeyed = record(outcome, request: request, confirmation: confirmation, run: &run)
        publishSent(run)
        return rekeyed
    }

    /// `@odata.etag`/`__metadata.etag` and `@odata.mediaEtag`/`__metadata.media_etag` of an entity read from the back end.
    func readEntityTags(_ url: String, store: OfflineStore) async throws(ODataError) -> (etag: String?, mediaETag: String?) {
        let get = HTTPRequest(method: "GET", url: try resolve(url),
                              headers: requestHeaders([("Accept", "application/json")] + versionHeaders(store)),
                              timeout: parameters.timeout)
        let response = try await exchange(get)
        let body = try await collect(response, get)
        guard response.status == 200 else { return (nil, nil) }
        return (response.header("ETag") ?? Self.bodyETag(body), Self.bodyMediaETag(body))
    }

    /// The media ETag in an entity body (V4 `@odata.mediaEtag`, V2 `__metadata.media_etag`).
    static func bodyMediaETag(_ body: [UInt8]) -> String? {
        guard !body.isEmpty, let json = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return nil }
        return MediaLinks(json["d"] as? [String: Any] ?? json).etag   // V2: {"d":{…}}
    }

    // MARK: download

    /// After a download: for each defining query with `automaticallyRetrievesStreams` whose
    /// entities are media entities, fetch the streams whose media ETag changed (or that the
    /// store lacks), `maxConcurrentMediaDownloads` at a time. Entities whose stream was written
    /// locally and not uploaded keep it. Returns the bytes received.
    func downloadStreams(_ store: OfflineStore, names: [String]?) async throws(ODataError) -> Int64 {
        // A query for one media entity (SAP's type 3) is there for its stream: fetched always.
        var queries = try store.definingQueries().filter {
            $0.automaticallyRetrievesStreams || Self.singleEntitySet($0.url, model: store.model) != nil
        }
        if let names { queries = queries.filter { names.contains($0.name) } }
        var jobs: [MediaJob] = []
        for query in queries {
            try checkCancelled()
            jobs += try await mediaJobs(for: query, store: store)
        }
        guard !jobs.isEmpty else { return 0 }
        progressHub.publish(SyncProgress(step: .receivingStreams))
        let total = Mutex<Int64>(0)
        let limit = max(1, parameters.maxConcurrentMediaDownloads)
        let hub = progressHub
        do {
            try await withThrowingTaskGroup(of: Int64.self) { group in
                var next = 0
                func start() {
                    let job = jobs[next]
                    next += 1
                    group.addTask { try await self.fetchStream(job, store: store) }
                }
                while next < min(limit, jobs.count) { start() }
                while let received = try await group.next() {
                    let sum = total.withLock { value -> Int64 in
                        value += received
                        return value
                    }
                    hub.publish(SyncProgress(step: .receivingStreams, bytesReceived: Int(clamping: sum)))
                    if next < jobs.count { start() }
                }
            }
        } catch let error as ODataError {
            throw error
        } catch {
            throw SyncErrorCode.communicationFailed.error("downloading streams: \(error)")
        }
        return total.withLock { $0 }
    }

    /// One stream to fetch.
    struct MediaJob: Sendable {
        var set: String
        var predicate: String
        /// `""`: the media resource; else a stream property.
        var property: String
        var readLink: String
        var etag: String?
        var contentType: String?
        /// The media ETag, else the entity's ETag (`MediaInfo.serverVersion`).
        var version: String?
    }

    /// The streams of one defining query that need fetching: the query is read again (its
    /// entities' keys and control information matter), and each entity's media ETag, those of
    /// the entities its `$expand` brings included, is compared with the stored one.
    func mediaJobs(for query: DefiningQuery, store: OfflineStore) async throws(ODataError) -> [MediaJob] {
        let path = String(query.url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        var setName = path
        while setName.hasPrefix("/") { setName.removeFirst() }
        let single = Self.singleEntitySet(query.url, model: store.model)
        if let single { setName = single }
        guard let set = store.model.entitySet(named: setName), let type = store.model.entityType(ofSet: set.name) else { return [] }
        // The entities its `$expand` brings count too (they are stored in their own sets).
        let expands = query.url.range(of: "expand=", options: .caseInsensitive) != nil
        guard let shape = MediaShape(set: set.name, type: type, model: store.model, depth: expands ? Self.maxExpandDepth : 0) else { return [] }
        var jobs: [MediaJob] = []
        var url: String? = try resolve(query.url)
        var pages = 0
        while let next = url {
            try checkCancelled()
            pages += 1
            guard pages <= 100_000 else { throw SyncErrorCode.invalidPayload.error("more than 100000 pages of \(query.name)") }
            let get = HTTPRequest(method: "GET", url: next,
                                  headers: requestHeaders([("Accept", "application/json"),
                                                           ("Prefer", "odata.maxpagesize=\(parameters.pageSize)")] + versionHeaders(store)),
                                  timeout: parameters.timeout)
            let response = try await exchange(get)
            let body = try await collect(response, get)
            if single != nil, response.status == 404 { break }   // the entity is gone (the download removed it)
            guard response.status == 200 else {
                throw SyncErrorCode.requestRejected.error("GET \(next) for the streams of \(query.name) answered \(response.status)", at: next)
            }
            guard let json = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
                throw SyncErrorCode.invalidPayload.error("the answer to GET \(next) is not a JSON object", at: next)
            }
            let root = json["d"] as? [String: Any] ?? json
            let rows = single != nil ? [root]
                : root["value"] as? [[String: Any]] ?? root["results"] as? [[String: Any]] ?? json["d"] as? [[String: Any]] ?? []
            for row in rows {
                try appendJobs(row, shape: shape, store: store, into: &jobs)
            }
            url = single != nil ? nil : (root["@odata.nextLink"] as? String ?? root["__next"] as? String).flatMap { try? resolve($0) }
        }
        return jobs
    }

    /// Levels of `$expand` whose entities' streams are fetched.
    static let maxExpandDepth = 4

    /// Where the streams of a query's entities are, worked out once per query from the model:
    /// whether the set's entities are media entities, their stream properties and key, and the
    /// navigations (up to `depth` levels) whose expanded entities carry streams in turn.
    struct MediaShape {
        let set: String
        let isMedia: Bool
        let streamProperties: [String]
        let keys: [CSDLProperty]
        let expanded: [(navigation: String, shape: MediaShape)]

        /// Nil when neither these entities nor any reached from them carry a stream.
        init?(set: String, type: CSDLEntityType, model: ServiceModel, depth: Int) {
            isMedia = model.isMediaType(type)
            streamProperties = model.allProperties(of: type).filter { !$0.type.isCollection && $0.type.primitiveKind == .stream }.map(\.name)
            var expanded: [(navigation: String, shape: MediaShape)] = []
            if depth > 0 {
                for navigation in model.allNavigationProperties(of: type) where !navigation.containsTarget {
                    guard let target = model.navigationTarget(set: set, navigation: navigation.name),
                          let targetType = model.entityType(ofSet: target.name),
                          let shape = MediaShape(set: target.name, type: targetType, model: model, depth: depth - 1) else { continue }
                    expanded.append((navigation.name, shape))
                }
            }
            guard isMedia || !streamProperties.isEmpty || !expanded.isEmpty else { return nil }
            self.set = set
            self.keys = model.keyProperties(of: type)
            self.expanded = expanded
        }
    }

    /// The streams of one entity of the answer that need fetching, and those of the entities
    /// expanded in it: V4 arrays or objects, V2 `{"results":[…]}` or objects (a `__deferred`
    /// link was not expanded).
    func appendJobs(_ row: [String: Any], shape: MediaShape, store: OfflineStore, into jobs: inout [MediaJob]) throws(ODataError) {
        if shape.isMedia || !shape.streamProperties.isEmpty, let predicate = entityPredicate(row, keys: shape.keys, store: store) {
            let links = MediaLinks(row)
            let entityPath = shape.set + URLPercentEncoding.pathSegment(predicate)
            // The media resource, then each stream property (`Manual@odata.mediaReadLink`, …).
            var streams: [(property: String, links: MediaLinks, fallback: String)] = []
            if shape.isMedia { streams.append(("", links, entityPath + "/$value")) }
            for name in shape.streamProperties { streams.append((name, MediaLinks(row, property: name), entityPath + "/" + name)) }
            for (property, links, fallback) in streams {
                // Unchanged since it was stored (or found absent): media ETag, else entity ETag.
                let version = links.etag ?? Self.entityETag(row)
                let stored = try store.mediaInfo(set: shape.set, predicate: predicate, property: property, includingAbsent: true)
                if stored?.isLocal == true { continue }
                if let stored, let version, stored.serverVersion == version { continue }
                jobs.append(MediaJob(set: shape.set, predicate: predicate, property: property, readLink: links.readLink ?? fallback,
                                     etag: links.etag, contentType: links.contentType, version: version))
            }
        }
        for (navigation, child) in shape.expanded {
            let nested: [[String: Any]]
            if let array = row[navigation] as? [[String: Any]] {
                nested = array
            } else if let object = row[navigation] as? [String: Any], object["__deferred"] == nil {
                nested = object["results"] as? [[String: Any]] ?? [object]
            } else {
                continue
            }
            for entity in nested { try appendJobs(entity, shape: child, store: store, into: &jobs) }
        }
    }

    /// The key predicate of an entity of the answer (nil when its key is missing or malformed).
    func entityPredicate(_ row: [String: Any], keys: [CSDLProperty], store: OfflineStore) -> String? {
        var values: [ODataValue] = []
        for key in keys {
            guard let raw = row[key.name], let value = Self.keyValue(raw, type: key.type.primitiveKind) else { return nil }
            values.append(value)
        }
        guard !keys.isEmpty else { return nil }
        return try? KeyPredicate.format(values, keys: keys.map { KeyProperty($0.name, $0.type.primitiveKind ?? .string) },
                                        version: isV2(store) ? .v2 : .v4)
    }

    /// Bytes asked for per range request.
    static let rangeBytes: Int64 = 8 << 20
    /// Times one stream's fetch resumes after its connection broke off.
    static let rangeRetries = 3

    /// Fetches one stream into the store, streaming its body. It is asked for in ranges of 8 MiB
    /// (`Range`, `If-Range` with the first answer's ETag): a connection that breaks off resumes
    /// at the byte it reached (up to three times), and what is held waiting for the store stays
    /// bounded. A back end that ignores ranges (200) sends it whole in one answer. 204 or 404:
    /// the back end has no stream. Returns the bytes received.
    func fetchStream(_ job: MediaJob, store: OfflineStore) async throws -> Int64 {
        let url = try resolve(job.readLink)
        let get = HTTPRequest(method: "GET", url: url,
                              headers: requestHeaders(versionHeaders(store) + [("Range", "bytes=0-\(Self.rangeBytes - 1)")]),
                              timeout: parameters.timeout)
        let response = try await exchange(get)
        let counter = ByteCounter()
        let body: RangedBody
        switch response.status {
        case 200:
            body = RangedBody(provider: self, url: url, headers: versionHeaders(store), first: response.body, position: 0,
                              end: response.header("Content-Length").flatMap { Int64($0) }, total: nil, validator: nil, counter: counter)
        case 206:
            guard let (first, last, total) = Self.contentRange(response.header("Content-Range")), first == 0, last < total else {
                throw SyncErrorCode.invalidPayload.error("GET \(job.readLink) answered 206 with Content-Range '\(response.header("Content-Range") ?? "")'",
                                                         at: job.readLink)
            }
            body = RangedBody(provider: self, url: url, headers: versionHeaders(store), first: response.body, position: 0, end: last + 1,
                              total: total, validator: response.header("ETag") ?? response.header("Last-Modified"), counter: counter)
        case 416:
            // A range of an empty stream: nothing to fetch, an empty stream to store.
            body = RangedBody(provider: self, url: url, headers: [], first: HTTPBody([]), position: 0, end: 0, total: 0, validator: nil,
                              counter: counter)
        case 204, 404:
            try store.markDownloadedMediaAbsent(set: job.set, predicate: job.predicate, property: job.property, serverVersion: job.version)
            return 0
        default:
            throw SyncErrorCode.requestRejected.error("GET \(job.readLink) answered \(response.status)", at: job.readLink)
        }
        do {
            try await store.storeDownloadedMedia(set: job.set, predicate: job.predicate, property: job.property,
                                                 contentType: response.header("Content-Type") ?? job.contentType ?? "application/octet-stream",
                                                 etag: response.header("ETag") ?? job.etag, serverVersion: job.version, from: body)
        } catch let error as ODataError {
            throw error
        } catch let error as TransportError {
            throw error.syncError(get)
        } catch is CancellationError {
            throw SyncErrorCode.cancelled.error("GET \(job.readLink) was cancelled")
        } catch {
            throw SyncErrorCode.connectionReset.error("GET \(job.readLink): the stream broke off: \(error)", at: job.readLink)
        }
        return counter.value.withLock { $0 }
    }

    /// `bytes first-last/total` (RFC 9110 §14.4); nil when it is not that.
    static func contentRange(_ header: String?) -> (Int64, Int64, Int64)? {
        guard let header, header.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = header.dropFirst(6)
        let parts = spec.split(separator: "/")
        guard parts.count == 2, let total = Int64(parts[1]) else { return nil }
        let bounds = parts[0].split(separator: "-")
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first <= last else { return nil }
        return (first, last, total)
    }

    /// An entity row's ETag (V4 `@odata.etag`, V2 `__metadata.etag`).
    static func entityETag(_ row: [String: Any]) -> String? {
        row["@odata.etag"] as? String ?? row["@etag"] as? String ?? (row["__metadata"] as? [String: Any])?["etag"] as? String
    }

    /// A JSON key value as the model's key kind.
    static func keyValue(_ raw: Any, type: EdmPrimitiveKind?) -> ODataValue? {
        switch (raw, type) {
        case (let s as String, .string?), (let s as String, nil): return .string(s)
        case (let s as String, .guid?): return (try? EdmGuid(parsing: s)).map(ODataValue.guid)
        case (let s as String, .int64?): return Int64(s).map(ODataValue.int64)
        case (let n as NSNumber, .int32?): return Int32(exactly: n.int64Value).map(ODataValue.int32)
        case (let n as NSNumber, .int64?): return .int64(n.int64Value)
        case (let n as NSNumber, .int16?): return Int16(exactly: n.int64Value).map(ODataValue.int16)
        case (let s as String, .int32?): return Int32(s).map(ODataValue.int32)
        default: return nil
        }
    }
}

/// The media control information of an entity: V4 `@odata.mediaReadLink`, `@odata.mediaEtag`,
/// `@odata.mediaContentType`; V2 `__metadata.media_src`, `media_etag`, `content_type`.
struct MediaLinks {
    var readLink: String?
    var etag: String?
    var contentType: String?

    /// The links of a stream property: `Name@odata.mediaReadLink`, `Name@odata.mediaEtag`, …
    init(_ row: [String: Any], property name: String) {
        readLink = row[name + "@odata.mediaReadLink"] as? String ?? row[name + "@mediaReadLink"] as? String
        etag = row[name + "@odata.mediaEtag"] as? String ?? row[name + "@mediaEtag"] as? String
        contentType = row[name + "@odata.mediaContentType"] as? String ?? row[name + "@mediaContentType"] as? String
    }

    init(_ row: [String: Any]) {
        if let metadata = row["__metadata"] as? [String: Any] {
            readLink = metadata["media_src"] as? String
            etag = metadata["media_etag"] as? String
            contentType = metadata["content_type"] as? String
        } else {
            readLink = row["@odata.mediaReadLink"] as? String ?? row["@mediaReadLink"] as? String
            etag = row["@odata.mediaEtag"] as? String ?? row["@mediaEtag"] as? String
            contentType = row["@odata.mediaContentType"] as? String ?? row["@mediaContentType"] as? String
        }
    }
}

/// Bytes received so far.
final class ByteCounter: Sendable {
    let value = Mutex<Int64>(0)
}

/// A stream's bytes as a back end sends them, range after range (see `fetchStream`): the body
/// of the first answer, then `Range: bytes=position-…` requests for the rest; a body that breaks
/// off (or ends short) is asked for again from the byte it reached. Each answer must continue
/// exactly where the last one ended (`Content-Range`) and be of the same version (`If-Range`;
/// a 200 instead of a 206 means the stream changed meanwhile: the fetch fails, the next
/// download fetches the new one).
struct RangedBody: AsyncSequence, Sendable {
    typealias Element = [UInt8]
    let provider: OfflineODataProvider
    let url: String
    let headers: [(String, String)]
    let first: HTTPBody
    let position: Int64
    /// Where the current answer's bytes end (nil: unknown, a 200 without Content-Length).
    let end: Int64?
    /// The stream's length (nil: the back end ignores ranges; one answer is all).
    let total: Int64?
    let validator: String?
    let counter: ByteCounter

    struct Iterator: AsyncIteratorProtocol {
        let body: RangedBody
        var current: HTTPBody.AsyncIterator
        var position: Int64
        var end: Int64?
        var retries = 0

        mutating func next() async throws -> [UInt8]? {
            while true {
                do {
                    if let chunk = try await current.next() {
                        if let end = end, position + Int64(chunk.count) > end {
                            throw SyncErrorCode.invalidPayload.error("GET \(body.url): more bytes than the answer announced", at: body.url)
                        }
                        position += Int64(chunk.count)
                        body.counter.value.withLock { $0 += Int64(chunk.count) }
                        return chunk
                    }
                } catch let error as ODataError where error.code != SyncErrorCode.connectionReset.code {
                    throw error
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    // Broken off: ask again from here, when the back end serves ranges.
                    guard body.total != nil, retries < OfflineODataProvider.rangeRetries else { throw error }
                    retries += 1
                    try await request(from: position)
                    continue
                }
                // This answer ended.
                if let end, position < end {
                    guard body.total != nil, retries < OfflineODataProvider.rangeRetries else {
                        throw SyncErrorCode.connectionReset.error("GET \(body.url): the stream ended after \(position) of \(end) bytes",
                                                                  at: body.url)
                    }
                    retries += 1
                    try await request(from: position)
                    continue
                }
                guard let total = body.total, position < total else { return nil }
                try await request(from: position)
            }
        }

        /// The next range, from `from`.
        mutating func request(from start: Int64) async throws {
            guard let total = body.total else { return }
            // No overflow whatever length the back end announced.
            let last = total - start > OfflineODataProvider.rangeBytes ? start + OfflineODataProvider.rangeBytes - 1 : total - 1
            var own = body.headers + [("Range", "bytes=\(start)-\(last)")]
            if let validator = body.validator { own.append(("If-Range", validator)) }
            let request = HTTPRequest(method: "GET", url: body.url, headers: body.provider.requestHeaders(own),
                                      timeout: body.provider.parameters.timeout)
            let response = try await body.provider.exchange(request)
            guard response.status == 206, let (first, rangeLast, length) = OfflineODataProvider.contentRange(response.header("Content-Range")),
                  first == start, length == total, rangeLast <= last else {
                throw SyncErrorCode.connectionReset.error(
                    "GET \(body.url) from byte \(start): answered \(response.status) \(response.header("Content-Range") ?? "") "
                        + "(the stream changed or the back end stopped serving ranges); the next download fetches it again", at: body.url)
            }
            current = response.body.makeAsyncIterator()
            end = rangeLast + 1
        }
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(body: self, current: first.makeAsyncIterator(), position: position, end: end)
    }
}

/// A stored stream's pass as a request body reader.
final class StoreBodyReader: HTTPBodyReader, @unchecked Sendable {
    let pieces: MediaPieceReader
    init(_ pieces: MediaPieceReader) { self.pieces = pieces }
    func next() throws -> [UInt8]? { try pieces.next() }
}
