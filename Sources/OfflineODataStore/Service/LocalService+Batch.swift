import OfflineODataModel

/// `$batch` in the OData JSON batch format (OData JSON Format 4.01 §19): `{"requests":[…]}`,
/// requests with the same `atomicityGroup` (adjacent) form a change set applied atomically.
/// Multipart/mixed batches are not supported (docs/LocalService.md §2.5).
extension LocalService {
    struct BatchItem {
        var id: String
        var request: ODataRequest
        var group: String?
        var index: Int
    }

    func executeBatch(_ request: ODataRequest) throws(ODataError) -> ODataResponse {
        if let type = request.header("Content-Type"), type.lowercased().hasPrefix("multipart/") {
            throw .serviceNotSupported("multipart/mixed $batch is not supported; send the JSON batch format", "$batch")
        }
        guard let body = request.body, !body.isEmpty else { throw .serviceInvalidBatch("$batch needs a JSON body", "$") }
        let items = try parseBatch(try JSONReader.parse(body))
        var responses: [(String, ODataResponse)] = []
        var locations: [String: String] = [:]
        var i = 0
        while i < items.count {
            var group = [items[i]]
            if let name = items[i].group {
                var j = i + 1
                while j < items.count, items[j].group == name { group.append(items[j]); j += 1 }
            }
            i += group.count
            if group.count == 1, group[0].group == nil {
                var item = group[0]
                item.request.url = resolveContentID(item.request.url, locations)
                let response: ODataResponse
                do throws(ODataError) {
                    response = try execute(item.request)
                } catch {
                    response = ODataResponse.error(error)
                }
                if let location = response.headers["Location"] { locations[item.id] = location }
                responses.append((item.id, response))
                continue
            }
            var failed: (Int, ODataError)?
            var groupResponses: [ODataResponse] = []
            var groupLocations = locations
            do throws(ODataError) {
                try perform { (tx: inout ServiceTransaction) throws(ODataError) -> Void in
                    for (n, item) in group.enumerated() {
                        var request = item.request
                        request.url = resolveContentID(request.url, groupLocations)
                        do throws(ODataError) {
                            try request.options.validate()
                            let route = try self.route(request)
                            switch route {
                            case .read, .batch, .deleteArchiveEntry:
                                throw .serviceNotSupported("\(request.method.rawValue) '\(request.url)' cannot be part of an atomicity group", item.id)
                            default: break
                            }
                            let response = try self.apply(route, request, tx: &tx)
                            if let location = response.headers["Location"] { groupLocations[item.id] = location }
                            groupResponses.append(response)
                        } catch {
                            failed = (n, error)
                            throw error
                        }
                    }
                }
                locations = groupLocations
                for (item, response) in zip(group, groupResponses) { responses.append((item.id, response)) }
            } catch {
                let (index, cause) = failed ?? (0, error)
                for (n, item) in group.enumerated() {
                    responses.append((item.id, n == index ? ODataResponse.error(cause)
                                                           : ODataResponse(status: 424, body: ODataResponse.error(.serviceDependencyFailed(item.id)).body)))
                }
            }
        }
        var out: [JSONValue] = []
        for (id, response) in responses {
            var members: [(String, JSONValue)] = [("id", .string(id)), ("status", .number(JSONNumber(response.status)))]
            if !response.headers.isEmpty {
                members.append(("headers", .object(JSONObject.unique(response.headers.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))))
            }
            if let body = response.body, let json = try? JSONReader.parse(body) { members.append(("body", json)) }
            out.append(.object(JSONObject.unique(members)))
        }
        let json = JSONValue.object(JSONObject.unique([("responses", .array(out))]))
        return ODataResponse(status: 200, headers: ["Content-Type": "application/json"], body: json.serialized())
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
            if let b = object["body"], !b.isNull { body = b.serialized() }
            var group: String?
            if let g = object["atomicityGroup"] {
                guard let name = g.stringValue, !name.isEmpty else {
                    throw .serviceInvalidBatch("\"atomicityGroup\" of '\(id)' is not a string", path + ".atomicityGroup")
                }
                if closedGroups.contains(name), items.last?.group != name {
                    throw .serviceInvalidBatch("requests of atomicity group '\(name)' are not adjacent", path)
                }
                closedGroups.insert(name)
                group = name
            }
            items.append(BatchItem(id: id, request: ODataRequest(method, url, headers: headers, body: body), group: group, index: n))
        }
        return items
    }

    /// `$1/ToItems` → the Location of request `1` followed by `/ToItems`.
    private func resolveContentID(_ url: String, _ locations: [String: String]) -> String {
        guard url.hasPrefix("$") else { return url }
        let rest = url.dropFirst()
        let end = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        guard let location = locations[String(rest[..<end])] else { return url }
        return location + rest[end...]
    }
}
