import OfflineODataModel
import Testing
@testable import OfflineODataStore

/// `$batch` (JSON format) and bad input at every entry point.
@Suite struct LocalServiceBatchTests {
    func batch(_ h: ServiceHarness, _ requests: String) throws -> [JSONValue] {
        let response = try h.run(.post, "$batch", #"{"requests":[\#(requests)]}"#)
        #expect(response.status == 200)
        return try #require(try json(response)["responses"]?.arrayValue)
    }

    @Test("an atomicity group is all or nothing: one bad request, nothing applied, 424 for the others")
    func atomicGroup() throws {
        let h = try ServiceHarness()
        let order = try h.first("SalesOrders")
        let url = "SalesOrders" + (try keyText(try order.key()))
        let before = try h.fingerprint()
        let responses = try batch(h, """
        {"id":"1","atomicityGroup":"g","method":"POST","url":"BusinessPartners","body":\(newPartner("9900000001"))},
        {"id":"2","atomicityGroup":"g","method":"PATCH","url":"\(url)","body":{"Note":"in group"}},
        {"id":"3","atomicityGroup":"g","method":"PATCH","url":"\(url)","body":{"LifecycleStatus":"TOO LONG"}}
        """)
        #expect(responses.map { $0["id"]?.stringValue } == ["1", "2", "3"])
        #expect(responses.map { $0["status"]?.numberValue?.text } == ["424", "424", "400"])
        #expect(responses[2]["body"]?["error"]?["code"]?.stringValue == "3106")
        #expect(try h.fingerprint() == before)
        #expect(try h.queue().isEmpty)
    }

    @Test("a good group applies together; content-ID references; requests outside groups stand alone")
    func goodGroup() throws {
        let h = try ServiceHarness()
        let product = try h.first("Products")
        guard case .string(let productID)? = try product.key().first else { return }
        let responses = try batch(h, """
        {"id":"1","atomicityGroup":"g","method":"POST","url":"BusinessPartners","body":\(newPartner("9900000001"))},
        {"id":"2","atomicityGroup":"g","method":"PATCH","url":"$1","headers":{"Prefer":"return=representation"},"body":{"CompanyName":"via ref"}},
        {"id":"3","method":"DELETE","url":"Products('\(productID)')"},
        {"id":"4","method":"DELETE","url":"Products('\(productID)')"}
        """)
        #expect(responses.map { $0["status"]?.numberValue?.text } == ["201", "200", "204", "404"])
        #expect(responses[1]["body"]?["CompanyName"]?.stringValue == "via ref")
        #expect(try h.entity("BusinessPartners", [.string("9900000001")])?.value(named: "CompanyName") == .string("via ref"))
        #expect(try h.queue().map(\.method) == ["POST", "PATCH", "DELETE"])
        #expect(try h.queue()[1].url == "BusinessPartners('9900000001')")
    }

    @Test("malformed batches are typed errors and change nothing")
    func badBatches() throws {
        let h = try ServiceHarness()
        for body in [#"{"requests":5}"#, #"[]"#, #"{"requests":[{"method":"GET","url":"X"}]}"#,
                     #"{"requests":[{"id":"1","method":"FETCH","url":"X"}]}"#,
                     #"{"requests":[{"id":"1","method":"GET"}]}"#,
                     #"{"requests":[{"id":"1","method":"GET","url":"X"},{"id":"1","method":"GET","url":"X"}]}"#,
                     #"{"requests":[{"id":"1","method":"GET","url":"X","headers":{"a":1}}]}"#,
                     #"{"requests":[{"id":"1","atomicityGroup":"g","method":"DELETE","url":"X"},{"id":"2","method":"GET","url":"X"},{"id":"3","atomicityGroup":"g","method":"DELETE","url":"X"}]}"#] {
            expectServiceError("invalidBatch", 3114, h) { try h.run(.post, "$batch", body) }
        }
        expectServiceError("jsonUnexpectedEnd", 1202, h) { try h.run(.post, "$batch", #"{"requests":["#) }
        expectServiceError("invalidBatch", 3114, h) { try h.run(.post, "$batch") }
        // multipart/mixed is parsed (MultipartBatchTests); an unterminated one is invalidBatch, other multipart types notSupported.
        expectServiceError("invalidBatch", 3114, h) {
            try h.run(.post, "$batch", "--b\r\n", headers: ["Content-Type": "multipart/mixed; boundary=b"])
        }
        expectServiceError("notSupported", 3111, h) {
            try h.run(.post, "$batch", "--b--\r\n", headers: ["Content-Type": "multipart/related; boundary=b"])
        }
    }

    @Test("bad input at every entry point: typed errors, nothing changed")
    func badInput() throws {
        let h = try ServiceHarness()
        let order = try h.first("SalesOrders")
        let url = "SalesOrders" + (try keyText(try order.key()))
        // URLs
        for bad in ["SalesOrders('1", "Nope", "SalesOrders(1)", "SalesOrders('1')/Nope", "SalesOrders('a'", "%ZZ"] {
            expectThrows(h) { try h.run(.patch, bad, #"{"Note":"x"}"#) }
        }
        expectServiceError("methodNotAllowed", 3101, h) { try h.run(.patch, "SalesOrders", #"{"Note":"x"}"#) }
        expectServiceError("methodNotAllowed", 3101, h) { try h.run(.post, url, #"{"Note":"x"}"#) }
        expectServiceError("methodNotAllowed", 3101, h) { try h.run(.delete, "SalesOrders") }
        // Bodies
        expectServiceError("invalidBody", 3109, h) { try h.run(.patch, url) }
        expectServiceError("jsonUnexpectedEnd", 1202, h) { try h.run(.patch, url, #"{"Note":"#) }
        expectThrows(h) { try h.run(.patch, url, #"{"Note":5}"#) }
        expectThrows(h) { try h.run(.patch, url, #"{"Unknown":"x"}"#) }
        expectThrows(h) { try h.run(.patch, url, "[1,2]") }
        expectThrows(h) { try h.run(.patch, url, "\u{FF}") }
        expectServiceError("notSupported", 3111, h) {
            try h.run(.patch, url, #"{"ToCustomer":{"BusinessPartnerID":"1"}}"#)
        }
        expectServiceError("invalidBody", 3109, h) { try h.run(.put, url + "/ToCustomer/$ref", #"{"x":1}"#) }
        expectServiceError("invalidBody", 3109, h) { try h.run(.patch, url, #"{"ToCustomer@odata.bind":"Nope('1')"}"#) }
        // Options
        expectServiceError("invalidRequestOption", 3110, h) {
            try h.run(.patch, url, #"{"Note":"x"}"#, options: RequestOptions(transactionID: ""))
        }
        expectServiceError("invalidRequestOption", 3110, h) {
            try h.run(.patch, url, #"{"Note":"x"}"#, options: RequestOptions(customTag: String(repeating: "t", count: 600)))
        }
        expectServiceError("invalidRequestOption", 3110, h) {
            try h.service.delete(set: "SalesOrders", key: try order.key(), options: RequestOptions(uploadCategory: "a\u{1}"))
        }
        // Keys in typed calls
        expectThrows(h) { try h.service.delete(set: "SalesOrders", key: [.int32(1)]) }
        expectThrows(h) { try h.service.delete(set: "SalesOrders", key: []) }
        expectThrows(h) { try h.service.delete(set: "Nope", key: [.string("1")]) }
        expectThrows(h) { try h.service.link(from: "SalesOrders", key: try order.key(), navigation: "Nope", to: [.string("1")]) }
        expectServiceError("entityNotFound", 3102, h) {
            try h.service.unlink(from: "SalesOrders", key: [.string("0000000000")], navigation: "ToCustomer", to: [.string("1")])
        }
        expectThrows(h) { try h.service.undoPendingChanges(set: "SalesOrders", key: [.boolean(true)]) }
        expectServiceError("invalidFailure", 3204, h) { try h.service.logEvent(type: "") }
        #expect(try h.queue().isEmpty)
    }
}

/// Expects some `ODataError` with a name, code and message, and that nothing changed.
func expectThrows(_ h: ServiceHarness, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    let before = try? h.fingerprint()
    do {
        try body()
        Issue.record("expected an ODataError, nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as ODataError {
        #expect(!error.name.isEmpty && error.code > 0 && !error.message.isEmpty, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected an ODataError, got \(error)", sourceLocation: sourceLocation)
    }
    #expect(before != nil && before == (try? h.fingerprint()), "a failed request changed the store", sourceLocation: sourceLocation)
}
