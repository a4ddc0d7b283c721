import Foundation
import OfflineODataModel
import OfflineODataStore

/// Upload in `$batch` requests (docs/Sync.md §6.1): a multipart batch of change sets, one per
/// transaction ID or per lone request, with `Prefer: odata.continue-on-error` so that a failed
/// change set does not stop the independent ones after it.
extension OfflineODataProvider {
    /// Sends `units` (change sets) as one `$batch` and confirms or archives every request by its
    /// answer; whether a confirmation re-keyed later requests. Nil when the back end has no
    /// `$batch` (404, 405, 501): nothing was applied, and the caller sends the requests one at a
    /// time.
    func sendBatch(_ units: [[QueuedRequest]], run: inout UploadRun, store: OfflineStore) async throws(ODataError) -> Bool? {
        let firstSent = Self.imfDate(Date())
        var uuids = UUIDSource()
        var attempts: [(requestID: Int64, repeatabilityID: String, firstSent: String)] = []
        var items: [MultipartBatchRequest.Item] = []
        var contentIDs: [[String]] = []
        var number = 0
        for unit in units {
            var parts: [MultipartBatchRequest.Part] = []
            var ids: [String] = []
            var touched = Set<String>()
            var created: [(path: String, reference: String)] = []
            for request in unit {
                number += 1
                let id = String(number)
                let entity = request.entityIdentity ?? ""
                var headers = ["Accept": "application/json"]
                if request.body != nil { headers["Content-Type"] = "application/json" }
                if request.method != "POST" {
                    if touched.contains(entity) {
                        headers["If-Match"] = "*"
                    } else {
                        let current = try? store.currentServerETag(of: request.affectedEntitySet, key: request.affectedEntityKey)
                        if let etag = run.etags[entity] ?? current ?? request.serverETag { headers["If-Match"] = etag }
                    }
                }
                for (name, value) in request.customHeaders { headers[name] = value }
                if parameters.enableRepeatableRequests {
                    let repeatability = uuids.next()
                    headers["Repeatability-Request-ID"] = repeatability
                    headers["Repeatability-First-Sent"] = firstSent
                    attempts.append((request.requestID, repeatability, firstSent))
                } else {
                    attempts.append((request.requestID, "", firstSent))
                }
                var url = request.url
                while url.hasPrefix("/") { url.removeFirst() }
                var body = request.body
                // An entity created earlier in this change set with a temporary key: by Content-ID.
                for (path, reference) in created {
                    if url == path || url.hasPrefix(path + "/") || url.hasPrefix(path + "?") {
                        url = reference + url.dropFirst(path.count)
                    }
                    body = body?.replacingOccurrences(of: "\"" + path + "\"", with: "\"" + reference + "\"")
                        .replacingOccurrences(of: "\"/" + path + "\"", with: "\"" + reference + "\"")
                }
                if request.method == "POST", !request.isAction, usesContentIDReferences(store),
                   try store.hasGeneratedKey(request.affectedEntitySet, key: request.affectedEntityKey) {
                    created.append((request.affectedEntitySet + request.affectedEntityKey, "$" + id))
                }
                guard let method = ODataMethod(name: wireMethod(request.method, store)) else {
                    throw SyncErrorCode.invalidParameter.error("queued request \(request.requestID) has the method '\(request.method)'")
                }
                let wireBody = body.map { self.wireBody($0, set: request.affectedEntitySet, store: store) }
                parts.append(MultipartBatchRequest.Part(contentID: id, request: ODataRequest(method, url, headers: headers, body: wireBody.map { Array($0.utf8) })))
                ids.append(id)
                if request.entityIdentity != nil { touched.insert(entity) }
            }
            items.append(.changeSet(boundary: "changeset_" + uuids.next(), parts))
            contentIDs.append(ids)
        }
        let batch = MultipartBatchRequest(boundary: "batch_" + uuids.next(), items: items)
        let json: Bool
        if let decided = run.jsonBatch { json = decided } else { json = try usesJSONBatch(store) }
        run.jsonBatch = json
        // Recorded before the send: after a crash these requests go alone, with their proofs.
        try store.beginUploadAttempts(attempts)
        for attempt in attempts { run.preBegun.removeValue(forKey: attempt.requestID) }   // superseded by these
        var http = HTTPRequest(method: "POST", url: serviceRoot + "$batch",
                               headers: requestHeaders((json ? [("Content-Type", "application/json"), ("Accept", "application/json")]
                                                             : [("Content-Type", batch.contentType), ("Accept", "multipart/mixed")])
                                                       + versionHeaders(store) + [("Prefer", "odata.continue-on-error")]),
                               body: json ? Self.jsonBatch(batch) : batch.serialized(), timeout: parameters.timeout)
        http.collectsBody = true
        let (response, body) = try await writeExchange(http)
        if [404, 405, 501].contains(response.status) { return nil }
        try check(response, body, http, what: "upload batch")
        let answer: MultipartBatchResponse
        do {
            answer = json ? try Self.parseJSONBatchAnswer(body, units: contentIDs)
                          : try MultipartBatchResponse.parse(body, contentType: response.header("Content-Type") ?? "")
        } catch {
            throw SyncErrorCode.invalidPayload.error("upload batch: the answer is not a \(json ? "JSON" : "multipart") batch response: \(error.message)",
                                                     at: http.url)
        }
        // Every outcome of the answer, applied in one commit.
        var outcomes: [(request: QueuedRequest, outcome: UploadOutcome)] = []
        for (index, unit) in units.enumerated() {
            guard index < answer.items.count else {
                // Not run (a back end that stops at the first failed change set): sent again next upload.
                for request in unit { run.leftQueued.insert(request.requestID) }
                continue
            }
            let parts: [MultipartBatchResponse.Part]
            switch answer.items[index] {
            case .changeSet(_, let inner): parts = inner
            case .response(let part): parts = [part]
            }
            let ok = parts.allSatisfy { (200..<300).contains($0.response.status) }
            if parts.contains(where: { Self.notProcessed.contains($0.response.status) }) {
                // Not processed (busy, locked, logged out): stays queued for the next upload.
                for request in unit { run.leftQueued.insert(request.requestID) }
            } else if ok, parts.count == unit.count {
                // Applied: each answer by its echoed Content-ID, else by position.
                for (position, request) in unit.enumerated() {
                    let id = contentIDs[index][position]
                    let part = parts.first { $0.contentID == id } ?? parts[position]
                    outcomes.append((request, try outcome(request, status: part.response.status, header: { Self.partHeader(part.response, $0) },
                                                          body: part.response.body ?? [], run: run, store: store)))
                }
            } else if let failure = parts.first(where: { !(200..<300).contains($0.response.status) }) {
                outcomes += failChangeSet(unit, ids: contentIDs[index], failure: failure)
            } else {
                // An answer that does not fit the change set: nothing can be confirmed from it.
                for request in unit { run.leftQueued.insert(request.requestID) }
            }
        }
        let confirmations = try store.settleUploads(outcomes.map(\.outcome))
        var rekeyed = false
        for (n, (request, outcome)) in outcomes.enumerated() {
            if record(outcome, request: request, confirmation: n < confirmations.count ? confirmations[n] : nil, run: &run) { rekeyed = true }
        }
        publishSent(run)
        return rekeyed
    }

    /// A change set the back end refused as a whole (atomic: none of it was applied): the request
    /// the failure names (by Content-ID; the first when the back end does not echo it) is
    /// archived with the back end's error, the others with 424 naming it.
    func failChangeSet(_ unit: [QueuedRequest], ids: [String], failure: MultipartBatchResponse.Part) -> [(request: QueuedRequest, outcome: UploadOutcome)] {
        let failing = failure.contentID.flatMap { ids.firstIndex(of: $0) } ?? 0
        let detail = Self.errorDetail(failure.response.body ?? [])
        let status = failure.response.status
        let culprit = unit[failing]
        return unit.enumerated().map { position, request in
            if position == failing {
                return (request, .failed(requestID: request.requestID, status: status, code: detail.code,
                                         message: detail.message ?? "\(request.method) \(request.url) answered \(status)", innerError: detail.inner))
            }
            return (request, .failed(requestID: request.requestID, status: 424, code: "changeSetFailed",
                                     message: "not applied: its change set failed at \(culprit.method) \(culprit.url) (\(status)\(detail.message.map { ": " + $0 } ?? ""))",
                                     innerError: nil))
        }
    }

    /// Whether batches go in the JSON form (OData 4.01 §11.7.7.2 of the JSON format): `.json`, or
    /// `.automatic` for a service whose `$metadata` says 4.01.
    func usesJSONBatch(_ store: OfflineStore) throws(ODataError) -> Bool {
        switch parameters.uploadBatchFormat {
        case .json: return true
        case .multipart: return false
        case .automatic:
            guard store.model.urlVersion == .v4 else { return false }
            let head = String(decoding: try store.metadataBytes().prefix(512), as: UTF8.self)
            return head.contains(#"Version="4.01""#)
        }
    }

    /// The JSON form of a batch: each change set an atomicity group, each request with its id
    /// (the Content-ID), method, URL, headers and body; a request that names an earlier one by
    /// `$n` depends on it.
    static func jsonBatch(_ batch: MultipartBatchRequest) -> [UInt8] {
        var requests: [String] = []
        for (group, item) in batch.items.enumerated() {
            let parts: [MultipartBatchRequest.Part]
            switch item {
            case .changeSet(_, let inner): parts = inner
            case .request(let part): parts = [part]
            }
            for part in parts {
                let request = part.request
                var members = [#""id":"# + V2JSON.string(part.contentID ?? ""), #""atomicityGroup":"# + V2JSON.string("g\(group + 1)"),
                               #""method":"# + V2JSON.string(request.method.rawValue), #""url":"# + V2JSON.string(request.url)]
                let references = parts.compactMap(\.contentID).filter { id in
                    id != part.contentID && (request.url.hasPrefix("$" + id + "/") || request.url == "$" + id
                        || request.body.map { String(decoding: $0, as: UTF8.self).contains("\"$" + id + "\"") } == true)
                }
                if !references.isEmpty { members.append(#""dependsOn":["# + references.map(V2JSON.string).joined(separator: ",") + "]") }
                let headers = request.headers.sorted { $0.key < $1.key }.map { V2JSON.string($0.key.lowercased()) + ":" + V2JSON.string($0.value) }
                members.append(#""headers":{"# + headers.joined(separator: ",") + "}")
                if let body = request.body { members.append(#""body":"# + String(decoding: body, as: UTF8.self)) }
                requests.append("{" + members.joined(separator: ",") + "}")
            }
        }
        return Array((#"{"requests":["# + requests.joined(separator: ",") + "]}").utf8)
    }

    /// A JSON batch answer (`{"responses":[{"id","status","headers","body"}]}`) as the change sets
    /// of the multipart form: each unit's responses by id. A failed atomicity group may answer
    /// only its failing member (odatapy): the unit then holds that one, which fails it whole.
    static func parseJSONBatchAnswer(_ body: [UInt8], units: [[String]]) throws(ODataError) -> MultipartBatchResponse {
        guard let json = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              let responses = json["responses"] as? [[String: Any]] else {
            throw SyncErrorCode.invalidPayload.error("no \"responses\" array")
        }
        var byID: [String: MultipartBatchResponse.Part] = [:]
        for response in responses {
            guard let id = response["id"] as? String, let status = response["status"] as? Int else {
                throw SyncErrorCode.invalidPayload.error("a response without id or status")
            }
            var headers: [String: String] = [:]
            for (name, value) in response["headers"] as? [String: Any] ?? [:] { headers[name] = "\(value)" }
            var bytes: [UInt8]?
            if let value = response["body"], !(value is NSNull) {
                if let text = value as? String { bytes = Array(text.utf8) } else if let data = try? JSONSerialization.data(withJSONObject: value) {
                    bytes = [UInt8](data)
                }
            }
            byID[id] = MultipartBatchResponse.Part(contentID: id, response: ODataResponse(status: status, headers: headers, body: bytes))
        }
        var items: [MultipartBatchResponse.Item] = []
        for ids in units {
            let parts = ids.compactMap { byID[$0] }
            // A unit with no response at all ends the answer (nothing after it ran).
            if parts.isEmpty { break }
            items.append(.changeSet(boundary: "", parts))
        }
        return MultipartBatchResponse(boundary: "", items: items)
    }

    /// A header of a batch part's answer, by name in any case.
    static func partHeader(_ response: ODataResponse, _ name: String) -> String? {
        let lower = name.lowercased()
        return response.headers.first { $0.key.lowercased() == lower }?.value
    }
}
