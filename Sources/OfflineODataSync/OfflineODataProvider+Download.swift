import Foundation
import OfflineODataModel
import OfflineODataQuery
import OfflineODataStore

/// The download recipe (docs/Sync.md §3):
/// 1. for each defining query, choose delta (a trusted delta link, not yet due for a reconcile)
///    or full;
/// 2. receive its pages under no lock, following next links with `Prefer: odata.maxpagesize`
///    on every request, keeping the delta link of the first page that carries one; a delta link
///    answered 400 or 410 falls back to a full read;
/// 3. apply every query's pages in one exclusive session, each with its new sync state.
extension OfflineODataProvider {
    func runDownload(_ store: OfflineStore, names: [String]?, forceFull: Bool) async throws(ODataError) -> [DownloadSummary] {
        progressHub.publish(SyncProgress(step: .processingDefiningQueries))
        var queries = try store.definingQueries()
        if let names { queries = queries.filter { names.contains($0.name) } }
        var downloads: [SyncDownload] = []
        var applied = false
        defer { if !applied { for download in downloads { download.pages.discard() } } }
        for query in queries {
            try checkCancelled()
            downloads.append(try await receive(query, store: store, forceFull: forceFull, durable: queries.count > 1))
        }
        try checkCancelled()
        progressHub.publish(SyncProgress(step: .applyingDownload))
        let hub = progressHub
        let summaries: [DownloadSummary]
        do {
            applied = true
            summaries = try await store.applySyncDownloads(downloads) { progress in
                hub.publish(SyncProgress(step: .applyingDownload, definingQuery: progress.definingQuery,
                                         pagesReceived: progress.pagesReceived, entitiesApplied: progress.entitiesApplied))
            }
        } catch {
            throw Self.payloadError(error)
        }
        // The media of the queries that retrieve streams, now that their entities are in.
        _ = try await downloadStreams(store, names: names)
        return summaries
    }

    /// One defining query's pages, received into the store's receiver.
    func receive(_ query: DefiningQuery, store: OfflineStore, forceFull: Bool, durable: Bool) async throws(ODataError) -> SyncDownload {
        let prior = try store.syncState(of: query.name)
        let shape = readShape(query, model: store.model)
        if !forceFull, shape.trusted, let prior, prior.url == query.url, let link = prior.deltaLink,
           prior.downloadsSinceReconcile + 1 < parameters.reconcileEvery {
            let receiver = try store.makeReceiver(for: query.name, durable: durable)
            do throws(ODataError) {
                if let outcome = try await receivePages(from: try resolve(link), query: query.name, into: .receiver(receiver),
                                                        trackChanges: false, deltaRequest: true) {
                    let state = SyncQueryState(deltaLink: outcome.deltaLink, downloadsSinceReconcile: prior.downloadsSinceReconcile + 1,
                                               url: query.url)
                    return SyncDownload(definingQuery: query.name, mode: .delta, pages: receiver, state: state)
                }
            } catch {
                receiver.discard()
                throw error
            }
            // The back end no longer knows the link (400, 410): read the query in full.
            receiver.discard()
        }
        let receiver = try store.makeReceiver(for: query.name, durable: durable)
        do throws(ODataError) {
            let state = try await receiveFull(query, shape: shape, into: .receiver(receiver))
            return SyncDownload(definingQuery: query.name, mode: .full, pages: receiver, state: state)
        } catch {
            receiver.discard()
            throw error
        }
    }

    /// How a defining query is read: `single` for a singleton (`Me`: one entity, read in full
    /// every time, it has no delta link) or one entity by key (`Photos(7)`: the same, a page of
    /// at most one); `trusted` when its delta links are followed.
    func readShape(_ query: DefiningQuery, model: ServiceModel) -> (single: Bool, trusted: Bool) {
        let single = Self.singletonName(query.url, model: model) != nil || Self.singleEntitySet(query.url, model: model) != nil
        return (single, !single && deltaTrusted(query.url))
    }

    /// Reads a defining query in full into `sink`; the state to commit with its data.
    func receiveFull(_ query: DefiningQuery, shape: (single: Bool, trusted: Bool), into sink: PageSink) async throws(ODataError) -> SyncQueryState {
        let outcome = try await receivePages(from: try resolve(query.url), query: query.name, into: sink,
                                             trackChanges: shape.trusted, deltaRequest: false, singleton: shape.single)
        return SyncQueryState(deltaLink: shape.trusted ? outcome?.deltaLink : nil, downloadsSinceReconcile: 0, url: query.url)
    }

    /// The first download of a store that its `open` just created (no one else holds it yet):
    /// each defining query is applied while its pages arrive (docs/Sync.md §2.1, "The initial download"), not received
    /// whole first. The pages of one query wait in a channel of `initialChannelPages`; a failure
    /// of the network or of the apply stops both, and the caller clears the store.
    func runInitialDownload(_ store: OfflineStore) async throws(ODataError) -> [DownloadSummary] {
        progressHub.publish(SyncProgress(step: .processingDefiningQueries))
        let hub = progressHub
        var summaries: [DownloadSummary] = []
        for query in try store.definingQueries() {
            try checkCancelled()
            let channel = PageChannel(capacity: Self.initialChannelPages)
            let buffers = PageBufferPool()
            let name = query.name
            let apply = Task { () async -> Result<DownloadSummary, ODataError> in
                do throws(ODataError) {
                    return .success(try await store.applyInitialDownload(definingQuery: name, channel: channel, pageBuffers: buffers) { progress in
                        hub.publish(SyncProgress(step: .applyingDownload, definingQuery: progress.definingQuery,
                                                 pagesReceived: progress.pagesReceived, entitiesApplied: progress.entitiesApplied))
                    })
                } catch {
                    return .failure(error)
                }
            }
            do throws(ODataError) {
                channel.finish(state: try await receiveFull(query, shape: readShape(query, model: store.model),
                                                            into: .channel(channel, buffers)))
            } catch {
                channel.fail(error)
            }
            // The apply's error when it failed: its own, or the network's that stopped it.
            switch await apply.value {
            case .success(let summary): summaries.append(summary)
            case .failure(let error): throw Self.payloadError(error)
            }
        }
        _ = try await downloadStreams(store, names: nil)
        return summaries
    }

    /// Pages waiting between the network and the apply of an initial download: enough for the
    /// next page to be on its way while one is applied, few enough that memory stays bounded by
    /// the page size.
    static let initialChannelPages = 1

    /// Where received pages go: a receiver (applied after the last page) or a channel (applied
    /// while they arrive).
    enum PageSink {
        case receiver(DownloadReceiver)
        /// With the pool the store hands applied pages' buffers back to.
        case channel(PageChannel, PageBufferPool)

        var buffers: PageBufferPool? {
            if case .channel(_, let pool) = self { return pool }
            return nil
        }

        func append(_ page: [UInt8]) async throws(ODataError) {
            switch self {
            case .receiver(let receiver): try receiver.append(page)
            case .channel(let channel, _): try await channel.send(page)
            }
        }
    }

    struct Received {
        var deltaLink: String?
        var pages: Int
        var bytes = 0
    }

    /// Follows `url` and its next links into `receiver`. Nil when a delta request is answered
    /// 400 or 410 (the link expired).
    /// The singleton a defining query reads (its URL's only path segment), else nil.
    static func singletonName(_ url: String, model: ServiceModel) -> String? {
        var path = String(url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        while path.hasPrefix("/") { path.removeFirst() }
        return model.singleton(named: path) != nil ? path : nil
    }

    /// The entity set of a defining query that reads one entity by its key (`Photos(7)`), else nil.
    static func singleEntitySet(_ url: String, model: ServiceModel) -> String? {
        guard let parsed = try? ODataURLParser.parse(url, version: model.urlVersion),
              let path = try? ResourcePathBinder(model: model, aliases: parsed.options.aliases).bind(parsed.path),
              path.suffix == .none, let (set, _) = path.directKey else { return nil }
        return set
    }

    /// `singleton`: the answer is one entity, taken as a page of one (`{"value":[…]}`; a V2
    /// `{"d":{…}}` as `{"d":{"results":[…]}}`); a 404 is a page of none (the entity is gone).
    func receivePages(from url: String, query: String, into sink: PageSink, trackChanges: Bool,
                      deltaRequest: Bool, singleton: Bool = false) async throws(ODataError) -> Received? {
        var next: String? = url
        var received = Received(deltaLink: nil, pages: 0)
        var seen = Set<String>()
        var trackChanges = trackChanges
        while let link = next {
            try checkCancelled()
            guard received.pages < parameters.maxPages, seen.insert(link).inserted else {
                throw SyncErrorCode.tooManyPages.error("defining query '\(query)': the next links do not end (\(received.pages) pages, "
                                                       + "the last one linking to \(link))", at: link)
            }
            var prefer = "odata.maxpagesize=\(parameters.pageSize)"
            if trackChanges { prefer += ", odata.track-changes" }
            // Pages are received streamed, not with `collectsBody`: gathered whole by
            // FoundationNetworking (a `Data` grown by doubling, per page) a 1M-entity download
            // took 5-8 % less CPU but peaked 10-15 MiB higher (three alternating runs each).
            let request = HTTPRequest(method: "GET", url: link, headers: requestHeaders([
                ("Accept", "application/json"), ("OData-MaxVersion", "4.01"), ("Prefer", prefer),
            ]), timeout: parameters.timeout)
            let response = try await exchange(request)
            if deltaRequest, received.pages == 0, response.status == 400 || response.status == 410 { return nil }
            if trackChanges, received.pages == 0, response.status == 400 || response.status == 501 {
                // The back end tracks no changes of this set (mock-sap: "Delta is not supported
                // for 'A_SalesOrderItem'"): read it without, and in full every time.
                _ = try? await response.body.collect(upTo: parameters.maxPageBytes)
                trackChanges = false
                seen.remove(link)
                continue
            }
            var body = try await collect(response, request, buffers: sink.buffers)
            if singleton, response.status == 404 {
                body = Array(#"{"value":[]}"#.utf8)
            } else {
                try check(response, body, request, what: "defining query '\(query)'")
                if singleton {
                    // The entity as it came, as the one member of a collection page.
                    if let json = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any], let entity = json["d"] as? [String: Any],
                       entity["results"] == nil, let wrapped = try? JSONSerialization.data(withJSONObject: ["d": ["results": [entity]]]) {
                        body = Array(wrapped)
                    } else {
                        body = Array(#"{"value":["#.utf8) + body + Array("]}".utf8)
                    }
                }
            }
            let what = "page \(received.pages + 1) of defining query '\(query)'"
            let scan = try PageScan.scan(body, what: what)
            received.bytes += body.count
            try await sink.append(body)
            received.pages += 1
            if received.deltaLink == nil, let delta = scan.deltaLink { received.deltaLink = try resolve(delta) }
            next = try scan.nextLink.map { (link: String) throws(ODataError) -> String in try resolve(link) }
            progressHub.publish(SyncProgress(step: .receivingDataFromServer, definingQuery: query, pagesReceived: received.pages,
                                             bytesReceived: received.bytes))
        }
        return received
    }

    // MARK: metadata

    /// `known`: the `$metadata` the store holds, which was checked when it was stored: an answer
    /// of the same bytes is not parsed again (a delta download of a few entities spent about a
    /// twentieth of its time there).
    func fetchMetadata(known: [UInt8]? = nil) async throws(ODataError) -> [UInt8] {
        var request = HTTPRequest(method: "GET", url: serviceRoot + "$metadata",
                                  headers: requestHeaders([("Accept", "application/xml")]), timeout: parameters.timeout)
        request.collectsBody = true
        let response = try await exchange(request)
        let body = try await collect(response, request)
        try check(response, body, request, what: "$metadata")
        if let known, body == known { return body }
        do {
            _ = try ServiceModel.parse(metadata: body)
        } catch let error as ODataError {
            throw SyncErrorCode.invalidMetadata.error("$metadata of \(serviceRoot): \(error.name) (\(error.code)): \(error.message)",
                                                      at: error.location ?? "$metadata")
        } catch {
            throw SyncErrorCode.invalidMetadata.error("$metadata of \(serviceRoot): \(error)", at: "$metadata")
        }
        return body
    }

    // MARK: one exchange

    func requestHeaders(_ own: [(String, String)]) -> [(name: String, value: String)] {
        var headers = own.map { (name: $0.0, value: $0.1) }
        let custom = customHeaders
        for name in custom.keys.sorted() {
            guard let value = custom[name] else { continue }
            headers.removeAll { $0.name.lowercased() == name.lowercased() }
            headers.append((name: name, value: value))
        }
        if let client = parameters.sapClient, !headers.contains(where: { $0.name.lowercased() == "sap-client" }) {
            headers.append((name: "sap-client", value: client))
        }
        let cookies = customCookies
        if !cookies.isEmpty {
            let text = cookies.keys.sorted().compactMap { name in cookies[name].map { "\(name)=\($0)" } }.joined(separator: "; ")
            headers.append((name: "Cookie", value: text))
        }
        return headers
    }

    func exchange(_ request: HTTPRequest) async throws(ODataError) -> HTTPResponse {
        do {
            return try await transport.exchange(request)
        } catch let error as TransportError {
            throw error.syncError(request)
        } catch is CancellationError {
            throw SyncErrorCode.cancelled.error("\(request.method) \(request.url) was cancelled")
        } catch let error as ODataError {
            throw error
        } catch {
            throw SyncErrorCode.communicationFailed.error("\(request.method) \(request.url): \(error)", at: request.url)
        }
    }

    /// `buffers`: where a page's buffer comes from (one the store is done with, else new).
    func collect(_ response: HTTPResponse, _ request: HTTPRequest, buffers: PageBufferPool? = nil) async throws(ODataError) -> [UInt8] {
        do {
            let expected = response.header("Content-Length").flatMap { Int($0) }
            if let buffers {
                var page = buffers.take(capacity: HTTPBody.reservation(expected, limit: parameters.maxPageBytes))
                try await response.body.collect(upTo: parameters.maxPageBytes, into: &page)
                return page
            }
            return try await response.body.collect(upTo: parameters.maxPageBytes, expectedLength: expected)
        } catch let error as HTTPBody.BodyTooLarge {
            throw SyncErrorCode.pageTooLarge.error("\(request.method) \(request.url): the answer passes \(error.limit) bytes", at: request.url)
        } catch let error as TransportError {
            throw error.syncError(request)
        } catch is CancellationError {
            throw SyncErrorCode.cancelled.error("\(request.method) \(request.url) was cancelled while its answer came")
        } catch {
            throw SyncErrorCode.connectionReset.error("\(request.method) \(request.url): the answer broke off: \(error)", at: request.url)
        }
    }

    /// A non-2xx answer as a typed error: 5xx `serverError` (with `Retry-After`), 4xx
    /// `requestRejected`, each with the back end's OData error message when it sent one.
    func check(_ response: HTTPResponse, _ body: [UInt8], _ request: HTTPRequest, what: String) throws(ODataError) {
        guard !(200..<300).contains(response.status) else { return }
        var message = "\(what): \(request.method) \(request.url) answered \(response.status)"
        if let retry = response.header("Retry-After") { message += " (Retry-After: \(retry))" }
        if let detail = Self.errorText(body) { message += ": \(detail)" }
        let code = response.status >= 500 ? SyncErrorCode.serverError : SyncErrorCode.requestRejected
        throw code.error(message, at: request.url)
    }

    /// The message of an OData error body (`error.message`, V2 `error.message.value`), or the
    /// first bytes of another body.
    static func errorText(_ body: [UInt8]) -> String? {
        guard !body.isEmpty else { return nil }
        if let json = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
           let error = json["error"] as? [String: Any] {
            let code = error["code"].map { "\($0)" }
            var text: String?
            if let message = error["message"] as? String { text = message }
            if let message = error["message"] as? [String: Any], let value = message["value"] as? String { text = value }
            return [code, text].compactMap { $0 }.joined(separator: " ")
        }
        let prefix = String(decoding: body.prefix(200), as: UTF8.self)
        return prefix + (body.count > 200 ? "…" : "")
    }

    /// Errors of applying received pages that mean the back end sent what is not OData of its
    /// own model: `invalidPayload` (serverSideError), keeping the store's message.
    static func payloadError(_ error: ODataError) -> ODataError {
        if error.code == 3263 || (1200..<1300).contains(error.code) || (1300..<1500).contains(error.code) {
            return SyncErrorCode.invalidPayload.error("the back end sent data the store cannot take: \(error.name) (\(error.code)): \(error.message)",
                                                      at: error.location)
        }
        return error
    }

    // MARK: links

    /// An absolute URL for a link the back end gave (absolute, host-relative or relative to the
    /// service root) or a defining query.
    func resolve(_ link: String) throws(ODataError) -> String {
        if link.hasPrefix("http://") || link.hasPrefix("https://") { return link }
        if link.hasPrefix("/") {
            guard let url = URL(string: serviceRoot), let scheme = url.scheme, let host = url.host else {
                throw SyncErrorCode.invalidURL.error("cannot resolve '\(link)' against \(serviceRoot)", at: link)
            }
            return "\(scheme)://\(host)\(url.port.map { ":\($0)" } ?? "")\(link)"
        }
        return serviceRoot + link
    }

    /// Whether the back end's delta links are followed for this defining query.
    func deltaTrusted(_ url: String) -> Bool {
        switch parameters.deltaTrust {
        case .never: return false
        case .always: return true
        case .unfilteredSingleSet:
            let parts = url.split(separator: "?", maxSplits: 1)
            let path = parts.first.map(String.init) ?? url
            if path.contains("/") || path.contains("(") { return false }
            guard parts.count > 1 else { return true }
            let options = parts[1].split(separator: "&").map { $0.split(separator: "=").first.map { String($0).lowercased() } ?? "" }
            return !options.contains { $0 == "$filter" || $0 == "$expand" || $0 == "%24filter" || $0 == "%24expand" || $0 == "$search" }
        }
    }

    func checkCancelled(_ what: String = "the download was cancelled; nothing of it was applied") throws(ODataError) {
        if Task.isCancelled { throw SyncErrorCode.cancelled.error(what) }
    }
}
