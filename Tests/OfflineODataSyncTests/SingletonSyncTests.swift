import Foundation
import OfflineODataModel
import OfflineODataStore
import OfflineODataSync
import Synchronization
import Testing

/// A singleton defining query through the provider: the back end answers `GET Me` with one
/// entity (not a collection), read in full at every download (a singleton has no delta link),
/// and a change made offline is uploaded as `PATCH Me` with the entity's ETag. Neither test back
/// end serves a singleton, so an in-process double does (it answers as TripPin does).
@Suite struct SingletonSyncTests {
    final class Backend: Transport, @unchecked Sendable {
        static let root = "http://singleton.invalid/"
        let state = Mutex<(name: String, etag: Int, log: [HTTPRequest])>(("max", 1, []))
        static let metadata = """
            <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0"><edmx:DataServices>
            <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="S">
              <EntityType Name="Person"><Key><PropertyRef Name="UserName"/></Key>
                <Property Name="UserName" Type="Edm.String" Nullable="false"/><Property Name="FirstName" Type="Edm.String"/></EntityType>
              <EntityContainer Name="C"><EntitySet Name="People" EntityType="S.Person"/><Singleton Name="Me" Type="S.Person"/></EntityContainer>
            </Schema></edmx:DataServices></edmx:Edmx>
            """

        var log: [HTTPRequest] { state.withLock { $0.log } }

        func exchange(_ request: HTTPRequest) async throws -> HTTPResponse {
            let path = String(request.url.dropFirst(Self.root.count)).split(separator: "?").first.map(String.init) ?? ""
            let (name, etag) = state.withLock { s in
                s.log.append(request)
                return (s.name, s.etag)
            }
            switch (request.method, path) {
            case ("GET", "$metadata"):
                return HTTPResponse(status: 200, body: Array(Self.metadata.utf8))
            case ("GET", "People"):
                return HTTPResponse(status: 200, body: Array(#"{"@odata.context":"$metadata#People","value":[{"UserName":"ann","FirstName":"Ann"}]}"#.utf8))
            case ("GET", "Me"):
                let body = #"{"@odata.context":"$metadata#Me","@odata.etag":"W/\"\#(etag)\"","UserName":"\#(name)","FirstName":"First \#(name)"}"#
                return HTTPResponse(status: 200, body: Array(body.utf8))
            case ("PATCH", "Me"):
                let next = state.withLock { s -> Int in
                    s.etag += 1
                    return s.etag
                }
                return HTTPResponse(status: 204, headers: [(name: "ETag", value: "W/\"\(next)\"")], body: [])
            default:
                return HTTPResponse(status: 404, body: Array(#"{"error":{"code":"404","message":"no such resource"}}"#.utf8))
            }
        }
    }

    @Test("a singleton defining query is downloaded as one entity, in full each time; PATCH Me made offline is uploaded with its ETag")
    func singletonThroughTheProvider() async throws {
        let backend = Backend()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("oodata-singleton-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var parameters = OfflineODataParameters(storePath: dir, encryption: .unencrypted,
                                                definingQueries: [DefiningQuery(name: "People", url: "People"), DefiningQuery(name: "Me", url: "Me")],
                                                timeout: 20, durability: .relaxed, keyDerivation: .minimum)
        parameters.uploadBatching = .never
        let provider = try OfflineODataProvider(serviceRoot: Backend.root, parameters: parameters, transport: backend)
        try await provider.open()
        let store = try provider.store
        #expect(try store.execute(.get, "Me").json()?["UserName"]?.stringValue == "max")
        // The back end's singleton changes: the next download brings it (no delta link asked for).
        backend.state.withLock { $0.name = "zoe" }
        try await provider.download()
        #expect(try store.execute(.get, "Me").json()?["UserName"]?.stringValue == "zoe")
        #expect(try store.stats().entityCounts["Me"] == 1)
        let meReads = backend.log.filter { $0.method == "GET" && $0.url.hasPrefix(Backend.root + "Me") }
        #expect(meReads.count == 2 && meReads.allSatisfy { $0.header("Prefer")?.contains("track-changes") != true })
        // Changed offline, uploaded as PATCH Me with the ETag the download brought.
        #expect(try store.execute(.patch, "Me", body: #"{"FirstName":"Zo"}"#).status == 204)
        let summary = try await provider.upload()
        #expect(summary.succeeded == 1 && summary.failed == 0)
        let patch = try #require(backend.log.last { $0.method == "PATCH" })
        #expect(patch.url == Backend.root + "Me" && patch.header("If-Match") == "W/\"1\"")
        #expect(try store.requestQueue().isEmpty)
        try provider.close()
    }
}
