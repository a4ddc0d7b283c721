import OfflineODataModel
import OfflineODataQuery

/// Media resources and stream properties through the local service (docs/LocalService.md §2.10):
/// `GET`/`PUT Set(key)/$value`, `GET`/`PUT Set(key)/StreamProperty`, `POST Set` of a media
/// entity type with a non-JSON body. The bytes are kept as described in docs/StoreFormat.md §11.
extension LocalService {
    /// The stream a resource path names: the media resource of an entity of a media type
    /// (`Photos(1)/$value`, property `""`) or an `Edm.Stream` property (`Products(1)/Manual`,
    /// with or without `/$value`). Nil when the path names no stream.
    func mediaTarget(_ path: BoundResourcePath) -> (set: String, key: [ODataValue], property: String)? {
        let steps = path.steps.filter { if case .typeCast = $0 { return false } else { return true } }
        // A singleton's stream (`Me/Photo`, `Me/$value`): its one stored entity.
        if let first = steps.first, case .singleton(let name) = first {
            let property: String
            if steps.count == 1, path.suffix == .value, case .entity = path.target {
                property = ""
            } else if steps.count == 2, case .property(let name, let type) = steps[1], !type.isCollection, type.primitiveKind == .stream,
                      path.suffix == .none || path.suffix == .value {
                property = name
            } else {
                return nil
            }
            // Only a stream path reads the singleton's one entity.
            guard let stored = try? storage.reader().scan(name), let key = Self.singletonKey(stored) else { return nil }
            return (name, key, property)
        }
        guard steps.count >= 2, case .entitySet(let set) = steps[0], case .key(let key) = steps[1] else { return nil }
        if steps.count == 2, path.suffix == .value, case .entity = path.target { return (set, key, "") }
        if steps.count == 3, case .property(let name, let type) = steps[2], !type.isCollection, type.primitiveKind == .stream,
           path.suffix == .none || path.suffix == .value {
            return (set, key, name)
        }
        // Through navigation (`SalesOrders('1')/Photo/$value`, `…/Items(2)/Manual`): the entity
        // the path leads to now, then its stream.
        var property = ""
        var entitySteps = steps
        if case .property(let name, let type)? = steps.last, !type.isCollection, type.primitiveKind == .stream,
           path.suffix == .none || path.suffix == .value {
            property = name
            entitySteps.removeLast()
        } else if path.suffix == .value, case .entity(_, let typeName) = path.target,
                  let type = model.entityType(qualifiedName: typeName), model.isMediaType(type) {
            property = ""
        } else {
            return nil
        }
        guard entitySteps.contains(where: { if case .navigation = $0 { return true } else { return false } }),
              let found = try? resolveEntity(BoundResourcePath(steps: entitySteps, target: .serviceDocument)) else { return nil }
        return (found.set, found.key, property)
    }

    /// The entity a path of set, key and navigation steps leads to in the store now.
    private func resolveEntity(_ path: BoundResourcePath) throws(ODataError) -> (set: String, key: [ODataValue])? {
        var url = ""
        for step in path.steps {
            switch step {
            case .entitySet(let name): url += name
            case .key(let values):
                guard let set = Self.setOf(url, model: model) else { return nil }
                url += try KeyPredicate.format(values, keys: try storage.setInfo(set).keyProperties, version: version)
            case .navigation(let name, _, _, _): url += "/" + name
            default: return nil
            }
        }
        let result = try QueryExecutor(reader: try storage.reader(), model: model).execute(url)
        guard let set = result.entitySet, let entity = result.entities.first, result.entities.count == 1 else { return nil }
        let key = try storage.keyProperties(of: set).compactMap { entity[property: $0] }
        return (set, key)
    }

    /// The entity set a URL built so far addresses (its last set or navigation target).
    private static func setOf(_ url: String, model: ServiceModel) -> String? {
        guard let parsed = try? ODataURLParser.parse(url, version: model.urlVersion),
              let bound = try? ResourcePathBinder(model: model, aliases: parsed.options.aliases).bind(parsed.path) else { return nil }
        return bound.targetSet
    }

    /// The key of a singleton's one stored entity (nil when it holds none).
    static func singletonKey(_ cursor: EntityCursor) -> [ODataValue]? {
        var cursor = cursor
        guard let entity = try? cursor.next() else { return nil }
        return try? entity.key()
    }

    /// True when a POST to `set` carries the media resource itself (a media type and a body
    /// that is not JSON).
    func isMediaCreate(set: String, _ request: ODataRequest) -> Bool {
        guard let type = model.entityType(ofSet: set), model.isMediaType(type) else { return false }
        guard let contentType = request.header("Content-Type") else { return false }
        return !Self.isJSON(contentType)
    }

    static func isJSON(_ contentType: String) -> Bool {
        let base = contentType.split(separator: ";").first.map { String($0).trimmingSpaces.lowercased() } ?? ""
        return base == "application/json" || base.hasSuffix("+json")
    }

    /// The media type of a stream write: the request's `Content-Type` (parameters kept), else
    /// `application/octet-stream`. Control characters are refused.
    static func mediaContentType(_ request: ODataRequest) throws(ODataError) -> String {
        guard let given = request.header("Content-Type")?.trimmingSpaces, !given.isEmpty else { return "application/octet-stream" }
        guard given.utf8.count <= 1024, !given.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }),
              given.contains("/") else {
            throw .mediaInvalid("the Content-Type '\(given.prefix(64))' is not a media type", "Content-Type")
        }
        return given
    }

    // MARK: reading

    /// `GET` of a stream: its bytes with their content type and media ETag; `Range: bytes=…`
    /// gives 206 with the part; an entity without a stored stream answers 204.
    func readMedia(_ request: ODataRequest, set: String, key: [ODataValue], property: String) throws(ODataError) -> ODataResponse {
        let reader = try storage.reader()
        let keyBytes = try storage.encodeKey(key, in: set)
        guard try reader.entity(in: set, keyBytes: keyBytes) != nil else {
            let path = pathPart(request.url)
            let predicate = path.hasPrefix(set) ? path.dropFirst(set.count).prefix { $0 != "/" } : Substring(path)
            throw .serviceEntityNotFound(set, String(predicate))
        }
        guard let info = try reader.mediaInfo(set: set, keyBytes: keyBytes, property: property), !info.isAbsent else {
            return ODataResponse(status: 204)
        }
        var headers = ["Content-Type": info.contentType]
        if let etag = info.etag { headers["ETag"] = etag }
        if let range = request.header("Range") {
            let part = try Self.byteRange(range, length: info.length)
            headers["Content-Range"] = "bytes \(part.lowerBound)-\(part.upperBound - 1)/\(info.length)"
            return ODataResponse(status: 206, headers: headers, body: try reader.mediaBytes(info, range: part))
        }
        return ODataResponse(status: 200, headers: headers, body: try reader.mediaBytes(info))
    }

    /// One range of `Range: bytes=first-last`, `bytes=first-` or `bytes=-suffix` (RFC 9110
    /// §14.1.2) within a stream of `length` bytes. Several ranges are not supported.
    static func byteRange(_ header: String, length: Int64) throws(ODataError) -> Range<Int64> {
        let text = header.trimmingSpaces
        guard text.lowercased().hasPrefix("bytes=") else { throw .mediaInvalid("the Range '\(text.prefix(64))' is not a byte range", "Range") }
        let spec = text.dropFirst(6).trimmingCharacters
        guard !spec.contains(",") else { throw .serviceNotSupported("more than one range in one request", "Range") }
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw .mediaInvalid("the Range '\(spec.prefix(64))' has no '-'", "Range") }
        let first = parts[0].isEmpty ? nil : Int64(parts[0])
        let last = parts[1].isEmpty ? nil : Int64(parts[1])
        if !parts[0].isEmpty && first == nil || !parts[1].isEmpty && last == nil {
            throw .mediaInvalid("the Range '\(spec.prefix(64))' is not made of byte positions", "Range")
        }
        switch (first, last) {
        case (let f?, let l?):
            guard f >= 0, l >= f else { throw .mediaInvalid("the Range '\(spec)' ends before it starts", "Range") }
            guard f < length else { throw .mediaRangeNotSatisfiable(spec, length: length) }
            return f..<min(l, length - 1) + 1
        case (let f?, nil):
            guard f >= 0, f < length else { throw .mediaRangeNotSatisfiable(spec, length: length) }
            return f..<length
        case (nil, let n?):
            guard n > 0, length > 0 else { throw .mediaRangeNotSatisfiable(spec, length: length) }
            return max(0, length - n)..<length
        case (nil, nil):
            throw .mediaInvalid("the Range '\(spec)' names no position", "Range")
        }
    }

    // MARK: writing

    /// `PUT` of a stream or `POST` of a media entity through `execute`: the body is staged
    /// first (outside the writer lock), then named in one commit with the entity's change and
    /// its queued request.
    func executeMediaWrite(_ route: Route, _ request: ODataRequest) throws(ODataError) -> ODataResponse {
        let contentType = try Self.mediaContentType(request)
        let stager = try storage.stageMedia(contentType: contentType)
        do throws(ODataError) {
            try stager.append(request.body ?? [])
            let staged = try stager.finish()
            return try perform { (tx: inout ServiceTransaction) throws(ODataError) -> ODataResponse in
                try self.applyMediaWrite(route, staged, request: request, tx: &tx)
            }
        } catch {
            stager.abandon()
            throw error
        }
    }

    /// Names a staged stream in a transaction: the stream of an existing entity replaced
    /// (`PUT`), or a new media entity created with it (`POST`); the request is queued.
    func applyMediaWrite(_ route: Route, _ staged: StagedMedia, request: ODataRequest,
                         tx: inout ServiceTransaction) throws(ODataError) -> ODataResponse {
        var queuedHeaders = Self.custom(request.headers)
        queuedHeaders["Content-Type"] = staged.contentType
        switch route {
        case .putMedia(let set, let key, let property):
            try ServiceTransaction.checkWritable(set, "PUT")
            let requestID = tx.nextRequestID()
            let keyBytes = try tx.keyBytes(set, key)
            guard let meta = try tx.batch.storedMeta(set, keyBytes: keyBytes) else {
                throw .serviceEntityNotFound(set, try tx.keyText(set, keyBytes))
            }
            try tx.checkIfMatch(request.header("If-Match"), current: meta.etag, set: set, keyBytes: keyBytes)
            let serverETag = try tx.serverETag(set, keyBytes)
            try tx.ensureImage(set, keyBytes, requestID: requestID)
            try tx.batch.putMedia(staged, set: set, keyBytes: keyBytes, property: property, etag: nil, isLocal: true)
            let etag = tx.newETag()
            try tx.batch.restamp(set, keyBytes: keyBytes, etag: etag, flags: meta.flags.union(.pending))
            // Queued under the entity's own URL (a navigation path may lead elsewhere by then).
            let suffix = property.isEmpty ? "/$value" : "/" + property
            let url = model.singleton(named: set) != nil ? set + suffix : (try tx.entityPath(set, keyBytes)) + suffix
            try tx.enqueue(QueuedRequest(requestID: requestID, status: QueuedRequest.pendingStatus, method: "PUT",
                                         url: url, body: nil, customHeaders: queuedHeaders,
                                         options: request.options, affectedEntitySet: set,
                                         affectedEntityKey: try tx.keyText(set, keyBytes), serverETag: serverETag))
            return ODataResponse(status: 204, headers: ["ETag": etag], requestID: requestID)
        case .createMedia(let set):
            try ServiceTransaction.checkWritable(set, "POST")
            let requestID = tx.nextRequestID()
            let typeName = model.entityType(ofSet: set)?.qualifiedName ?? ""
            let (keyBytes, _) = try tx.create(ODataEntity(typeName: typeName, properties: []), in: set, requestID: requestID,
                                             mediaCreate: true)
            try tx.batch.putMedia(staged, set: set, keyBytes: keyBytes, property: "", etag: nil, isLocal: true)
            try tx.enqueue(QueuedRequest(requestID: requestID, status: QueuedRequest.pendingStatus, method: "POST",
                                         url: pathPart(request.url), body: nil, customHeaders: queuedHeaders,
                                         options: request.options, affectedEntitySet: set,
                                         affectedEntityKey: try tx.keyText(set, keyBytes), serverETag: nil))
            return try entityResponse(set, keyBytes, status: 201, tx: tx, requestID: requestID, location: true,
                                      minimal: Self.prefers(request.header("Prefer"), "return=minimal"))
        default:
            throw .serviceMethodNotAllowed(request.method.rawValue, request.url)
        }
    }
}

extension QueuedRequest {
    /// The media type of a queued stream write (`PUT …/$value`, `PUT` of a stream property,
    /// `POST` of a media entity): its bytes are the stored stream's, sent with this type. Nil for
    /// every other request (the queue keeps no `Content-Type` for JSON requests).
    public var mediaContentType: String? {
        customHeaders.first { $0.key.lowercased() == "content-type" }?.value
    }
}
