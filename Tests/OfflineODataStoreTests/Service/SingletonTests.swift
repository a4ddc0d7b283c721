import Foundation
import OfflineODataModel
import Testing
@testable import OfflineODataStore

/// Singletons (TripPin's `Me`): kept as a set of one entity under the singleton's name, downloaded
/// by a defining query naming it, read (`Me`, its properties, its navigation by the singleton's
/// bindings), changed offline (`PATCH Me`, queued with that URL) and undone; what a singleton does
/// not take (POST, DELETE) is refused.
@Suite struct SingletonTests {
    static let metadata = Array("""
        <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0"><edmx:DataServices>
        <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="S">
          <EntityType Name="Person"><Key><PropertyRef Name="UserName"/></Key>
            <Property Name="UserName" Type="Edm.String" Nullable="false"/><Property Name="FirstName" Type="Edm.String"/>
            <Property Name="Emails" Type="Collection(Edm.String)"/>
            <NavigationProperty Name="Friends" Type="Collection(S.Person)"/></EntityType>
          <EntityContainer Name="C">
            <EntitySet Name="People" EntityType="S.Person"><NavigationPropertyBinding Path="Friends" Target="People"/></EntitySet>
            <Singleton Name="Me" Type="S.Person"><NavigationPropertyBinding Path="Friends" Target="People"/></Singleton>
          </EntityContainer>
        </Schema></edmx:DataServices></edmx:Edmx>
        """.utf8)

    static let people = #"{"value":[{"UserName":"ann","FirstName":"Ann"},{"UserName":"bob","FirstName":"Bob"},{"UserName":"cy","FirstName":"Cy"}]}"#

    static func me(_ name: String, friends: [String]) -> String {
        let binds = friends.map { "\"People('\($0)')\"" }.joined(separator: ",")
        return #"{"value":[{"@odata.context":"$metadata#Me","UserName":"\#(name)","FirstName":"First \#(name)","Emails":["\#(name)@x.org"],"Friends@odata.bind":[\#(binds)]}]}"#
    }

    @Test("a defining query naming the singleton downloads its entity; it is read, navigated, changed, undone and replaced by the next download")
    func singleton() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineStore.open(metadata: Self.metadata, parameters: OfflineFixtures.parameters(dir, definingQueries: [
            DefiningQuery(name: "People", url: "People"), DefiningQuery(name: "Me", url: "Me?$select=UserName,FirstName,Emails"),
        ]))
        defer { try? store.close() }
        #expect(try store.execute(.get, "Me").status == 404)
        try await store.applyDownload(definingQuery: "People", pages: [Array(Self.people.utf8)])
        try await store.applyDownload(definingQuery: "Me", pages: [Array(Self.me("max", friends: ["ann", "cy"]).utf8)])
        let me = try #require(try store.execute(.get, "Me").json())
        #expect(me["@odata.context"]?.stringValue == "$metadata#Me" && me["UserName"]?.stringValue == "max")
        #expect(try store.execute(.get, "Me/FirstName").json()?["@odata.context"]?.stringValue == "$metadata#Me/FirstName")
        #expect(try store.execute(.get, "Me/Emails/$count").bodyText == "1")
        let friends = try #require(try store.execute(.get, "Me/Friends?$orderby=UserName&$select=UserName").json()?["value"]?.arrayValue)
        #expect(friends.compactMap { $0["UserName"]?.stringValue } == ["ann", "cy"])
        #expect(try store.stats().entityCounts["Me"] == 1)
        // Changed offline: queued as PATCH Me; undone.
        #expect(try store.execute(.patch, "Me", body: #"{"FirstName":"Maxi"}"#).status == 204)
        let queued = try #require(try store.requestQueue().first)
        #expect(queued.method == "PATCH" && queued.url == "Me" && queued.affectedEntitySet == "Me" && queued.affectedEntityKey == "('max')")
        #expect(try store.execute(.get, "Me").json()?["FirstName"]?.stringValue == "Maxi")
        #expect(try store.undoPendingChanges(set: "Me", key: [.string("max")]))
        #expect(try store.execute(.get, "Me").json()?["FirstName"]?.stringValue == "First max")
        #expect(try store.requestQueue().isEmpty)
        // Not for a singleton.
        for (method, body) in [(ODataMethod.post, #"{"UserName":"x"}"#), (.delete, nil)] {
            let error = #expect(throws: ODataError.self) { _ = try store.execute(method, "Me", body: body) }
            #expect(error?.name == "methodNotAllowed", "\(method): \(error?.name ?? "")")
        }
        // The back end's singleton is another person now: the next download replaces it.
        try await store.applyDownload(definingQuery: "Me", pages: [Array(Self.me("zoe", friends: ["bob"]).utf8)])
        #expect(try store.execute(.get, "Me").json()?["UserName"]?.stringValue == "zoe")
        #expect(try store.stats().entityCounts["Me"] == 1)
        #expect(try store.execute(.get, "Me/Friends/$count").bodyText == "1")
    }

    @Test("defining queries: the singleton alone (with options), never a path below it or $compute")
    func definingQueries() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineStore.open(metadata: Self.metadata, parameters: OfflineFixtures.parameters(dir))
        defer { try? store.close() }
        try store.addDefiningQuery(DefiningQuery(name: "Me", url: "Me?$select=UserName"))
        for url in ["Me/Emails", "Me/Friends/$count", "Me?$compute=concat(UserName,'x') as Y"] {
            let error = #expect(throws: ODataError.self) { try store.addDefiningQuery(DefiningQuery(name: "X", url: url)) }
            #expect(error?.name == "invalidDefiningQuery", "\(url): \(error?.name ?? "")")
        }
    }
}
