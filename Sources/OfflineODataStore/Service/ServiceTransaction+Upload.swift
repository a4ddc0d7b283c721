import OfflineODataModel

/// What a confirmed upload changed locally.
package struct UploadConfirmation: Sendable, Hashable {
    /// The request's entity set and key predicate after the confirmation (the server's key when
    /// the back end assigned another).
    package var entitySet: String
    package var entityKey: String
    /// The key the entity had locally before the back end assigned its own (nil: unchanged).
    package var previousKey: String?
    /// Later queued requests rewritten to the server's key.
    package var requestsRekeyed: Int
}

/// What the back end answered to one request of a `$batch` (`OfflineStore.settleUploads`).
package enum UploadOutcome: Sendable {
    /// Applied: its new ETag, the key the back end assigned (a create), and a back-end message
    /// (`sap-message`) for the EventLog.
    case confirmed(requestID: Int64, etag: String?, serverKey: [ODataValue]?, hint: QueueHint?, message: String?)
    /// Refused: into the ErrorArchive.
    case failed(requestID: Int64, status: Int, code: String?, message: String?, innerError: String?)
}

/// What the upload knows of the queue (from the snapshot it read), so that a confirmation need
/// not scan the whole queue: the next request of the same entity in that snapshot, and the
/// highest RequestID it held (requests queued since are looked at).
package struct QueueHint: Sendable, Hashable {
    package var nextOfEntity: Int64?
    package var knownUpTo: Int64

    package init(nextOfEntity: Int64?, knownUpTo: Int64) {
        self.nextOfEntity = nextOfEntity
        self.knownUpTo = knownUpTo
    }
}

extension ServiceTransaction {
    /// The first queued request of an entity (set and key predicate) other than the one being
    /// confirmed: with a hint, a point lookup of the snapshot's next request and a scan of the
    /// requests queued after the snapshot; without, a scan of the queue.
    mutating func nextQueued(_ set: String, _ predicate: String, hint: QueueHint?) throws(ODataError) -> QueuedRequest? {
        if let hint {
            if let next = hint.nextOfEntity,
               let row = try batch.storedEntity(OfflineSystemSets.requestQueue, keyBytes: try keyBytes(OfflineSystemSets.requestQueue, [.int64(next)])) {
                let request = try QueuedRequest(stored: row)
                if request.affectedEntitySet == set && request.affectedEntityKey == predicate { return request }
            } else if hint.nextOfEntity == nil {
                if queuedAfterSnapshot?.knownUpTo != hint.knownUpTo {
                    let after = try keyBytes(OfflineSystemSets.requestQueue, [.int64(hint.knownUpTo)])
                    var requests: [QueuedRequest] = []
                    for row in try batch.entities(of: OfflineSystemSets.requestQueue, after: after) { requests.append(try QueuedRequest(stored: row)) }
                    queuedAfterSnapshot = (hint.knownUpTo, requests)
                }
                return queuedAfterSnapshot?.requests.first { $0.affectedEntitySet == set && $0.affectedEntityKey == predicate }
            }
        }
        return try queuedRequests().first { $0.affectedEntitySet == set && $0.affectedEntityKey == predicate }
    }

    /// The back end applied a queued request (docs/Sync.md §6): the request leaves the queue in
    /// this commit; the entity takes the back end's ETag; a server-assigned key replaces the
    /// local one in the entity, its server image and every later queued request; when no other
    /// request of the entity is queued it is no longer pending or local and its server image
    /// goes; a confirmed DELETE removes the entity's tombstone; `removeCreatedEntityAfterUpload`
    /// removes a created entity.
    mutating func confirmUploaded(requestID: Int64, etag: String?, serverKey: [ODataValue]?,
                                  hint: QueueHint? = nil) throws(ODataError) -> UploadConfirmation {
        let rowKey = try keyBytes(OfflineSystemSets.requestQueue, [.int64(requestID)])
        guard let row = try batch.storedEntity(OfflineSystemSets.requestQueue, keyBytes: rowKey) else {
            throw .queueRequestNotFound(OfflineSystemSets.requestQueue, requestID)
        }
        let request = try QueuedRequest(stored: row)
        _ = try batch.delete(keyBytes: rowKey, in: OfflineSystemSets.requestQueue)
        // An action changed nothing locally: leaving the queue is all.
        if request.isAction {
            return UploadConfirmation(entitySet: "", entityKey: "", previousKey: nil, requestsRekeyed: 0)
        }
        let set = request.affectedEntitySet
        var entity = try keyBytes(set, predicate: request.affectedEntityKey)
        var confirmation = UploadConfirmation(entitySet: set, entityKey: request.affectedEntityKey, previousKey: nil, requestsRekeyed: 0)
        var hint = hint
        if let serverKey, request.method == "POST" {
            let newKey = try keyBytes(set, serverKey)
            if newKey != entity {
                hint = nil   // later requests were rewritten: the snapshot no longer names them
                confirmation.requestsRekeyed = try rekey(set, from: entity, to: newKey)
                confirmation.previousKey = request.affectedEntityKey
                confirmation.entityKey = try keyText(set, newKey)
                entity = newKey
            }
        }
        let predicate = confirmation.entityKey
        let next = try nextQueued(set, predicate, hint: hint)
        let stillQueued = next != nil
        // A deep insert: a nested object or an array in the body (scanned as bytes).
        if request.method == "POST", let body = request.body,
           body.utf8.contains(UInt8(ascii: "[")) || body.utf8.dropFirst().contains(UInt8(ascii: "{")) {
            try confirmDeepInserted(requestID: requestID, top: EntityRef(set: set, keyBytes: entity), queued: try queuedRequests())
        }
        if request.method == "DELETE" {
            if !stillQueued {
                _ = try batch.delete(keyBytes: entity, in: set)
                try dropImage(set, entity)
            }
            try dropContainedImages(of: set, keyBytes: entity, requestID: requestID)
            return confirmation
        }
        if request.method == "POST", request.options.removeCreatedEntityAfterUpload, !stillQueued {
            _ = try batch.delete(keyBytes: entity, in: set)
            try dropImage(set, entity)
            return confirmation
        }
        guard let meta = try batch.storedMeta(set, keyBytes: entity) else {
            if !stillQueued { try dropImage(set, entity) }
            return confirmation
        }
        var flags = meta.flags
        if !stillQueued {
            flags.remove(.pending)
            flags.remove(.local)
            // Its streams are the back end's now (their media ETags come with the next download).
            if try batch.setInfo(set).hasStreams {
                for (property, info) in try batch.mediaOfEntity(set: set, keyBytes: entity) where info.isLocal {
                    try batch.updateMediaInfo(set: set, keyBytes: entity, property: property) { $0.isLocal = false }
                }
            }
        }
        try batch.restamp(set, keyBytes: entity, etag: etag ?? meta.etag, flags: flags)
        if !stillQueued {
            try dropImage(set, entity)
        } else if var image = try image(set, entity) {
            // The back end now holds this version: undo returns to it, not to the one before.
            if let value = try batch.storedValue(set, keyBytes: entity) {
                image.kind = ServiceFormat.kindServer
                image.stored = value
                image.fresh = nil   // the back end applied this on the version it had: none is newer
                image.keyGenerated = false
                if let next { image.firstRequestID = next.requestID }
                try putImage(set, entity, image)
            }
        }
        return confirmation
    }

    /// The entities a deep insert created besides its top entity (their created images name the
    /// request): the back end holds them now, so they are no longer pending or local, unless a
    /// later queued request changes them. Their ETag is unknown until the next download (the
    /// back end's answer to the create carries the top entity's only).
    mutating func confirmDeepInserted(requestID: Int64, top: EntityRef, queued: [QueuedRequest]) throws(ODataError) {
        var children: [EntityRef] = []
        for (key, value) in try batch.allRecords(in: try batch.systemTreeHandle(ServiceFormat.imageTree)) {
            guard let (set, keyBytes) = ServiceFormat.splitImageKey(key) else {
                throw .queueCorrupted("odata.s.image", "a key without its set name")
            }
            let image = try ServerImage.decode(value, what: "server image of \(set)")
            let ref = EntityRef(set: set, keyBytes: keyBytes)
            if image.kind == ServiceFormat.kindCreated, image.firstRequestID == requestID, ref != top { children.append(ref) }
        }
        for child in children {
            let text = try keyText(child.set, child.keyBytes)
            guard !queued.contains(where: { $0.affectedEntitySet == child.set && $0.affectedEntityKey == text }) else { continue }
            if let meta = try batch.storedMeta(child.set, keyBytes: child.keyBytes) {
                var flags = meta.flags
                flags.remove(.pending)
                flags.remove(.local)
                try batch.restamp(child.set, keyBytes: child.keyBytes, etag: nil, flags: flags)
            }
            try dropImage(child.set, child.keyBytes)
        }
    }

    /// Moves an entity to the key the back end assigned: the entity and its server image, and
    /// every queued request that names the old key (its URL, its affected key, `@odata.bind`
    /// references in its body). Returns how many requests were rewritten. Foreign keys of
    /// other local entities that hold the old key are not rewritten (docs/Sync.md §6).
    mutating func rekey(_ set: String, from old: [UInt8], to new: [UInt8]) throws(ODataError) -> Int {
        let info = try batch.setInfo(set)
        guard let (stored, meta) = try batch.stored(old, info: info) else { return 0 }
        guard try batch.storedValue(set, keyBytes: new) == nil else {
            throw StoreErrorCode.duplicateKey.error("the back end assigned \(set)\(try keyText(set, new)), which the store already holds",
                                                    at: set)
        }
        var record = stored
        let values = try OrderedKeyEncoding.decode(new)
        for (n, slot) in info.keyIndices.enumerated() where n < values.count && slot < record.values.count {
            record.values[slot] = values[n]
        }
        // Its streams move first (deleting the entity under the old key would remove them).
        if info.hasStreams { try batch.rekeyMedia(set: set, from: old, to: new) }
        _ = try batch.delete(keyBytes: old, in: set)
        _ = try batch.put(record: record, info: info, etag: meta.etag, flags: meta.flags, typeName: meta.typeName)
        if var image = try image(set, old) {
            try dropImage(set, old)
            image.keyGenerated = false
            try putImage(set, new, image)
        }
        let oldText = try keyText(set, old), newText = try keyText(set, new)
        let oldPath = try entityPath(set, old), newPath = try entityPath(set, new)
        let oldRef = set + oldText, newRef = set + newText
        var rewritten = 0
        for var request in try queuedRequests() {
            var changed = false
            if request.affectedEntitySet == set && request.affectedEntityKey == oldText {
                request.affectedEntityKey = newText
                changed = true
            }
            if request.url.hasPrefix(oldPath) {
                request.url = newPath + request.url.dropFirst(oldPath.count)
                changed = true
            }
            if let body = request.body, body.contains(oldRef) {
                request.body = body.replacingAll(oldRef, with: newRef)
                changed = true
            }
            if changed {
                queuedAfterSnapshot = nil   // the queue changes: the memo of its tail goes
                try batch.put(request.entity(), in: OfflineSystemSets.requestQueue)
                rewritten += 1
            }
        }
        return rewritten
    }
}

extension String {
    /// Every occurrence of `target` replaced (no Foundation in the store).
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var out = ""
        var rest = self[...]
        while let range = rest.range(ofSubstring: target) {
            out += rest[..<range.lowerBound]
            out += replacement
            rest = rest[range.upperBound...]
        }
        out += rest
        return out
    }
}

extension Substring {
    /// The first range of `target` (plain scan by Characters).
    func range(ofSubstring target: String) -> Range<Substring.Index>? {
        guard !target.isEmpty else { return nil }
        var index = startIndex
        while index < endIndex {
            if self[index...].hasPrefix(target) { return index..<(self.index(index, offsetBy: target.count)) }
            index = self.index(after: index)
        }
        return nil
    }
}

/// A request's repeatability (OASIS Repeatable Requests 1.0): the ID and first-sent time fixed
/// before it is first sent and reused on every retry, and whether it may have been sent before
/// (a retry: the back end may have applied it and the answer been lost).
package struct UploadAttempt: Sendable, Hashable {
    package var requestID: String
    package var firstSent: String
    package var previouslySent: Bool
}

extension OfflineStore {
    static func attemptKey(_ requestID: Int64) -> [UInt8] { Array("attempt".utf8) + [0] + OfflineStoreFormat.be64(UInt64(bitPattern: requestID)) }

    /// An attempt record's value: `id` TAB `first-sent` (docs/Sync.md §6, step 3).
    static func attemptValue(_ repeatabilityID: String, _ firstSent: String) -> [UInt8] { Array((repeatabilityID + "\t" + firstSent).utf8) }

    /// A stored attempt record: one made before, so the request may have been sent (nil when the
    /// value is not one).
    static func storedAttempt(_ value: [UInt8]) -> UploadAttempt? {
        guard let text = String(validating: value, as: UTF8.self), let tab = text.firstIndex(of: "\t") else { return nil }
        return UploadAttempt(requestID: String(text[..<tab]), firstSent: String(text[text.index(after: tab)...]), previouslySent: true)
    }

    /// Records, durably and before the request is sent, that it is about to be sent with this
    /// repeatability ID and first-sent time; a request sent before keeps its first ones.
    package func beginUploadAttempt(requestID: Int64, repeatabilityID: String, firstSent: String) throws(ODataError) -> UploadAttempt {
        try ensureOpen()
        let key = Self.attemptKey(requestID)
        if let value = try storage.reader().systemValue(tree: OfflineStoreFormat.storeTree, key: key), let earlier = Self.storedAttempt(value) {
            return earlier
        }
        try storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
            try batch.putSystem(tree: OfflineStoreFormat.storeTree, key: key, value: Self.attemptValue(repeatabilityID, firstSent))
        }
        return UploadAttempt(requestID: repeatabilityID, firstSent: firstSent, previouslySent: false)
    }

    /// The repeatability a request was sent with before, if it may have been sent (nil: never).
    package func uploadAttempt(requestID: Int64) throws(ODataError) -> UploadAttempt? {
        try ensureOpen()
        guard let value = try storage.reader().systemValue(tree: OfflineStoreFormat.storeTree, key: Self.attemptKey(requestID)) else { return nil }
        return Self.storedAttempt(value)
    }

    /// `beginUploadAttempt` for the requests of one `$batch`, in one commit: the requests
    /// (ID, repeatability ID, first-sent) have not been sent before.
    package func beginUploadAttempts(_ attempts: [(requestID: Int64, repeatabilityID: String, firstSent: String)]) throws(ODataError) {
        try ensureOpen()
        try storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
            for attempt in attempts {
                try batch.putSystem(tree: OfflineStoreFormat.storeTree, key: Self.attemptKey(attempt.requestID),
                                    value: Self.attemptValue(attempt.repeatabilityID, attempt.firstSent))
            }
        }
    }

    /// Whether an entity created offline has a key the store generated (a temporary one that
    /// the back end replaces): later requests in the same change set name it by Content-ID.
    package func hasGeneratedKey(_ set: String, key predicate: String) throws(ODataError) -> Bool {
        try ensureOpen()
        let keyBytes = try keyBytes(set, predicate: predicate)
        guard let bytes = try storage.reader().systemValue(tree: ServiceFormat.imageTree, key: ServiceFormat.imageKey(set, keyBytes)) else {
            return false
        }
        return try ServerImage.decode(bytes, what: "server image of \(set)").keyGenerated
    }

    /// Replaces a request's repeatability with new ones, durably and before it is sent again as
    /// another request (on a new ETag, docs/Sync.md §6): a back end that honours repeatable
    /// requests must not answer it with the outcome of the earlier one.
    package func renewUploadAttempt(requestID: Int64, repeatabilityID: String, firstSent: String) throws(ODataError) -> UploadAttempt {
        try ensureOpen()
        try storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
            try batch.putSystem(tree: OfflineStoreFormat.storeTree, key: Self.attemptKey(requestID),
                                value: Self.attemptValue(repeatabilityID, firstSent))
        }
        return UploadAttempt(requestID: repeatabilityID, firstSent: firstSent, previouslySent: false)
    }

    /// Confirms a request the back end applied (door for upload, docs/Sync.md §6), in one commit
    /// with the removal of its attempt record.
    package func confirmUpload(requestID: Int64, etag: String?, serverKey: [ODataValue]?,
                               hint: QueueHint? = nil) throws(ODataError) -> UploadConfirmation {
        try ensureOpen()
        return try service.perform { (tx: inout ServiceTransaction) throws(ODataError) -> UploadConfirmation in
            try tx.batch.deleteSystem(tree: OfflineStoreFormat.storeTree, key: Self.attemptKey(requestID))
            return try tx.confirmUploaded(requestID: requestID, etag: etag, serverKey: serverKey, hint: hint)
        }
    }

    /// The outcomes of one `$batch` answer, applied in one commit (door for upload): each
    /// confirmation as `confirmUpload`, each failure as `failUpload`, each back-end message as an
    /// EventLog row; one commit instead of one per request. The confirmations, in order (nil for
    /// a failure).
    package func settleUploads(_ outcomes: [UploadOutcome]) throws(ODataError) -> [UploadConfirmation?] {
        try settleUploads(outcomes, thenBegin: nil).confirmations
    }

    /// `settleUploads`, and in the same commit `beginUploadAttempt` for the request to be sent
    /// next (`next`: its ID, a new repeatability ID and first-sent time, kept if it has an
    /// attempt already): requests sent one at a time then cost one durable commit each instead
    /// of two. The next request's record is durable before it is sent, as with
    /// `beginUploadAttempt`; if the upload stops before sending it, it stays marked as possibly
    /// sent, which only makes the next upload check its answer (docs/Sync.md §6).
    package func settleUploads(_ outcomes: [UploadOutcome], thenBegin next: (requestID: Int64, repeatabilityID: String, firstSent: String)?)
        throws(ODataError) -> (confirmations: [UploadConfirmation?], next: UploadAttempt?) {
        try ensureOpen()
        return try service.perform { (tx: inout ServiceTransaction) throws(ODataError) -> ([UploadConfirmation?], UploadAttempt?) in
            let confirmations = try Self.settle(outcomes, &tx)
            guard let next else { return (confirmations, nil) }
            let key = Self.attemptKey(next.requestID)
            if let value = try tx.batch.systemValue(tree: OfflineStoreFormat.storeTree, key: key), let earlier = Self.storedAttempt(value) {
                return (confirmations, earlier)
            }
            try tx.batch.putSystem(tree: OfflineStoreFormat.storeTree, key: key, value: Self.attemptValue(next.repeatabilityID, next.firstSent))
            return (confirmations, UploadAttempt(requestID: next.repeatabilityID, firstSent: next.firstSent, previouslySent: false))
        }
    }

    private static func settle(_ outcomes: [UploadOutcome], _ tx: inout ServiceTransaction) throws(ODataError) -> [UploadConfirmation?] {
        var out: [UploadConfirmation?] = []
        for outcome in outcomes {
            switch outcome {
            case .confirmed(let requestID, let etag, let serverKey, let hint, let message):
                try tx.batch.deleteSystem(tree: OfflineStoreFormat.storeTree, key: Self.attemptKey(requestID))
                out.append(try tx.confirmUploaded(requestID: requestID, etag: etag, serverKey: serverKey, hint: hint))
                if let message { _ = try tx.logEvent(type: "BackEndMessage", details: message) }
            case .failed(let requestID, let status, let code, let message, let innerError):
                try tx.batch.deleteSystem(tree: OfflineStoreFormat.storeTree, key: Self.attemptKey(requestID))
                _ = try tx.markFailed(requestID: requestID, httpStatus: status, code: code, message: message,
                                      innerError: innerError, domain: nil)
                out.append(nil)
            }
        }
        return out
    }

    /// The back end refused a request: it moves to the ErrorArchive (door for upload).
    @discardableResult
    package func failUpload(requestID: Int64, httpStatus: Int, code: String?, message: String?,
                            innerError: String?) throws(ODataError) -> ErrorArchiveEntry {
        try ensureOpen()
        return try service.perform { (tx: inout ServiceTransaction) throws(ODataError) -> ErrorArchiveEntry in
            try tx.batch.deleteSystem(tree: OfflineStoreFormat.storeTree, key: Self.attemptKey(requestID))
            return try tx.markFailed(requestID: requestID, httpStatus: httpStatus, code: code, message: message,
                                     innerError: innerError, domain: nil)
        }
    }

    /// The key properties of a set (names and kinds), for reading a server key from a body.
    package func keyProperties(of set: String) throws(ODataError) -> [KeyProperty] {
        try storage.setInfo(set).keyProperties
    }

    /// For a contained set (`People/Trips`): how many of its key values are its container's,
    /// and the name of its containment navigation (`Trips`); nil for entity sets and
    /// singletons (docs/StoreFormat.md §2.1).
    package func containment(of set: String) throws(ODataError) -> (containerKeyCount: Int, navigation: String)? {
        try storage.setInfo(set).containment.map { ($0.containerKeyCount, $0.navigation) }
    }
}

extension OfflineStore {
    /// An EventLog row for a sync operation (`Upload`).
    @discardableResult
    package func logSyncEvent(type: String, details: String) throws(ODataError) -> Int64 {
        try ensureOpen()
        return try service.logEvent(type: type, details: details)
    }
}

extension OfflineStore {
    /// The back end's ETag of an entity as the store knows it now, advanced by every confirmed
    /// request: the server image's while local changes are pending (the entity itself then
    /// carries a local ETag), the entity's otherwise. What the next request on it sends as
    /// `If-Match`: a request queued while an earlier one of the same entity was pending carries
    /// the older ETag of that moment. Nil when the back end does not know the entity yet.
    package func currentServerETag(of set: String, key predicate: String) throws(ODataError) -> String? {
        try ensureOpen()
        let values = try KeyPredicate.parse(predicate, keys: try keyProperties(of: set), version: model.urlVersion)
        let keyBytes = try storage.encodeKey(values, in: set)
        if let bytes = try storage.reader().systemValue(tree: ServiceFormat.imageTree, key: ServiceFormat.imageKey(set, keyBytes)) {
            let image = try ServerImage.decode(bytes, what: "server image of \(set)")
            guard image.kind == ServiceFormat.kindServer else { return nil }
            var stored = image.stored
            return try StoredValue.split(&stored, what: "server image of \(set)").etag
        }
        return try storage.reader().entity(in: set, keyBytes: keyBytes)?.etag
    }
}

extension OfflineStore {
    /// Whether the back end's entity now (`body`: its JSON, as a GET answers it) still holds,
    /// in every declared property it carries, the values the store last had from the back end
    /// (the server image while local changes are pending, else the entity). True means no other
    /// client changed a value since the local changes were made: a 412 is then about the ETag
    /// alone (a back end that applied a cut-off earlier attempt as an empty change, docs/Sync.md
    /// §6), and the request can be sent again on the new ETag without overwriting anyone's edit.
    /// False when the store has no server version of the entity.
    package func serverValuesUnchanged(of set: String, key predicate: String, body: [UInt8]) throws(ODataError) -> Bool {
        try ensureOpen()
        let info = try storage.setInfo(set)
        let keyBytes = try keyBytes(set, predicate: predicate)
        let base: EntityRecord
        if let bytes = try storage.reader().systemValue(tree: ServiceFormat.imageTree, key: ServiceFormat.imageKey(set, keyBytes)) {
            let image = try ServerImage.decode(bytes, what: "server image of \(set)")
            guard image.kind == ServiceFormat.kindServer else { return false }
            var stored = image.stored
            _ = try StoredValue.split(&stored, what: "server image of \(set)")
            base = try info.codec.decode(stored)
        } else if let entity = try storage.reader().entity(in: set, keyBytes: keyBytes) {
            base = try entity.record()
        } else {
            return false
        }
        let now = try service.bodyReader.readEntity(body, entitySet: set)
        var compared = 0
        for property in now.properties {
            guard let slot = info.propertyIndex[property.name], slot < base.values.count else { continue }
            guard (base.values[slot] ?? .null) == property.value else { return false }
            compared += 1
        }
        return compared > 0
    }
}

extension OfflineStore {
    /// A queued request's body read with the model as the local service read it (keys may be
    /// absent): what the upload writes again in the back end's dialect (V2 JSON for a V2 service).
    package func readRequestBody(_ text: String, entitySet: String) throws(ODataError) -> ODataEntity {
        try ensureOpen()
        return try service.bodyReader.readEntity(Array(text.utf8), entitySet: entitySet)
    }
}
