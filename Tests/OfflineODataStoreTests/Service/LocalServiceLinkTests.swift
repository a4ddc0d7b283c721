import OfflineODataModel
import Testing
@testable import OfflineODataStore

/// `$ref` and binds over recorded links (navigations without referential constraints), and
/// their undo.
@Suite struct LocalServiceLinkTests {
    static func harness() throws -> ServiceHarness {
        let model = try StorageFixtures.model("""
            <EntityType Name="Person">
              <Key><PropertyRef Name="ID"/></Key>
              <Property Name="ID" Type="Edm.Int32" Nullable="false"/>
              <Property Name="Name" Type="Edm.String"/>
              <NavigationProperty Name="Tags" Type="Collection(T.Tag)" Partner="Persons"/>
              <NavigationProperty Name="Best" Type="T.Tag"/>
            </EntityType>
            <EntityType Name="Tag">
              <Key><PropertyRef Name="ID"/></Key>
              <Property Name="ID" Type="Edm.Int32" Nullable="false"/>
              <NavigationProperty Name="Persons" Type="Collection(T.Person)" Partner="Tags"/>
            </EntityType>
            """, container: """
            <EntitySet Name="Persons" EntityType="T.Person">
              <NavigationPropertyBinding Path="Tags" Target="Tags"/><NavigationPropertyBinding Path="Best" Target="Tags"/>
            </EntitySet>
            <EntitySet Name="Tags" EntityType="T.Tag"><NavigationPropertyBinding Path="Persons" Target="Persons"/></EntitySet>
            """)
        let h = try ServiceHarness(model: model)
        let reader = ODataJSONReader(model: h.model)
        let tags = try (1...3).map { try reader.readEntity(Array(#"{"ID":\#($0)}"#.utf8), entitySet: "Tags") }
        try h.storage.storage.apply(entities: tags, to: "Tags")
        let people = [
            try reader.readEntity(Array(#"{"ID":1,"Name":"a","Tags@odata.bind":["Tags(1)"],"Best@odata.bind":"Tags(1)"}"#.utf8), entitySet: "Persons"),
            try reader.readEntity(Array(#"{"ID":2,"Name":"b"}"#.utf8), entitySet: "Persons"),
        ]
        try h.storage.storage.apply(entities: people, to: "Persons")
        return h
    }

    func tags(_ h: ServiceHarness, _ person: Int32) throws -> [[ODataValue]] { try h.reader().targets("Persons", [.int32(person)], "Tags") }
    func best(_ h: ServiceHarness, _ person: Int32) throws -> [[ODataValue]] { try h.reader().targets("Persons", [.int32(person)], "Best") }

    @Test("$ref POST/DELETE/PUT on recorded links, queued; undo restores the links")
    func refs() throws {
        let h = try Self.harness()
        #expect(try tags(h, 1) == [[.int32(1)]] && best(h, 1) == [[.int32(1)]])
        #expect(try h.run(.post, "Persons(1)/Tags/$ref", #"{"@odata.id":"Tags(2)"}"#).status == 204)
        #expect(try tags(h, 1) == [[.int32(1)], [.int32(2)]])
        #expect(try h.reader().targets("Tags", [.int32(2)], "Persons") == [[.int32(1)]])
        try h.run(.delete, "Persons(1)/Tags/$ref?$id=Tags(1)")
        try h.run(.delete, "Persons(1)/Tags(2)/$ref")
        #expect(try tags(h, 1).isEmpty)
        try h.run(.put, "Persons(1)/Best/$ref", #"{"@odata.id":"Tags(3)"}"#)
        #expect(try best(h, 1) == [[.int32(3)]])
        try h.run(.delete, "Persons(1)/Best/$ref")
        #expect(try best(h, 1).isEmpty)
        let queue = try h.queue()
        #expect(queue.map(\.method) == ["POST", "DELETE", "DELETE", "PUT", "DELETE"])
        #expect(queue.map(\.url) == ["Persons(1)/Tags/$ref", "Persons(1)/Tags/$ref?$id=Tags(1)", "Persons(1)/Tags/$ref?$id=Tags(2)",
                                     "Persons(1)/Best/$ref", "Persons(1)/Best/$ref"])
        #expect(try h.entity("Persons", [.int32(1)])?.localState.hasPendingChanges == true)
        expectServiceError("methodNotAllowed", 3101, h) { try h.run(.post, "Persons(1)/Best/$ref", #"{"@odata.id":"Tags(3)"}"#) }
        expectServiceError("malformedRequest", 3100, h) { try h.run(.delete, "Persons(1)/Tags/$ref") }
        expectServiceError("entityNotFound", 3102, h) { try h.run(.delete, "Persons(1)/Best/$ref") }
        #expect(try h.service.undoPendingChanges(set: "Persons", key: [.int32(1)]))
        #expect(try tags(h, 1) == [[.int32(1)]] && best(h, 1) == [[.int32(1)]])
        #expect(try h.reader().targets("Tags", [.int32(2)], "Persons").isEmpty)
        #expect(try h.reader().targets("Tags", [.int32(1)], "Persons") == [[.int32(1)]])
        #expect(try h.queue().isEmpty)
    }

    @Test("undo of a deletion brings the entity's recorded links back")
    func deleteUndo() throws {
        let h = try Self.harness()
        try h.run(.delete, "Persons(1)")
        #expect(try tags(h, 1).isEmpty && h.reader().targets("Tags", [.int32(1)], "Persons").isEmpty)
        try h.service.undoPendingChanges(set: "Persons", key: [.int32(1)])
        #expect(try tags(h, 1) == [[.int32(1)]] && best(h, 1) == [[.int32(1)]])
        #expect(try h.reader().targets("Tags", [.int32(1)], "Persons") == [[.int32(1)]])
    }

    @Test("$ref requests in an atomicity group; a failing group leaves links untouched")
    func batchRefs() throws {
        let h = try Self.harness()
        let ok = try h.run(.post, "$batch", """
        {"requests":[
         {"id":"a","atomicityGroup":"g","method":"POST","url":"Persons(2)/Tags/$ref","body":{"@odata.id":"Tags(3)"}},
         {"id":"b","atomicityGroup":"g","method":"DELETE","url":"Persons(1)/Tags/$ref?$id=Tags(1)"}]}
        """)
        #expect(try json(ok)["responses"]?.arrayValue?.map { $0["status"]?.numberValue?.text } == ["204", "204"])
        #expect(try tags(h, 2) == [[.int32(3)]] && tags(h, 1).isEmpty)
        let before = try h.fingerprint()
        let bad = try h.run(.post, "$batch", """
        {"requests":[
         {"id":"a","atomicityGroup":"g","method":"POST","url":"Persons(2)/Tags/$ref","body":{"@odata.id":"Tags(1)"}},
         {"id":"b","atomicityGroup":"g","method":"POST","url":"Persons(2)/Tags/$ref","body":{"@odata.id":"Tags(9)"}}]}
        """)
        #expect(try json(bad)["responses"]?.arrayValue?.map { $0["status"]?.numberValue?.text } == ["424", "404"])
        #expect(try h.fingerprint() == before)
        #expect(try tags(h, 2) == [[.int32(3)]])
    }
}
