import Foundation
import OfflineODataModel
import OfflineODataStore
import OfflineODataSync
import Testing

/// Every answer a server can give, through a fault-injecting transport in front of an
/// in-process back end: each fault is a typed error and the store is exactly as before.
@Suite struct DownloadFaultTests {
    static let orders = DefiningQuery(name: "Orders", url: "SalesOrders")

    static let faults: [(String, FaultInjectingTransport.Fault, ODataErrorCode)] = [
        ("connection dropped mid-page", .dropMidBody, SyncErrorCode.connectionReset),
        ("truncated JSON", .truncate, SyncErrorCode.invalidPayload),
        ("500 with an OData error", .status(500, #"{"error":{"code":"500","message":"boom in the back end"}}"#, []), SyncErrorCode.serverError),
        ("503 with Retry-After", .status(503, "", [("Retry-After", "30")]), SyncErrorCode.serverError),
        ("timeout", .fail(.timeout), SyncErrorCode.timeout),
        ("connection refused", .fail(.refused), SyncErrorCode.connectionRefused),
        ("an HTML page with status 200", .garbage, SyncErrorCode.invalidPayload),
        ("404 on the query", .status(404, #"{"error":{"code":"404","message":"no such set"}}"#, []), SyncErrorCode.requestRejected),
        ("TLS failure", .fail(.tls), SyncErrorCode.tlsFailure),
    ]

    /// What a reader sees: every order as JSON, the sync state, the EventLog's length.
    static func snapshot(_ store: OfflineStore) throws -> [String] {
        let orders = try store.execute(.get, "SalesOrders?$orderby=SalesOrderID").bodyText ?? ""
        let state = try store.syncState(of: "Orders").map { "\($0.deltaLink ?? "-") \($0.downloadsSinceReconcile) \($0.url)" } ?? "none"
        let events = try store.execute(.get, "EventLog/$count").bodyText ?? ""
        return [orders, state, events]
    }

    @Test("a fault on page 2 of a later download: a typed error with its category, and the store unchanged",
          arguments: 0..<faults.count)
    func laterDownload(_ index: Int) async throws {
        let (label, fault, code) = Self.faults[index]
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let backend = try StaticBackend(pageSize: 10)
        let transport = FaultInjectingTransport(backend)
        var parameters = OfflineODataParameters.test(dir, queries: [Self.orders], pageSize: 10)
        parameters.deltaTrust = .never
        let provider = try OfflineODataProvider(serviceRoot: StaticBackend.root, parameters: parameters, transport: transport)
        try await provider.open()
        let store = try provider.store
        let before = try Self.snapshot(store)
        backend.setNote("SO015", "changed on the back end")
        transport.inject(fault, whenURLContains: "$skiptoken=10")
        let error = await #expect(throws: ODataError.self, "\(label)") { try await provider.download() }
        #expect(error?.code == code.code && error?.category == code.category, "\(label): \(String(describing: error))")
        #expect(try Self.snapshot(store) == before, "\(label): the store changed")
        // The next download, without the fault, brings the change.
        try await provider.download()
        #expect(try store.execute(.get, "SalesOrders('SO015')").json()?["Note"]?.stringValue == "changed on the back end")
        try provider.close()
    }

    /// `staged`: commits of one byte, so every page of the first download is staged (and loaded
    /// in bulk into the fresh set) while the next ones arrive, instead of applied in one commit.
    @Test("a fault during the first open leaves no store behind; the next open starts over",
          arguments: [0, 2, 4, 6], [false, true])
    func initialDownload(_ index: Int, staged: Bool) async throws {
        let (label, fault, code) = Self.faults[index]
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let transport = FaultInjectingTransport(try StaticBackend(pageSize: 10))
        var parameters = OfflineODataParameters.test(dir, queries: [Self.orders], pageSize: 10)
        if staged { parameters.downloadBatchBytes = 1 }
        transport.inject(fault, whenURLContains: "$skiptoken=20")
        let provider = try OfflineODataProvider(serviceRoot: StaticBackend.root, parameters: parameters, transport: transport)
        let error = await #expect(throws: ODataError.self) { try await provider.open() }
        #expect(error?.code == code.code, "\(label)")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/localstore.oostore"), "\(label): a half-made store is left")
        #expect(throws: ODataError.self) { _ = try provider.store }
        try await provider.open()
        #expect(try provider.store.keys("SalesOrders", key: "SalesOrderID").count == 24)
        try provider.close()
    }

    /// The first download is applied while it is received (docs/Sync.md §2.1, "The initial download"): when the store
    /// refuses a page, the receiving stops too, instead of fetching the rest for nothing.
    @Test("a page the store refuses during the first open: a typed error, no store left, and the pages after it not all fetched")
    func initialDownloadRefusedPage() async throws {
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let backend = try StaticBackend(pageSize: 1)
        let transport = FaultInjectingTransport(backend)
        var parameters = OfflineODataParameters.test(dir, queries: [Self.orders], pageSize: 1)
        parameters.downloadBatchBytes = 1
        transport.inject(.body(#"{"value":[{"SalesOrderID":"SO003","GrossAmount":"not a number"}],"@odata.nextLink":"SalesOrders?$skiptoken=3"}"#),
                         whenURLContains: "$skiptoken=2")
        let provider = try OfflineODataProvider(serviceRoot: StaticBackend.root, parameters: parameters, transport: transport)
        let error = await #expect(throws: ODataError.self) { try await provider.open() }
        #expect(error?.code == SyncErrorCode.invalidPayload.code && error?.category == .serverSideError, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/localstore.oostore"), "a half-made store is left")
        let pages = backend.requests.filter { $0.url.contains("SalesOrders") }.count
        #expect(pages < 24, "\(pages) of the 24 pages were fetched after the store refused the third")
        try await provider.open()
        #expect(try provider.store.keys("SalesOrders", key: "SalesOrderID").count == 24)
        try provider.close()
    }

    @Test("$metadata that is not CSDL, or a 5xx on it, fails the open with a typed error")
    func badMetadata() async throws {
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        for (fault, code) in [(FaultInjectingTransport.Fault.garbage, SyncErrorCode.invalidMetadata),
                              (.status(502, "bad gateway", []), SyncErrorCode.serverError), (.truncate, SyncErrorCode.invalidMetadata)] {
            let transport = FaultInjectingTransport(try StaticBackend())
            transport.inject(fault, whenURLContains: "$metadata")
            let provider = try OfflineODataProvider(serviceRoot: StaticBackend.root, parameters: .test(dir, queries: [Self.orders]),
                                                    transport: transport)
            let error = await #expect(throws: ODataError.self) { try await provider.open() }
            #expect(error?.code == code.code, "\(String(describing: error))")
        }
    }

    @Test("a delta link answered 410 or 400 is read again in full; a delta applies changes and tombstones", arguments: [410, 400])
    func expiredDeltaLink(_ status: Int) async throws {
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let backend = try StaticBackend(pageSize: 10)
        let transport = FaultInjectingTransport(backend)
        let provider = try OfflineODataProvider(serviceRoot: StaticBackend.root, parameters: .test(dir, queries: [Self.orders], pageSize: 10),
                                                transport: transport)
        try await provider.open()
        let store = try provider.store
        #expect(try store.syncState(of: "Orders")?.deltaLink == StaticBackend.root + "SalesOrders?$deltatoken=1")
        transport.inject(.status(status, #"{"error":{"code":"\#(status)","message":"token expired"}}"#, []), whenURLContains: "$deltatoken=1")
        backend.setNote("SO003", "seen by the full read")
        try await provider.download()
        #expect(try store.execute(.get, "SalesOrders('SO003')").json()?["Note"]?.stringValue == "seen by the full read")
        let state = try #require(try store.syncState(of: "Orders"))
        #expect(state.downloadsSinceReconcile == 0 && state.deltaLink == StaticBackend.root + "SalesOrders?$deltatoken=1")
        // The delta itself: SO001 changed, SO002 deleted.
        try await provider.download()
        #expect(try store.execute(.get, "SalesOrders('SO001')").json()?["Note"]?.stringValue == "delta note")
        #expect(try store.execute(.get, "SalesOrders('SO002')").status == 404)
        #expect(try store.syncState(of: "Orders")?.downloadsSinceReconcile == 1)
        #expect(try store.syncState(of: "Orders")?.deltaLink == StaticBackend.root + "SalesOrders?$deltatoken=2")
        try provider.close()
    }

    @Test("every request re-sends Prefer: odata.maxpagesize and the custom headers; the header can change after open")
    func headersOnEveryPage() async throws {
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let backend = try StaticBackend(pageSize: 5)
        var parameters = OfflineODataParameters.test(dir, queries: [Self.orders], pageSize: 5)
        parameters.customHeaders = ["X-Tenant": "one"]
        let provider = try OfflineODataProvider(serviceRoot: StaticBackend.root, parameters: parameters, transport: backend)
        try await provider.open()
        let pages = backend.requests.filter { $0.url.contains("SalesOrders") }
        #expect(pages.count == 5)
        #expect(pages.allSatisfy { $0.header("Prefer")?.contains("odata.maxpagesize=5") == true && $0.header("X-Tenant") == "one" })
        try provider.setCustomHeader("X-Tenant", "two")
        try await provider.download()
        #expect(backend.requests.last?.header("X-Tenant") == "two")
        #expect(throws: ODataError.self) { try provider.setCustomHeader("Bad\nName", "x") }
        try provider.setCustomCookie("session", "abc")
        try provider.setCustomCookie("tenant", "7")
        try await provider.download()
        #expect(backend.requests.last?.header("Cookie") == "session=abc; tenant=7")
        #expect(throws: ODataError.self) { try provider.setCustomCookie("bad;name", "x") }
        try provider.close()
    }

    @Test("a download cancelled while it waits for a page, by cancelDownload or by its task, applies nothing", arguments: [false, true])
    func cancelled(_ byTask: Bool) async throws {
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let backend = try StaticBackend(pageSize: 2)
        let transport = FaultInjectingTransport(backend)
        var parameters = OfflineODataParameters.test(dir, queries: [Self.orders], pageSize: 2)
        parameters.deltaTrust = .never
        let provider = try OfflineODataProvider(serviceRoot: StaticBackend.root, parameters: parameters, transport: transport)
        try await provider.open()
        let store = try provider.store
        let before = try Self.snapshot(store)
        backend.setNote("SO001", "not applied")
        transport.inject(.delay(60), whenURLContains: "$skiptoken=4")
        let sent = backend.requests.count
        let task = Task { try await provider.download() }
        // Page 3 is requested and waits; page 2 has been received, nothing applied.
        while !backend.requests.dropFirst(sent).contains(where: { $0.url.contains("$skiptoken=2") }) {
            try await Task.sleep(for: .milliseconds(5))
        }
        try await Task.sleep(for: .milliseconds(50))
        // Local reads go on while the download waits on the network (it holds no lock).
        #expect(try store.execute(.get, "SalesOrders('SO003')").status == 200)
        if byTask { task.cancel() } else { provider.cancelDownload() }
        let result = await task.result
        guard case .failure(let error) = result else {
            Issue.record("the cancelled download succeeded")
            return
        }
        #expect((error as? ODataError)?.code == SyncErrorCode.cancelled.code, "\(error)")
        #expect(try Self.snapshot(store) == before)
        // The provider takes the next download, which brings the change.
        try await provider.download()
        #expect(try store.execute(.get, "SalesOrders('SO001')").json()?["Note"]?.stringValue == "not applied")
        try provider.close()
    }
}
