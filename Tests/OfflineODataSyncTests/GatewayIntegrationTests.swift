import Synchronization
import Foundation
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OfflineODataModel
import OfflineODataStore
import OfflineODataSync
import Testing

/// Download from and upload to SAP Gateway (OData V2) against mock-sap (docs/Sync.md §6.2): V2
/// pages, `$expand`, `__delta` with tombstones, a set without delta; V2 `$batch` with `MERGE`,
/// `/Date(ms)/` and server-assigned numbers; the CSRF handshake; SAP's error envelope; Gateway's
/// faults. What the client sent is read from the mock's request log.
@Suite(.enabled(if: MockSapServer.available, MockSapServer.skipReason), .serialized)
struct GatewayIntegrationTests {
    static func open(_ server: MockSapServer, _ dir: SyncTempDir, queries: [DefiningQuery] = [DefiningQuery(name: "Orders", url: "A_SalesOrder")],
                     transport: (any Transport)? = nil,
                     configure: (inout OfflineODataParameters) -> Void = { _ in }) async throws -> (OfflineODataProvider, OfflineStore) {
        var parameters = OfflineODataParameters.test(dir, queries: queries)
        configure(&parameters)
        let provider = try OfflineODataProvider(serviceRoot: server.serviceRoot, parameters: parameters, transport: transport)
        try await provider.open()
        return (provider, try provider.store)
    }

    static func localValue(_ store: OfflineStore, _ order: String, _ property: String) throws -> String? {
        try store.execute(.get, "A_SalesOrder('\(order)')?$select=\(property)").json()?[property]?.stringValue
    }

    @Test("download: a filtered and expanded defining query, and a set the back end tracks no changes of; then a __delta with another client's change and deletion")
    func download() async throws {
        let server = try MockSapServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let queries = [DefiningQuery(name: "US", url: "A_SalesOrder?$filter=SoldToParty eq '1000006'&$expand=to_Item"),
                       DefiningQuery(name: "Orders", url: "A_SalesOrder"), DefiningQuery(name: "Items", url: "A_SalesOrderItem")]
        let (provider, store) = try await Self.open(server, dir, queries: queries)
        #expect(try store.keys("A_SalesOrder", key: "SalesOrder") == (try await server.keys("A_SalesOrder?$select=SalesOrder", key: "SalesOrder")).sorted())
        let items = try await server.keys("A_SalesOrderItem?$select=SalesOrderItem", key: "SalesOrderItem")
        #expect(try store.keys("A_SalesOrderItem", key: "SalesOrderItem").count == items.count)
        let expanded = try #require(try store.execute(.get, "A_SalesOrder?$filter=SoldToParty eq '1000006'&$expand=to_Item&$top=1").json())
        #expect(expanded["value"]?.arrayValue?.first?["to_Item"]?.arrayValue?.isEmpty == false)

        try await server.send("PATCH", "A_SalesOrder('0000004713')", json: #"{"PurchaseOrderByCustomer":"CHANGED"}"#)
        try await server.send("DELETE", "A_SalesOrder('0000004714')")
        let summaries = try await provider.download()
        #expect(summaries.first { $0.definingQuery == "Orders" }?.entitiesApplied == 1)   // a delta: only the changed order
        #expect(try Self.localValue(store, "0000004713", "PurchaseOrderByCustomer") == "CHANGED")
        #expect(try store.execute(.get, "A_SalesOrder('0000004714')").status == 404)
        let log = try await server.requests()
        #expect(log.contains { ($0["query"] as? String)?.contains("!deltatoken") == true })
        try provider.close()
    }

    @Test("a V2 defining query with multi-hop $expand (to_Item,to_Item/to_PricingElement,to_Partner) lands every level in its set, linked")
    func nestedExpand() async throws {
        let server = try MockSapServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let url = "A_SalesOrder?$filter=SoldToParty eq '1000006'&$expand=to_Item,to_Item/to_PricingElement,to_Partner"
        let (provider, store) = try await Self.open(server, dir, queries: [DefiningQuery(name: "Deep", url: url)])
        let remote = try await server.get("A_SalesOrder?$filter=SoldToParty%20eq%20'1000006'&$expand=to_Item/to_PricingElement,to_Partner")
        let orders = remote?["results"] as? [[String: Any]] ?? []
        let items = orders.flatMap { ($0["to_Item"] as? [String: Any])?["results"] as? [[String: Any]] ?? [] }
        let elements = items.flatMap { ($0["to_PricingElement"] as? [String: Any])?["results"] as? [[String: Any]] ?? [] }
        #expect(!orders.isEmpty && !items.isEmpty && !elements.isEmpty)
        #expect(try store.keys("A_SalesOrder", key: "SalesOrder").count == orders.count)
        #expect(try store.keys("A_SalesOrderItem", key: "SalesOrderItem").count == items.count)
        #expect(try store.keys("A_SalesOrderItemPrElement", key: "PricingProcedureStep").count == elements.count)
        // Linked: the local service expands the same levels.
        let local = try #require(try store.execute(.get, "A_SalesOrder?$expand=to_Item/to_PricingElement").json())
        let localElements = (local["value"]?.arrayValue ?? []).flatMap { $0["to_Item"]?.arrayValue ?? [] }
            .flatMap { $0["to_PricingElement"]?.arrayValue ?? [] }
        #expect(localElements.count == elements.count)
        try provider.close()
    }

    @Test("a delta link the back end refuses (400) is followed by a full read that reconciles")
    func refusedDelta() async throws {
        let server = try MockSapServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let faults = FaultInjectingTransport(URLSessionTransport(timeout: 20))
        let (provider, store) = try await Self.open(server, dir, transport: faults)
        try await server.send("DELETE", "A_SalesOrder('0000004716')")
        faults.inject(.status(400, #"{"error":{"code":"/IWBEP/CX_MGW_BUSI_EXCEPTION","message":{"lang":"en","value":"Invalid delta token"}}}"#, []),
                      whenURLContains: "deltatoken")
        let summaries = try await provider.download()
        #expect(summaries.first?.entitiesApplied == (try await server.keys("A_SalesOrder?$select=SalesOrder", key: "SalesOrder")).count)
        #expect(summaries.first?.entitiesRemoved == 1)
        #expect(try store.execute(.get, "A_SalesOrder('0000004716')").status == 404)
        try provider.close()
    }

    @Test("offline create, update and delete go in V2 $batch requests (MERGE, /Date(ms)/, the CSRF token); the number the back end assigns re-keys the created order; sap-message goes to the EventLog")
    func upload() async throws {
        let server = try MockSapServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let (provider, store) = try await Self.open(server, dir)
        _ = try store.execute(.patch, "A_SalesOrder('0000004713')",
                              body: #"{"PurchaseOrderByCustomer":"OFFLINE","RequestedDeliveryDate":"2025-01-01T00:00:00Z"}"#)
        let created = try #require(try store.execute(.post, "A_SalesOrder",
                                                     body: #"{"SalesOrderType":"OR","SalesOrganization":"1710","DistributionChannel":"10","OrganizationDivision":"00","SoldToParty":"1000006"}"#).json())
        let temporary = try #require(created["SalesOrder"]?.stringValue)
        _ = try store.execute(.delete, "A_SalesOrder('0000004715')")
        let summary = try await provider.upload()
        let archived = try store.errorArchive().map(\.message)
        #expect(summary == UploadSummary(succeeded: 3, failed: 0, remaining: 0), "\(archived)")

        // Two batches: the create with a temporary key ends the first (its number must be known
        // before anything else names it).
        let log = try await server.requests()
        let batches = log.filter { ($0["path"] as? String)?.hasSuffix("$batch") == true }
        #expect(batches.count == 2 && batches.allSatisfy { $0["status"] as? Int == 202 })
        let body = batches.compactMap { $0["body"] as? String }.joined()
        #expect(body.contains("MERGE A_SalesOrder('0000004713') HTTP/1.1"))
        #expect(body.contains(#""RequestedDeliveryDate":"/Date(1735689600000)/""#))
        #expect(batches.allSatisfy { ($0["headers"] as? [String: Any] ?? [:]).keys.contains { $0.lowercased() == "x-csrf-token" } })

        let remote = try #require(try await server.get("A_SalesOrder('0000004713')"))
        #expect(remote["PurchaseOrderByCustomer"] as? String == "OFFLINE")
        #expect(try await server.get("A_SalesOrder('0000004715')") == nil)
        // The created order now has the back end's number, locally too.
        #expect(try store.execute(.get, "A_SalesOrder('\(temporary)')").status == 404)
        let local = try store.keys("A_SalesOrder", key: "SalesOrder")
        #expect(local == (try await server.keys("A_SalesOrder?$select=SalesOrder", key: "SalesOrder")).sorted())
        // A delivery date in the past: the back end moved it and said so in sap-message.
        #expect(try store.eventLog().contains { $0.type == "BackEndMessage" && $0.details?.contains("0000004713") == true })
        try provider.close()
    }

    @Test("another user changed the order: Gateway's 412 lands in the ErrorArchive with SAP's code and message")
    func conflict() async throws {
        let server = try MockSapServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let (provider, store) = try await Self.open(server, dir)
        try await Task.sleep(for: .milliseconds(5))   // the mock's ETags are timestamps
        try await server.send("PATCH", "A_SalesOrder('0000004716')", json: #"{"PurchaseOrderByCustomer":"THEIRS"}"#)
        _ = try store.execute(.patch, "A_SalesOrder('0000004716')", body: #"{"PurchaseOrderByCustomer":"MINE"}"#)
        let summary = try await provider.upload()
        #expect(summary.failed == 1)
        let entry = try #require(try store.errorArchive().first)
        #expect(entry.httpStatusCode == 412)
        #expect(entry.code == "/IWBEP/CX_MGW_BUSI_EXCEPTION")
        #expect(entry.message?.isEmpty == false)
        #expect(try await server.get("A_SalesOrder('0000004716')")?["PurchaseOrderByCustomer"] as? String == "THEIRS")
        try provider.close()
    }

    @Test("CSRF: a 403 with x-csrf-token: Required (the mock's csrf scenario) fetches a new token and sends the batch again, once")
    func csrfRefetch() async throws {
        let server = try MockSapServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let (provider, store) = try await Self.open(server, dir)
        _ = try store.execute(.patch, "A_SalesOrder('0000004717')", body: #"{"PurchaseOrderByCustomer":"AFTER CSRF"}"#)
        try await server.fault(match: "\\$batch", scenario: "csrf", count: 1)
        #expect(try await provider.upload() == UploadSummary(succeeded: 1, failed: 0, remaining: 0))
        let log = try await server.requests()
        let batches = log.filter { ($0["path"] as? String)?.hasSuffix("$batch") == true }.compactMap { $0["status"] as? Int }
        #expect(batches == [202, 403])   // newest first
        let fetches = log.filter { $0["method"] as? String == "GET" && ($0["path"] as? String)?.hasSuffix("API_SALES_ORDER_SRV/") == true }
        #expect(fetches.count == 2)
        #expect(try await server.get("A_SalesOrder('0000004717')")?["PurchaseOrderByCustomer"] as? String == "AFTER CSRF")
        try provider.close()
    }

    @Test("Gateway's faults on the upload are typed errors and leave the queue intact (nothing archived); the next upload sends it",
          arguments: [("busy", SyncErrorCode.serverError), ("lock", SyncErrorCode.requestRejected), ("auth", SyncErrorCode.requestRejected),
                      ("error", SyncErrorCode.serverError), ("timeout", SyncErrorCode.timeout)])
    func faults(scenario: String, expected: ODataErrorCode) async throws {
        let server = try MockSapServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let (provider, store) = try await Self.open(server, dir) { $0.timeout = scenario == "timeout" ? 2 : 20 }
        _ = try store.execute(.patch, "A_SalesOrder('0000004718')", body: #"{"PurchaseOrderByCustomer":"QUEUED"}"#)
        try await server.fault(match: "\\$batch", scenario: scenario, count: 1)
        let error = await #expect(throws: ODataError.self) { try await provider.upload() }
        #expect(error?.code == expected.code, "\(error?.message ?? "")")
        if scenario == "busy" { #expect(error?.message.contains("Retry-After: 30") == true) }
        #expect(try store.requestQueue().count == 1 && store.errorArchive().isEmpty)
        if scenario != "timeout" {   // the timed-out batch still runs on the mock, two minutes later
            #expect(try await provider.upload() == UploadSummary(succeeded: 1, failed: 0, remaining: 0))
            #expect(try await server.get("A_SalesOrder('0000004718')")?["PurchaseOrderByCustomer"] as? String == "QUEUED")
        }
        try provider.close()
    }

    @Test("sap-client: the configured client is sent with every request; one the system does not have is a typed error naming it")
    func sapClient() async throws {
        let server = try MockSapServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let (provider, _) = try await Self.open(server, dir) { $0.sapClient = "100" }
        try provider.close()
        let other = SyncTempDir()
        defer { other.cleanup() }
        var parameters = OfflineODataParameters.test(other, queries: [DefiningQuery(name: "Orders", url: "A_SalesOrder")])
        parameters.sapClient = "200"
        let wrong = try OfflineODataProvider(serviceRoot: server.serviceRoot, parameters: parameters)
        let error = await #expect(throws: ODataError.self) { try await wrong.open() }
        #expect(error?.code == SyncErrorCode.requestRejected.code)
        #expect(error?.message.contains("Client 200") == true, "\(error?.message ?? "")")
        parameters.sapClient = "1O0"
        #expect(throws: ODataError.self) { try OfflineODataProvider(serviceRoot: server.serviceRoot, parameters: parameters) }
    }

    @Test("a back end that asks for basic authentication: without a credential the open ends at once with the 401 as a typed error (FoundationNetworking's default handling never returns); with one it opens", arguments: TransportKind.allCases)
    func basicAuthentication(kind: TransportKind) async throws {
        let server = try MockSapServer(arguments: ["--auth", "FIELD:secret"])
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let parameters = OfflineODataParameters.test(dir, queries: [DefiningQuery(name: "Orders", url: "A_SalesOrder")])
        let anonymous = try OfflineODataProvider(serviceRoot: server.serviceRoot, parameters: parameters,
                                                 transport: try kind.make())
        let error = await #expect(throws: ODataError.self) { try await anonymous.open() }
        #expect(error?.code == SyncErrorCode.requestRejected.code)
        #expect(error?.message.contains("401") == true, "\(error?.message ?? "")")
        let signedIn = try OfflineODataProvider(serviceRoot: server.serviceRoot, parameters: parameters,
                                                transport: try kind.make(credential: URLCredential(user: "FIELD", password: "secret", persistence: .forSession)))
        try await signedIn.open()
        #expect(try signedIn.store.keys("A_SalesOrder", key: "SalesOrder").count > 0)
        try signedIn.close()
    }

    @Test("a streamed request body is sent again after a basic-authentication challenge: the exchange ends with the back end's answer, not the 401 or a transport error", arguments: TransportKind.streaming)
    func streamedBodyAfterChallenge(kind: TransportKind) async throws {
        let server = try MockSapServer(arguments: ["--auth", "FIELD:secret"])
        defer { server.stop() }
        final class Pieces: HTTPBodyReader, @unchecked Sendable {
            var left = 4
            func next() throws -> [UInt8]? {
                guard left > 0 else { return nil }
                left -= 1
                return [UInt8](repeating: UInt8(ascii: "a"), count: 50_000)
            }
        }
        let passes = Mutex(0)
        let transport = try kind.make(credential: URLCredential(user: "FIELD", password: "secret", persistence: .forSession))
        var request = HTTPRequest(method: "PUT", url: server.serviceRoot + "A_SalesOrder('1')",
                                  headers: [(name: "Content-Type", value: "application/json")], timeout: 20)
        request.streamedBody = HTTPStreamedBody(length: 200_000) {
            passes.withLock { $0 += 1 }
            return Pieces()
        }
        let response = try await transport.exchange(request)
        _ = try await response.body.collect(upTo: 1 << 20)
        // Past authentication (mock-sap then wants a CSRF token for a write: 403), the body
        // read twice: the attempt that met the 401, and the one sent with the credential.
        #expect(response.status != 401, "the challenge was not answered: \(response.status)")
        #expect(passes.withLock { $0 } == 2)
        // The host is known to ask for Basic now: the next streamed request carries the
        // credential up front and is sent once.
        let again = try await transport.exchange(request)
        _ = try await again.body.collect(upTo: 1 << 20)
        #expect(again.status == response.status)
        #expect(passes.withLock { $0 } == 3)
        // Without a credential the 401 comes back as it is.
        let anonymous = try await kind.make().exchange(request)
        #expect(anonymous.status == 401)
    }

    /// Runs the CLI (`offline-odata`, built beside the tests); exit status and output.
    static func cli(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let binary = try #require(SyncCrashTests.binary, "offline-odata not built: run `swift build` before `swift test`")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        // Polled, not waitUntilExit (which can wait forever on Linux when called from a task);
        // the output is complete by now, so the process is ending.
        while process.isRunning { usleep(5_000) }
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test("the CLI opens a V2 service root unchanged (with --sap-client), queues a change in the shell, uploads it and downloads")
    func commandLine() async throws {
        let server = try MockSapServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let opened = try Self.cli(["open", dir.path, "--unencrypted", "--service", server.serviceRoot, "--sap-client", "100",
                                   "--defining-query", "Orders=A_SalesOrder?$filter=SoldToParty eq '1000006'&$expand=to_Item"])
        #expect(opened.status == 0, "\(opened.output)")
        #expect(opened.output.contains("A_SalesOrder"))
        let shell = try Self.cli(["shell", dir.path, "--unencrypted", "-c", #"PATCH /A_SalesOrder('0000004712') {"PurchaseOrderByCustomer":"FROM CLI"}"#])
        #expect(shell.status == 0, "\(shell.output)")
        let uploaded = try Self.cli(["upload", dir.path, "--unencrypted", "--sap-client", "100"])
        #expect(uploaded.status == 0 && uploaded.output.contains("1 applied"), "\(uploaded.output)")
        #expect(try await server.get("A_SalesOrder('0000004712')")?["PurchaseOrderByCustomer"] as? String == "FROM CLI")
        let downloaded = try Self.cli(["download", dir.path, "--unencrypted", "--sap-client", "100"])
        #expect(downloaded.status == 0, "\(downloaded.output)")
        let wrongClient = try Self.cli(["download", dir.path, "--unencrypted", "--sap-client", "300"])
        #expect(wrongClient.status == 5 && wrongClient.output.contains("Client 300"), "\(wrongClient.output)")
    }
}
