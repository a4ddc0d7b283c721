import OfflineODataModel
import Testing
@testable import OfflineODataStore

/// `$<id>` references in batch request bodies and JSON `dependsOn` (docs/LocalService.md §2.5.2,
/// §2.5.3).
@Suite struct BatchReferencesTests {
    /// People and tags whose keys the back end computes (temporary local keys), linked by
    /// recorded navigations; GET is answered by the store's read handler.
    static func harness() throws -> ServiceHarness {
        let model = try StorageFixtures.model("""
            <EntityType Name="Person">
              <Key><PropertyRef Name="ID"/></Key>
              <Property Name="ID" Type="Edm.Int64" Nullable="false"><Annotation Term="Org.OData.Core.V1.Computed"/></Property>
              <Property Name="Name" Type="Edm.String"/>
              <NavigationProperty Name="Tags" Type="Collection(T.Tag)" Partner="Persons"/>
              <NavigationProperty Name="Best" Type="T.Tag"/>
            </EntityType>
            <EntityType Name="Tag">
              <Key><PropertyRef Name="ID"/></Key>
              <Property Name="ID" Type="Edm.Int64" Nullable="false"><Annotation Term="Org.OData.Core.V1.Computed"/></Property>
              <Property Name="Label" Type="Edm.String"/>
              <NavigationProperty Name="Persons" Type="Collection(T.Person)" Partner="Tags"/>
            </EntityType>
            """, container: """
            <EntitySet Name="Persons" EntityType="T.Person">
              <NavigationPropertyBinding Path="Tags" Target="Tags"/><NavigationPropertyBinding Path="Best" Target="Tags"/>
            </EntitySet>
            <EntitySet Name="Tags" EntityType="T.Tag"><NavigationPropertyBinding Path="Persons" Target="Persons"/></EntitySet>
            """)
        let h = try ServiceHarness(model: model)
        h.service = try LocalService(storage: h.storage.storage, readHandler: StoreReadHandler(model: h.model, pageSize: nil),
                                     now: { 1_700_000_000 })
        return h
    }

    func jsonBatch(_ h: ServiceHarness, _ requests: String, prefer: String? = nil) throws -> [JSONValue] {
        let response = try h.run(.post, "$batch", #"{"requests":[\#(requests)]}"#, headers: prefer.map { ["Prefer": $0] } ?? [:])
        #expect(response.status == 200)
        return try #require(try json(response)["responses"]?.arrayValue)
    }

    func statuses(_ responses: [JSONValue]) -> [String?] { responses.map { $0["status"]?.numberValue?.text } }

    // MARK: $n in bodies

    @Test("multipart change set: @odata.bind \"$1\" and [\"$1\",\"$2\"] resolve to entities with temporary keys; the queue has resolved bodies")
    func multipartBodyReferences() throws {
        let h = try Self.harness()
        let body = MultipartBatchTests.body(
            ["--batch_1", "Content-Type: multipart/mixed; boundary=cs", "", "--cs"]
            + MultipartBatchTests.httpPart("POST Tags HTTP/1.1", contentID: "t1", body: #"{"Label":"one"}"#)
            + ["--cs"] + MultipartBatchTests.httpPart("POST Tags HTTP/1.1", contentID: "t2", body: #"{"Label":"two"}"#)
            + ["--cs"] + MultipartBatchTests.httpPart("POST Persons HTTP/1.1", contentID: "p",
                                                      body: #"{"Name":"a","Best@odata.bind":"$t2","Tags@odata.bind":["$t1","$t2"]}"#)
            + ["--cs--", "--batch_1--"])
        let answer = try MultipartBatchTests().post(h, body)
        #expect(answer.parts.map(\.response.status) == [201, 201, 201])
        let tag1 = try #require(answer.parts[0].response.headers["Location"])
        let tag2 = try #require(answer.parts[1].response.headers["Location"])
        let person = try #require(answer.parts[2].response.headers["Location"])
        #expect(tag1.hasPrefix("Tags(-") && tag2.hasPrefix("Tags(-") && person.hasPrefix("Persons(-"))
        let personKey = try #require(try h.all("Persons").first?.key())
        let two = try #require(try h.all("Tags").first { try $0.value(named: "Label") == .string("two") })
        #expect(try h.reader().targets("Persons", personKey, "Tags").count == 2)
        #expect(try h.reader().targets("Persons", personKey, "Best") == [try two.key()])
        let queued = try #require(try h.queue().last?.body)
        #expect(queued.contains(tag1) && queued.contains(tag2) && !queued.contains("$t"))
        #expect(try h.queue().map(\.options.transactionID).allSatisfy { $0 == "changeset-1" })
    }

    @Test("JSON batch: a bind to an entity created by an earlier request (atomicity group and standalone)")
    func jsonBodyReferences() throws {
        let h = try ServiceHarness()
        let order = try h.first("SalesOrders")
        let url = "SalesOrders" + (try keyText(try order.key()))
        let responses = try jsonBatch(h, """
        {"id":"bp","atomicityGroup":"g","method":"POST","url":"BusinessPartners","body":\(newPartner("9900000001"))},
        {"id":"o","atomicityGroup":"g","method":"PATCH","url":"\(url)","body":{"ToCustomer@odata.bind":"$bp"}},
        {"id":"bp2","method":"POST","url":"BusinessPartners","body":\(newPartner("9900000002"))},
        {"id":"o2","method":"PATCH","url":"\(url)","dependsOn":["bp2"],"body":{"ToCustomer@bind":"$bp2"}}
        """)
        #expect(statuses(responses) == ["201", "204", "201", "204"])
        #expect(try h.entity("SalesOrders", try order.key())?.value(named: "CustomerID") == .string("9900000002"))
        let bodies = try h.queue().compactMap(\.body)
        #expect(bodies.count == 4)
        #expect(bodies[1].contains("BusinessPartners('9900000001')") && bodies[3].contains("BusinessPartners('9900000002')"))
    }

    @Test("an unknown $n in a body is unknownContentID (3118) with its location; the change set applies nothing")
    func unknownBodyReference() throws {
        let h = try Self.harness()
        let before = try h.fingerprint()
        let body = MultipartBatchTests.body(
            ["--batch_1", "Content-Type: multipart/mixed; boundary=cs", "", "--cs"]
            + MultipartBatchTests.httpPart("POST Tags HTTP/1.1", contentID: "t1", body: #"{"Label":"one"}"#)
            + ["--cs"] + MultipartBatchTests.httpPart("POST Persons HTTP/1.1", contentID: "p", body: #"{"Name":"a","Tags@odata.bind":["$t1","$t9"]}"#)
            + ["--cs--", "--batch_1--"])
        let answer = try MultipartBatchTests().post(h, body)
        #expect(answer.parts.map(\.response.status) == [400])
        let error = try JSONReader.parse(try #require(answer.parts.first?.response.body))["error"]
        #expect(error?["code"]?.stringValue == "3118")
        #expect(error?["target"]?.stringValue?.hasSuffix("$.Tags@odata.bind[1]") == true)
        #expect(error?["target"]?.stringValue?.hasPrefix("offset ") == true)
        #expect(error?["message"]?.stringValue?.contains("$t9") == true)
        #expect(try h.fingerprint() == before)

        let responses = try jsonBatch(h, #"{"id":"1","method":"POST","url":"Persons","body":{"Name":"b","Best@odata.bind":"$nope"}}"#)
        #expect(statuses(responses) == ["400"])
        #expect(responses[0]["body"]?["error"]?["target"]?.stringValue == "$.requests[0] $.Best@odata.bind")
        #expect(try h.fingerprint() == before)
    }

    @Test("a body with $ only in ordinary strings is left alone")
    func dollarInText() throws {
        let h = try Self.harness()
        let responses = try jsonBatch(h, #"{"id":"1","method":"POST","url":"Tags","body":{"Label":"$1"}}"#)
        #expect(statuses(responses) == ["201"])
        #expect(try h.all("Tags").first?.value(named: "Label") == .string("$1"))
    }

    // MARK: $n in $ref requests

    /// The `$ref` requests of the queue as `METHOD url body`.
    func queuedRefs(_ h: ServiceHarness) throws -> [String] {
        try h.queue().filter { $0.url.contains("/$ref") }.map { "\($0.method) \($0.url) \($0.body ?? "-")" }
    }

    @Test("JSON batch: $ref bodies {\"@odata.id\":\"$n\"}, @id, V2 uri and DELETE …/$ref?$id=$n link and unlink created entities")
    func jsonRefReferences() throws {
        let h = try Self.harness()
        let responses = try jsonBatch(h, #"""
        {"id":"p","method":"POST","url":"Persons","body":{"Name":"a"}},
        {"id":"t1","atomicityGroup":"g","method":"POST","url":"Tags","body":{"Label":"one"}},
        {"id":"t2","atomicityGroup":"g","method":"POST","url":"Tags","body":{"Label":"two"}},
        {"id":"r1","atomicityGroup":"g","method":"POST","url":"$p/Tags/$ref","body":{"@odata.id":"$t1"}},
        {"id":"r2","atomicityGroup":"g","method":"POST","url":"$p/Tags/$ref","body":{"@id":"$t2"}},
        {"id":"t3","method":"POST","url":"Tags","body":{"Label":"three"}},
        {"id":"r3","method":"POST","url":"$p/Tags/$ref","body":{"uri":"$t3"}},
        {"id":"r4","method":"PUT","url":"$p/Best/$ref","body":{"@odata.id":"$t3"}},
        {"id":"d","method":"DELETE","url":"$p/Tags/$ref?$id=$t2"},
        {"id":"get","method":"GET","url":"$p?$expand=Tags,Best"}
        """#)
        try #require(statuses(responses) == ["201", "201", "201", "204", "204", "201", "204", "204", "204", "200"])
        let read = responses.last?["body"]
        #expect(read?["Tags"]?.arrayValue?.compactMap { $0["Label"]?.stringValue }.sorted() == ["one", "three"])
        #expect(read?["Best"]?["Label"]?.stringValue == "three")
        let location = { (n: Int) -> String in responses[n]["headers"]?["Location"]?.stringValue ?? "?" }
        let (p, t1, t2, t3) = (location(0), location(1), location(2), location(5))
        #expect(p.hasPrefix("Persons(-") && t1.hasPrefix("Tags(-") && t2.hasPrefix("Tags(-") && t3.hasPrefix("Tags(-"))
        let personKey = try #require(try h.all("Persons").first?.key())
        #expect(try h.reader().targets("Persons", personKey, "Tags").count == 2)
        #expect(try queuedRefs(h) == [
            #"POST \#(p)/Tags/$ref {"@odata.id":"\#(t1)"}"#, #"POST \#(p)/Tags/$ref {"@odata.id":"\#(t2)"}"#,
            #"POST \#(p)/Tags/$ref {"@odata.id":"\#(t3)"}"#, #"PUT \#(p)/Best/$ref {"@odata.id":"\#(t3)"}"#,
            "DELETE \(p)/Tags/$ref?$id=\(t2) -",
        ])
    }

    @Test("multipart: $ref bodies with $<Content-ID> in a change set, DELETE …/$ref?%24id=%24n after it, GET $expand reads the links")
    func multipartRefReferences() throws {
        let h = try Self.harness()
        let body = MultipartBatchTests.body(
            ["--batch_1"] + MultipartBatchTests.httpPart("POST Persons HTTP/1.1", contentID: "p", body: #"{"Name":"a"}"#)
            + ["--batch_1", "Content-Type: multipart/mixed; boundary=cs", "", "--cs"]
            + MultipartBatchTests.httpPart("POST Tags HTTP/1.1", contentID: "t1", body: #"{"Label":"one"}"#)
            + ["--cs"] + MultipartBatchTests.httpPart("POST Tags HTTP/1.1", contentID: "t2", body: #"{"Label":"two"}"#)
            + ["--cs"] + MultipartBatchTests.httpPart("POST $p/Tags/$ref HTTP/1.1", body: #"{"@odata.id":"$t1"}"#)
            + ["--cs"] + MultipartBatchTests.httpPart("POST $p/Tags/$ref HTTP/1.1", body: #"{"uri":"$t2"}"#)
            + ["--cs"] + MultipartBatchTests.httpPart("PUT $p/Best/$ref HTTP/1.1", body: #"{"@id":"$t2"}"#)
            + ["--cs--", "--batch_1"] + MultipartBatchTests.httpPart("DELETE $p/Tags/$ref?%24id=%24t1 HTTP/1.1")
            + ["--batch_1"] + MultipartBatchTests.httpPart("GET $p?$expand=Tags,Best HTTP/1.1")
            + ["--batch_1--"])
        let answer = try MultipartBatchTests().post(h, body)
        try #require(answer.parts.map(\.response.status) == [201, 201, 201, 204, 204, 204, 204, 200])
        let read = try JSONReader.parse(try #require(answer.parts.last?.response.body))
        #expect(read["Tags"]?.arrayValue?.compactMap { $0["Label"]?.stringValue } == ["two"])
        #expect(read["Best"]?["Label"]?.stringValue == "two")
        let p = try #require(answer.parts[0].response.headers["Location"])
        let t1 = try #require(answer.parts[1].response.headers["Location"])
        let t2 = try #require(answer.parts[2].response.headers["Location"])
        #expect(try queuedRefs(h) == [
            #"POST \#(p)/Tags/$ref {"@odata.id":"\#(t1)"}"#, #"POST \#(p)/Tags/$ref {"@odata.id":"\#(t2)"}"#,
            #"PUT \#(p)/Best/$ref {"@odata.id":"\#(t2)"}"#, "DELETE \(p)/Tags/$ref?$id=\(t1) -",
        ])
    }

    @Test("PUT …/ToCustomer/$ref {\"@odata.id\":\"$n\"} sets the foreign key to a partner created in the batch")
    func refToCreatedPartner() throws {
        let h = try MultipartBatchTests.harness()
        let order = try h.first("SalesOrders")
        let url = "SalesOrders" + (try keyText(try order.key()))
        let responses = try jsonBatch(h, """
        {"id":"1","atomicityGroup":"g","method":"POST","url":"BusinessPartners","body":\(newPartner("9900000001"))},
        {"id":"2","atomicityGroup":"g","method":"PUT","url":"\(url)/ToCustomer/$ref","body":{"@odata.id":"$1"}},
        {"id":"3","method":"GET","url":"\(url)?$expand=ToCustomer"}
        """)
        try #require(statuses(responses) == ["201", "204", "200"])
        #expect(responses[2]["body"]?["ToCustomer"]?["BusinessPartnerID"]?.stringValue == "9900000001")
        #expect(try h.entity("SalesOrders", try order.key())?.value(named: "CustomerID") == .string("9900000001"))
        #expect(try queuedRefs(h) == [#"PUT \#(url)/ToCustomer/$ref {"@odata.id":"BusinessPartners('9900000001')"}"#])
    }

    @Test("an unknown $n in a $ref body or in $id is unknownContentID (3118) with its location; the change set applies nothing")
    func unknownRefReference() throws {
        let h = try Self.harness()
        let before = try h.fingerprint()
        let body = MultipartBatchTests.body(
            ["--batch_1", "Content-Type: multipart/mixed; boundary=cs", "", "--cs"]
            + MultipartBatchTests.httpPart("POST Persons HTTP/1.1", contentID: "p", body: #"{"Name":"a"}"#)
            + ["--cs"] + MultipartBatchTests.httpPart("POST Tags HTTP/1.1", contentID: "t1", body: #"{"Label":"one"}"#)
            + ["--cs"] + MultipartBatchTests.httpPart("POST $p/Tags/$ref HTTP/1.1", body: #"{"@odata.id":"$t1"}"#)
            + ["--cs"] + MultipartBatchTests.httpPart("POST $p/Tags/$ref HTTP/1.1", body: #"{"@odata.id":"$t9"}"#)
            + ["--cs--", "--batch_1--"])
        let answer = try MultipartBatchTests().post(h, body)
        #expect(answer.parts.map(\.response.status) == [400])
        let error = try JSONReader.parse(try #require(answer.parts.first?.response.body))["error"]
        #expect(error?["code"]?.stringValue == "3118")
        #expect(error?["target"]?.stringValue?.hasPrefix("offset ") == true)
        #expect(error?["target"]?.stringValue?.hasSuffix(" $.@odata.id") == true)
        #expect(error?["message"]?.stringValue?.contains("$t9") == true)
        #expect(try h.fingerprint() == before)

        let cases: [(String, String)] = [
            (#"{"id":"r","atomicityGroup":"g","method":"POST","url":"$p/Tags/$ref","body":{"@id":"$9"}}"#, "$.requests[1] $.@id"),
            (#"{"id":"r","atomicityGroup":"g","method":"PUT","url":"$p/Best/$ref","body":{"uri":"$9"}}"#, "$.requests[1] $.uri"),
            (#"{"id":"r","atomicityGroup":"g","method":"DELETE","url":"$p/Tags/$ref?$id=$9"}"#, "$.requests[1] $id"),
        ]
        for (request, target) in cases {
            let responses = try jsonBatch(h, #"{"id":"p","atomicityGroup":"g","method":"POST","url":"Persons","body":{"Name":"a"}},"# + request)
            try #require(statuses(responses) == ["424", "400"], "\(request)")
            #expect(responses[1]["body"]?["error"]?["code"]?.stringValue == "3118", "\(request)")
            #expect(responses[1]["body"]?["error"]?["target"]?.stringValue == target, "\(request)")
            #expect(responses[1]["body"]?["error"]?["message"]?.stringValue?.contains("'$9'") == true, "\(request)")
        }
        #expect(try h.fingerprint() == before)
        #expect(try h.queue().isEmpty)
    }

    @Test("with continue-on-error a $ref body or $id naming a failed request is answered 424 (3116) and not executed")
    func failedRefReference() throws {
        let h = try Self.harness()
        let responses = try jsonBatch(h, #"""
        {"id":"t","method":"POST","url":"Tags","body":{"Label":5}},
        {"id":"p","method":"POST","url":"Persons","body":{"Name":"a"}},
        {"id":"r","method":"POST","url":"$p/Tags/$ref","body":{"@odata.id":"$t"}},
        {"id":"b","method":"PUT","url":"$p/Best/$ref","body":{"uri":"$t"}},
        {"id":"d","method":"DELETE","url":"$p/Tags/$ref?$id=$t"}
        """#, prefer: "odata.continue-on-error")
        try #require(statuses(responses) == ["400", "201", "424", "424", "424"])
        for response in responses[2...] {
            #expect(response["body"]?["error"]?["code"]?.stringValue == "3116")
            #expect(response["body"]?["error"]?["message"]?.stringValue?.contains("'t'") == true)
        }
        let body = MultipartBatchTests.body(
            ["--batch_1"] + MultipartBatchTests.httpPart("POST Tags HTTP/1.1", contentID: "t", body: #"{"Label":5}"#)
            + ["--batch_1"] + MultipartBatchTests.httpPart("POST Persons HTTP/1.1", contentID: "p", body: #"{"Name":"b"}"#)
            + ["--batch_1", "Content-Type: multipart/mixed; boundary=cs", "", "--cs"]
            + MultipartBatchTests.httpPart("PATCH $p HTTP/1.1", body: #"{"Name":"c"}"#)
            + ["--cs"] + MultipartBatchTests.httpPart("POST $p/Tags/$ref HTTP/1.1", body: #"{"@id":"$t"}"#)
            + ["--cs--", "--batch_1--"])
        let answer = try MultipartBatchTests().post(h, body, prefer: "odata.continue-on-error")
        #expect(answer.parts.map(\.response.status) == [400, 201, 424])
        #expect(try JSONReader.parse(try #require(answer.parts.last?.response.body))["error"]?["code"]?.stringValue == "3116")
        #expect(try h.queue().map(\.url) == ["Persons", "Persons"])
        let names = try h.all("Persons").map { try $0.value(named: "Name") }
        #expect(names.count == 2 && !names.contains(.string("c")))
    }

    @Test("resolution changes only the reference: other members, non-$ref bodies, other options and system resources stay; $entity's $id resolves")
    func resolvedRequests() throws {
        let h = try Self.harness()
        func resolve(_ method: ODataMethod, _ url: String, _ body: String? = nil) throws -> (url: String, body: String?) {
            let step = LocalService.BatchStep(contentID: "x", label: "$.requests[0]",
                                              request: ODataRequest(method, url, body: body.map { Array($0.utf8) }))
            let request = try h.service.resolveReferences(step, locations: ["t": "Tags(-2)", "q": "Tags('a&b#c%d')"], failed: [])
            return (request.url, request.body.map { String(decoding: $0, as: UTF8.self) })
        }
        let ref = "Persons(-1)/Tags/$ref"
        #expect(try resolve(.post, ref, #"{"@odata.id":"$t","Note":"$t"}"#).body == #"{"@odata.id":"Tags(-2)","Note":"$t"}"#)
        #expect(try resolve(.post, ref, #"{"@odata.id":"$t","uri":"$t"}"#).body == #"{"@odata.id":"Tags(-2)","uri":"$t"}"#)
        let viaURL = try resolve(.post, "$t/Persons/%24ref", #"{"uri":"$t"}"#)
        #expect(viaURL.url == "Tags(-2)/Persons/%24ref" && viaURL.body == #"{"uri":"Tags(-2)"}"#)
        #expect(try resolve(.post, ref, #"{"@odata.id":"$root/Tags(-2)"}"#).body == #"{"@odata.id":"$root/Tags(-2)"}"#)
        #expect(try resolve(.post, "Tags", #"{"@odata.id":"$t","Label":"$t"}"#).body == #"{"@odata.id":"$t","Label":"$t"}"#)
        #expect(try resolve(.delete, ref + "?$id=$t").url == ref + "?$id=Tags(-2)")
        #expect(try resolve(.delete, ref + "?$format=json&ID=%24t").url == ref + "?$format=json&ID=Tags(-2)")
        #expect(try resolve(.delete, ref + "?$id=$q").url == ref + "?$id=Tags('a%26b%23c%25d')")
        #expect(try resolve(.delete, ref + "?$id=$metadata").url == ref + "?$id=$metadata")
        #expect(try resolve(.delete, ref + "?x=$t").url == ref + "?x=$t")
        #expect(try resolve(.get, "$entity?$id=$t").url == "$entity?$id=Tags(-2)")
        #expect(try resolve(.get, "$entity/T.Tag?$id=$q&$select=Label").url == "$entity/T.Tag?$id=Tags('a%26b%23c%25d')&$select=Label")
    }

    // MARK: dependsOn

    @Test("dependsOn must name earlier requests or atomicity groups: otherwise invalidBatch, nothing runs")
    func dependsOnValidation() throws {
        let h = try ServiceHarness()
        let p = #""method":"POST","url":"BusinessPartners","body":\#(newPartner("9900000001"))"#
        let bad: [(String, String)] = [
            (#"{"id":"1",\#(p),"dependsOn":["2"]},{"id":"2","method":"DELETE","url":"Products('X')"}"#, "$.requests[0].dependsOn[0]"),
            (#"{"id":"1",\#(p),"dependsOn":["1"]}"#, "$.requests[0].dependsOn[0]"),
            (#"{"id":"1","method":"DELETE","url":"Products('X')"},{"id":"2",\#(p),"dependsOn":["1","zz"]}"#, "$.requests[1].dependsOn[1]"),
            (#"{"id":"1","atomicityGroup":"g",\#(p),"dependsOn":["g"]}"#, "$.requests[0].dependsOn[0]"),
            (#"{"id":"1",\#(p),"dependsOn":"x"}"#, "$.requests[0].dependsOn"),
            (#"{"id":"1",\#(p),"dependsOn":[1]}"#, "$.requests[0].dependsOn[0]"),
            (#"{"id":"g","method":"DELETE","url":"Products('X')"},{"id":"2","atomicityGroup":"g",\#(p)}"#, "$.requests[0]"),
        ]
        for (requests, location) in bad {
            expectServiceError("invalidBatch", 3114, h) { try h.run(.post, "$batch", #"{"requests":[\#(requests)]}"#) }
            let error = #expect(throws: ODataError.self) { try h.run(.post, "$batch", #"{"requests":[\#(requests)]}"#) }
            #expect(error?.location == location, "\(requests)")
        }
        expectServiceError("notSupported", 3111, h) {
            try h.run(.post, "$batch", #"{"requests":[{"id":"1",\#(p),"if":"true"}]}"#)
        }
        #expect(try h.queue().isEmpty)
    }

    @Test("with continue-on-error a request whose dependency failed is answered 424 and not executed, transitively")
    func dependsOnFailure() throws {
        let h = try ServiceHarness()
        let order = try h.first("SalesOrders")
        let url = "SalesOrders" + (try keyText(try order.key()))
        let responses = try jsonBatch(h, """
        {"id":"1","method":"DELETE","url":"Products('NOPE')"},
        {"id":"2","method":"PATCH","url":"\(url)","dependsOn":["1"],"body":{"Note":"two"}},
        {"id":"3","method":"PATCH","url":"\(url)","dependsOn":["2"],"body":{"Note":"three"}},
        {"id":"4","atomicityGroup":"g","method":"PATCH","url":"\(url)","body":{"LifecycleStatus":"TOO LONG"}},
        {"id":"5","atomicityGroup":"h","method":"PATCH","url":"\(url)","dependsOn":["g"],"body":{"Note":"five"}},
        {"id":"6","method":"POST","url":"BusinessPartners","body":\(newPartner("9900000001"))},
        {"id":"7","method":"PATCH","url":"\(url)","dependsOn":["6"],"body":{"Note":"seven"}}
        """, prefer: "odata.continue-on-error")
        #expect(statuses(responses) == ["404", "424", "424", "400", "424", "201", "204"])
        #expect(responses[1]["body"]?["error"]?["code"]?.stringValue == "3116")
        #expect(responses[1]["body"]?["error"]?["message"]?.stringValue?.contains("'1'") == true)
        #expect(responses[4]["body"]?["error"]?["message"]?.stringValue?.contains("'g'") == true)
        #expect(try h.queue().map(\.method) == ["POST", "PATCH"])
        #expect(try h.entity("SalesOrders", try order.key())?.value(named: "Note") == .string("seven"))
    }

    @Test("multipart with continue-on-error: a request whose $<Content-ID> names a failed request gets 424")
    func multipartImplicitDependency() throws {
        let h = try Self.harness()
        let body = MultipartBatchTests.body(
            ["--batch_1"] + MultipartBatchTests.httpPart("POST Tags HTTP/1.1", contentID: "t", body: #"{"Label":5}"#)
            + ["--batch_1"] + MultipartBatchTests.httpPart("PATCH $t HTTP/1.1", contentID: "u", body: #"{"Label":"x"}"#)
            + ["--batch_1"] + MultipartBatchTests.httpPart("POST Persons HTTP/1.1", body: #"{"Name":"a","Best@odata.bind":"$t"}"#)
            + ["--batch_1"] + MultipartBatchTests.httpPart("POST Persons HTTP/1.1", body: #"{"Name":"b"}"#)
            + ["--batch_1--"])
        let response = try h.service.execute(ODataRequest(.post, "$batch", headers: ["Content-Type": MultipartBatchTests.contentType,
                                                                                      "Prefer": "odata.continue-on-error"], body: body))
        let answer = try MultipartBatchResponse.parse(try #require(response.body), contentType: try #require(response.headers["Content-Type"]))
        #expect(answer.parts.map(\.response.status) == [400, 424, 424, 201])
        #expect(try h.queue().count == 1)
    }
}
