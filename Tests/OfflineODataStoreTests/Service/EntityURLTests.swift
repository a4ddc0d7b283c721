import OfflineODataModel
import Testing
@testable import OfflineODataStore

/// URLs built from keys are percent-encoded and read back to the same key; `$entity?$id=`
/// (docs/LocalService.md §2.1, §2.2).
@Suite struct EntityURLTests {
    /// Notes keyed by free text (a key may hold `/`, `?`, `#`, `%`, blanks, non-ASCII), linked
    /// to folders keyed the same way.
    static func harness() throws -> ServiceHarness {
        let model = try StorageFixtures.model("""
            <EntityType Name="Note">
              <Key><PropertyRef Name="Title"/></Key>
              <Property Name="Title" Type="Edm.String" Nullable="false"/>
              <Property Name="Text" Type="Edm.String"/>
              <NavigationProperty Name="Folder" Type="T.Folder" Partner="Notes"/>
            </EntityType>
            <EntityType Name="Folder">
              <Key><PropertyRef Name="Path"/></Key>
              <Property Name="Path" Type="Edm.String" Nullable="false"/>
              <NavigationProperty Name="Notes" Type="Collection(T.Note)" Partner="Folder"/>
            </EntityType>
            """, container: """
            <EntitySet Name="Notes" EntityType="T.Note"><NavigationPropertyBinding Path="Folder" Target="Folders"/></EntitySet>
            <EntitySet Name="Folders" EntityType="T.Folder"><NavigationPropertyBinding Path="Notes" Target="Notes"/></EntitySet>
            """)
        let h = try ServiceHarness(model: model)
        h.service = try LocalService(storage: h.storage.storage, readHandler: StoreReadHandler(model: h.model, pageSize: nil),
                                     now: { 1_700_000_000 })
        return h
    }

    static let awkwardKeys = ["a/b", "50% off?", "x#y&z=1", "O'Neil's notes", "Grüße", "semi;colon+plus", "$1", "%41"]

    @Test("URLPercentEncoding: a path segment keeps pchar and encodes the rest; decode gives the text back")
    func encodingRoundTrip() {
        #expect(URLPercentEncoding.pathSegment("('a/b?c')") == "('a%2Fb%3Fc')")
        #expect(URLPercentEncoding.pathSegment("('50% off')") == "('50%25%20off')")
        #expect(URLPercentEncoding.pathSegment("(A=1,B='x')") == "(A=1,B='x')")
        #expect(URLPercentEncoding.pathSegment("('ü')") == "('%C3%BC')")
        #expect(URLPercentEncoding.queryValue("Notes('a&b')") == "Notes('a%26b')")
        #expect(URLPercentEncoding.queryValue("Notes('a%2Fb')") == "Notes('a%252Fb')")
        for key in Self.awkwardKeys {
            #expect(URLPercentEncoding.decode(URLPercentEncoding.pathSegment(key)) == key)
            #expect(URLPercentEncoding.decode(URLPercentEncoding.queryValue(key)) == key)
        }
        #expect(URLPercentEncoding.decode("%4") == nil)
        #expect(URLPercentEncoding.decode("%zz") == nil)
        #expect(URLPercentEncoding.decode("%FF") == nil, "not UTF-8")
    }

    @Test("a created entity's Location, the queued URLs and a typed update's URL read back to the same key")
    func locationsRoundTrip() throws {
        let h = try Self.harness()
        for key in Self.awkwardKeys {
            let body = String(decoding: JSONValue.object(JSONObject.unique([("Title", .string(key)), ("Text", .string("t"))])).serialized(),
                              as: UTF8.self)
            let created = try h.run(.post, "Notes", body)
            #expect(created.status == 201)
            let location = try #require(created.headers["Location"])
            #expect(!location.dropFirst("Notes".count).contains("/"), "raw '/' in \(location)")
            #expect(!location.contains("?") && !location.contains("#") && !location.contains(" "), "\(location)")
            let read = try h.run(.get, location)
            #expect(read.status == 200)
            #expect(try json(read)["Title"]?.stringValue == key, "GET \(location)")
            try h.service.update(ODataEntity(typeName: "T.Note", properties: [ODataProperty("Text", .string("u"))]),
                                 in: "Notes", key: [.string(key)])
            #expect(try h.queue().last?.url == location, "the typed PATCH is queued with the Location's URL")
        }
    }

    @Test("links: the queued $ref URL and @odata.id encode both keys; DELETE …/$ref?$id= with an encoded id unlinks")
    func referencesRoundTrip() throws {
        let h = try Self.harness()
        let folder = try #require(try h.run(.post, "Folders", #"{"Path":"/home/a b"}"#).headers["Location"])
        let note = try #require(try h.run(.post, "Notes", #"{"Title":"x?y"}"#).headers["Location"])
        #expect(folder == "Folders('%2Fhome%2Fa%20b')")
        #expect(note == "Notes('x%3Fy')")
        try h.service.link(from: "Folders", key: [.string("/home/a b")], navigation: "Notes", to: [.string("x?y")])
        let linked = try #require(try h.queue().last)
        #expect(linked.url == folder + "/Notes/$ref")
        #expect(linked.body == #"{"@odata.id":"Notes('x%3Fy')"}"#)
        let notes = try json(try h.run(.get, folder + "/Notes"))
        #expect(notes["value"]?.arrayValue?.count == 1)
        // The reference as a query value: encoded once more.
        let unlink = try h.run(.delete, folder + "/Notes/$ref?$id=" + URLPercentEncoding.queryValue(note))
        #expect(unlink.status == 204)
        #expect(try json(try h.run(.get, folder + "/Notes"))["value"]?.arrayValue?.count == 0)
        #expect(try h.queue().last?.url == folder + "/Notes/$ref?$id=" + URLPercentEncoding.queryValue(note))
    }

    @Test("@odata.bind with a percent-encoded key binds that key; a malformed escape is a typed error")
    func bindDecodes() throws {
        let h = try Self.harness()
        _ = try h.run(.post, "Folders", #"{"Path":"a/b"}"#)
        let created = try h.run(.post, "Notes", #"{"Title":"n","Folder@odata.bind":"Folders('a%2Fb')"}"#)
        #expect(created.status == 201)
        let folder = try json(try h.run(.get, "Notes('n')/Folder"))
        #expect(folder["Path"]?.stringValue == "a/b")
        let before = try h.fingerprint()
        #expect {
            try h.run(.post, "Notes", #"{"Title":"m","Folder@odata.bind":"Folders('a%zzb')"}"#)
        } throws: { error in
            guard let error = error as? ODataError else { return false }
            return error.category == .invalidInput && error.message.contains("%")
        }
        #expect(try h.fingerprint() == before, "a rejected request changes nothing")
    }

    @Test("GET $entity?$id= reads the entity the id names; $select after a cast; absolute ids; typed errors otherwise")
    func entityByID() throws {
        let h = try Self.harness()
        _ = try h.run(.post, "Notes", #"{"Title":"a/b","Text":"hello"}"#)
        let id = URLPercentEncoding.queryValue("Notes('a%2Fb')")
        let read = try json(try h.run(.get, "$entity?$id=\(id)"))
        #expect(read["Text"]?.stringValue == "hello")
        #expect(read["Title"]?.stringValue == "a/b")
        let selected = try json(try h.run(.get, "$entity/T.Note?$id=\(id)&$select=Title"))
        #expect(selected["Title"]?.stringValue == "a/b")
        #expect(selected["Text"] == nil, "$select applies after the cast")
        let absolute = URLPercentEncoding.queryValue("https://host.example/sap/opu/odata/Notes('a%2Fb')")
        #expect(try json(try h.run(.get, "/$entity/T.Note?$select=Title&$id=\(absolute)"))["Title"]?.stringValue == "a/b")
        let failures: [(ODataMethod, String, ODataErrorCategory, Int)] = [
            (.get, "$entity", .invalidInput, 3100),
            (.get, "$entity?$id=\(id)&$select=Text", .invalidInput, 3100),
            (.get, "$entity?$id=\(id)&expand=Folder", .invalidInput, 3100),
            (.get, "$entity?$select=Text", .invalidInput, 3100),
            (.get, "$entity?$id=\(id)&$id=\(id)", .invalidInput, 3100),
            (.get, "$entity?$id=%zz", .invalidInput, 3100),
            (.delete, "$entity?$id=\(id)", .notSupported, 3101),
        ]
        for (method, url, category, code) in failures {
            #expect {
                try h.run(method, url)
            } throws: { error in
                guard let error = error as? ODataError else { return false }
                return error.category == category && error.code == code
            }
        }
        #expect(try h.run(.get, "$entity?$id=Notes('missing')").status == 404)
        #expect {
            try h.run(.get, "$entity?$id=Nowhere('x')")
        } throws: { error in (error as? ODataError)?.category == .notFound }
    }

    @Test("batch: GET $entity?$id=$1 and $1/Folder read what request 1 created, whose key needs encoding")
    func batchEntityReference() throws {
        let h = try Self.harness()
        let response = try h.run(.post, "$batch", #"""
            {"requests":[
              {"id":"f","atomicityGroup":"g","method":"POST","url":"Folders","body":{"Path":"x/y?z"}},
              {"id":"1","atomicityGroup":"g","method":"POST","url":"Notes","body":{"Title":"50% #1","Folder@odata.bind":"$f"}},
              {"id":"2","dependsOn":["g"],"method":"GET","url":"$entity?$id=$1"},
              {"id":"3","dependsOn":["g"],"method":"GET","url":"$1/Folder"}
            ]}
            """#)
        #expect(response.status == 200)
        let responses = try #require(try json(response)["responses"]?.arrayValue)
        #expect(responses.map { $0["status"]?.numberValue?.text } == ["201", "201", "200", "200"])
        #expect(responses[2]["body"]?["Title"]?.stringValue == "50% #1")
        #expect(responses[3]["body"]?["Path"]?.stringValue == "x/y?z")
    }
}
