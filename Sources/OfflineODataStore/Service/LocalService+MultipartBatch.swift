import OfflineODataModel

/// `$batch` with `Content-Type: multipart/mixed` (docs/LocalService.md §2.5,
/// docs/MultipartBatch.md). The whole body is parsed first (`MultipartBatchRequest.parse`), so a
/// malformed batch throws and changes nothing. Then, in order: each request outside a change set
/// runs on its own; each change set runs as one commit (`runAtomicGroup`): applied, its answer is
/// a nested `changesetresponse_…` multipart; failed, nothing of it is applied and its answer is
/// the single error response of the failing request. After the first failed request or change
/// set the batch stops (no further parts are executed or answered) unless the batch's `Prefer`
/// has `continue-on-error`; then it goes on, a request whose `$<Content-ID>` reference names a
/// failed request is answered 424, and the response has `Preference-Applied`.
extension LocalService {
    func executeMultipartBatch(_ request: ODataRequest, contentType: String, preference: BatchPreference) throws(ODataError) -> ODataResponse {
        let body = request.body ?? []
        let batch = try MultipartBatchRequest.parse(body, contentType: contentType)
        var locations: [String: String] = [:]
        var failed = Set<String>()  // Content-IDs of requests that failed or were not executed
        var items: [MultipartBatchResponse.Item] = []
        processing: for item in batch.items {
            switch item {
            case .request(let part):
                let response = runBatchRequest(step(part), locations: &locations, failed: failed)
                items.append(.response(MultipartBatchResponse.Part(contentID: part.contentID, response: response)))
                if response.status >= 400 {
                    if let id = part.contentID { failed.insert(id) }
                    if !preference.continueOnError { break processing }
                }
            case .changeSet(_, let parts):
                switch runAtomicGroup(parts.map(step), locations: &locations, failed: failed, sharedTransactionID: true) {
                case .applied(let responses):
                    let answered = zip(parts, responses).map { MultipartBatchResponse.Part(contentID: $0.contentID, response: $1) }
                    items.append(.changeSet(boundary: "", answered))
                case .failed(let index, let error):
                    let contentID = parts.indices.contains(index) ? parts[index].contentID : nil
                    items.append(.response(MultipartBatchResponse.Part(contentID: contentID, response: ODataResponse.error(error))))
                    for part in parts { if let id = part.contentID { failed.insert(id) } }
                    if !preference.continueOnError { break processing }
                }
            }
        }
        let id = Self.responseBoundaryID(body, items)
        var changeSets = 0
        let named = items.map { item -> MultipartBatchResponse.Item in
            guard case .changeSet(_, let parts) = item else { return item }
            changeSets += 1
            return .changeSet(boundary: "changesetresponse_\(id)-\(changeSets)", parts)
        }
        let response = MultipartBatchResponse(boundary: "batchresponse_\(id)", items: named)
        var headers = ["Content-Type": response.contentType]
        if let applied = preference.applied { headers["Preference-Applied"] = applied }
        return ODataResponse(status: 200, headers: headers, body: response.serialized())
    }

    private func step(_ part: MultipartBatchRequest.Part) -> BatchStep {
        var request = part.request
        request.url = serviceRelativeURL(request.url)
        return BatchStep(contentID: part.contentID, label: "offset \(part.offset)", request: request)
    }

    /// A request URL relative to the service root. Relative URLs and `$<Content-ID>`
    /// references stay; `http://host/path/Set(…)` and `/path/Set(…)` lose the service root:
    /// everything before the first segment naming an entity set, singleton or operation import
    /// of the model (or a `$batch`/`$metadata` segment).
    func serviceRelativeURL(_ url: String) -> String {
        var path = Substring(url)
        if let scheme = path.firstRange(of: "://") {
            let afterScheme = path[scheme.upperBound...]
            path = afterScheme.firstIndex(of: "/").map { afterScheme[$0...] } ?? ""
        } else if !path.hasPrefix("/") {
            return url
        }
        let pathEnd = path.firstIndex(of: "?") ?? path.endIndex
        let segments = path[..<pathEnd].split(separator: "/", omittingEmptySubsequences: false)
        for segment in segments {
            let name = segment.prefix { $0 != "(" }
            if !name.isEmpty, isRootSegment(String(name)) { return String(path[segment.startIndex...]) }
        }
        return String(path.drop { $0 == "/" })
    }

    private func isRootSegment(_ name: String) -> Bool {
        if name.hasPrefix("$") { return MultipartBatchRequest.reservedSegments.contains(String(name.dropFirst())) }
        guard let container = model.entityContainer else { return false }
        return container.entitySet(named: name) != nil || container.singleton(named: name) != nil
            || container.functionImports.contains { $0.name == name } || container.actionImports.contains { $0.name == name }
    }

    /// A boundary ID derived from the request body (FNV-1a, so answers are reproducible) that
    /// occurs in no response body.
    static func responseBoundaryID(_ body: [UInt8], _ items: [MultipartBatchResponse.Item]) -> String {
        var bodies: [[UInt8]] = []
        for item in items {
            switch item {
            case .response(let part): if let b = part.response.body { bodies.append(b) }
            case .changeSet(_, let parts): bodies += parts.compactMap(\.response.body)
            }
        }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        while true {
            let text = String(hash, radix: 16)
            let id = String(repeating: "0", count: 16 - text.count) + text
            let needle = Array("response_\(id)".utf8)  // batchresponse_… and changesetresponse_…
            let taken = bodies.contains { MultipartWriter.contains($0, needle) }
            if !taken { return id }
            hash = (hash ^ 0x5A) &* 0x0000_0100_0000_01b3
        }
    }
}
