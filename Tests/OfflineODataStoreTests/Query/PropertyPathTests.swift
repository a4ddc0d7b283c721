import Foundation
import OfflineODataModel
import PropertyBased
import Testing
@testable import OfflineODataStore

/// Paths into complex values and collection-valued properties (URL Conventions §4.6, §4.8,
/// §5.1.1.11.4) through the local service: a member of a complex value at any depth, `/$value`
/// of one, `/$count` of a collection, and `$filter`, `$orderby`, `$top`, `$skip` and `$count`
/// over a collection's elements with `$it` (or bare names, for complex elements) the element;
/// held to the same computed in Swift on random people. Options the store does not evaluate there
/// are `notSupported` (501), never ignored.
@Suite struct PropertyPathTests {
    static let metadata = Array("""
        <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0"><edmx:DataServices>
        <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="P">
          <ComplexType Name="City"><Property Name="Name" Type="Edm.String"/><Property Name="Region" Type="Edm.String"/></ComplexType>
          <ComplexType Name="Location"><Property Name="Street" Type="Edm.String"/><Property Name="City" Type="P.City"/></ComplexType>
          <EntityType Name="Person"><Key><PropertyRef Name="UserName"/></Key>
            <Property Name="UserName" Type="Edm.String" Nullable="false"/>
            <Property Name="Emails" Type="Collection(Edm.String)"/>
            <Property Name="Scores" Type="Collection(Edm.Int32)"/>
            <Property Name="Home" Type="P.Location"/>
            <Property Name="Addresses" Type="Collection(P.Location)"/>
          </EntityType>
          <EntityContainer Name="C"><EntitySet Name="People" EntityType="P.Person"/></EntityContainer>
        </Schema></edmx:DataServices></edmx:Edmx>
        """.utf8)

    struct Person {
        var name: String
        var emails: [String]
        var scores: [Int]
        var home: (street: String, city: String, region: String)?
        var addresses: [(street: String, city: String, region: String)]

        var json: String {
            func location(_ l: (street: String, city: String, region: String)) -> String {
                #"{"Street":"\#(l.street)","City":{"Name":"\#(l.city)","Region":"\#(l.region)"}}"#
            }
            let emails = emails.map { "\"\($0)\"" }.joined(separator: ",")
            let home = home.map(location) ?? "null"
            return #"{"UserName":"\#(name)","Emails":[\#(emails)],"Scores":[\#(scores.map(String.init).joined(separator: ","))],"Home":\#(home),"Addresses":[\#(addresses.map(location).joined(separator: ","))]}"#
        }
    }

    static let domains = ["contoso.com", "example.com", "x.org"]
    static let regions = ["ID", "OR", "WA"]

    static func people(_ values: [Int]) -> [Person] {
        var c = values.makeIterator()
        func next(_ n: Int) -> Int { (c.next() ?? 7) % n }
        return (0..<(1 + next(4))).map { i in
            Person(name: "p\(i)",
                   emails: (0..<next(5)).map { _ in "u\(next(9))@\(domains[next(3)])" },
                   scores: (0..<next(6)).map { _ in next(100) - 50 },
                   home: next(3) == 0 ? nil : ("s\(next(9))", "c\(next(5))", regions[next(3)]),
                   addresses: (0..<next(4)).map { _ in ("a\(next(9))", "c\(next(5))", regions[next(3)]) })
        }
    }

    static func value(_ store: OfflineStore, _ url: String) throws -> Any? {
        let response = try store.execute(.get, url)
        guard response.status == 200, let body = response.body else { return nil }
        return (try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["value"]
    }

    @Test("paths into complex values and collections, and options over a collection's elements, as computed in Swift")
    func randomPeople() async throws {
        await propertyCheck(count: 25, input: Gen.int(in: 0...1_000).array(of: 0...60)) { values in
            let dir = OfflineTempDir()
            defer { dir.cleanup() }
            let store = try await OfflineStore.open(metadata: Self.metadata, parameters: OfflineFixtures.parameters(dir))
            defer { try? store.close() }
            let people = Self.people(values)
            for person in people { #expect(try store.execute(.post, "People", body: person.json).status == 201) }
            for person in people {
                let key = "People('\(person.name)')"
                #expect(try store.execute(.get, key + "/Emails/$count").bodyText == String(person.emails.count))
                #expect(try Self.value(store, key + "/Emails") as? [String] == person.emails)
                let contoso = person.emails.filter { $0.hasSuffix("contoso.com") }
                #expect(try Self.value(store, key + "/Emails?$filter=endswith($it,'contoso.com')") as? [String] == contoso)
                #expect(try Self.value(store, key + "/Emails?$orderby=$it desc&$top=2") as? [String]
                        == Array(person.emails.enumerated().sorted { $0.element != $1.element ? $0.element > $1.element : $0.offset < $1.offset }.map(\.element).prefix(2)))
                let positive = person.scores.filter { $0 > 0 }
                #expect(try Self.value(store, key + "/Scores?$filter=$this gt 0&$skip=1") as? [Int] == Array(positive.dropFirst()))
                let counted = try JSONSerialization.jsonObject(with: Data(try store.execute(.get, key + "/Scores?$filter=$it gt 0&$count=true&$top=0").body ?? [])) as? [String: Any]
                #expect(counted?["@odata.count"] as? Int == positive.count)
                #expect(counted?["@odata.context"] as? String == "$metadata#People('\(person.name)')/Scores")
                if let home = person.home {
                    #expect(try Self.value(store, key + "/Home/City/Name") as? String == home.city)
                    #expect(try store.execute(.get, key + "/Home/City/Region/$value").bodyText == home.region)
                    #expect((try Self.value(store, key + "/Home/City") as? [String: Any])?["Region"] as? String == home.region)
                } else {
                    #expect(try store.execute(.get, key + "/Home/City/Name").status == 204)
                }
                let idaho = person.addresses.filter { $0.region == "ID" }.map(\.street)
                let found = try Self.value(store, key + "/Addresses?$filter=City/Region eq 'ID'") as? [[String: Any]]
                #expect(found?.compactMap { $0["Street"] as? String } == idaho)
                let sorted = person.addresses.enumerated().sorted { a, b in
                    a.element.city != b.element.city ? a.element.city < b.element.city : a.offset < b.offset
                }.map(\.element.street)
                let ordered = try Self.value(store, key + "/Addresses?$orderby=$it/City/Name") as? [[String: Any]]
                #expect(ordered?.compactMap { $0["Street"] as? String } == sorted)
                // $select over complex elements: each keeps only the members named.
                let selected = try Self.value(store, key + "/Addresses?$select=City/Region&$orderby=$it/City/Name") as? [[String: Any]]
                #expect(selected?.map { $0.keys.sorted() } == person.addresses.map { _ in ["City"] })
                #expect(selected?.compactMap { ($0["City"] as? [String: Any])?.keys.sorted() } == person.addresses.map { _ in ["Region"] })
            }
            // $select of paths inside complex values (URL §5.1.3): only those members, in the
            // collection query (entities read from their bytes) and for one entity.
            for url in ["People?$select=Home/City/Name,Addresses/Street&$orderby=UserName",
                        "People('\(people[0].name)')?$select=Home/City/Name,Addresses/Street"] {
                let body = try JSONSerialization.jsonObject(with: Data(try store.execute(.get, url).body ?? [])) as? [String: Any]
                let rows = (body?["value"] as? [[String: Any]]) ?? (body.map { [$0] } ?? [])
                let expected = url.hasPrefix("People?") ? people.sorted { $0.name < $1.name } : [people[0]]
                #expect(rows.count == expected.count, "\(url)")
                for (row, person) in zip(rows, expected) {
                    let home = row["Home"] as? [String: Any]
                    if let city = person.home?.city {
                        #expect(home?.keys.sorted() == ["City"] && (home?["City"] as? [String: Any])?.keys.sorted() == ["Name"], "\(url): \(row)")
                        #expect((home?["City"] as? [String: Any])?["Name"] as? String == city)
                    } else {
                        #expect(home == nil, "\(url): \(row)")
                    }
                    let addresses = row["Addresses"] as? [[String: Any]]
                    #expect(addresses?.map { $0.keys.sorted() } == person.addresses.map { _ in ["Street"] }, "\(url): \(row)")
                    #expect(addresses?.compactMap { $0["Street"] as? String } == person.addresses.map(\.street))
                    #expect(row["Emails"] == nil && row["UserName"] as? String == person.name, "\(url): \(row)")
                }
            }
        }
    }

    @Test("what a collection's elements do not take: a typed error, never an option ignored")
    func refusals() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineStore.open(metadata: Self.metadata, parameters: OfflineFixtures.parameters(dir))
        defer { try? store.close() }
        let person = Self.people([1, 2, 3, 4, 5, 6, 7, 8])[0]
        #expect(try store.execute(.post, "People", body: person.json).status == 201)
        let key = "People('\(person.name)')"
        for (url, name) in [(key + "/Emails?$select=x", "notSupported"), (key + "/Emails?$search=x", "notSupported"),
                            (key + "/Emails?$expand=x", "notSupported"), (key + "/Home/Nope", "resourceNotFound"),
                            (key + "/UserName/Length", "invalidResourcePath"), (key + "/Addresses/City", "invalidResourcePath"),
                            (key + "/Home/$count", "invalidResourcePath"), (key + "/Emails?$filter=Nope eq 1", "invalidPath"),
                            (key + "/Emails?$skiptoken=1", "invalidQueryOption"), (key + "/Home?$top=1", "invalidQueryOption"),
                            ("People?$select=Home/Nope", "invalidProperty"), ("People?$select=UserName/Length", "invalidQueryOption"),
                            ("People?$select=Home/P.City/Name", "notSupported")] {
            let error = #expect(throws: ODataError.self, "\(url)") { _ = try store.execute(.get, url) }
            #expect(error?.name == name, "\(url): \(error.map { "\($0.name): \($0.message)" } ?? "")")
            if name == "notSupported" { #expect(error?.category == .notSupported) }
        }
    }
}
