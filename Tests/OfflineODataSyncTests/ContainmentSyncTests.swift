import Foundation
import OfflineODataModel
import OfflineODataStore
import OfflineODataSync
import Synchronization
import Testing

/// Contained entities through the provider: `People?$expand=Trips` downloads each person's trips
/// into the store under that person; a trip created offline (`POST People('ann')/Trips`) is
/// uploaded to that URL and re-keyed to the key the back end gives it, in its container, with
/// the later request on it rewritten; a change to another person's trip 0 goes to that trip's
/// own URL with its ETag. Neither test back end serves contained entities (odatapy reads
/// `ContainsTarget` but does not route through it), so an in-process double does, answering as
/// TripPin does.
@Suite struct ContainmentSyncTests {
    final class Backend: Transport, @unchecked Sendable {
        static let root = "http://containment.invalid/"
        let state = Mutex<[HTTPRequest]>([])
        static let metadata = """
            <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0"><edmx:DataServices>
            <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="T">
              <EntityType Name="Person"><Key><PropertyRef Name="UserName"/></Key>
                <Property Name="UserName" Type="Edm.String" Nullable="false"/>
                <NavigationProperty Name="Trips" Type="Collection(T.Trip)" ContainsTarget="true"/></EntityType>
              <EntityType Name="Trip"><Key><PropertyRef Name="TripId"/></Key>
                <Property Name="TripId" Type="Edm.Int32" Nullable="false"/><Property Name="Name" Type="Edm.String"/></EntityType>
              <EntityContainer Name="C"><EntitySet Name="People" EntityType="T.Person"/></EntityContainer>
            </Schema></edmx:DataServices></edmx:Edmx>
            """
        static let people = #"""
            {"@odata.context":"$metadata#People(Trips())","value":[
              {"UserName":"ann","Trips":[{"@odata.etag":"W/\"a0\"","TripId":0,"Name":"Ann's"}]},
              {"UserName":"bob","Trips":[{"@odata.etag":"W/\"b0\"","TripId":0,"Name":"Bob's"}]}]}
            """#

        var log: [HTTPRequest] { state.withLock { $0 } }

        func exchange(_ request: HTTPRequest) async throws -> HTTPResponse {
            state.withLock { $0.append(request) }
            let path = String(request.url.dropFirst(Self.root.count)).split(separator: "?").first.map(String.init) ?? ""
            switch (request.method, path) {
            case ("GET", "$metadata"):
                return HTTPResponse(status: 200, body: Array(Self.metadata.utf8))
            case ("GET", "People"):
                return HTTPResponse(status: 200, body: Array(Self.people.utf8))
            case ("POST", "People('ann')/Trips"):
                // The back end numbers trips itself.
                return HTTPResponse(status: 201, headers: [(name: "Location", value: Self.root + "People('ann')/Trips(77)"),
                                                           (name: "ETag", value: "W/\"a77\"")],
                                    body: Array(#"{"@odata.etag":"W/\"a77\"","TripId":77,"Name":"New"}"#.utf8))
            case ("PATCH", "People('ann')/Trips(77)"), ("PATCH", "People('bob')/Trips(0)"):
                return HTTPResponse(status: 204, headers: [(name: "ETag", value: "W/\"changed\"")], body: [])
            default:
                return HTTPResponse(status: 404, body: Array(#"{"error":{"code":"404","message":"no such resource"}}"#.utf8))
            }
        }
    }

    @Test("contained trips are downloaded under their people, uploaded to their own URLs with their ETags, and a trip created offline takes the back end's key in its container")
    func uploadAndRekey() async throws {
        let backend = Backend()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("oodata-containment-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var parameters = OfflineODataParameters(storePath: dir, encryption: .unencrypted,
                                                definingQueries: [DefiningQuery(name: "People", url: "People?$expand=Trips")],
                                                timeout: 20, durability: .relaxed, keyDerivation: .minimum)
        parameters.uploadBatching = .never
        let provider = try OfflineODataProvider(serviceRoot: Backend.root, parameters: parameters, transport: backend)
        try await provider.open()
        let store = try provider.store
        #expect(try store.execute(.get, "People('bob')/Trips(0)").json()?["Name"]?.stringValue == "Bob's")
        // Offline: a new trip for ann (a local key), changed again; bob's trip 0 changed.
        #expect(try store.execute(.post, "People('ann')/Trips", body: #"{"TripId":5,"Name":"New"}"#).status == 201)
        #expect(try store.execute(.patch, "People('ann')/Trips(5)", body: #"{"Name":"Newer"}"#).status == 204)
        #expect(try store.execute(.patch, "People('bob')/Trips(0)", body: #"{"Name":"Bob's, changed"}"#).status == 204)
        let summary = try await provider.upload()
        #expect(summary.succeeded == 3 && summary.failed == 0)
        let sent = backend.log.filter { $0.method != "GET" }.map { "\($0.method) \($0.url.dropFirst(Backend.root.count))" }
        #expect(sent == ["POST People('ann')/Trips", "PATCH People('ann')/Trips(77)", "PATCH People('bob')/Trips(0)"])
        let bobPatch = try #require(backend.log.last { $0.url.hasSuffix("People('bob')/Trips(0)") })
        #expect(bobPatch.header("If-Match") == "W/\"b0\"")
        // Re-keyed in its container; the local key is gone.
        #expect(try store.execute(.get, "People('ann')/Trips(77)").json()?["Name"]?.stringValue == "Newer")
        #expect(try store.execute(.get, "People('ann')/Trips(5)").status == 404)
        #expect(try store.requestQueue().isEmpty && store.errorArchive().isEmpty)
        try provider.close()
    }
}
