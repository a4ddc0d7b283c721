import Foundation
import OfflineODataModel
import PropertyBased
import Testing
@testable import OfflineODataStore

/// Contained entities (OData 4.01 CSDL §8.4 `ContainsTarget`, URL Conventions §4.3.2): TripPin's
/// `People/Trips` and `Trips/PlanItems` with derived plan items, and a singleton's (`Me/Trips`).
/// Stored under their container (a trip's key is unique only inside its person), downloaded
/// inside the container's payload, read by their canonical paths, filtered across, expanded,
/// written, and deleted with their container.
@Suite struct ContainmentTests {
    static let metadata = Array("""
        <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0"><edmx:DataServices>
        <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="T">
          <EntityType Name="Person"><Key><PropertyRef Name="UserName"/></Key>
            <Property Name="UserName" Type="Edm.String" Nullable="false"/><Property Name="FirstName" Type="Edm.String"/>
            <NavigationProperty Name="Trips" Type="Collection(T.Trip)" ContainsTarget="true"/>
            <NavigationProperty Name="BestFriend" Type="T.Person"/></EntityType>
          <EntityType Name="Trip"><Key><PropertyRef Name="TripId"/></Key>
            <Property Name="TripId" Type="Edm.Int32" Nullable="false"/><Property Name="Name" Type="Edm.String"/>
            <Property Name="Budget" Type="Edm.Single" Nullable="false"/>
            <NavigationProperty Name="PlanItems" Type="Collection(T.PlanItem)" ContainsTarget="true"/>
            <NavigationProperty Name="Photos" Type="Collection(T.Photo)"/></EntityType>
          <EntityType Name="PlanItem"><Key><PropertyRef Name="PlanItemId"/></Key>
            <Property Name="PlanItemId" Type="Edm.Int32" Nullable="false"/><Property Name="ConfirmationCode" Type="Edm.String"/></EntityType>
          <EntityType Name="PublicTransportation" BaseType="T.PlanItem"><Property Name="SeatNumber" Type="Edm.String"/></EntityType>
          <EntityType Name="Flight" BaseType="T.PublicTransportation"><Property Name="FlightNumber" Type="Edm.String"/></EntityType>
          <EntityType Name="Event" BaseType="T.PlanItem"><Property Name="Description" Type="Edm.String"/></EntityType>
          <EntityType Name="Photo"><Key><PropertyRef Name="Id"/></Key>
            <Property Name="Id" Type="Edm.Int64" Nullable="false"/><Property Name="Name" Type="Edm.String"/></EntityType>
          <EntityContainer Name="C">
            <EntitySet Name="People" EntityType="T.Person"><NavigationPropertyBinding Path="BestFriend" Target="People"/>
              <NavigationPropertyBinding Path="Trips/Photos" Target="Photos"/></EntitySet>
            <EntitySet Name="Photos" EntityType="T.Photo"/>
            <Singleton Name="Me" Type="T.Person"><NavigationPropertyBinding Path="BestFriend" Target="People"/></Singleton>
          </EntityContainer>
        </Schema></edmx:DataServices></edmx:Edmx>
        """.utf8)

    /// Two people with a trip 0 each (the same key in two containers), plan items of derived types.
    static let people = #"""
        {"value":[
          {"UserName":"russell","FirstName":"Russell","Trips":[
            {"TripId":0,"Name":"US","Budget":3000,"Photos@odata.bind":["Photos(1)"],"PlanItems":[
              {"@odata.type":"#T.Flight","PlanItemId":11,"ConfirmationCode":"JH58493","FlightNumber":"AA26"},
              {"@odata.type":"#T.Event","PlanItemId":12,"ConfirmationCode":"4372899DD","Description":"Client meeting"}]},
            {"TripId":1003,"Name":"Beijing","Budget":2000.5,"PlanItems":[]}]},
          {"UserName":"scott","FirstName":"Scott","Trips":[
            {"TripId":0,"Name":"Shanghai","Budget":6000,"PlanItems":[
              {"@odata.type":"#T.Flight","PlanItemId":11,"ConfirmationCode":"OTHER","FlightNumber":"MU1"}]}]},
          {"UserName":"nobody","FirstName":"No","Trips":[]}]}
        """#

    static let photos = #"{"value":[{"Id":1,"Name":"a.jpg"},{"Id":2,"Name":"b.jpg"}]}"#

    static func open(_ dir: OfflineTempDir) async throws -> OfflineStore {
        let store = try await OfflineStore.open(metadata: Self.metadata, parameters: OfflineFixtures.parameters(dir, definingQueries: [
            DefiningQuery(name: "Photos", url: "Photos"),
            DefiningQuery(name: "People", url: "People?$expand=Trips($expand=PlanItems)"),
        ]))
        try await store.applyDownload(definingQuery: "Photos", pages: [Array(Self.photos.utf8)])
        try await store.applyDownload(definingQuery: "People", pages: [Array(Self.people.utf8)])
        return store
    }

    static func values(_ response: ODataResponse, _ name: String) throws -> [String] {
        try #require(try response.json()?["value"]?.arrayValue).compactMap { element -> String? in
            switch element[name] {
            case .string(let s)?: return s
            case .number(let n)?: return n.description
            default: return nil
            }
        }
    }

    @Test("contained entities downloaded inside their container are stored under it and read by their canonical paths")
    func readPaths() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await Self.open(dir)
        defer { try? store.close() }
        #expect(try Self.values(store.execute(.get, "People('russell')/Trips"), "Name") == ["US", "Beijing"])
        #expect(try Self.values(store.execute(.get, "People('scott')/Trips"), "Name") == ["Shanghai"])
        #expect(try Self.values(store.execute(.get, "People('nobody')/Trips"), "Name") == [])
        let trip = try #require(try store.execute(.get, "People('scott')/Trips(0)").json())
        #expect(trip["Name"]?.stringValue == "Shanghai")
        // The container's key is not a property of the trip.
        #expect(trip.objectValue?.map(\.key).contains { $0.hasPrefix("$") } == false)
        #expect(trip["@odata.id"]?.stringValue == "People('scott')/Trips(0)")
        #expect(try store.execute(.get, "People('russell')/Trips(0)/PlanItems(11)").json()?["ConfirmationCode"]?.stringValue == "JH58493")
        #expect(try store.execute(.get, "People('scott')/Trips(0)/PlanItems(11)").json()?["ConfirmationCode"]?.stringValue == "OTHER")
        #expect(try store.execute(.get, "People('russell')/Trips(0)/PlanItems/$count").bodyText == "2")
        #expect(try Self.values(store.execute(.get, "People('russell')/Trips(0)/PlanItems/T.Flight"), "PlanItemId") == ["11"])
        #expect(try Self.values(store.execute(.get, "People('russell')/Trips(0)/PlanItems/T.PublicTransportation"), "PlanItemId") == ["11"])
        #expect(try store.execute(.get, "People('russell')/Trips(0)/PlanItems/T.Event/$count").bodyText == "1")
        #expect(try store.execute(.get, "People('russell')/Trips(7)").status == 404)
        #expect(try store.execute(.get, "People('russell')/Trips(0)/Name").json()?["value"]?.stringValue == "US")
        // Navigation out of a contained entity.
        #expect(try Self.values(store.execute(.get, "People('russell')/Trips(0)/Photos"), "Name") == ["a.jpg"])
    }

    @Test("filters, ordering and $expand reach contained entities; a contained collection's context URL names its container")
    func queriesAcross() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await Self.open(dir)
        defer { try? store.close() }
        #expect(try Self.values(store.execute(.get, "People?$filter=Trips/any(t: t/Budget gt 5000)"), "UserName") == ["scott"])
        #expect(try Self.values(store.execute(.get, "People?$filter=Trips/all(t: t/Budget lt 5000)&$orderby=UserName"), "UserName") == ["nobody", "russell"])
        #expect(try Self.values(store.execute(.get, "People?$filter=Trips/any(t: t/PlanItems/any(p: p/ConfirmationCode eq 'OTHER'))"), "UserName") == ["scott"])
        #expect(try Self.values(store.execute(.get, "People('russell')/Trips?$filter=Budget gt 2500"), "Name") == ["US"])
        #expect(try Self.values(store.execute(.get, "People('russell')/Trips?$orderby=Budget"), "Name") == ["Beijing", "US"])
        #expect(try Self.values(store.execute(.get, "People('russell')/Trips?$top=1&$skip=1"), "Name") == ["Beijing"])
        let expanded = try #require(try store.execute(.get, "People('russell')?$expand=Trips($select=Name;$expand=PlanItems($select=PlanItemId))").json())
        let trips = try #require(expanded["Trips"]?.arrayValue)
        #expect(trips.compactMap { $0["Name"]?.stringValue } == ["US", "Beijing"])
        #expect(trips.first?["PlanItems"]?.arrayValue?.count == 2)
        let context = try store.execute(.get, "People('russell')/Trips").json()?["@odata.context"]?.stringValue
        #expect(context == "$metadata#People('russell')/Trips")
        #expect(try store.execute(.get, "People('russell')/Trips(0)").json()?["@odata.context"]?.stringValue == "$metadata#People('russell')/Trips/$entity")
    }

    @Test("contained entities are created, changed and deleted through their paths, queued under their canonical URLs, and undone")
    func writes() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await Self.open(dir)
        defer { try? store.close() }
        // Create in a container.
        let created = try store.execute(.post, "People('nobody')/Trips", body: #"{"TripId":0,"Name":"New","Budget":10}"#)
        #expect(created.status == 201)
        #expect(created.headers["Location"] == "People('nobody')/Trips(0)")
        #expect(try store.execute(.get, "People('nobody')/Trips(0)").json()?["Name"]?.stringValue == "New")
        // Change one trip 0; the other people's trip 0 stay as they were.
        #expect(try store.execute(.patch, "People('russell')/Trips(0)", body: #"{"Name":"US 2"}"#).status == 204)
        #expect(try store.execute(.get, "People('russell')/Trips(0)").json()?["Name"]?.stringValue == "US 2")
        #expect(try store.execute(.get, "People('scott')/Trips(0)").json()?["Name"]?.stringValue == "Shanghai")
        #expect(try store.execute(.get, "People('nobody')/Trips(0)").json()?["Name"]?.stringValue == "New")
        // A plan item of a derived type, two levels down; a delete.
        #expect(try store.execute(.post, "People('russell')/Trips(1003)/PlanItems",
                                  body: ##"{"@odata.type":"#T.Flight","PlanItemId":40,"FlightNumber":"LH1"}"##).status == 201)
        #expect(try Self.values(store.execute(.get, "People('russell')/Trips(1003)/PlanItems/T.Flight"), "FlightNumber") == ["LH1"])
        #expect(try store.execute(.delete, "People('scott')/Trips(0)/PlanItems(11)").status == 204)
        #expect(try store.execute(.get, "People('scott')/Trips(0)/PlanItems/$count").bodyText == "0")
        #expect(try store.execute(.get, "People('russell')/Trips(0)/PlanItems/$count").bodyText == "2")
        // Links from a contained entity, by $ref and by @odata.bind.
        #expect(try store.execute(.post, "People('russell')/Trips(1003)/Photos/$ref", body: #"{"@odata.id":"Photos(2)"}"#).status == 204)
        #expect(try Self.values(store.execute(.get, "People('russell')/Trips(1003)/Photos"), "Name") == ["b.jpg"])
        #expect(try store.execute(.delete, "People('russell')/Trips(0)/Photos/$ref?$id=Photos(1)").status == 204)
        #expect(try Self.values(store.execute(.get, "People('russell')/Trips(0)/Photos"), "Name") == [])
        #expect(try store.execute(.patch, "People('scott')/Trips(0)", body: #"{"Photos@odata.bind":["Photos(1)"]}"#).status == 204)
        #expect(try Self.values(store.execute(.get, "People('scott')/Trips(0)/Photos"), "Name") == ["a.jpg"])
        #expect(try Self.values(store.execute(.get, "People('russell')/Trips(0)/Photos"), "Name") == [])
        let queue = try store.requestQueue().filter { !$0.url.contains("$ref") }
        #expect(try store.requestQueue().map(\.url).filter { $0.contains("/$ref") } == [
            "People('russell')/Trips(1003)/Photos/$ref", "People('russell')/Trips(0)/Photos/$ref?$id=Photos(1)",
        ])
        #expect(queue.map { "\($0.method) \($0.url)" } == [
            "POST People('nobody')/Trips", "PATCH People('russell')/Trips(0)", "POST People('russell')/Trips(1003)/PlanItems",
            "DELETE People('scott')/Trips(0)/PlanItems(11)", "PATCH People('scott')/Trips(0)",
        ])
        // Undo of one contained entity's change, by its stored set and whole key (which its
        // path gives).
        let address = try store.storedAddress(of: "People('russell')/Trips(0)")
        #expect(address.set == "People/Trips" && address.key == [.string("russell"), .int32(0)])
        #expect(try store.undoPendingChanges(set: address.set, key: address.key))
        #expect(try store.execute(.get, "People('russell')/Trips(0)").json()?["Name"]?.stringValue == "US")
        #expect(try store.requestQueue().filter { $0.url.hasPrefix("People('russell')/Trips(0)") }.isEmpty)
    }

    @Test("deleting a container deletes what it contains; a deep insert creates both; a new download drops a trip the back end no longer has; a reopened store reads them again")
    func lifecycle() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        var store = try await Self.open(dir)
        #expect(try store.stats().entityCounts["People/Trips"] == 3)
        #expect(try store.stats().entityCounts["People/Trips/PlanItems"] == 3)
        #expect(try store.execute(.delete, "People('russell')").status == 204)
        #expect(try store.stats().entityCounts["People/Trips"] == 1)
        #expect(try store.stats().entityCounts["People/Trips/PlanItems"] == 1)
        #expect(try store.execute(.post, "People", body: #"{"UserName":"deep","Trips":[{"TripId":0,"Budget":1,"PlanItems":[{"PlanItemId":1}]}]}"#).status == 201)
        #expect(try store.execute(.get, "People('deep')/Trips(0)/PlanItems(1)").status == 200)
        try store.close()
        store = try await OfflineStore.open(metadata: Self.metadata, parameters: OfflineFixtures.parameters(dir))
        defer { try? store.close() }
        #expect(try Self.values(store.execute(.get, "People('scott')/Trips"), "Name") == ["Shanghai"])
        #expect(try store.execute(.get, "People('deep')/Trips(0)/PlanItems(1)").status == 200)
        // The back end drops scott's trip: the next download of the query removes it.
        let fewer = #"{"value":[{"UserName":"scott","FirstName":"Scott","Trips":[]},{"UserName":"nobody","Trips":[]}]}"#
        try await store.applyDownload(definingQuery: "People", pages: [Array(fewer.utf8)])
        #expect(try Self.values(store.execute(.get, "People('scott')/Trips"), "Name") == [])
    }

    @Test("a singleton's contained entities (Me/Trips) are downloaded, read, changed and queued under Me/Trips(key)")
    func singletonContainer() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineStore.open(metadata: Self.metadata, parameters: OfflineFixtures.parameters(dir, definingQueries: [
            DefiningQuery(name: "Me", url: "Me?$expand=Trips"),
        ]))
        defer { try? store.close() }
        let me = #"{"value":[{"UserName":"april","FirstName":"April","Trips":[{"TripId":0,"Name":"Home","Budget":5},{"TripId":2,"Name":"Away","Budget":50}]}]}"#
        try await store.applyDownload(definingQuery: "Me", pages: [Array(me.utf8)])
        #expect(try Self.values(store.execute(.get, "Me/Trips?$orderby=Budget desc"), "Name") == ["Away", "Home"])
        let trip = try #require(try store.execute(.get, "Me/Trips(2)").json())
        #expect(trip["@odata.id"]?.stringValue == "Me/Trips(2)")
        #expect(trip["@odata.context"]?.stringValue == "$metadata#Me/Trips/$entity")
        #expect(try store.execute(.patch, "Me/Trips(2)", body: #"{"Budget":60}"#).status == 204)
        #expect(try store.execute(.post, "Me/Trips", body: #"{"TripId":3,"Budget":1}"#).headers["Location"] == "Me/Trips(3)")
        #expect(try store.requestQueue().map { "\($0.method) \($0.url)" } == ["PATCH Me/Trips(2)", "POST Me/Trips"])
        let expanded = try #require(try store.execute(.get, "Me?$expand=Trips($filter=Budget gt 10)").json()?["Trips"]?.arrayValue)
        #expect(expanded.compactMap { $0["Name"]?.stringValue } == ["Away"])
    }

    @Test("the ErrorArchive and queue name a contained entity by its stored set and a readable key; a body cannot set the container's key; a contained collection is not a defining query of its own")
    func namesAndRefusals() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await Self.open(dir)
        defer { try? store.close() }
        #expect(try store.execute(.patch, "People('scott')/Trips(0)", body: #"{"Budget":1}"#).status == 204)
        let queued = try #require(try store.requestQueue().first)
        #expect(queued.affectedEntitySet == "People/Trips" && queued.affectedEntityKey == "(People.UserName='scott',TripId=0)")
        let affected = try #require(try store.execute(.get, "RequestQueue?$expand=AffectedEntity").json()?["value"]?.arrayValue?.first)
        #expect(affected["AffectedEntity"]?["Name"]?.stringValue == "Shanghai")
        // Only the URL names the container.
        let forged = #expect(throws: ODataError.self) {
            _ = try store.execute(.post, "People('nobody')/Trips", body: #"{"TripId":9,"Budget":1,"$People.UserName":"scott"}"#)
        }
        #expect(forged?.category == .invalidInput)
        #expect(try Self.values(store.execute(.get, "People('scott')/Trips"), "Name") == ["Shanghai"])
        let refused = await #expect(throws: ODataError.self) {
            try await store.addDefiningQuery(DefiningQuery(name: "RussellTrips", url: "People('russell')/Trips"))
        }
        #expect(refused?.message.contains("$expand=Trips") == true)
    }

    @Test("TripPin: People with their trips and plan items (People-deep.json) are stored contained, and read, filtered and expanded")
    func tripPinCorpus() async throws {
        guard let metadata = try? StorageCorpora.bytes("trippin/metadata.xml"), let deep = try? StorageCorpora.bytes("trippin/People-deep.json") else {
            print("skipping: ../shared/corpora/trippin is absent")
            return
        }
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineStore.open(metadata: metadata, parameters: OfflineFixtures.parameters(dir, definingQueries: [
            DefiningQuery(name: "People", url: "People?$expand=Trips($expand=PlanItems)"),
        ]))
        defer { try? store.close() }
        try await store.applyDownload(definingQuery: "People", pages: [deep])
        // Every trip and plan item of the file, each under its own person and trip.
        let people = try #require(try JSONReader.parse(deep)["value"]?.arrayValue)
        let trips = people.flatMap { $0["Trips"]?.arrayValue ?? [] }
        #expect(try store.stats().entityCounts["People/Trips"] == trips.count)
        #expect(try store.stats().entityCounts["People/Trips/PlanItems"] == trips.reduce(0) { $0 + ($1["PlanItems"]?.arrayValue?.count ?? 0) })
        // russellwhyte and scottketchum both have a trip 0.
        #expect(try store.execute(.get, "People('russellwhyte')/Trips(0)").json()?["Name"]?.stringValue == "Trip in US")
        #expect(try store.execute(.get, "People('scottketchum')/Trips(0)").json()?["Name"]?.stringValue == "Trip in US")
        let planItems = trips.first?["PlanItems"]?.arrayValue ?? []
        let flights = planItems.filter { $0["@odata.type"]?.stringValue?.hasSuffix(".Flight") == true }.count
        #expect(flights > 0 && flights < planItems.count)
        #expect(try store.execute(.get, "People('russellwhyte')/Trips(0)/PlanItems/Microsoft.OData.SampleService.Models.TripPin.Flight/$count").bodyText == "\(flights)")
        let rich = try Self.values(store.execute(.get, "People?$filter=Trips/any(t: t/Budget gt 5000)&$select=UserName&$orderby=UserName"), "UserName")
        let expected = people.filter { person in
            (person["Trips"]?.arrayValue ?? []).contains { trip in (trip["Budget"]?.numberValue?.doubleValue ?? 0) > 5000 }
        }.compactMap { $0["UserName"]?.stringValue }.sorted()
        #expect(!expected.isEmpty && rich == expected)
    }

    @Test("deleting a person offline deletes its trips and plan items; undoing the deletion, or deleting its failed request from the ErrorArchive, brings them back with their links; once the back end confirmed the deletion nothing of them stays pending")
    func containerDeletionUndone() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await Self.open(dir)
        defer { try? store.close() }
        func counts() throws -> [Int?] {
            let stats = try store.stats()
            return [stats.entityCounts["People"], stats.entityCounts["People/Trips"], stats.entityCounts["People/Trips/PlanItems"]]
        }
        let before = try counts()
        #expect(before == [3, 3, 3])
        // Undo.
        #expect(try store.execute(.delete, "People('russell')").status == 204)
        #expect(try counts() == [2, 1, 1])
        #expect(try store.undoPendingChanges(set: "People", key: [.string("russell")]))
        #expect(try counts() == before)
        #expect(try Self.values(store.execute(.get, "People('russell')/Trips"), "Name") == ["US", "Beijing"])
        #expect(try Self.values(store.execute(.get, "People('russell')/Trips(0)/Photos"), "Name") == ["a.jpg"])
        #expect(try store.execute(.get, "People('russell')/Trips(0)/PlanItems/$count").bodyText == "2")
        #expect(try store.requestQueue().isEmpty)
        // The back end refuses the deletion; deleting its ErrorArchive entry reverts it.
        #expect(try store.execute(.delete, "People('russell')").status == 204)
        let refused = try #require(try store.requestQueue().first)
        _ = try store.failUpload(requestID: refused.requestID, httpStatus: 403, code: "forbidden", message: "no", innerError: nil)
        _ = try store.deleteErrorArchiveEntry(requestID: refused.requestID)
        #expect(try counts() == before)
        #expect(try store.execute(.get, "People('russell')/Trips(1003)").json()?["Name"]?.stringValue == "Beijing")
        // The back end applies the deletion: nothing below the person stays pending.
        #expect(try store.execute(.delete, "People('scott')").status == 204)
        let applied = try #require(try store.requestQueue().first)
        _ = try store.confirmUpload(requestID: applied.requestID, etag: nil, serverKey: nil)
        #expect(try store.requestQueue().isEmpty && store.errorArchive().isEmpty)
        #expect(try !store.undoPendingChanges(set: "People/Trips", key: [.string("scott"), .int32(0)]))
        #expect(try !store.undoPendingChanges(set: "People/Trips/PlanItems", key: [.string("scott"), .int32(0), .int32(11)]))
        #expect(try counts() == [2, 2, 2])
        // A person created offline with a trip inside: undoing the person's creation takes the
        // trip's creation along (nothing is left queued for a person that is not there).
        #expect(try store.execute(.post, "People", body: #"{"UserName":"new"}"#).status == 201)
        #expect(try store.execute(.post, "People('new')/Trips", body: #"{"TripId":1,"Budget":1}"#).status == 201)
        #expect(try store.execute(.post, "People('new')/Trips(1)/PlanItems", body: #"{"PlanItemId":1}"#).status == 201)
        #expect(try store.undoPendingChanges(set: "People", key: [.string("new")]))
        #expect(try store.requestQueue().isEmpty)
        #expect(try counts() == [2, 2, 2])
    }

    /// People whose names are prefixes of each other or need quoting and percent-encoding: a
    /// person's contained entities are found by its key's bytes as a prefix, which must never
    /// reach another person's.
    static let names = ["a", "ab", "abc", "b", "a'b", "a/b"]
    static let steps = zip(Gen.int(in: 0...6), Gen.int(in: 0...5), Gen.int(in: 0...3), Gen.int(in: 0...99)).array(of: 1...25)

    static func path(_ name: String) -> String {
        "People('" + name.replacingOccurrences(of: "'", with: "''").replacingOccurrences(of: "/", with: "%2F") + "')"
    }

    @Test("random creates, changes and deletes of people, their trips and the trips' plan items agree with a model, reopened too (names that are prefixes of each other, quotes, slashes)")
    func randomContainment() async throws {
        await propertyCheck(count: 25, input: Self.steps) { steps in
            let dir = OfflineTempDir()
            defer { dir.cleanup() }
            var store = try await OfflineStore.open(metadata: Self.metadata, parameters: OfflineFixtures.parameters(dir))
            // person → trip → (budget, plan items)
            var model: [String: [Int: (budget: Int, items: Set<Int>)]] = [:]
            // Paths deleted offline while their creation is still queued: creating them again
            // before the upload is refused (docs/LocalService.md §2.3), until an undo.
            var deleted = Set<String>()
            for (number, (kind, who, which, value)) in steps.enumerated() {
                let name = Self.names[who], person = Self.path(name)
                let trip = person + "/Trips(\(which))"
                switch kind {
                case 0:   // a person
                    let status = (try? store.execute(.post, "People", body: #"{"UserName":"\#(name)"}"#))?.status
                    let valid = model[name] == nil && !deleted.contains(person)
                    #expect((status == 201) == valid, "step \(number): create \(name)")
                    if valid { model[name] = [:] }
                case 1:   // a trip in a person
                    let response = try? store.execute(.post, person + "/Trips", body: #"{"TripId":\#(which),"Budget":\#(value)}"#)
                    let valid = model[name] != nil && model[name]?[which] == nil && !deleted.contains(trip)
                    #expect((response?.status == 201) == valid, "step \(number): create \(trip)")
                    if valid { model[name]?[which] = (value, []) }
                case 2:   // its budget
                    let response = try? store.execute(.patch, trip, body: #"{"Budget":\#(value)}"#)
                    let exists = model[name]?[which] != nil
                    #expect((response?.status == 204) == exists, "step \(number): change \(trip)")
                    if exists { model[name]?[which]?.budget = value }
                case 3:   // a plan item in a trip
                    let item = value % 3
                    let response = try? store.execute(.post, trip + "/PlanItems", body: #"{"PlanItemId":\#(item)}"#)
                    let valid = model[name]?[which] != nil && model[name]?[which]?.items.contains(item) == false
                    #expect((response?.status == 201) == valid, "step \(number): create \(trip)/PlanItems(\(item))")
                    if valid { model[name]?[which]?.items.insert(item) }
                case 4:   // a trip, with its plan items
                    let response = try? store.execute(.delete, trip)
                    let exists = model[name]?[which] != nil
                    #expect((response?.status == 204) == exists, "step \(number): delete \(trip)")
                    if exists { deleted.insert(trip) }
                    model[name]?[which] = nil
                case 5:   // a person, with everything below
                    let response = try? store.execute(.delete, person)
                    #expect((response?.status == 204) == (model[name] != nil), "step \(number): delete \(name)")
                    if let trips = model[name] {
                        deleted.insert(person)
                        for id in trips.keys { deleted.insert(person + "/Trips(\(id))") }
                    }
                    model[name] = nil
                default:  // undo a person: created here, it goes with everything made inside it
                    let undone = try store.undoPendingChanges(set: "People", key: [.string(name)])
                    if model[name] != nil { #expect(undone, "step \(number): undo \(name)") }
                    model[name] = nil
                    deleted = deleted.filter { $0 != person && !$0.hasPrefix(person + "/") }
                    #expect(try !store.requestQueue().contains { $0.url.hasPrefix(person + "/") || $0.url == person },
                            "step \(number): requests left for \(name) after its undo")
                }
            }
            for round in 0..<2 {
                for name in Self.names {
                    let response = try store.execute(.get, Self.path(name) + "/Trips?$orderby=TripId")
                    guard let trips = model[name] else {
                        #expect(response.status == 404, "\(name) is gone (round \(round))")
                        continue
                    }
                    let rows = try #require(try response.json()?["value"]?.arrayValue)
                    #expect(rows.compactMap { $0["TripId"]?.numberValue?.int64Value }.map(Int.init) == trips.keys.sorted(), "trips of \(name) (round \(round))")
                    #expect(rows.compactMap { $0["Budget"]?.numberValue?.doubleValue }.map { Int($0) } == trips.keys.sorted().map { trips[$0]?.budget ?? -1 })
                    for (id, trip) in trips {
                        let count = try store.execute(.get, Self.path(name) + "/Trips(\(id))/PlanItems/$count").bodyText
                        #expect(count == String(trip.items.count), "plan items of \(name)'s trip \(id) (round \(round))")
                    }
                }
                let rich = try Self.values(store.execute(.get, "People?$filter=Trips/any(t: t/Budget gt 50)&$orderby=UserName"), "UserName")
                #expect(rich == model.filter { $0.value.values.contains { $0.budget > 50 } }.keys.sorted(), "round \(round)")
                #expect(try store.stats().entityCounts["People/Trips"] == model.values.reduce(0) { $0 + $1.count })
                try store.close()
                store = try await OfflineStore.open(metadata: Self.metadata, parameters: OfflineFixtures.parameters(dir))
            }
            try store.close()
        }
    }
}
