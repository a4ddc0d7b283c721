import Foundation
import OfflineODataModel
import Testing
@testable import OfflineODataStore

/// Actions invoked offline (docs/LocalService.md §2.9): `POST ActionImport` (and a V2 function
/// import with `m:HttpMethod="POST"`) is queued for upload and changes nothing locally, alone or
/// in a `$batch` change set; its parameters are checked against the action's before it is
/// queued; a function import stays not supported; a failed action is archived without an
/// entity and its entry's deletion removes only it.
@Suite struct ActionQueueTests {
    static let v4 = Array("""
        <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0"><edmx:DataServices>
        <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="A">
          <EntityType Name="Order"><Key><PropertyRef Name="ID"/></Key>
            <Property Name="ID" Type="Edm.String" Nullable="false"/><Property Name="Note" Type="Edm.String"/></EntityType>
          <Action Name="Confirm"><Parameter Name="OrderID" Type="Edm.String" Nullable="false"/><Parameter Name="Note" Type="Edm.String"/></Action>
          <Function Name="Total"><ReturnType Type="Edm.Int32"/></Function>
          <EntityContainer Name="C">
            <EntitySet Name="Orders" EntityType="A.Order"/>
            <ActionImport Name="Confirm" Action="A.Confirm"/>
            <FunctionImport Name="Total" Function="A.Total"/>
          </EntityContainer>
        </Schema></edmx:DataServices></edmx:Edmx>
        """.utf8)

    static let v2 = Array("""
        <edmx:Edmx xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx" Version="1.0"
          xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"><edmx:DataServices m:DataServiceVersion="2.0">
        <Schema xmlns="http://schemas.microsoft.com/ado/2008/09/edm" Namespace="G">
          <EntityType Name="Order"><Key><PropertyRef Name="ID"/></Key>
            <Property Name="ID" Type="Edm.String" Nullable="false"/><Property Name="Note" Type="Edm.String"/></EntityType>
          <EntityContainer Name="C" m:IsDefaultEntityContainer="true">
            <EntitySet Name="Orders" EntityType="G.Order"/>
            <FunctionImport Name="Release" ReturnType="Edm.Boolean" m:HttpMethod="POST"><Parameter Name="OrderID" Type="Edm.String" Mode="In"/></FunctionImport>
            <FunctionImport Name="Count" ReturnType="Edm.Int32" m:HttpMethod="GET"/>
          </EntityContainer>
        </Schema></edmx:DataServices></edmx:Edmx>
        """.utf8)

    static func store(_ metadata: [UInt8], _ dir: OfflineTempDir) async throws -> OfflineStore {
        let store = try await OfflineStore.open(metadata: metadata, parameters: OfflineFixtures.parameters(dir))
        #expect(try store.execute(.post, "Orders", body: #"{"ID":"1","Note":"n"}"#).status == 201)
        return store
    }

    @Test("POST of an action import is queued, changes nothing, and its parameters are checked first")
    func queued() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await Self.store(Self.v4, dir)
        defer { try? store.close() }
        let before = try store.execute(.get, "Orders").bodyText
        let response = try store.execute(.post, "Confirm", body: #"{"OrderID":"1","Note":"ok"}"#, headers: ["X-Trace": "t1"])
        #expect(response.status == 204 && response.body == nil)
        #expect(try store.execute(.get, "Orders").bodyText == before)
        let queue = try store.requestQueue()
        let action = try #require(queue.last)
        #expect(queue.count == 2 && action.isAction && action.method == "POST" && action.url == "Confirm")
        #expect(action.body == #"{"OrderID":"1","Note":"ok"}"# && action.customHeaders["X-Trace"] == "t1")
        // An action without a body, and the queue row's AffectedEntity, which it has none of.
        #expect(try store.execute(.post, "Confirm").status == 204)
        let rows = try #require(try store.execute(.get, "RequestQueue?$expand=AffectedEntity").json()?["value"]?.arrayValue)
        #expect(rows.count == 3)
        // Refused before anything is queued.
        for (body, name) in [(#"{"Nope":1}"#, "invalidBody"), ("[1]", "invalidBody"), ("{", "invalidBody")] {
            let error = #expect(throws: ODataError.self) { _ = try store.execute(.post, "Confirm", body: body) }
            #expect(error?.name == name, "\(body): \(error?.message ?? "")")
        }
        #expect(try store.requestQueue().count == 3)
        // Not an action call: a function import, or an action addressed otherwise.
        for (method, url) in [(ODataMethod.get, "Total"), (.get, "Confirm"), (.post, "Total")] {
            let error = #expect(throws: ODataError.self) { _ = try store.execute(method, url) }
            #expect(error?.category == .notSupported || error?.name == "methodNotAllowed", "\(method) \(url): \(error?.name ?? "")")
        }
    }

    @Test("in a $batch change set, an action is queued with the changes around it; a failure archives it without an entity")
    func batchAndArchive() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await Self.store(Self.v4, dir)
        defer { try? store.close() }
        let batch = #"{"requests":[{"id":"1","atomicityGroup":"g","method":"PATCH","url":"Orders('1')","headers":{"content-type":"application/json"},"body":{"Note":"x"}},"#
            + #"{"id":"2","atomicityGroup":"g","method":"POST","url":"Confirm","headers":{"content-type":"application/json"},"body":{"OrderID":"1"}}]}"#
        #expect(try store.execute(.post, "$batch", body: batch, headers: ["Content-Type": "application/json"]).status == 200)
        let queue = try store.requestQueue()
        #expect(queue.map(\.url) == ["Orders", "Orders('1')", "Confirm"])
        let action = try #require(queue.last)
        try store.service.markFailed(requestID: action.requestID, httpStatus: 404, code: "notFound", message: "no such order")
        let entry = try #require(try store.errorArchive().first)
        #expect(entry.affectedEntitySet == "" && entry.requestURL == "Confirm" && entry.httpStatusCode == 404)
        // The entity the PATCH changed is not in error: the action names none.
        let order = try #require(try store.execute(.get, "Orders('1')").json())
        #expect(order["Note"]?.stringValue == "x")
        #expect(try store.execute(.get, "Orders?$filter=sap.inerrorstate()").json()?["value"]?.arrayValue?.isEmpty == true)
        #expect(try store.deleteErrorArchiveEntry(requestID: entry.requestID) == [entry.requestID])
        #expect(try store.requestQueue().count == 2 && store.errorArchive().isEmpty)
    }

    @Test("an action not yet sent can be withdrawn; a change, an unknown request or one an upload may have sent cannot")
    func withdraw() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await Self.store(Self.v4, dir)
        defer { try? store.close() }
        #expect(try store.execute(.post, "Confirm", body: #"{"OrderID":"1"}"#).status == 204)
        #expect(try store.execute(.post, "Confirm", body: #"{"OrderID":"2"}"#).status == 204)
        let queue = try store.requestQueue()
        let (create, first, second) = (queue[0].requestID, queue[1].requestID, queue[2].requestID)
        try store.withdrawAction(requestID: first)
        #expect(try store.requestQueue().map(\.requestID) == [create, second])
        let change = #expect(throws: ODataError.self) { try store.withdrawAction(requestID: create) }
        #expect(change?.name == "cannotWithdraw" && change?.code == 3205)
        let unknown = #expect(throws: ODataError.self) { try store.withdrawAction(requestID: first) }
        #expect(unknown?.name == "requestNotFound")
        _ = try store.beginUploadAttempt(requestID: second, repeatabilityID: "r", firstSent: "Sat, 28 Nov 2026 12:00:00 GMT")
        let sent = #expect(throws: ODataError.self) { try store.withdrawAction(requestID: second) }
        #expect(sent?.name == "cannotWithdraw" && sent?.message.contains("may have sent") == true)
        #expect(try store.requestQueue().count == 2)
    }

    @Test("V2: a function import invoked with POST is queued with its query-string parameters; one with GET is not supported")
    func v2FunctionImport() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await Self.store(Self.v2, dir)
        defer { try? store.close() }
        #expect(try store.execute(.post, "Release?OrderID='1'").status == 204)
        let action = try #require(try store.requestQueue().last)
        #expect(action.isAction && action.url == "Release?OrderID='1'" && action.body == nil)
        let error = #expect(throws: ODataError.self) { _ = try store.execute(.get, "Count") }
        #expect(error?.category == .notSupported)
    }
}
