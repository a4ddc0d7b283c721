import Foundation
import OfflineODataModel
import OfflineODataStore

/// What one upload did.
public struct UploadSummary: Sendable, Hashable {
    /// Requests the back end applied (removed from the RequestQueue).
    public var succeeded: Int
    /// Requests the back end refused, and requests not sent because an earlier request of the
    /// same entity failed: each is in the ErrorArchive now.
    public var failed: Int
    /// Requests left in the queue (other upload categories).
    public var remaining: Int

    public init(succeeded: Int, failed: Int, remaining: Int) {
        self.succeeded = succeeded
        self.failed = failed
        self.remaining = remaining
    }
}

/// The upload recipe (docs/Sync.md §6): the queue in RequestID order, as change sets in
/// `$batch` requests where the back end takes them, else one request at a time; each outcome
/// confirmed or archived in its own commit.
/// 1. take the queue in order (the requests of the chosen upload categories); the consecutive
///    requests of one transaction ID make one change set, every other request one of its own;
/// 2. a request whose entity already failed (in this upload or an earlier one) is not sent: it
///    goes to the ErrorArchive too (424), as SAP documents; with it its whole change set;
/// 3. a batch ends before a change set that touches an entity of an earlier change set in it
///    (its `If-Match` needs the ETag the earlier one returns) and at `maxRequestsPerBatch`; a
///    request that may have been sent before goes alone, one request at a time, where its
///    answer can be checked for proof of its earlier success;
/// 4. each request carries `If-Match`: the ETag the back end returned for the entity's previous
///    request in this upload, else the entity's ETag now (advanced by every confirmation), else
///    the one it had when it was queued; inside a change set, a later request on the same
///    entity carries `*` (the change set is atomic, nothing comes between);
/// 5. 2xx: confirm it (the new ETag; for a create, the key the back end assigned, from
///    `Location` or the body, which re-keys the entity and the later requests);
///    another status: archive it with the back end's error (and the rest of its change set);
///    no answer: stop, and throw the communication error (what was confirmed stays confirmed,
///    the rest stays queued).
extension OfflineODataProvider {
    /// What one upload keeps between its batches.
    struct UploadRun {
        var summary = UploadSummary(succeeded: 0, failed: 0, remaining: 0)
        /// Entities (set + key predicate) with a failed request: their later requests are not sent.
        var failedEntities: Set<String>
        /// The ETag the back end returned in this upload, by entity.
        var etags: [String: String] = [:]
        /// Requests sent in this upload whose answer the back end left out: not sent again in it.
        var leftQueued: Set<Int64> = []
        /// Requests archived without being sent (their entity failed) since the queue was last
        /// brought up to date.
        var archivedUnsent: Set<Int64> = []
        /// Per request of the queue snapshot being sent: what its confirmation needs to know of
        /// the rest of the queue (`QueueHint`).
        var hints: [Int64: QueueHint] = [:]
        /// Whether batches go in the JSON form, decided at the first batch of the upload.
        var jsonBatch: Bool?
        /// Attempts this upload recorded for requests about to be sent one at a time, in the
        /// commit that settled the request before them (`settle(…, next:)`), and not sent yet.
        /// A request here was not sent before unless its attempt says so; once the upload ends,
        /// what is left stays recorded as possibly sent.
        var preBegun: [Int64: UploadAttempt] = [:]

        /// The hints of a queue snapshot: each request's next request of the same entity.
        mutating func learn(_ queue: ArraySlice<QueuedRequest>) {
            hints.removeAll(keepingCapacity: true)
            let knownUpTo = queue.last?.requestID ?? 0
            var next: [String: Int64] = [:]
            for request in queue.reversed() {
                guard let entity = request.entityIdentity else { continue }
                hints[request.requestID] = QueueHint(nextOfEntity: next[entity], knownUpTo: knownUpTo)
                next[entity] = request.requestID
            }
        }
    }

    /// Uploads the RequestQueue (the requests of `categories`, or all): see the recipe above.
    /// The upload fails as a whole only when the back end cannot be reached or answers the
    /// upload itself with an error (SAP's semantics); a request the back end refuses goes to
    /// the ErrorArchive and the upload goes on. Cancel with `cancelUpload()` or by cancelling
    /// the calling task: what the back end acknowledged stays confirmed, the rest stays queued.
    @discardableResult
    public func upload(categories: [String]? = nil) async throws(ODataError) -> UploadSummary {
        let store = try self.store
        return try await runSync("upload", busy: "a download or upload is already running", slot: \.uploading) { () async throws(ODataError) in
            try await self.uploadNow(store, categories: categories)
        }
    }

    /// Cancels a running upload: the request in flight may still be applied by the back end (its
    /// attempt record makes the next upload check), everything not acknowledged stays queued.
    public func cancelUpload() {
        let task = core.withLock { $0.uploading }
        task?.cancel()
    }

    func uploadNow(_ store: OfflineStore, categories: [String]?) async throws(ODataError) -> UploadSummary {
        // Entities with an archived request (an action names none: its failure holds nothing back).
        var run = UploadRun(failedEntities: Set(try store.errorArchive().filter { !$0.affectedEntitySet.isEmpty }
            .map { $0.affectedEntitySet + $0.affectedEntityKey }))
        defer { _ = try? store.logSyncEvent(type: "Upload", details: "succeeded=\(run.summary.succeeded) failed=\(run.summary.failed) remaining=\(run.summary.remaining)") }
        // The queue is read once and kept up to date in memory; it is read again after a
        // confirmation re-keyed later requests, and at the end for requests queued meanwhile.
        // A slice: the requests handled come off its front without moving the others.
        func readQueue() throws(ODataError) -> ArraySlice<QueuedRequest> {
            let queue = ArraySlice(try store.requestQueue())
            run.learn(queue)
            return queue
        }
        var queue = try readQueue()
        var fresh = true
        while true {
            try checkCancelled("the upload was cancelled; what the back end acknowledged is confirmed, the rest stays queued")
            let (units, retry) = try collectUnits(queue, categories: categories, run: &run, store: store)
            if units.isEmpty {
                if fresh { break }
                queue = try readQueue()
                fresh = true
                continue
            }
            fresh = false
            var handled = Set(units.joined().map(\.requestID))
            var rekeyed = false
            let batchUnsupported = core.withLock { $0.batchUnsupported }
            var sentInBatch = false
            if parameters.uploadBatching == .automatic, !batchUnsupported, !retry {
                if let outcome = try await sendBatch(units, run: &run, store: store) {
                    sentInBatch = true
                    rekeyed = outcome
                } else {
                    core.withLock { $0.batchUnsupported = true }
                }
            }
            if !sentInBatch {
                handled = []
                let sequence = Array(units.joined())
                for (position, request) in sequence.enumerated() {
                    try checkCancelled("the upload was cancelled; what the back end acknowledged is confirmed, the rest stays queued")
                    handled.insert(request.requestID)
                    if let entity = request.entityIdentity, run.failedEntities.contains(entity) {
                        try store.failUpload(requestID: request.requestID, httpStatus: 424, code: "dependencyFailed",
                                             message: "not sent: an earlier request of \(entity) failed", innerError: nil)
                        run.preBegun.removeValue(forKey: request.requestID)
                        run.summary.failed += 1
                        continue
                    }
                    // The request after this one, when it too goes alone as JSON: its attempt is
                    // recorded in the commit that settles this one.
                    let next = position + 1 < sequence.count && sequence[position + 1].mediaContentType == nil ? sequence[position + 1] : nil
                    // A confirmation that re-keyed later requests: read the queue again.
                    let rekeyedNow = request.mediaContentType != nil
                        ? try await sendMedia(request, run: &run, store: store)
                        : try await sendSingle(request, next: next, run: &run, store: store)
                    if rekeyedNow {
                        rekeyed = true
                        break
                    }
                }
            }
            if rekeyed {
                queue = try readQueue()
                fresh = true
            } else {
                handled.formUnion(run.archivedUnsent)
                handled.subtract(run.leftQueued)
                // Usually the front of the queue; anything handled further on is removed too.
                while let first = queue.first, handled.contains(first.requestID) { queue = queue.dropFirst() }
                if queue.contains(where: { handled.contains($0.requestID) }) { queue.removeAll { handled.contains($0.requestID) } }
            }
            run.archivedUnsent.removeAll()
        }
        run.summary.remaining = try store.requestQueue().count
        progressHub.publish(SyncProgress(step: .done))
        return run.summary
    }

    /// The next change sets to send (step 1–3 of the recipe), archiving on the way the requests
    /// of entities that failed. `retry`: one change set to send one request at a time (its
    /// requests may have been sent before, or it names a temporary key by a Content-ID that the
    /// back end does not resolve).
    func collectUnits(_ queue: ArraySlice<QueuedRequest>, categories: [String]?, run: inout UploadRun,
                      store: OfflineStore) throws(ODataError) -> (units: [[QueuedRequest]], retry: Bool) {
        var units: [[QueuedRequest]] = []
        var count = 0
        var entities = Set<String>()
        var i = queue.startIndex
        while i < queue.endIndex {
            let request = queue[i]
            if run.leftQueued.contains(request.requestID) || categories.map({ !$0.contains(request.options.uploadCategory ?? "") }) == true {
                i += 1
                continue
            }
            // A stream goes alone, never in a $batch (its bytes are not a JSON part).
            if request.mediaContentType != nil {
                if let entity = request.entityIdentity, run.failedEntities.contains(entity) {
                    try store.failUpload(requestID: request.requestID, httpStatus: 424, code: "dependencyFailed",
                                         message: "not sent: an earlier request of \(entity) failed", innerError: nil)
                    run.archivedUnsent.insert(request.requestID)
                    run.summary.failed += 1
                    i += 1
                    continue
                }
                if units.isEmpty { return ([[request]], true) }
                break
            }
            var unit = [request]
            var next = i + 1
            if let transaction = request.options.transactionID {
                while next < queue.endIndex, queue[next].options.transactionID == transaction, !run.leftQueued.contains(queue[next].requestID) {
                    unit.append(queue[next])
                    next += 1
                }
            }
            let unitEntities = Set(unit.compactMap(\.entityIdentity))
            if !unitEntities.isDisjoint(with: run.failedEntities) {
                for member in unit {
                    let entity = member.entityIdentity ?? member.url
                    let reason = run.failedEntities.contains(entity) ? "an earlier request of \(entity) failed"
                        : "its change set (transaction \(member.options.transactionID ?? "")) holds a request of an entity that failed"
                    try store.failUpload(requestID: member.requestID, httpStatus: 424, code: "dependencyFailed",
                                         message: "not sent: \(reason)", innerError: nil)
                    run.archivedUnsent.insert(member.requestID)
                    run.summary.failed += 1
                }
                run.failedEntities.formUnion(unitEntities)
                i = next
                continue
            }
            var sentBefore = false
            for member in unit {
                if let begun = run.preBegun[member.requestID] {
                    if begun.previouslySent { sentBefore = true }
                } else if try store.uploadAttempt(requestID: member.requestID) != nil {
                    sentBefore = true
                }
            }
            // A create with a temporary key: the back end's key must be known before anything
            // else names it (in this change set by Content-ID where the back end resolves it).
            var temporaryKey = false
            for (position, member) in unit.enumerated() where member.method == "POST" && !member.isAction {
                guard try store.hasGeneratedKey(member.affectedEntitySet, key: member.affectedEntityKey) else { continue }
                temporaryKey = true
                if !usesContentIDReferences(store) && position < unit.count - 1 { sentBefore = true }
            }
            if sentBefore {
                if units.isEmpty { return ([unit], true) }
                break
            }
            if !units.isEmpty, !unitEntities.isDisjoint(with: entities) || count + unit.count > parameters.maxRequestsPerBatch { break }
            units.append(unit)
            count += unit.count
            entities.formUnion(unitEntities)
            i = next
            if count >= parameters.maxRequestsPerBatch || temporaryKey { break }
        }
        return (units, false)
    }

    /// Sends one queued request alone and confirms or archives it; true when its confirmation
    /// re-keyed later requests (the queue must be read again).
    /// `next`: the request to be sent alone after it, whose attempt is recorded with this one's
    /// outcome (one commit per request instead of two).
    func sendSingle(_ request: QueuedRequest, next: QueuedRequest? = nil, run: inout UploadRun, store: OfflineStore) async throws(ODataError) -> Bool {
        let entity = request.entityIdentity ?? ""
        var attempt: UploadAttempt
        if let begun = run.preBegun.removeValue(forKey: request.requestID) {
            attempt = begun
        } else {
            attempt = try store.beginUploadAttempt(requestID: request.requestID, repeatabilityID: Self.randomUUID(),
                                                   firstSent: Self.imfDate(Date()))
        }
        // The entity's ETag now: a request queued while an earlier one was pending carries the
        // ETag of that moment, which the earlier request's confirmation has since replaced.
        let current = request.isAction ? nil : try? store.currentServerETag(of: request.affectedEntitySet, key: request.affectedEntityKey)
        let ifMatch = request.isAction ? nil : run.etags[entity] ?? current ?? request.serverETag
        var (response, body) = try await send(request, ifMatch: ifMatch, attempt: attempt, store: store)
        if attempt.previouslySent, !(200..<300).contains(response.status) {
            // The request may have been applied before and its answer lost (a dropped
            // connection, a crash): an answer that proves our own earlier success confirms it.
            switch try await earlierAttempt(request, status: response.status, store: store) {
            case .applied(let etag):
                _ = try store.confirmUpload(requestID: request.requestID, etag: etag, serverKey: nil, hint: run.hints[request.requestID])
                if let etag { run.etags[entity] = etag }
                run.summary.succeeded += 1
                publishSent(run)
                return false
            case .valuesUnchanged(let etag):
                // Not applied, yet the ETag moved with no value changed: the back end took a
                // cut-off earlier attempt as an empty change. Send it again on the new ETag,
                // as a new request (new repeatability).
                attempt = try store.renewUploadAttempt(requestID: request.requestID, repeatabilityID: Self.randomUUID(),
                                                       firstSent: Self.imfDate(Date()))
                (response, body) = try await send(request, ifMatch: etag, attempt: attempt, store: store)
            case .unknown:
                break
            }
        }
        let rekeyed = try settle(request, status: response.status, header: { response.header($0) }, body: body, next: next,
                                 run: &run, store: store)
        publishSent(run)
        return rekeyed
    }

    /// Confirms (2xx) or archives (another status) one request by its answer; true when the
    /// confirmation re-keyed later requests.
    /// `next`: the request to be sent alone after this one; its attempt is recorded in the
    /// same commit (`run.preBegun`).
    func settle(_ request: QueuedRequest, status: Int, header: (String) -> String?, body: [UInt8], next: QueuedRequest? = nil,
                run: inout UploadRun, store: OfflineStore) throws(ODataError) -> Bool {
        let outcome = try self.outcome(request, status: status, header: header, body: body, run: run, store: store)
        let begin = next.map { (requestID: $0.requestID, repeatabilityID: Self.randomUUID(), firstSent: Self.imfDate(Date())) }
        let (confirmations, begun) = try store.settleUploads([outcome], thenBegin: begin)
        if let next, let begun { run.preBegun[next.requestID] = begun }
        return record(outcome, request: request, confirmation: confirmations.first ?? nil, run: &run)
    }

    /// What an answer means for its request: confirmed (2xx) or failed (another status); a
    /// status that says the back end did not process it (`notProcessed`) throws instead.
    func outcome(_ request: QueuedRequest, status: Int, header: (String) -> String?, body: [UInt8],
                 run: UploadRun, store: OfflineStore) throws(ODataError) -> UploadOutcome {
        if (200..<300).contains(status) {
            let etag = header("ETag") ?? Self.bodyETag(body)
            let serverKey = request.method == "POST" && !request.isAction
                ? try Self.serverKey(location: header("Location"), body, set: request.affectedEntitySet, localKey: request.affectedEntityKey,
                                     store: store) : nil
            // A warning or note SAP Gateway sent with the success: kept in the EventLog.
            let message = header("sap-message").map { "\(request.method) \(request.url): \($0)" }
            return .confirmed(requestID: request.requestID, etag: etag, serverKey: serverKey, hint: run.hints[request.requestID], message: message)
        }
        if Self.notProcessed.contains(status) {
            // Not about this request: the back end did not take it (try later, log in again).
            var message = "upload: \(request.method) \(request.url) answered \(status)"
            if let retry = header("Retry-After") { message += " (Retry-After: \(retry))" }
            if let text = Self.errorText(body) { message += ": \(text)" }
            message += "; it stays queued"
            throw (status >= 500 || status == 429 ? SyncErrorCode.serverError : SyncErrorCode.requestRejected).error(message, at: request.url)
        }
        let detail = Self.errorDetail(body)
        return .failed(requestID: request.requestID, status: status, code: detail.code,
                       message: detail.message ?? "\(request.method) \(request.url) answered \(status)", innerError: detail.inner)
    }

    /// Counts an applied outcome into the run (summary, ETags, failed entities); true when the
    /// confirmation re-keyed later requests.
    func record(_ outcome: UploadOutcome, request: QueuedRequest, confirmation: UploadConfirmation?, run: inout UploadRun) -> Bool {
        switch outcome {
        case .confirmed(_, let etag, _, _, _):
            if let etag, let confirmation { run.etags[confirmation.entitySet + confirmation.entityKey] = etag }
            run.summary.succeeded += 1
            return (confirmation?.requestsRekeyed ?? 0) > 0
        case .failed:
            if let entity = request.entityIdentity { run.failedEntities.insert(entity) }
            run.summary.failed += 1
            return false
        }
    }

    /// Answers that say the back end did not process the request and may later: the upload
    /// stops with a typed error and the request stays queued (not archived): 401 and 407 (log in
    /// again), 408, 423 (Gateway: the object is locked by another session), 429, 502, 503, 504.
    static let notProcessed: Set<Int> = [401, 407, 408, 423, 429, 502, 503, 504]

    func publishSent(_ run: UploadRun) {
        progressHub.publish(SyncProgress(step: .sendingRequests, definingQuery: nil, pagesReceived: run.summary.succeeded + run.summary.failed))
    }

    /// What a retried request's refusal says of its earlier attempt.
    enum EarlierAttempt {
        /// The back end applied it (its answer was lost); the entity's ETag now, when known.
        case applied(String?)
        /// Not applied, and the entity holds the values the request was made on, under a new
        /// ETag (this one).
        case valuesUnchanged(String)
        /// Nothing proven: the refusal stands.
        case unknown
    }

    /// A retried request's answer that proves the back end applied it the first time: 409 to
    /// our create (the key is there), 404 to our delete (it is gone), 412 to our update when the
    /// entity the back end holds now has every value our body sets. A 412 whose values differ is
    /// a real conflict (another client changed it) and stays one, except when the entity still
    /// has every value the store last had from the back end: then only its ETag moved.
    func earlierAttempt(_ request: QueuedRequest, status: Int, store: OfflineStore) async throws(ODataError) -> EarlierAttempt {
        // An action's answer proves nothing about an earlier attempt (only repeatable requests
        // can tell).
        if request.isAction { return .unknown }
        switch (request.method, status) {
        case ("POST", 409): return .applied(nil)
        case ("DELETE", 404): return .applied(nil)
        case ("PATCH", 412), ("MERGE", 412), ("PUT", 412):
            guard let text = request.body, let sent = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
                return .unknown
            }
            var url = request.url
            while url.hasPrefix("/") { url.removeFirst() }
            var get = HTTPRequest(method: "GET", url: serviceRoot + url,
                                  headers: requestHeaders([("Accept", "application/json")] + versionHeaders(store)),
                                  timeout: parameters.timeout)
            get.collectsBody = true
            let response = try await exchange(get)
            let body = try await collect(response, get)
            guard response.status == 200, let json = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
                return .unknown
            }
            let now = json["d"] as? [String: Any] ?? json   // V2: {"d":{…}}
            let etag = response.header("ETag") ?? now["@odata.etag"] as? String ?? (now["__metadata"] as? [String: Any])?["etag"] as? String
            if sent.allSatisfy({ name, value in name.contains("@") || now[name].map { Self.sameJSON(value, $0) } ?? false }) {
                return .applied(etag)
            }
            if let etag, (try? store.serverValuesUnchanged(of: request.affectedEntitySet, key: request.affectedEntityKey, body: body)) == true {
                return .valuesUnchanged(etag)
            }
            return .unknown
        default:
            return .unknown
        }
    }

    /// Sends one queued request with its `If-Match` and repeatability headers; the answer and
    /// its body.
    func send(_ request: QueuedRequest, ifMatch: String?, attempt: UploadAttempt, store: OfflineStore) async throws(ODataError) -> (HTTPResponse, [UInt8]) {
        var http = uploadRequest(request, ifMatch: ifMatch, store: store)
        if parameters.enableRepeatableRequests {
            http.headers.append((name: "Repeatability-Request-ID", value: attempt.requestID))
            http.headers.append((name: "Repeatability-First-Sent", value: attempt.firstSent))
        }
        return try await writeExchange(http)
    }

    /// JSON values equal as OData values: numbers by value (`5.00` is `5.0`), the rest as JSON.
    static func sameJSON(_ a: Any, _ b: Any) -> Bool {
        switch (a, b) {
        case let (x as NSNumber, y as NSNumber): return x.doubleValue == y.doubleValue
        case let (x as String, y as NSNumber), let (y as NSNumber, x as String): return Double(x) == y.doubleValue
        case let (x as String, y as String): return x == y
        case (is NSNull, is NSNull): return true
        case let (x as [String: Any], y as [String: Any]):
            return x.count == y.count && x.allSatisfy { key, value in y[key].map { sameJSON(value, $0) } ?? false }
        case let (x as [Any], y as [Any]): return x.count == y.count && zip(x, y).allSatisfy { sameJSON($0, $1) }
        default: return false
        }
    }

    /// An HTTP date (IMF-fixdate, RFC 9110 §5.6.7), as `Repeatability-First-Sent` takes it.
    /// RFC 9110 IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), written directly: a
    /// `DateFormatter` made for each batch cost about half a millisecond.
    static func imfDate(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        _ = gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let day = days[Int((parts.tm_wday % 7 + 7) % 7)], month = months[Int((parts.tm_mon % 12 + 12) % 12)]
        return "\(day), \(two(parts.tm_mday)) \(month) \(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// A random (version 4) UUID in lowercase, for `Repeatability-Request-ID` and batch
    /// boundaries (Foundation's `UUID().uuidString.lowercased()` cost about 3 µs a request).
    static func randomUUID() -> String {
        var source = UUIDSource()
        return source.next()
    }

    /// Version-4 UUIDs for one `$batch`: 122 random bits drawn once, then the n-th UUID adds n
    /// to them, so that a batch's hundred request IDs take two draws from the system's
    /// generator instead of two hundred. Unique across devices by the random bits, within the
    /// batch by the count.
    struct UUIDSource {
        private let high: UInt64
        private let low: UInt64
        private var count: UInt64 = 0

        init() {
            var generator = SystemRandomNumberGenerator()
            high = generator.next()
            low = generator.next()
        }

        mutating func next() -> String {
            defer { count &+= 1 }
            let first = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000            // version 4
            let second = ((low &+ count) & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000   // RFC 4122 variant
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            var out = [UInt8]()
            out.reserveCapacity(36)
            for (index, word) in [first, second].enumerated() {
                for nibble in 0..<16 {
                    let position = index * 16 + nibble
                    if position == 8 || position == 12 || position == 16 || position == 20 { out.append(UInt8(ascii: "-")) }
                    out.append(hex[Int((word >> UInt64(60 - 4 * nibble)) & 0xF)])
                }
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    func uploadRequest(_ request: QueuedRequest, ifMatch: String?, store: OfflineStore) -> HTTPRequest {
        var own: [(String, String)] = [("Accept", "application/json")] + versionHeaders(store)
        if request.body != nil { own.append(("Content-Type", "application/json")) }
        if let ifMatch, request.method != "POST" { own.append(("If-Match", ifMatch)) }
        for name in request.customHeaders.keys.sorted() {
            if let value = request.customHeaders[name] { own.append((name, value)) }
        }
        var url = request.url
        while url.hasPrefix("/") { url.removeFirst() }
        var http = HTTPRequest(method: wireMethod(request.method, store), url: serviceRoot + url, headers: requestHeaders(own),
                               body: request.body.map { Array(wireBody($0, set: request.affectedEntitySet, store: store).utf8) },
                               timeout: parameters.timeout)
        http.collectsBody = true
        return http
    }

    /// `@odata.etag` of an entity body.
    static func bodyETag(_ body: [UInt8]) -> String? {
        guard !body.isEmpty, let json = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return nil }
        return json["@odata.etag"] as? String ?? (json["d"] as? [String: Any]).flatMap { ($0["__metadata"] as? [String: Any])?["etag"] as? String }
    }

    /// The key of a created entity: from `Location` (`…/Set(key)`), else from the key
    /// properties of the body.
    /// A contained entity (`POST People('x')/Trips`) keeps its container: its container key
    /// values are the local ones, and `Location` (`…/People('x')/Trips(5)`) or the body give
    /// its own.
    static func serverKey(location: String?, _ body: [UInt8], set: String, localKey: String,
                          store: OfflineStore) throws(ODataError) -> [ODataValue]? {
        var keys = try store.keyProperties(of: set)
        var container: [ODataValue] = []
        var name = set
        if let containment = try store.containment(of: set) {
            let version = store.model.urlVersion
            guard let local = try? KeyPredicate.parse(localKey, keys: keys, version: version), local.count == keys.count else { return nil }
            container = Array(local.prefix(containment.containerKeyCount))
            keys = Array(keys.dropFirst(containment.containerKeyCount))
            name = containment.navigation
        }
        if let location,
           let (named, predicate) = try? KeyPredicate.parseEntityReference(location), named == name, let predicate,
           let values = try? KeyPredicate.parse(predicate, keys: keys, version: store.model.urlVersion) {
            return container + values
        }
        guard !body.isEmpty, let outer = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return nil }
        let json = outer["d"] as? [String: Any] ?? outer   // V2: {"d":{…}}
        var values: [ODataValue] = []
        for key in keys {
            guard let raw = json[key.name] else { return nil }
            let literal: String
            switch raw {
            case let text as String: literal = key.kind == .string ? "'" + text.replacingOccurrences(of: "'", with: "''") + "'" : text
            case let number as NSNumber: literal = number.stringValue
            default: return nil
            }
            guard let value = try? ODataValue.parseLiteral(literal, as: key.kind) else { return nil }
            values.append(value)
        }
        return container + values
    }

    /// `error.code`, `error.message` (V4, or V2's `message.value`) and `innererror` of an error body.
    static func errorDetail(_ body: [UInt8]) -> (code: String?, message: String?, inner: String?) {
        guard let json = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              let error = json["error"] as? [String: Any] else {
            return (nil, body.isEmpty ? nil : String(decoding: body.prefix(500), as: UTF8.self), nil)
        }
        let code = error["code"].map { "\($0)" }
        var message = error["message"] as? String
        if let nested = error["message"] as? [String: Any] { message = nested["value"] as? String }
        var inner: String?
        if let innerError = error["innererror"],
           let data = try? JSONSerialization.data(withJSONObject: innerError, options: [.sortedKeys]) {
            inner = String(decoding: data, as: UTF8.self)
        }
        return (code, message, inner)
    }
}

extension QueuedRequest {
    /// The entity a request changes, as the upload tracks it (set and key predicate); nil for an
    /// action, which names none: nothing waits on it, and its failure holds nothing back.
    var entityIdentity: String? { isAction ? nil : affectedEntitySet + affectedEntityKey }
}
