import OfflineODataModel

/// `$batch` (docs/LocalService.md §2.5). The `Content-Type` picks the format: `multipart/mixed`
/// (OData 4.01 Part 1 §11.7.7, LocalService+MultipartBatch.swift) or the OData JSON batch format
/// (OData JSON Format 4.01 §19): `{"requests":[…]}`, requests with the same `atomicityGroup`
/// (adjacent) form a change set applied atomically. Both formats run change sets through
/// `runAtomicGroup` and single requests through `runBatchRequest`, stop at the first failure
/// unless the batch's `Prefer` asks for `continue-on-error` (`BatchPreference`), and answer a
/// request whose dependency failed with 424.
extension LocalService {
    struct BatchItem {
        var id: String
        var request: ODataRequest
        var group: String?
        var index: Int
        /// `dependsOn`: ids of earlier requests or atomicity groups.
        var dependsOn: [String]
    }

    /// One request of a batch as the runners see it: the name later URLs use for it
    /// (`$<contentID>`), a label for errors (JSON path or multipart byte offset), the request,
    /// and what it depends on (JSON `dependsOn`).
    struct BatchStep {
        var contentID: String?
        var label: String
        var request: ODataRequest
        var dependsOn: [String] = []
    }

    /// What became of an atomic group: every response, or the failing request and its error
    /// (then nothing of the group was applied).
    enum GroupOutcome {
        case applied([ODataResponse])
        case failed(index: Int, error: ODataError)
    }

    func executeBatch(_ request: ODataRequest) throws(ODataError) -> ODataResponse {
        let preference = try BatchPreference(prefer: request.header("Prefer"))
        if let type = request.header("Content-Type"), type.lowercased().hasPrefix("multipart/") {
            guard try MultipartReader.mediaType(type, at: "Content-Type").type == "multipart/mixed" else {
                throw .serviceNotSupported("$batch with Content-Type '\(type)': send multipart/mixed or the JSON batch format", "$batch")
            }
            return try executeMultipartBatch(request, contentType: type, preference: preference)
        }
        guard let body = request.body, !body.isEmpty else { throw .serviceInvalidBatch("$batch needs a JSON body", "$") }
        let items = try parseBatch(try JSONReader.parse(body))
        var responses: [(String, ODataResponse)] = []
        var locations: [String: String] = [:]
        var failed = Set<String>()  // ids and atomicity groups that failed or were not executed
        var i = 0
        requests: while i < items.count {
            var group = [items[i]]
            if let name = items[i].group {
                var j = i + 1
                while j < items.count, items[j].group == name { group.append(items[j]); j += 1 }
            }
            i += group.count
            let steps = group.map { BatchStep(contentID: $0.id, label: "$.requests[\($0.index)]", request: $0.request, dependsOn: $0.dependsOn) }
            if group.count == 1, group[0].group == nil {
                let response = runBatchRequest(steps[0], locations: &locations, failed: failed)
                responses.append((group[0].id, response))
                if response.status >= 400 {
                    failed.insert(group[0].id)
                    if !preference.continueOnError { break requests }
                }
                continue
            }
            switch runAtomicGroup(steps, locations: &locations, failed: failed, sharedTransactionID: false) {
            case .applied(let groupResponses):
                for (item, response) in zip(group, groupResponses) { responses.append((item.id, response)) }
            case .failed(let index, let cause):
                for (n, item) in group.enumerated() {
                    responses.append((item.id, n == index ? ODataResponse.error(cause) : ODataResponse.error(.serviceDependencyFailed(item.id))))
                    failed.insert(item.id)
                }
                if let name = group[0].group { failed.insert(name) }
                if !preference.continueOnError { break requests }
            }
        }
        var out: [JSONValue] = []
        for (id, response) in responses {
            var members: [(String, JSONValue)] = [("id", .string(id)), ("status", .number(JSONNumber(response.status)))]
            if !response.headers.isEmpty {
                members.append(("headers", .object(JSONObject.unique(response.headers.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))))
            }
            if let body = response.body { members.append(("body", Self.batchBody(body, contentType: response.headers["Content-Type"]))) }
            out.append(.object(JSONObject.unique(members)))
        }
        let json = JSONValue.object(JSONObject.unique([("responses", .array(out))]))
        var headers = ["Content-Type": "application/json"]
        if let applied = preference.applied { headers["Preference-Applied"] = applied }
        return ODataResponse(status: 200, headers: headers, body: json.serialized())
    }

    /// A request outside any group: executed on its own (its own commit); an error becomes its
    /// error response. Its `Location` is remembered for later `$<contentID>` references.
    func runBatchRequest(_ step: BatchStep, locations: inout [String: String], failed: Set<String>) -> ODataResponse {
        let response: ODataResponse
        do throws(ODataError) {
            response = try execute(try resolveReferences(step, locations: locations, failed: failed))
        } catch {
            response = ODataResponse.error(error)
        }
        if let id = step.contentID, let location = response.headers["Location"] { locations[id] = location }
        return response
    }

    /// A change set: every request in **one** commit, or nothing. GET and ErrorArchive deletion
    /// are refused inside. Each request's option headers (`OfflineOData.TransactionID` …) apply;
    /// with `sharedTransactionID`, requests without a transaction ID of their own get
    /// `changeset-<RequestID of the group's first request>`, so the upload sends them as one
    /// change set again.
    func runAtomicGroup(_ steps: [BatchStep], locations: inout [String: String], failed: Set<String>,
                        sharedTransactionID: Bool) -> GroupOutcome {
        var failure: (Int, ODataError)?
        var groupResponses: [ODataResponse] = []
        var groupLocations = locations
        do throws(ODataError) {
            try perform { (tx: inout ServiceTransaction) throws(ODataError) -> Void in
                let transactionID = sharedTransactionID ? "changeset-\(tx.counters.nextRequestID)" : nil
                for (n, step) in steps.enumerated() {
                    do throws(ODataError) {
                        var request = try self.resolveReferences(step, locations: groupLocations, failed: failed)
                        request.options = try request.options.applyingHeaders(request.headers)
                        if request.options.transactionID == nil, let transactionID { request.options.transactionID = transactionID }
                        try request.options.validate()
                        let route = try self.route(request)
                        switch route {
                        case .read, .batch, .deleteArchiveEntry:
                            throw .serviceNotSupported("\(request.method.rawValue) '\(request.url)' cannot be part of an atomicity group", step.label)
                        default: break
                        }
                        let response = try self.apply(route, request, tx: &tx)
                        if let id = step.contentID, let location = response.headers["Location"] { groupLocations[id] = location }
                        groupResponses.append(response)
                    } catch {
                        failure = (n, error)
                        throw error
                    }
                }
            }
        } catch {
            let (index, cause) = failure ?? (0, error)
            return .failed(index: index, error: cause)
        }
        locations = groupLocations
        return .applied(groupResponses)
    }

    /// A request body of a JSON `$batch` (OData JSON Format 4.01 §19.1): a JSON value for a
    /// JSON media type (or none given); for a textual one (`text/*`, a `charset`, XML) the
    /// string's UTF-8; for any other, base64url text of the bytes.
    static func batchBody(_ value: JSONValue, contentType: String?, path: String) throws(ODataError) -> [UInt8] {
        guard let contentType, !isJSON(contentType) else { return value.serialized() }
        guard let text = value.stringValue else {
            throw .serviceInvalidBatch("the body of a '\(contentType)' request must be a string", path)
        }
        if isTextual(contentType) { return Array(text.utf8) }
        do {
            return try Base64Text.decode(text)
        } catch {
            throw .serviceInvalidBatch("the body of a '\(contentType)' request is not base64url: \(error.message)", path)
        }
    }

    /// A response body in a JSON `$batch` answer, the same way round.
    static func batchBody(_ body: [UInt8], contentType: String?) -> JSONValue {
        if contentType.map(isJSON) ?? true, let json = try? JSONReader.parse(body) { return json }
        if let contentType, isTextual(contentType), let text = String(validating: body, as: UTF8.self) { return .string(text) }
        return .string(Base64Text.encodeURL(body))
    }

    static func isTextual(_ contentType: String) -> Bool {
        let lower = contentType.lowercased()
        return lower.hasPrefix("text/") || lower.contains("charset=") || lower.hasPrefix("application/xml") || lower.contains("+xml")
    }

    private func parseBatch(_ json: JSONValue) throws(ODataError) -> [BatchItem] {
        guard case .object(let root) = json, case .array(let list)? = root["requests"] else {
            throw .serviceInvalidBatch("the $batch body is not {\"requests\":[…]}", "$")
        }
        var items: [BatchItem] = []
        var seen = Set<String>()
        var closedGroups = Set<String>()
        for (n, value) in list.enumerated() {
            let path = "$.requests[\(n)]"
            guard case .object(let object) = value else { throw .serviceInvalidBatch("a batch request is not an object", path) }
            guard let id = object["id"]?.stringValue, !id.isEmpty else { throw .serviceInvalidBatch("a batch request without \"id\"", path) }
            guard seen.insert(id).inserted else { throw .serviceInvalidBatch("duplicate request id '\(id)'", path) }
            guard let methodName = object["method"]?.stringValue, let method = ODataMethod(name: methodName) else {
                throw .serviceInvalidBatch("request '\(id)' has no valid \"method\"", path + ".method")
            }
            guard let url = object["url"]?.stringValue else { throw .serviceInvalidBatch("request '\(id)' has no \"url\"", path + ".url") }
            var headers: [String: String] = [:]
            if let h = object["headers"] {
                guard case .object(let hs) = h else { throw .serviceInvalidBatch("\"headers\" of '\(id)' is not an object", path + ".headers") }
                for (key, value) in hs {
                    guard let text = value.stringValue else { throw .serviceInvalidBatch("header '\(key)' of '\(id)' is not a string", path + ".headers") }
                    headers[key] = text
                }
            }
            var body: [UInt8]?
            if let b = object["body"], !b.isNull {
                body = try Self.batchBody(b, contentType: headers.first { $0.key.lowercased() == "content-type" }?.value,
                                          path: path + ".body")
            }
            var group: String?
            if let g = object["atomicityGroup"] {
                guard let name = g.stringValue, !name.isEmpty else {
                    throw .serviceInvalidBatch("\"atomicityGroup\" of '\(id)' is not a string", path + ".atomicityGroup")
                }
                if closedGroups.contains(name), items.last?.group != name {
                    throw .serviceInvalidBatch("requests of atomicity group '\(name)' are not adjacent", path)
                }
                group = name
            }
            var dependsOn: [String] = []
            if let d = object["dependsOn"] {
                guard case .array(let values) = d else {
                    throw .serviceInvalidBatch("\"dependsOn\" of '\(id)' is not an array", path + ".dependsOn")
                }
                for (k, value) in values.enumerated() {
                    let at = path + ".dependsOn[\(k)]"
                    guard let name = value.stringValue else { throw .serviceInvalidBatch("\"dependsOn\" of '\(id)' has a non-string entry", at) }
                    if name == group {
                        throw .serviceInvalidBatch("'\(id)' depends on its own atomicity group '\(name)'", at)
                    }
                    guard (name != id && seen.contains(name)) || closedGroups.contains(name) else {
                        throw .serviceInvalidBatch("'\(id)' depends on '\(name)', which is no earlier request or atomicity group", at)
                    }
                    dependsOn.append(name)
                }
            }
            if object["if"] != nil {
                throw .serviceNotSupported("the \"if\" condition of batch request '\(id)' is not supported", path + ".if")
            }
            if let group { closedGroups.insert(group) }
            items.append(BatchItem(id: id, request: ODataRequest(method, url, headers: headers, body: body), group: group, index: n,
                                   dependsOn: dependsOn))
        }
        if let clash = items.first(where: { closedGroups.contains($0.id) }) {
            throw .serviceInvalidBatch("'\(clash.id)' is both a request id and an atomicity group", "$.requests[\(clash.index)]")
        }
        return items
    }

    /// `$1/ToItems` → the Location of request `1` followed by `/ToItems`.
    func resolveContentID(_ url: String, _ locations: [String: String]) -> String {
        guard url.hasPrefix("$") else { return url }
        let rest = url.dropFirst()
        let end = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        guard let location = locations[String(rest[..<end])] else { return url }
        return location + rest[end...]
    }
}
