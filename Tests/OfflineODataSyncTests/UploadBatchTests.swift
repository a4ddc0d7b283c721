import Foundation
import OfflineODataModel
import OfflineODataStore
import OfflineODataSync
import Testing

/// Upload in `$batch` against odatapy (docs/Sync.md §6.1): change sets by transaction ID, rolled
/// back as a whole; `odata.continue-on-error`; Content-ID references to an entity created with a
/// temporary key; the fallback to single requests; a lost batch answer.
@Suite(.enabled(if: OdatapyServer.available, OdatapyServer.skipReason), .serialized)
struct UploadBatchTests {
    static let queries = UploadIntegrationTests.queries + [DefiningQuery(name: "Notes", url: "Notes")]

    static func open(_ server: OdatapyServer, _ dir: SyncTempDir, _ transport: any Transport,
                     configure: (inout OfflineODataParameters) -> Void = { _ in }) async throws -> (OfflineODataProvider, OfflineStore) {
        var parameters = OfflineODataParameters.test(dir, queries: queries)
        configure(&parameters)
        let provider = try OfflineODataProvider(serviceRoot: server.serviceRoot, parameters: parameters, transport: transport)
        try await provider.open()
        return (provider, try provider.store)
    }

    static let formats: [OfflineODataParameters.UploadBatchFormat] = [.multipart, .json]

    /// Queues, in transaction "note", a note created without its key (the store gives it a
    /// temporary one, returned) and a PATCH of it.
    static func queueNoteWithTemporaryKey(_ store: OfflineStore) throws -> Int64 {
        let together = RequestOptions(transactionID: "note")
        let created = try #require(try store.execute(.post, "Notes", body: #"{"SalesOrderID":"SO001","Text":"draft"}"#, options: together).json())
        let temporary = try #require(created["NoteID"]?.numberValue?.int64Value)
        _ = try store.execute(.patch, "Notes(\(temporary))", body: #"{"Text":"final"}"#, options: together)
        return temporary
    }

    @Test("independent changes go in one $batch, each in a change set of its own, and are confirmed from its answer", arguments: formats)
    func oneBatch(format: OfflineODataParameters.UploadBatchFormat) async throws {
        let server = try OdatapyServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let recorder = RecordingTransport(URLSessionTransport(timeout: 20))
        let (provider, store) = try await Self.open(server, dir, recorder) { $0.uploadBatchFormat = format }
        try UploadIntegrationTests.queueThree(store)
        _ = try store.execute(.patch, "SalesOrders('SO002')", body: #"{"Note":"two"}"#)
        let before = recorder.requests.count
        #expect(try await provider.upload() == UploadSummary(succeeded: 4, failed: 0, remaining: 0))
        // The session's CSRF token fetch (odatapy issues none), then one batch.
        #expect(Array(recorder.requests.dropFirst(before)) == ["GET \(server.serviceRoot)", "POST \(server.serviceRoot)$batch"])
        let body = try #require(recorder.batchBodies.last)
        if format == .json {
            #expect(body.hasPrefix(#"{"requests":["#) && body.contains(#""atomicityGroup":"g4""#) && !body.contains(#""atomicityGroup":"g5""#))
        } else {
            #expect(body.components(separatedBy: "Content-Type: multipart/mixed; boundary=changeset_").count - 1 == 4)
        }
        #expect(try await UploadIntegrationTests.note(server, "SO001") == "once")
        #expect(try await UploadIntegrationTests.note(server, "SO002") == "two")
        #expect(try await server.send("GET", "SalesOrders('SO008')").0 == 404)
        #expect(try await server.send("GET", "SalesOrders('SO300')").0 == 200)
        // The ETags of the answer were taken: the next change goes through.
        _ = try store.execute(.patch, "SalesOrders('SO001')", body: #"{"Note":"twice"}"#)
        #expect(try await provider.upload() == UploadSummary(succeeded: 1, failed: 0, remaining: 0))
        #expect(try await UploadIntegrationTests.note(server, "SO001") == "twice")
        try provider.close()
    }

    @Test("a change set (one transaction ID) that meets a conflict is rolled back as a whole and archived whole; the independent request after it still runs",
          arguments: formats)
    func changeSetRolledBack(format: OfflineODataParameters.UploadBatchFormat) async throws {
        let server = try OdatapyServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let (provider, store) = try await Self.open(server, dir, URLSessionTransport(timeout: 20)) { $0.uploadBatchFormat = format }
        let together = RequestOptions(transactionID: "order-edit")
        _ = try store.execute(.post, "SalesOrders", body: #"{"SalesOrderID":"SO400","BusinessPartnerID":"BP1","LifecycleStatus":"N","CurrencyCode":"USD","GrossAmount":1}"#,
                              options: together)
        _ = try store.execute(.patch, "SalesOrders('SO004')", body: #"{"Note":"mine"}"#, options: together)
        _ = try store.execute(.patch, "SalesOrders('SO005')", body: #"{"Note":"independent"}"#)
        // Another client changed SO004 since the download: the change set's PATCH gets 412.
        try await server.send("PATCH", "SalesOrders('SO004')", json: #"{"Note":"theirs"}"#)
        let summary = try await provider.upload()
        #expect(summary == UploadSummary(succeeded: 1, failed: 2, remaining: 0))
        let archive = try store.errorArchive()
        #expect(archive.map(\.requestMethod) == ["POST", "PATCH"])
        #expect(archive.map(\.httpStatusCode) == [424, 412])
        #expect(archive.first?.message?.contains("PATCH SalesOrders('SO004')") == true)
        // Rolled back: the create of the same change set is not on the back end.
        #expect(try await server.send("GET", "SalesOrders('SO400')").0 == 404)
        #expect(try await UploadIntegrationTests.note(server, "SO004") == "theirs")
        #expect(try await UploadIntegrationTests.note(server, "SO005") == "independent")
        try provider.close()
    }

    @Test("a note created offline with a temporary key, patched and its order patched, in one change set: the PATCH names it by Content-ID; the local note is re-keyed to the back end's key",
          arguments: formats)
    func temporaryKeyByContentID(format: OfflineODataParameters.UploadBatchFormat) async throws {
        let server = try OdatapyServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let recorder = RecordingTransport(URLSessionTransport(timeout: 20))
        let (provider, store) = try await Self.open(server, dir, recorder) { $0.uploadBatchFormat = format }
        let temporary = try Self.queueNoteWithTemporaryKey(store)
        _ = try store.execute(.patch, "SalesOrders('SO001')", body: #"{"Note":"has a note"}"#, options: RequestOptions(transactionID: "note"))
        let summary = try await provider.upload()
        let archived = try store.errorArchive().map(\.message)
        #expect(summary == UploadSummary(succeeded: 3, failed: 0, remaining: 0), "\(archived)")
        let body = try #require(recorder.batchBodies.last)
        #expect(format == .json ? body.contains(#""url":"$1""#) && body.contains(#""dependsOn":["1"]"#) : body.contains("PATCH $1 HTTP/1.1"))
        #expect(try store.execute(.get, "Notes(\(temporary))").status == 404)
        #expect(try store.execute(.get, "Notes(3)").json()?["Text"]?.stringValue == "final")
        let (status, remote) = try await server.send("GET", "Notes(3)")
        #expect(status == 200 && String(decoding: remote, as: UTF8.self).contains("\"final\""))
        try provider.close()
    }

    @Test("without Content-ID references the create with a temporary key goes alone first, and the requests after it are re-keyed before they are sent",
          arguments: formats)
    func temporaryKeyWithoutContentID(format: OfflineODataParameters.UploadBatchFormat) async throws {
        let server = try OdatapyServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let recorder = RecordingTransport(URLSessionTransport(timeout: 20))
        let (provider, store) = try await Self.open(server, dir, recorder) {
            $0.contentIDReferences = false
            $0.uploadBatchFormat = format
        }
        let temporary = try Self.queueNoteWithTemporaryKey(store)
        let summary = try await provider.upload()
        let archived = try store.errorArchive().map(\.message)
        #expect(summary == UploadSummary(succeeded: 2, failed: 0, remaining: 0), "\(archived)")
        #expect(!recorder.requests.contains { $0.contains("$1") } && !recorder.batchBodies.contains { $0.contains("$1") })
        #expect(recorder.requests.contains("POST \(server.serviceRoot)Notes"))
        #expect(recorder.batchBodies.last?.contains(format == .json ? #""url":"Notes(3)""# : "PATCH Notes(3) HTTP/1.1") == true)
        #expect(try store.execute(.get, "Notes(3)").json()?["Text"]?.stringValue == "final")
        try provider.close()
    }

    @Test("a back end without $batch (404): the upload falls back to single requests and keeps doing so")
    func noBatch() async throws {
        let server = try OdatapyServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let faults = FaultInjectingTransport(URLSessionTransport(timeout: 20))
        faults.inject(.status(404, #"{"error":{"code":"404","message":"no $batch here"}}"#, []), whenURLContains: "$batch")
        let recorder = RecordingTransport(faults)
        let (provider, store) = try await Self.open(server, dir, recorder)
        try UploadIntegrationTests.queueThree(store)
        #expect(try await provider.upload() == UploadSummary(succeeded: 3, failed: 0, remaining: 0))
        _ = try store.execute(.patch, "SalesOrders('SO002')", body: #"{"Note":"single"}"#)
        #expect(try await provider.upload() == UploadSummary(succeeded: 1, failed: 0, remaining: 0))
        #expect(recorder.requests.filter { $0.hasSuffix("$batch") }.count == 1)
        #expect(try await UploadIntegrationTests.note(server, "SO002") == "single")
        try provider.close()
    }

    @Test("one request at a time: each request's attempt is recorded in the commit that settles the one before it (n + 1 durable commits, not 2n); cut off, the next upload sends the rest, each applied once")
    func singleRequestsShareCommits() async throws {
        let server = try OdatapyServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let faults = FaultInjectingTransport(URLSessionTransport(timeout: 20))
        let (provider, store) = try await Self.open(server, dir, faults) {
            $0.uploadBatching = .never
            $0.durability = .full
        }
        for id in ["SO001", "SO002", "SO003", "SO004"] {
            _ = try store.execute(.patch, "SalesOrders('\(id)')", body: #"{"Note":"one \#(id)"}"#)
        }
        let syncs = try store.stats().logSyncs
        #expect(try await provider.upload() == UploadSummary(succeeded: 4, failed: 0, remaining: 0))
        // The first attempt, then one commit per request (its outcome and the next one's
        // attempt), then the upload's EventLog row: at most 6. Two commits a request were 9.
        let used = try store.stats().logSyncs - syncs
        #expect(used <= 6, "\(used) durable commits for 4 requests")
        for id in ["SO001", "SO002", "SO003", "SO004"] { #expect(try await UploadIntegrationTests.note(server, id) == "one \(id)") }
        // Cut off at the second request (no answer): the first is confirmed; the second, whose
        // attempt the first's commit recorded, stays queued with the rest.
        for id in ["SO001", "SO002", "SO003"] {
            _ = try store.execute(.patch, "SalesOrders('\(id)')", body: #"{"Note":"two \#(id)"}"#)
        }
        faults.inject(.fail(.reset), whenURLContains: "SO002")
        await #expect(throws: ODataError.self) { try await provider.upload() }
        #expect(try store.requestQueue().map(\.url) == ["SalesOrders('SO002')", "SalesOrders('SO003')"])
        #expect(try await provider.upload() == UploadSummary(succeeded: 2, failed: 0, remaining: 0))
        #expect(try store.errorArchive().isEmpty)
        for id in ["SO001", "SO002", "SO003"] { #expect(try await UploadIntegrationTests.note(server, id) == "two \(id)") }
        try provider.close()
    }

    @Test("a batch's answer lost after the back end applied it: the next upload sends each request alone and proves its earlier success (409, 412, 404)")
    func lostBatchAnswer() async throws {
        let server = try OdatapyServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let faults = FaultInjectingTransport(URLSessionTransport(timeout: 20))
        faults.inject(.applyThenDrop, whenURLContains: "$batch")
        let (provider, store) = try await Self.open(server, dir, faults)
        try UploadIntegrationTests.queueThree(store)
        let error = await #expect(throws: ODataError.self) { try await provider.upload() }
        #expect(error?.code == SyncErrorCode.connectionReset.code)
        #expect(try store.requestQueue().count == 3)
        let summary = try await provider.upload()
        let archived = try store.errorArchive().map(\.message)
        #expect(summary == UploadSummary(succeeded: 3, failed: 0, remaining: 0), "\(archived)")
        #expect(try await server.keys("SalesOrders?$filter=SalesOrderID%20eq%20'SO300'", key: "SalesOrderID") == ["SO300"])
        #expect(try await UploadIntegrationTests.note(server, "SO001") == "once")
        #expect(try await server.send("GET", "SalesOrders('SO008')").0 == 404)
        try provider.close()
    }

    @Test("a batch answer with parts missing (only the first change set answered): that one is confirmed, the rest stay queued and go with the next upload")
    func missingParts() async throws {
        let server = try OdatapyServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let faults = FaultInjectingTransport(URLSessionTransport(timeout: 20))
        let (provider, store) = try await Self.open(server, dir, faults) { $0.uploadBatchFormat = .multipart }
        _ = try store.execute(.patch, "SalesOrders('SO001')", body: #"{"Note":"first"}"#)
        _ = try store.execute(.patch, "SalesOrders('SO002')", body: #"{"Note":"second"}"#)
        // An answer (in place of the back end's) that names only the first change set.
        let answer = "--b\r\nContent-Type: multipart/mixed; boundary=c1\r\n\r\n--c1\r\nContent-Type: application/http\r\nContent-ID: 1\r\n\r\n"
            + "HTTP/1.1 204 No Content\r\nETag: W/\"7\"\r\n\r\n\r\n--c1--\r\n--b--\r\n"
        faults.inject(.status(200, answer, [("Content-Type", "multipart/mixed; boundary=b")]), whenURLContains: "$batch")
        let first = try await provider.upload()
        #expect(first == UploadSummary(succeeded: 1, failed: 0, remaining: 1))
        #expect(try store.requestQueue().map(\.url) == ["SalesOrders('SO002')"])
        // The next upload sends what was left (alone: it may have been sent).
        #expect(try await provider.upload() == UploadSummary(succeeded: 1, failed: 0, remaining: 0))
        #expect(try await UploadIntegrationTests.note(server, "SO002") == "second")
        try provider.close()
    }

    @Test("a batch's answer lost after apply, in front of a back end that honours repeatable requests per request of the batch: the requests sent again alone get their original answers, and each reached the back end once")
    func lostBatchAnswerWithRepeatability() async throws {
        let server = try OdatapyServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let double = RepeatableDouble(URLSessionTransport(timeout: 20))
        let faults = FaultInjectingTransport(double)
        faults.inject(.applyThenDrop, whenURLContains: "$batch")
        let (provider, store) = try await Self.open(server, dir, faults) { $0.uploadBatchFormat = .multipart }
        try UploadIntegrationTests.queueThree(store)
        _ = await #expect(throws: ODataError.self) { try await provider.upload() }
        let summary = try await provider.upload()
        let archived = try store.errorArchive().map(\.message)
        #expect(summary == UploadSummary(succeeded: 3, failed: 0, remaining: 0), "\(archived)")
        // The batch reached the back end once; the three retries were answered by the double.
        let writes = double.reachedBackEnd.filter { !$0.hasPrefix("GET") }
        #expect(writes == ["POST \(server.serviceRoot)$batch"], "\(writes)")
        #expect(try await UploadIntegrationTests.note(server, "SO001") == "once")
        try provider.close()
    }

    @Test("a garbled batch answer is a typed error and leaves every request queued")
    func garbledBatchAnswer() async throws {
        let server = try OdatapyServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let faults = FaultInjectingTransport(URLSessionTransport(timeout: 20))
        faults.inject(.status(200, "--x\r\nnot a part", [("Content-Type", "multipart/mixed; boundary=x")]), whenURLContains: "$batch")
        let (provider, store) = try await Self.open(server, dir, faults)
        try UploadIntegrationTests.queueThree(store)
        let error = await #expect(throws: ODataError.self) { try await provider.upload() }
        #expect(error?.code == SyncErrorCode.invalidPayload.code)
        #expect(try store.requestQueue().count == 3 && store.errorArchive().isEmpty)
        try provider.close()
    }
}

extension UploadBatchTests {
    @Test("deep insert: an order created offline with its items in one POST reaches the back end whole; afterwards the items are no longer pending, and a download updates them", arguments: [true, false])
    func deepInsert(batching: Bool) async throws {
        let server = try OdatapyServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let queries = [DefiningQuery(name: "Partners", url: "BusinessPartners"), DefiningQuery(name: "Orders", url: "SalesOrders?$expand=Items")]
        var parameters = OfflineODataParameters.test(dir, queries: queries, batching: batching ? .automatic : .never)
        parameters.definingQueries = queries
        let provider = try OfflineODataProvider(serviceRoot: server.serviceRoot, parameters: parameters)
        try await provider.open()
        let store = try provider.store
        let body = #"{"SalesOrderID":"SO500","BusinessPartnerID":"BP1","LifecycleStatus":"N","CurrencyCode":"USD","GrossAmount":3,"Items":[{"SalesOrderID":"SO500","ItemNumber":10,"ProductID":"P1","Quantity":1},{"SalesOrderID":"SO500","ItemNumber":20,"ProductID":"P2","Quantity":2}]}"#
        #expect(try store.execute(.post, "SalesOrders", body: body).status == 201)
        #expect(try store.requestQueue().count == 1)
        let summary = try await provider.upload()
        let archived = try store.errorArchive().map(\.message)
        #expect(summary == UploadSummary(succeeded: 1, failed: 0, remaining: 0), "\(archived)")
        #expect(try await server.keys("SalesOrderItems?$filter=SalesOrderID%20eq%20'SO500'", key: "ItemNumber").count == 2)
        let pending = try #require(try store.execute(.get, "SalesOrderItems?$filter=sap.haspendingchanges()").json())
        #expect(pending["value"]?.arrayValue?.isEmpty == true, "\(pending)")
        try await server.send("PATCH", "SalesOrderItems(SalesOrderID='SO500',ItemNumber=20)", json: #"{"Quantity":7}"#)
        try await provider.download()
        let item = try store.execute(.get, "SalesOrderItems(SalesOrderID='SO500',ItemNumber=20)").json()
        #expect(item?["Quantity"]?.numberValue?.int64Value == 7)
        try provider.close()
    }
}

/// What stops an upload without losing or archiving anything: a back end that is busy or rate
/// limits (503, 429 with `Retry-After`), a cancel.
@Suite(.enabled(if: OdatapyServer.available, OdatapyServer.skipReason), .serialized)
struct UploadInterruptionTests {
    @Test("429 with Retry-After to a single request, 503 to a whole $batch: a typed server error, nothing archived, everything queued; the next upload sends it all", arguments: [true, false])
    func busyBackEnd(batching: Bool) async throws {
        let server = try OdatapyServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let faults = FaultInjectingTransport(URLSessionTransport(timeout: 20))
        if batching {
            faults.inject(.status(503, "busy", [("Retry-After", "30")]), whenURLContains: "$batch")
        } else {
            faults.inject(.status(429, #"{"error":{"code":"429","message":"slow down"}}"#, [("Retry-After", "2")]),
                          whenURLContains: "SalesOrders('SO001')", method: "PATCH")
        }
        let (provider, store) = try await UploadBatchTests.open(server, dir, faults) {
            $0.uploadBatching = batching ? .automatic : .never
        }
        try UploadIntegrationTests.queueThree(store)
        let error = await #expect(throws: ODataError.self) { try await provider.upload() }
        #expect(error?.code == SyncErrorCode.serverError.code)
        #expect(error?.message.contains("Retry-After: \(batching ? 30 : 2)") == true, "\(error?.message ?? "")")
        #expect(try store.errorArchive().isEmpty)
        #expect(try store.requestQueue().count == (batching ? 3 : 2))   // one at a time: the create went first
        #expect(try await provider.upload().failed == 0)
        #expect(try store.requestQueue().isEmpty && store.errorArchive().isEmpty)
        #expect(try await UploadIntegrationTests.note(server, "SO001") == "once")
        try provider.close()
    }

    @Test("cancelUpload while a request waits on a slow link: a typed cancel, the request stays queued and goes with the next upload")
    func cancel() async throws {
        let server = try OdatapyServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let faults = FaultInjectingTransport(URLSessionTransport(timeout: 20))
        faults.inject(.delay(30), whenURLContains: "$batch")
        let (provider, store) = try await UploadBatchTests.open(server, dir, faults)
        try UploadIntegrationTests.queueThree(store)
        let running = Task { try await provider.upload() }
        try await Task.sleep(for: .milliseconds(200))
        provider.cancelUpload()
        let result = await running.result
        #expect(throws: ODataError.self) { try result.get() }
        #expect((try? result.get()) == nil)
        if case .failure(let error as ODataError) = result { #expect(error.code == SyncErrorCode.cancelled.code) }
        #expect(try store.requestQueue().count == 3 && store.errorArchive().isEmpty)
        #expect(try await provider.upload() == UploadSummary(succeeded: 3, failed: 0, remaining: 0))
        try provider.close()
    }
}
