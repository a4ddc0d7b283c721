import Testing
@testable import OfflineODataModel

@Suite struct ODataJSONV2Tests {
    let model: ServiceModel
    let reader: ODataJSONReader

    init() throws {
        model = try ODataJSONTestModel.v2Model()
        reader = ODataJSONReader(model: model, version: .v2)
    }

    @Test("V2 verbose: d/results envelope, __metadata, __deferred, __count, __next, /Date()/, Edm.Time, string numbers")
    func verbose() throws {
        let payload = """
            {"d":{"__count":"2","results":[
              {"__metadata":{"uri":"https://h/S.svc/Orders('1')","type":"S.Order","etag":"W/\\"x\\""},
               "OrderID":"1","Created":"/Date(1532743225000)/","Changed":"/Date(1532743225000+0120)/",
               "At":"PT13H20M05S","Amount":"956.000","Count":"9007199254740993","Ratio":"1.5",
               "Items":{"__deferred":{"uri":"https://h/S.svc/Orders('1')/Items"}}},
              {"OrderID":"2","Created":"/Date(-1000)/","Changed":null,"At":null,"Amount":"0.000",
               "Items":{"results":[{"ItemID":10}],"__count":"1"}}
            ],"__next":"https://h/S.svc/Orders?$skiptoken=2"}}
            """
        let page = try reader.readCollection(Array(payload.utf8), entitySet: "Orders")
        #expect(page.count == 2)
        #expect(page.nextLink == "https://h/S.svc/Orders?$skiptoken=2")
        let first = try #require(page.entities.first)
        #expect(first.control.id == "https://h/S.svc/Orders('1')")
        #expect(first.control.etag == "W/\"x\"")
        guard case .dateTimeOffset(let created)? = first[property: "Created"] else { Issue.record("Created"); return }
        #expect(created.isIdentical(to: try EdmDateTimeOffset(parsing: "2018-07-28T02:00:25Z")))
        guard case .dateTimeOffset(let changed)? = first[property: "Changed"] else { Issue.record("Changed"); return }
        // /Date(ms+0120)/: ms is UTC, the offset (minutes) is kept.
        #expect(changed.offsetMinutes == 120)
        #expect(changed == created)
        #expect(first[property: "At"] == .timeOfDay(try EdmTimeOfDay(parsing: "13:20:05")))
        guard case .decimal(let amount)? = first[property: "Amount"] else { Issue.record("Amount"); return }
        #expect(amount.description == "956.000")
        #expect(first[property: "Count"] == .int64(9_007_199_254_740_993))
        #expect(first[property: "Ratio"] == .double(1.5))
        #expect(first.navigation == [ODataNavigationValue("Items", .deferred(uri: "https://h/S.svc/Orders('1')/Items"))])
        let second = page.entities[1]
        guard case .dateTimeOffset(let before)? = second[property: "Created"] else { Issue.record("Created 2"); return }
        #expect(before.isIdentical(to: try EdmDateTimeOffset(parsing: "1969-12-31T23:59:59Z")))
        guard case .entities(let items, let count, _)? = second.navigation("Items")?.content else {
            Issue.record("expanded Items"); return
        }
        #expect(items.map { $0[property: "ItemID"] } == [.int32(10)])
        #expect(count == 1)

        // Written as V4 and read back (V4 reader, same V2 model): identical.
        let written = try ODataJSONWriter(model: model).writeCollection(page, entitySet: "Orders")
        let again = try ODataJSONReader(model: model, version: .v4).readCollection(written, entitySet: "Orders")
        ODataJSONTesting.expectIdentical(page.entities, again.entities, "V2 → V4")
        #expect(again.count == 2)
        #expect(again.nextLink == page.nextLink)
    }

    @Test("V2 delta page (SAP Gateway): an entry whose __metadata says deleted is a tombstone with its id; the __delta link is kept")
    func deltaTombstone() throws {
        let payload = """
            {"d":{"results":[
              {"__metadata":{"uri":"https://h/S.svc/Orders('1')","type":"S.Order"},"OrderID":"1","Amount":"5.000"},
              {"__metadata":{"id":"https://h/S.svc/Orders('2')","uri":"https://h/S.svc/Orders('2')","deleted":true,"type":"S.Order"}},
              {"__metadata":{"uri":"https://h/S.svc/Orders('3')","deleted":true},"OrderID":"3"},
              {"__metadata":{"uri":"https://h/S.svc/Orders('4')","deleted":false},"OrderID":"4"}
            ],"__delta":"https://h/S.svc/Orders?!deltatoken='D1'"}}
            """
        let page = try reader.readCollection(Array(payload.utf8), entitySet: "Orders")
        #expect(page.entities.map { $0[property: "OrderID"] } == [.string("1"), .string("4")])
        #expect(page.deleted.map(\.id) == ["https://h/S.svc/Orders('2')", "https://h/S.svc/Orders('3')"])
        #expect(page.deleted.allSatisfy { $0.reason == "deleted" })
        #expect(page.deleted.last?.properties == [ODataProperty("OrderID", .string("3"))])
        #expect(page.deltaLink == "https://h/S.svc/Orders?!deltatoken='D1'")
    }

    @Test("V2 single entity {\"d\":{…}}, V1 {\"d\":[…]} and bare arrays")
    func shapes() throws {
        let single = try reader.readEntity(Array(#"{"d":{"OrderID":"7"}}"#.utf8), entitySet: "Orders")
        #expect(single[property: "OrderID"] == .string("7"))
        let v1 = try reader.readCollection(Array(#"{"d":[{"OrderID":"1"},{"OrderID":"2"}]}"#.utf8), entitySet: "Orders")
        #expect(v1.entities.count == 2)
        let bare = try reader.readCollection(Array(#"[{"OrderID":"1"}]"#.utf8), entitySet: "Orders")
        #expect(bare.entities.count == 1)
        ODataJSONTesting.expectError("invalidPropertyValue", code: 1251, path: "$.d.OrderID") {
            _ = try reader.readEntity(Array(#"{"d":{"OrderID":true}}"#.utf8), entitySet: "Orders")
        }
        ODataJSONTesting.expectError("invalidPropertyValue", code: 1251, path: "$.d.results[1].Created") {
            _ = try reader.readCollection(Array(#"{"d":{"results":[{"OrderID":"1"},{"OrderID":"2","Created":"/Date(x)/"}]}}"#.utf8),
                                          entitySet: "Orders")
        }
    }
}
