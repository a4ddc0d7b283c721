import Foundation
import OfflineODataModel
import OfflineODataStore
import OfflineODataSync
import Testing

/// Upload, first slice, against odatapy: offline creates, updates and deletes reach the back end
/// once each, with ETags carried forward; a conflict between two devices lands in the second
/// one's ErrorArchive with the requests after it; a key the back end assigns re-keys the local
/// entity and the requests queued after its create.
@Suite(.enabled(if: OdatapyServer.available, OdatapyServer.skipReason), .serialized)
struct UploadIntegrationTests {
    static let queries = [DefiningQuery(name: "Partners", url: "BusinessPartners"), DefiningQuery(name: "Orders", url: "SalesOrders")]

    static func note(_ server: OdatapyServer, _ id: String) async throws -> String? {
        let (_, body) = try await server.send("GET", "SalesOrders('\(id)')")
        return (try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["Note"] as? String
    }

    @Test("offline create, update and delete are applied by the back end; the queue empties; ETags carry forward")
    func uploadChanges() async throws {
        let server = try OdatapyServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let provider = try OfflineODataProvider(serviceRoot: server.serviceRoot, parameters: .test(dir, queries: Self.queries))
        try await provider.open()
        let store = try provider.store
        #expect(try store.execute(.patch, "SalesOrders('SO001')", body: #"{"Note":"edited offline"}"#).status == 204)
        #expect(try store.execute(.post, "SalesOrders", body: #"{"SalesOrderID":"SO200","BusinessPartnerID":"BP1","LifecycleStatus":"N","CurrencyCode":"USD","GrossAmount":42.5}"#).status == 201)
        #expect(try store.execute(.delete, "SalesOrders('SO005')").status == 204)
        #expect(try store.execute(.patch, "SalesOrders('SO001')", body: #"{"Note":"edited twice"}"#).status == 204)
        #expect(try store.requestQueue().count == 4)
        let summary = try await provider.upload()
        #expect(summary == UploadSummary(succeeded: 4, failed: 0, remaining: 0))
        #expect(try store.requestQueue().isEmpty && store.errorArchive().isEmpty)
        #expect(try await Self.note(server, "SO001") == "edited twice")
        let (created, _) = try await server.send("GET", "SalesOrders('SO200')")
        let (deleted, _) = try await server.send("GET", "SalesOrders('SO005')")
        #expect(created == 200 && deleted == 404)
        // No longer pending; the entity carries the back end's newest ETag, so the next change uploads too.
        let local = try #require(try store.execute(.get, "SalesOrders('SO001')").json())
        #expect(local["@odata.etag"]?.stringValue == "W/\"3\"")
        #expect(try store.execute(.patch, "SalesOrders('SO001')", body: #"{"Note":"third"}"#).status == 204)
        #expect(try await provider.upload().succeeded == 1)
        #expect(try await Self.note(server, "SO001") == "third")
        // A download after the upload changes nothing locally.
        try await provider.download()
        #expect(try store.keys("SalesOrders", key: "SalesOrderID") == (try await server.keys("SalesOrders", key: "SalesOrderID")).sorted())
        try provider.close()
    }

    @Test("two devices change one order: the second upload's 412 and the request after it land in its ErrorArchive; deleting the entry and downloading resolves it")
    func conflictBetweenDevices() async throws {
        let server = try OdatapyServer()
        defer { server.stop() }
        let dirA = SyncTempDir(), dirB = SyncTempDir()
        defer { dirA.cleanup(); dirB.cleanup() }
        let a = try OfflineODataProvider(serviceRoot: server.serviceRoot, parameters: .test(dirA, queries: Self.queries))
        let b = try OfflineODataProvider(serviceRoot: server.serviceRoot, parameters: .test(dirB, queries: Self.queries))
        try await a.open()
        try await b.open()
        _ = try a.store.execute(.patch, "SalesOrders('SO002')", body: #"{"Note":"from A"}"#)
        _ = try b.store.execute(.patch, "SalesOrders('SO002')", body: #"{"Note":"from B"}"#)
        _ = try b.store.execute(.patch, "SalesOrders('SO002')", body: #"{"LifecycleStatus":"C"}"#)
        _ = try b.store.execute(.patch, "SalesOrders('SO003')", body: #"{"Note":"unrelated"}"#)
        #expect(try await a.upload().succeeded == 1)
        let summary = try await b.upload()
        #expect(summary.succeeded == 1 && summary.failed == 2)
        let archive = try b.store.errorArchive()
        #expect(archive.map(\.httpStatusCode) == [412, 424])
        #expect(archive.allSatisfy { $0.affectedEntitySet == "SalesOrders" && $0.affectedEntityKey == "('SO002')" })
        #expect(try await Self.note(server, "SO002") == "from A")
        #expect(try await Self.note(server, "SO003") == "unrelated")
        let inError = try #require(try b.store.execute(.get, "SalesOrders?$filter=sap.inerrorstate()&$select=SalesOrderID").json())
        #expect(inError["value"]?.arrayValue?.count == 1)
        // Resolution: drop the failed requests (the local change goes), then download.
        try b.store.deleteErrorArchiveEntry(requestID: try #require(archive.first?.requestID))
        try await b.download()
        #expect(try b.store.execute(.get, "SalesOrders('SO002')").json()?["Note"]?.stringValue == "from A")
        #expect(try b.store.requestQueue().isEmpty && b.store.errorArchive().isEmpty)
        try a.close()
        try b.close()
    }

    @Test("a key the back end assigns (a number range) re-keys the local entity and the request queued after its create")
    func serverAssignedKey() async throws {
        let server = try OdatapyServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let notes = DefiningQuery(name: "Notes", url: "Notes")
        let provider = try OfflineODataProvider(serviceRoot: server.serviceRoot, parameters: .test(dir, queries: Self.queries + [notes]))
        try await provider.open()
        let store = try provider.store
        #expect(try store.execute(.post, "Notes", body: #"{"NoteID":900,"SalesOrderID":"SO001","Text":"draft"}"#).status == 201)
        #expect(try store.execute(.patch, "Notes(900)", body: #"{"Text":"final"}"#).status == 204)
        let summary = try await provider.upload()
        let archive = try store.errorArchive()
        #expect(summary == UploadSummary(succeeded: 2, failed: 0, remaining: 0), "\(archive)")
        #expect(try store.execute(.get, "Notes(900)").status == 404)
        let created = try #require(try store.execute(.get, "Notes(3)").json())
        #expect(created["Text"]?.stringValue == "final")
        let (status, body) = try await server.send("GET", "Notes(3)")
        #expect(status == 200 && String(decoding: body, as: UTF8.self).contains("\"final\""))
        try await provider.download()
        #expect(try store.keys("Notes", key: "NoteID") == ["1", "2", "3"])
        try provider.close()
    }

    @Test("upload categories: only the chosen ones are sent")
    func categories() async throws {
        let server = try OdatapyServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let provider = try OfflineODataProvider(serviceRoot: server.serviceRoot, parameters: .test(dir, queries: Self.queries))
        try await provider.open()
        let store = try provider.store
        _ = try store.execute(.patch, "SalesOrders('SO006')", body: #"{"Note":"urgent"}"#, options: RequestOptions(uploadCategory: "urgent"))
        _ = try store.execute(.patch, "SalesOrders('SO007')", body: #"{"Note":"later"}"#)
        #expect(try await provider.upload(categories: ["urgent"]) == UploadSummary(succeeded: 1, failed: 0, remaining: 1))
        #expect(try await Self.note(server, "SO006") == "urgent")
        #expect(try await Self.note(server, "SO007") == "order 7")
        #expect(try await provider.upload() == UploadSummary(succeeded: 1, failed: 0, remaining: 0))
        try provider.close()
    }
}
