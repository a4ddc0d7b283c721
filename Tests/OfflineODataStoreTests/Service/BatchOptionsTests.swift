import OfflineODataModel
import PropertyBased
import Testing
@testable import OfflineODataStore

/// The SAP option headers (`OfflineOData.TransactionID` …) on single requests and in both batch
/// formats, and `Prefer: continue-on-error` (docs/LocalService.md §2.5.1, §3.1).
@Suite struct BatchOptionsTests {
    /// One RequestQueue row as stored in the built-in entity set (not through `QueuedRequest`).
    struct Row: Equatable {
        var method: String
        var transactionID: String?
        var removeAfterUpload: Bool
        var unmodifiable: Bool
        var customHeaders: String?
    }

    static func rows(_ h: ServiceHarness) throws -> [Row] {
        try h.all(OfflineSystemSets.requestQueue).map { e in
            func text(_ name: String) throws -> String? {
                if case .string(let s)? = try e.value(named: name) { return s }
                return nil
            }
            return Row(method: try text("Method") ?? "", transactionID: try text("TransactionID"),
                       removeAfterUpload: try e.value(named: "RemoveCreatedEntityAfterUpload") == .boolean(true),
                       unmodifiable: try e.value(named: "Unmodifiable") == .boolean(true), customHeaders: try text("CustomHeaders"))
        }
    }

    static func orderURL(_ h: ServiceHarness) throws -> String {
        "SalesOrders" + (try keyText(try h.first("SalesOrders").key()))
    }

    // MARK: header forms on single requests

    @Test("option headers (any case) become the queued row's options; Transaction.Ignore and others stay custom headers")
    func singleRequestHeaders() throws {
        let h = try ServiceHarness()
        let url = try Self.orderURL(h)
        try h.run(.patch, url, #"{"Note":"a"}"#, headers: [
            "OfflineOData.TransactionID": "tx-1", "offlineodata.removeafterupload": "TRUE", "OFFLINEODATA.NONMERGEABLE": " true ",
            "Transaction.Ignore": "false", "X-Custom": "v",
        ])
        try h.run(.patch, url, #"{"Note":"b"}"#, headers: ["OfflineOData.NonMergeable": "false", "OfflineOData.RemoveAfterUpload": "false"])
        try h.service.create(try ODataJSONReader(model: h.model).readEntity(Array(newPartner("9900000001").utf8), entitySet: "BusinessPartners"),
                             in: "BusinessPartners", headers: ["OfflineOData.RemoveAfterUpload": "true"])
        let rows = try Self.rows(h)
        #expect(rows == [
            Row(method: "PATCH", transactionID: "tx-1", removeAfterUpload: true, unmodifiable: true,
                customHeaders: #"{"Transaction.Ignore":"false","X-Custom":"v"}"#),
            Row(method: "PATCH", transactionID: nil, removeAfterUpload: false, unmodifiable: false, customHeaders: nil),
            Row(method: "POST", transactionID: nil, removeAfterUpload: true, unmodifiable: false, customHeaders: nil),
        ])
        #expect(try h.queue().first?.customHeaders == ["Transaction.Ignore": "false", "X-Custom": "v"])
    }

    @Test("malformed option headers are invalidRequestOption naming the header, and change nothing")
    func badHeaderValues() throws {
        let h = try ServiceHarness()
        let url = try Self.orderURL(h)
        let cases: [([String: String], String, String)] = [
            (["OfflineOData.RemoveAfterUpload": "maybe"], "OfflineOData.RemoveAfterUpload", "maybe"),
            (["offlineodata.nonmergeable": "1"], "OfflineOData.NonMergeable", "'1'"),
            (["Transaction.Ignore": "yes"], "Transaction.Ignore", "yes"),
            (["OfflineOData.TransactionID": ""], "OfflineOData.TransactionID", "empty"),
            (["OfflineOData.TransactionID": "a\u{1}b"], "OfflineOData.TransactionID", "\\u{1}"),
            (["OfflineOData.TransactionID": String(repeating: "x", count: 513)], "OfflineOData.TransactionID", "513 bytes"),
            (["OfflineOData.TransactionID": "a", "X-Other": "a", "OFFLINEODATA.TRANSACTIONID": "b"],
             "OfflineOData.TransactionID", "twice"),
        ]
        for (headers, name, detail) in cases {
            do {
                try h.run(.patch, url, #"{"Note":"x"}"#, headers: headers)
                Issue.record("\(headers) was accepted")
            } catch let error as ODataError {
                #expect(error.name == "invalidRequestOption" && error.code == 3110)
                #expect(error.location == name)
                #expect(error.message.contains(name) && error.message.contains(detail), "\(error.message)")
            }
            expectServiceError("invalidRequestOption", 3110, h) { try h.run(.patch, url, #"{"Note":"x"}"#, headers: headers) }
        }
        // A header must agree with the typed option.
        expectServiceError("invalidRequestOption", 3110, h) {
            try h.run(.patch, url, #"{"Note":"x"}"#, headers: ["OfflineOData.TransactionID": "b"], options: RequestOptions(transactionID: "a"))
        }
        expectServiceError("invalidRequestOption", 3110, h) {
            try h.run(.patch, url, #"{"Note":"x"}"#, headers: ["OfflineOData.NonMergeable": "false"], options: RequestOptions(unmodifiable: true))
        }
        #expect(try h.queue().isEmpty)
    }

    // MARK: header forms in batches

    @Test("multipart: each part's option headers; a part's own TransactionID wins over the change set's shared one")
    func multipartHeaders() throws {
        let h = try MultipartBatchTests.harness()
        let url = try Self.orderURL(h)
        let body = MultipartBatchTests.body(
            ["--batch_1", "Content-Type: multipart/mixed; boundary=cs", "", "--cs"]
            + MultipartBatchTests.httpPart("PATCH \(url) HTTP/1.1", headers: ["OfflineOData.TransactionID: own", "OfflineOData.NonMergeable: true"],
                                           body: #"{"Note":"1"}"#)
            + ["--cs"] + MultipartBatchTests.httpPart("PATCH \(url) HTTP/1.1", headers: ["Transaction.Ignore: TRUE"], body: #"{"Note":"2"}"#)
            + ["--cs--", "--batch_1"]
            + MultipartBatchTests.httpPart("PATCH \(url) HTTP/1.1", headers: ["offlineodata.transactionid: solo", "OfflineOData.RemoveAfterUpload: true"],
                                           body: #"{"Note":"3"}"#)
            + ["--batch_1--"])
        let answer = try MultipartBatchTests().post(h, body)
        #expect(answer.parts.map(\.response.status) == [204, 204, 204])
        let rows = try Self.rows(h)
        #expect(rows.map(\.transactionID) == ["own", "changeset-1", "solo"])
        #expect(rows.map(\.unmodifiable) == [true, false, false])
        #expect(rows.map(\.removeAfterUpload) == [false, false, true])
        #expect(rows.map(\.customHeaders) == [nil, #"{"Transaction.Ignore":"TRUE"}"#, nil])
    }

    @Test("multipart: a malformed option header fails its change set (400, 3110), nothing of it is queued")
    func multipartBadHeader() throws {
        let h = try MultipartBatchTests.harness()
        let url = try Self.orderURL(h)
        let before = try h.fingerprint()
        let body = MultipartBatchTests.body(
            ["--batch_1", "Content-Type: multipart/mixed; boundary=cs", "", "--cs"]
            + MultipartBatchTests.httpPart("PATCH \(url) HTTP/1.1", contentID: "ok", body: #"{"Note":"1"}"#)
            + ["--cs"] + MultipartBatchTests.httpPart("PATCH \(url) HTTP/1.1", contentID: "bad", headers: ["OfflineOData.RemoveAfterUpload: maybe"],
                                                      body: #"{"Note":"2"}"#)
            + ["--cs--", "--batch_1--"])
        let answer = try MultipartBatchTests().post(h, body)
        #expect(answer.parts.map(\.response.status) == [400])
        #expect(answer.parts.first?.contentID == "bad")
        let error = try JSONReader.parse(try #require(answer.parts.first?.response.body))["error"]
        #expect(error?["code"]?.stringValue == "3110" && error?["target"]?.stringValue == "OfflineOData.RemoveAfterUpload")
        #expect(try h.fingerprint() == before)
    }

    @Test("JSON batch: request headers carry the options; groups without their own ID get none")
    func jsonHeaders() throws {
        let h = try ServiceHarness()
        let url = try Self.orderURL(h)
        let response = try h.run(.post, "$batch", """
        {"requests":[
          {"id":"1","method":"PATCH","url":"\(url)","headers":{"OfflineOData.TransactionID":"j1","OfflineOData.NonMergeable":"true"},"body":{"Note":"1"}},
          {"id":"2","atomicityGroup":"g","method":"PATCH","url":"\(url)","headers":{"offlineodata.removeafterupload":"true"},"body":{"Note":"2"}},
          {"id":"3","method":"PATCH","url":"\(url)","headers":{"OfflineOData.NonMergeable":"nope"},"body":{"Note":"3"}}
        ]}
        """)
        let responses = try #require(try json(response)["responses"]?.arrayValue)
        #expect(responses.map { $0["status"]?.numberValue?.text } == ["204", "204", "400"])
        #expect(responses[2]["body"]?["error"]?["target"]?.stringValue == "OfflineOData.NonMergeable")
        let rows = try Self.rows(h)
        #expect(rows.map(\.transactionID) == ["j1", nil])
        #expect(rows.map(\.unmodifiable) == [true, false])
        #expect(rows.map(\.removeAfterUpload) == [false, true])
    }

    // MARK: continue-on-error

    /// DELETE of a missing product (404), then a PATCH of an order, as a JSON batch.
    static func failThenPatch(_ h: ServiceHarness, prefer: String?) throws -> (ODataResponse, [JSONValue]) {
        let url = try orderURL(h)
        let response = try h.run(.post, "$batch", """
        {"requests":[{"id":"1","method":"DELETE","url":"Products('NOPE')"},
                     {"id":"2","method":"PATCH","url":"\(url)","body":{"Note":"after the failure"}}]}
        """, headers: prefer.map { ["Prefer": $0] } ?? [:])
        #expect(response.status == 200)
        return (response, try #require(try json(response)["responses"]?.arrayValue))
    }

    @Test("JSON batch without continue-on-error stops at the first failure: later requests unanswered, unexecuted, unqueued")
    func jsonStops() throws {
        for prefer in [nil, "continue-on-error=false", "return=minimal", "odata.continue-on-error=\"false\""] {
            let h = try ServiceHarness()
            let before = try h.fingerprint()
            let (response, responses) = try Self.failThenPatch(h, prefer: prefer)
            #expect(responses.map { $0["status"]?.numberValue?.text } == ["404"], "Prefer: \(prefer ?? "-")")
            #expect(response.headers["Preference-Applied"] == nil)
            #expect(try h.fingerprint() == before)
            #expect(try h.queue().isEmpty)
        }
    }

    @Test("JSON batch with continue-on-error goes on and says so in Preference-Applied")
    func jsonContinues() throws {
        for (prefer, applied) in [("odata.continue-on-error", "odata.continue-on-error"), ("return=minimal, Continue-On-Error", "continue-on-error=true"),
                                  ("continue-on-error=true", "continue-on-error=true"), ("odata.continue-on-error; x=1", "odata.continue-on-error")] {
            let h = try ServiceHarness()
            let (response, responses) = try Self.failThenPatch(h, prefer: prefer)
            #expect(responses.map { $0["status"]?.numberValue?.text } == ["404", "204"], "Prefer: \(prefer)")
            #expect(response.headers["Preference-Applied"] == applied)
            #expect(try h.queue().map(\.method) == ["PATCH"])
            #expect(try h.entity("SalesOrders", try h.first("SalesOrders").key())?.value(named: "Note") == .string("after the failure"))
        }
    }

    @Test("a failed atomicity group also stops the batch unless continue-on-error")
    func jsonGroupStops() throws {
        let h = try ServiceHarness()
        let url = try Self.orderURL(h)
        let text = """
        {"requests":[{"id":"1","atomicityGroup":"g","method":"PATCH","url":"\(url)","body":{"Note":"ok"}},
                     {"id":"2","atomicityGroup":"g","method":"PATCH","url":"\(url)","body":{"LifecycleStatus":"TOO LONG"}},
                     {"id":"3","method":"PATCH","url":"\(url)","body":{"Note":"after"}}]}
        """
        let stopped = try #require(try json(try h.run(.post, "$batch", text))["responses"]?.arrayValue)
        #expect(stopped.map { $0["status"]?.numberValue?.text } == ["424", "400"])
        #expect(try h.queue().isEmpty)
        let went = try #require(try json(try h.run(.post, "$batch", text, headers: ["prefer": "odata.continue-on-error"]))["responses"]?.arrayValue)
        #expect(went.map { $0["status"]?.numberValue?.text } == ["424", "400", "204"])
        #expect(try h.queue().count == 1)
    }

    @Test("a malformed continue-on-error value is invalidRequestOption on Prefer; nothing runs")
    func badPreference() throws {
        let h = try ServiceHarness()
        for prefer in ["continue-on-error=maybe", "odata.continue-on-error=1", "continue-on-error=true, continue-on-error=false"] {
            expectServiceError("invalidRequestOption", 3110, h) {
                _ = try Self.failThenPatch(h, prefer: prefer)
            }
        }
    }

    @Test("multipart: stops after a failed request or change set unless continue-on-error")
    func multipartStops() throws {
        let h0 = try MultipartBatchTests.harness()
        let url = try Self.orderURL(h0)
        let parts = ["--batch_1"] + MultipartBatchTests.httpPart("DELETE Products('NOPE') HTTP/1.1", contentID: "d")
            + ["--batch_1", "Content-Type: multipart/mixed; boundary=cs", "", "--cs"]
            + MultipartBatchTests.httpPart("PATCH \(url) HTTP/1.1", contentID: "p", body: #"{"Note":"in change set"}"#)
            + ["--cs--", "--batch_1"] + MultipartBatchTests.httpPart("GET \(url) HTTP/1.1") + ["--batch_1--"]
        for (prefer, applied) in [(nil, nil), ("odata.continue-on-error", "odata.continue-on-error"), ("continue-on-error", "continue-on-error=true")] {
            let h = try MultipartBatchTests.harness()
            var headers = ["Content-Type": MultipartBatchTests.contentType]
            if let prefer { headers["Prefer"] = prefer }
            let response = try h.service.execute(ODataRequest(.post, "$batch", headers: headers, body: MultipartBatchTests.body(parts)))
            let answer = try MultipartBatchResponse.parse(try #require(response.body), contentType: try #require(response.headers["Content-Type"]))
            #expect(response.headers["Preference-Applied"] == applied)
            if prefer == nil {
                #expect(answer.parts.map(\.response.status) == [404])
                #expect(try h.queue().isEmpty)
            } else {
                #expect(answer.parts.map(\.response.status) == [404, 204, 200])
                #expect(try h.queue().map(\.method) == ["PATCH"])
            }
        }
    }

    // MARK: fuzz

    /// Header values: random bytes (as text), or true/false in random case with random padding.
    static let values = zip(Gen.int(in: 0...3), Gen.int(in: 0...255).array(of: 0...24), Gen.int(in: 0...1), Gen.int(in: 0...15))

    static func value(_ input: (Int, [Int], Int, Int)) -> String {
        let (kind, bytes, flag, caseBits) = input
        if kind == 0 { return String(decoding: bytes.map { UInt8($0) }, as: UTF8.self) }
        var word = Array(flag == 1 ? "true" : "false")
        for i in word.indices where caseBits & (1 << (i % 4)) != 0 { word[i] = Character(word[i].uppercased()) }
        let pad = kind == 2 ? " " : (kind == 3 ? "\t" : "")
        return pad + String(word) + pad
    }

    @Test("random option header values never crash: accepted with the parsed value, or invalidRequestOption naming the header")
    func fuzzHeaders() async throws {
        let names = [RequestOptions.transactionIDHeader, RequestOptions.removeAfterUploadHeader, RequestOptions.nonMergeableHeader,
                     RequestOptions.transactionIgnoreHeader]
        await propertyCheck(count: 120, input: zip(Gen.int(in: 0...3), Self.values)) { which, input in
            let h = try ServiceHarness()
            let name = names[which]
            let value = Self.value(input)
            do {
                try h.run(.patch, try Self.orderURL(h), #"{"Note":"fuzz"}"#, headers: [name: value])
                let row = try #require(try Self.rows(h).first)
                let flag = value.trimmingSpaces.lowercased() == "true"
                switch which {
                case 0: #expect(row.transactionID == value)
                case 1: #expect(row.removeAfterUpload == flag)
                case 2: #expect(row.unmodifiable == flag)
                default: #expect(try h.queue().first?.customHeaders[name] == value)
                }
            } catch let error as ODataError {
                #expect(error.code == 3110 && error.name == "invalidRequestOption" && error.location == name, "\(error)")
                #expect(try h.queue().isEmpty)
            }
        }
    }

    @Test("random Prefer values on $batch never crash: 200, or invalidRequestOption on Prefer")
    func fuzzPrefer() async throws {
        let h = try ServiceHarness()
        await propertyCheck(count: 150, input: zip(Gen.int(in: 0...2), Self.values)) { form, input in
            let prefix = ["continue-on-error=", "odata.continue-on-error=", "x-"][form]
            let prefer = prefix + Self.value(input)
            do {
                let response = try h.run(.post, "$batch", #"{"requests":[]}"#, headers: ["Prefer": prefer])
                #expect(response.status == 200)
            } catch let error as ODataError {
                #expect(error.code == 3110 && error.location == "Prefer", "\(error)")
                #expect(form != 2)
            }
        }
    }
}
