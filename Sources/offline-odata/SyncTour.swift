import Foundation
import OfflineODataModel
import OfflineODataStore
import OfflineODataSync

/// The demo's sync part: an encrypted store made from a live OData back end (the odatapy server
/// that `scripts/demo.sh` starts on loopback), read offline, kept up to date by delta and full
/// downloads while another client changes the back end, with a defining query changed at
/// runtime, then reopened without the network.
struct SyncTour {
    let serviceRoot: String
    let path: String?

    func run() async throws {
        let base = path ?? FileManager.default.temporaryDirectory.path + "/oodata-sync-demo-\(UUID().uuidString)"
        defer { if path == nil { try? FileManager.default.removeItem(atPath: base) } }
        print("== Sync with a live OData back end: \(serviceRoot)")
        let queries = [
            DefiningQuery(name: "USPartners", url: "BusinessPartners?$filter=Country eq 'US'&$expand=SalesOrders($expand=Items)"),
            DefiningQuery(name: "Orders", url: "SalesOrders"),
            // Media entities: the photos come with their streams.
            DefiningQuery(name: "Photos", url: "Photos", automaticallyRetrievesStreams: true),
        ]
        var parameters = OfflineODataParameters(storePath: base, encryption: .passphrase("demo passphrase"), definingQueries: queries,
                                                pageSize: 5)
        parameters.keyDerivation = .interactive
        let other = URLSessionTransport(timeout: 20)

        var start = Date()
        let provider = try OfflineODataProvider(serviceRoot: serviceRoot, parameters: parameters)
        try await provider.open()
        let store = try provider.store
        step(1, "open: $metadata, an encrypted store, the initial download (pages of 5, filter, nested expand)", since: start)
        for query in queries { print("     \(query.name) = \(query.url)") }
        print("     " + (try counts(store)))
        print("     streams: " + (try streams(store)))

        start = Date()
        let local = try store.execute(.get, "BusinessPartners('BP1')?$expand=SalesOrders($select=SalesOrderID,GrossAmount;$orderby=GrossAmount desc)")
        step(2, "a local read, offline: BP1 with its orders", since: start)
        if let text = local.bodyText { print("     " + text.prefix(160) + (text.count > 160 ? "…" : "")) }

        start = Date()
        try await send(other, "PATCH", "SalesOrders('SO001')", #"{"Note":"changed on another device"}"#)
        try await send(other, "POST", "SalesOrders", #"{"SalesOrderID":"SO900","BusinessPartnerID":"BP2","LifecycleStatus":"N","CurrencyCode":"EUR","GrossAmount":99.5}"#)
        try await send(other, "DELETE", "SalesOrders('SO006')", nil)
        try await send(other, "PATCH", "BusinessPartners('BP4')", #"{"Country":"DE"}"#)
        step(3, "another client changes the back end: SO001 edited, SO900 created, SO006 deleted, BP4 moves to DE", since: start)

        start = Date()
        let summaries = try await provider.download()
        step(4, "download: Orders by its delta link, USPartners (filtered, expanded) re-read and reconciled", since: start)
        for summary in summaries {
            print("     \(summary.definingQuery): \(summary.entitiesApplied) applied, \(summary.entitiesRemoved) removed")
        }
        let so001 = try store.execute(.get, "SalesOrders('SO001')?$select=Note").json()?["Note"]?.stringValue ?? "?"
        let so006 = try store.execute(.get, "SalesOrders('SO006')").status
        print("     SO001 note: \"\(so001)\"; SO006: \(so006 == 404 ? "gone" : "still there"); "
              + "US partners now: \(try store.execute(.get, "BusinessPartners/$count").bodyText ?? "?")")
        for event in try store.execute(.get, "EventLog?$filter=Type eq 'Download'&$orderby=ID desc&$top=2&$select=Details").json()?["value"]?.arrayValue ?? [] {
            print("     EventLog: \(event["Details"]?.stringValue ?? "")")
        }

        start = Date()
        try provider.update(definingQuery: DefiningQuery(name: "USPartners", url: "BusinessPartners?$filter=Country eq 'FR'&$expand=SalesOrders($expand=Items)"))
        let changed = try await provider.download(subset: ["USPartners"])
        step(5, "the defining query changes at runtime (US → FR): only the difference moves", since: start)
        if let summary = changed.first {
            print("     \(summary.entitiesApplied) applied, \(summary.entitiesRemoved) removed; " + (try counts(store)))
        }

        start = Date()
        _ = try store.execute(.patch, "SalesOrders('SO007')", body: #"{"Note":"edited offline in the basement"}"#)
        _ = try store.execute(.post, "SalesOrders", body: #"{"SalesOrderID":"SO901","BusinessPartnerID":"BP3","LifecycleStatus":"N","CurrencyCode":"EUR","GrossAmount":12.75}"#)
        _ = try store.execute(.delete, "SalesOrders('SO009')")
        _ = try store.execute(.patch, "SalesOrders('SO008')", body: #"{"Note":"my version"}"#)
        // An action of the back end, invoked offline: queued, nothing changes locally until it ran.
        _ = try store.execute(.post, "ConfirmSalesOrder", body: #"{"SalesOrderID":"SO007","Note":"confirmed from the field"}"#)
        // A photo taken in the field: a media entity created from its bytes (streamed into the
        // store, encrypted), then captioned; the back end assigns its key at upload.
        let photo = (0..<400_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        let taken = try await store.createMedia(in: "Photos", contentType: "image/jpeg", slug: "meter-SO007.jpg",
                                                from: AsyncStream { continuation in
                                                    continuation.yield(photo)
                                                    continuation.finish()
                                                })
        let takenAt = taken.headers["Location"] ?? "Photos"
        _ = try store.execute(.patch, takenAt, body: #"{"Caption":"meter of SO007","SalesOrderID":"SO007"}"#)
        step(6, "offline work (FR partners now): SO007 edited, SO901 created, SO009 deleted, SO008 edited, the action ConfirmSalesOrder(SO007) invoked, a photo taken as \(takenAt) and captioned (7 requests queued)", since: start)
        try await send(other, "PATCH", "SalesOrders('SO008')", #"{"Note":"their version"}"#)
        print("     meanwhile another device changes SO008 on the back end")

        start = Date()
        let uploaded = try await provider.upload()
        step(7, "upload: the queue in $batch requests (a change set per request, repeatable-request headers), the photo's bytes alone before its caption; each request confirmed or archived", since: start)
        print("     \(uploaded.succeeded) applied, \(uploaded.failed) in the ErrorArchive")
        for entry in try store.errorArchive() {
            print("     ErrorArchive: \(entry.requestMethod) \(entry.requestURL) → \(entry.httpStatusCode) \(entry.message ?? "")")
        }

        start = Date()
        if let conflict = try store.errorArchive().first {
            try store.deleteErrorArchiveEntry(requestID: conflict.requestID)
        }
        try await provider.download()
        let so010 = try store.execute(.get, "SalesOrders('SO008')?$select=Note").json()?["Note"]?.stringValue ?? "?"
        step(8, "resolution: the failed request is dropped (the local change undone), a download brings the back end's version", since: start)
        print("     SO008 note now: \"\(so010)\"; queue \(try store.requestQueue().count), ErrorArchive \(try store.errorArchive().count)")
        let so007 = try store.execute(.get, "SalesOrders('SO007')?$select=Note").json()?["Note"]?.stringValue ?? "?"
        print("     SO007 note now: \"\(so007)\" (the back end ran the action after the offline edit)")
        print("     streams: " + (try streams(store)) + " (the photo now under the back end's key)")
        try provider.close()

        start = Date()
        let offline = try OfflineODataProvider(serviceRoot: "http://127.0.0.1:9/unreachable/", parameters: parameters)
        try await offline.open()
        step(9, "reopen with no network (the service root points nowhere): the data is all there", since: start)
        print("     " + (try counts(offline.store)))
        try offline.close()
        print()
    }

    /// The stored streams of the Photos set: key, type and length.
    func streams(_ store: OfflineStore) throws -> String {
        var out: [String] = []
        for row in try store.execute(.get, "Photos?$select=PhotoID&$orderby=PhotoID").json()?["value"]?.arrayValue ?? [] {
            guard let id = row["PhotoID"]?.numberValue?.text, let n = Int32(id),
                  let info = try store.mediaInfo(set: "Photos", key: [.int32(n)]) else { continue }
            out.append("Photos(\(id)) \(info.contentType) \(info.length) bytes")
        }
        return out.isEmpty ? "none" : out.joined(separator: ", ")
    }

    func counts(_ store: OfflineStore) throws -> String {
        try store.stats().entityCounts.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }

    func send(_ transport: URLSessionTransport, _ method: String, _ path: String, _ json: String?) async throws {
        var headers: [(name: String, value: String)] = [(name: "If-Match", value: "*")]
        if json != nil { headers.append((name: "Content-Type", value: "application/json")) }
        let response = try await transport.exchange(HTTPRequest(method: method, url: serviceRoot + path, headers: headers,
                                                                body: json.map { Array($0.utf8) }))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard (200..<300).contains(response.status) else {
            throw CLIFailure(message: "the demo's second client: \(method) \(path) answered \(response.status): "
                             + String(decoding: body.prefix(200), as: UTF8.self), exitCode: 5)
        }
    }

    func step(_ n: Int, _ text: String, since start: Date) {
        print(String(format: "%2d. %@ (%.1f ms)", n, text, Date().timeIntervalSince(start) * 1000))
    }
}

extension ODataResponse {
    func json() throws -> JSONValue? {
        guard let body else { return nil }
        return try JSONReader.parse(body)
    }
}
