import Foundation
import OfflineODataModel
import PropertyBased
import Testing
@testable import OfflineODataStore

/// `$batch` with `Content-Type: multipart/mixed` (docs/LocalService.md §2.5, docs/MultipartBatch.md).
@Suite struct MultipartBatchTests {
    static let contentType = "multipart/mixed; boundary=batch_1"

    /// A harness whose service answers GET with the store's read handler.
    static func harness() throws -> ServiceHarness {
        let h = try ServiceHarness()
        h.service = try LocalService(storage: h.storage.storage, readHandler: StoreReadHandler(model: h.model, pageSize: nil),
                                     now: { 1_700_000_000 })
        return h
    }

    /// Joins lines with CRLF (or another line break).
    static func body(_ lines: [String], newline: String = "\r\n") -> [UInt8] {
        Array(lines.joined(separator: newline).utf8)
    }

    static func httpPart(_ requestLine: String, contentID: String? = nil, headers: [String] = [], body: String? = nil) -> [String] {
        var lines = ["Content-Type: application/http", "Content-Transfer-Encoding: binary"]
        if let contentID { lines.append("Content-ID: \(contentID)") }
        lines += ["", requestLine] + headers
        if let body { lines += ["Content-Type: application/json", "", body] } else { lines += [""] }
        return lines
    }

    /// GET partner, change set (POST partner as Content-ID 1, PATCH `$1`), GET the new partner.
    static func roundTripBody(partnerID: String) -> [UInt8] {
        body(["preamble to ignore", "--batch_1"] + httpPart("GET BusinessPartners('\(partnerID)') HTTP/1.1")
             + ["--batch_1", "Content-Type: multipart/mixed; boundary=changeset_a", "",
                "--changeset_a"] + httpPart("POST BusinessPartners HTTP/1.1", contentID: "1",
                                            body: newPartner("9900000001").split(separator: "\n").joined(separator: " "))
             + ["--changeset_a"] + httpPart("PATCH $1 HTTP/1.1", contentID: "2", headers: ["Prefer: return=representation"],
                                            body: #"{"CompanyName":"via ref"}"#)
             + ["--changeset_a--", "", "--batch_1"] + httpPart("GET BusinessPartners('9900000001') HTTP/1.1")
             + ["--batch_1--", "epilogue to ignore"])
    }

    func post(_ h: ServiceHarness, _ body: [UInt8], contentType: String = contentType, prefer: String? = nil) throws -> MultipartBatchResponse {
        var headers = ["Content-Type": contentType]
        if let prefer { headers["Prefer"] = prefer }
        let response = try h.service.execute(ODataRequest(.post, "$batch", headers: headers, body: body))
        #expect(response.status == 200)
        let type = try #require(response.headers["Content-Type"])
        #expect(type.hasPrefix("multipart/mixed; boundary=batchresponse_"))
        return try MultipartBatchResponse.parse(try #require(response.body), contentType: type)
    }

    @Test("GET + change set (POST with Content-ID, PATCH $1) + GET: entities, queue in one transaction, multipart answer")
    func roundTrip() throws {
        let h = try Self.harness()
        let partner = try h.first("BusinessPartners")
        guard case .string(let partnerID)? = try partner.key().first else { Issue.record("partner key"); return }
        let answer = try post(h, Self.roundTripBody(partnerID: partnerID))
        #expect(answer.items.count == 3)
        guard answer.items.count == 3, case .response(let first) = answer.items[0], case .changeSet(let boundary, let changes) = answer.items[1],
              case .response(let last) = answer.items[2] else { Issue.record("answer shape \(answer.items)"); return }
        #expect(boundary.hasPrefix("changesetresponse_"))
        #expect(first.response.status == 200)
        #expect(try JSONReader.parse(try #require(first.response.body))["BusinessPartnerID"]?.stringValue == partnerID)
        #expect(changes.map(\.response.status) == [201, 200])
        #expect(changes.map(\.contentID) == ["1", "2"])
        #expect(changes[0].response.headers["Location"] == "BusinessPartners('9900000001')")
        #expect(changes[0].response.headers["ETag"] != nil)
        #expect(try JSONReader.parse(try #require(changes[1].response.body))["CompanyName"]?.stringValue == "via ref")
        #expect(last.response.status == 200)
        #expect(try JSONReader.parse(try #require(last.response.body))["CompanyName"]?.stringValue == "via ref")
        #expect(try h.entity("BusinessPartners", [.string("9900000001")])?.value(named: "CompanyName") == .string("via ref"))
        let queue = try h.queue()
        #expect(queue.map(\.method) == ["POST", "PATCH"])
        #expect(queue.map(\.url) == ["BusinessPartners", "BusinessPartners('9900000001')"])
        #expect(queue[0].options.transactionID != nil && queue[0].options.transactionID == queue[1].options.transactionID)
    }

    @Test("a failing change set applies nothing, answers with its one error; later requests run with continue-on-error")
    func failingChangeSet() throws {
        let h = try Self.harness()
        let order = try h.first("SalesOrders")
        let url = "SalesOrders" + (try keyText(try order.key()))
        try h.run(.patch, url, #"{"Note":"before the batch"}"#)
        let queueBefore = try h.queue()
        let product = try h.first("Products")
        guard case .string(let productID)? = try product.key().first else { Issue.record("product key"); return }
        let changeSet = ["--batch_1", "Content-Type: multipart/mixed; boundary=cs", "", "--cs"]
            + Self.httpPart("POST BusinessPartners HTTP/1.1", contentID: "p",
                            body: newPartner("9900000002").split(separator: "\n").joined(separator: " "))
            + ["--cs"] + Self.httpPart("PATCH \(url) HTTP/1.1", contentID: "bad", body: #"{"LifecycleStatus":"TOO LONG"}"#)
            + ["--cs--"]
        let fingerprint = try h.fingerprint()
        let alone = try post(h, Self.body(changeSet + ["--batch_1--"]))
        #expect(try h.fingerprint() == fingerprint)
        #expect(try h.queue() == queueBefore)
        #expect(alone.items.count == 1)
        guard alone.items.count == 1, case .response(let failure) = alone.items[0] else { Issue.record("answer shape \(alone.items)"); return }
        #expect(failure.response.status == 400 && failure.contentID == "bad")
        #expect(try JSONReader.parse(try #require(failure.response.body))["error"]?["code"]?.stringValue == "3106")
        #expect(try h.entity("BusinessPartners", [.string("9900000002")]) == nil)

        let later = Self.body(changeSet + ["--batch_1"] + Self.httpPart("DELETE Products('\(productID)') HTTP/1.1") + ["--batch_1--"])
        let stopped = try post(h, later)
        #expect(stopped.parts.map(\.response.status) == [400])
        #expect(try h.queue() == queueBefore)
        let then = try post(h, later, prefer: "odata.continue-on-error")
        #expect(then.parts.map(\.response.status) == [400, 204])
        #expect(try h.entity("BusinessPartners", [.string("9900000002")]) == nil)
        #expect(try h.queue().map(\.method) == ["PATCH", "DELETE"])
        #expect(try h.queue().first == queueBefore.first)
    }

    @Test("bare LF, quoted boundary, absolute URLs, MERGE, Content-ID in the HTTP headers")
    func lenientForms() throws {
        let h = try Self.harness()
        let order = try h.first("SalesOrders")
        let key = try keyText(try order.key())
        let body = Self.body(["--a b"] + Self.httpPart("MERGE http://host:8080/sap/opu/odata/SALES_SRV/SalesOrders\(key) HTTP/1.1",
                                                       body: #"{"Note":"merged"}"#)
                             + ["--a b", "Content-Type: multipart/mixed; boundary=\"c s\"", "", "--c s"]
                             + Self.httpPart("PATCH /sap/opu/odata/SALES_SRV/SalesOrders\(key) HTTP/1.1", headers: ["Content-ID: x"],
                                             body: #"{"Note":"patched"}"#)
                             + ["--c s--", "--a b--"], newline: "\n")
        let answer = try post(h, body, contentType: #"multipart/mixed;boundary="a b""#)
        #expect(answer.parts.map(\.response.status) == [204, 204])
        #expect(answer.parts.map(\.contentID) == [nil, "x"])
        #expect(try h.entity("SalesOrders", try order.key())?.value(named: "Note") == .string("patched"))
        #expect(try h.queue().map(\.url) == ["SalesOrders\(key)", "SalesOrders\(key)"])
        #expect(h.service.serviceRelativeURL("https://h/a/b/SalesOrders?$top=1") == "SalesOrders?$top=1")
        #expect(h.service.serviceRelativeURL("/x/y/$batch") == "$batch")
        #expect(h.service.serviceRelativeURL("$1/ToItems") == "$1/ToItems")
        #expect(h.service.serviceRelativeURL("/unknown/Path") == "unknown/Path")
    }

    @Test("malformed multipart batches are typed errors with the offset, and change nothing")
    func badInput() throws {
        let h = try Self.harness()
        let get = Self.httpPart("GET SalesOrders HTTP/1.1")
        let post = Self.httpPart("POST BusinessPartners HTTP/1.1", contentID: "1", body: "{}")
        func changeSet(_ parts: [String]) -> [String] { ["Content-Type: multipart/mixed; boundary=cs", ""] + parts + ["--cs--"] }
        let cases: [(String, String, Int, [UInt8], String)] = [
            ("no boundary", "invalidBatch", 3114, Self.body(["--b"] + get + ["--b--"]), "multipart/mixed"),
            ("bad boundary", "invalidBatch", 3114, Self.body(["--b"] + get + ["--b--"]), "multipart/mixed; boundary=a{b"),
            ("long boundary", "invalidBatch", 3114, Self.body(["--b"] + get + ["--b--"]), "multipart/mixed; boundary=" + String(repeating: "b", count: 71)),
            ("unquoted end", "invalidBatch", 3114, Self.body(["--b"] + get + ["--b--"]), "multipart/mixed; boundary=\"b"),
            ("no delimiter", "invalidBatch", 3114, Self.body(["GET SalesOrders HTTP/1.1"]), "multipart/mixed; boundary=b"),
            ("empty body", "invalidBatch", 3114, [], "multipart/mixed; boundary=b"),
            ("unterminated", "invalidBatch", 3114, Self.body(["--b"] + get), "multipart/mixed; boundary=b"),
            ("no request line", "invalidBatch", 3114, Self.body(["--b", "Content-Type: application/http", "", "", "--b--"]), "multipart/mixed; boundary=b"),
            ("no blank line", "invalidBatch", 3114, Self.body(["--b", "Content-Type: application/http", "--b--"]), "multipart/mixed; boundary=b"),
            ("bad method", "invalidBatch", 3114, Self.body(["--b"] + Self.httpPart("FETCH SalesOrders HTTP/1.1") + ["--b--"]), "multipart/mixed; boundary=b"),
            ("bad version", "invalidBatch", 3114, Self.body(["--b"] + Self.httpPart("GET SalesOrders FTP/1") + ["--b--"]), "multipart/mixed; boundary=b"),
            ("one word", "invalidBatch", 3114, Self.body(["--b"] + Self.httpPart("GET") + ["--b--"]), "multipart/mixed; boundary=b"),
            ("GET in change set", "invalidBatch", 3114, Self.body(["--b"] + changeSet(["--cs"] + get) + ["--b--"]), "multipart/mixed; boundary=b"),
            ("nested change set", "invalidBatch", 3114,
             Self.body(["--b"] + changeSet(["--cs", "Content-Type: multipart/mixed; boundary=dd", "", "--dd"] + post + ["--dd--"]) + ["--b--"]),
             "multipart/mixed; boundary=b"),
            ("duplicate Content-ID", "invalidBatch", 3114, Self.body(["--b"] + changeSet(["--cs"] + post + ["--cs"] + post) + ["--b--"]),
             "multipart/mixed; boundary=b"),
            ("text/plain part", "invalidBatch", 3114, Self.body(["--b", "Content-Type: text/plain", "", "GET X HTTP/1.1", "", "--b--"]),
             "multipart/mixed; boundary=b"),
            ("no part type", "invalidBatch", 3114, Self.body(["--b", "", "GET X HTTP/1.1", "", "--b--"]), "multipart/mixed; boundary=b"),
            ("base64", "invalidBatch", 3114, Self.body(["--b", "Content-Type: application/http", "Content-Transfer-Encoding: base64", "",
                                                       "R0VU", "", "--b--"]), "multipart/mixed; boundary=b"),
            ("header without colon", "invalidBatch", 3114, Self.body(["--b", "Content-Type application/http", "", "GET X HTTP/1.1", "", "--b--"]),
             "multipart/mixed; boundary=b"),
            ("bad UTF-8", "invalidBatch", 3114, Self.body(["--b"] + Self.httpPart("GET SalesOrders('\u{1}') HTTP/1.1") + ["--b--"]),
             "multipart/mixed; boundary=b"),
            ("unknown Content-ID", "unknownContentID", 3118,
             Self.body(["--b"] + changeSet(["--cs"] + Self.httpPart("PATCH $9 HTTP/1.1", body: "{}")) + ["--b--"]), "multipart/mixed; boundary=b"),
            ("later Content-ID", "unknownContentID", 3118,
             Self.body(["--b"] + changeSet(["--cs"] + Self.httpPart("PATCH $1 HTTP/1.1", body: "{}") + ["--cs"] + post) + ["--b--"]),
             "multipart/mixed; boundary=b"),
            ("long header", "oversizeBatchHeader", 3117,
             Self.body(["--b"] + Self.httpPart("GET SalesOrders HTTP/1.1", headers: ["X-Big: " + String(repeating: "x", count: 9000)]) + ["--b--"]),
             "multipart/mixed; boundary=b"),
            ("many headers", "oversizeBatchHeader", 3117,
             Self.body(["--b"] + Self.httpPart("GET SalesOrders HTTP/1.1", headers: (0..<200).map { "X-H\($0): v" }) + ["--b--"]),
             "multipart/mixed; boundary=b"),
            ("form data", "notSupported", 3111, Self.body(["--b--"]), "multipart/form-data; boundary=b"),
        ]
        let mentions = ["no boundary": "no boundary", "bad boundary": "does not allow", "long boundary": "1 to 70",
                        "unquoted end": "unterminated quoted", "no delimiter": "no delimiter", "empty body": "no delimiter",
                        "unterminated": "close delimiter", "no request line": "no request line", "no blank line": "no request line",
                        "bad method": "FETCH", "bad version": "FTP/1", "one word": "not a request line",
                        "GET in change set": "GET 'SalesOrders' inside a change set", "nested change set": "change set inside a change set",
                        "duplicate Content-ID": "twice", "text/plain part": "text/plain", "no part type": "not application/http",
                        "base64": "base64", "header without colon": "no ':'", "bad UTF-8": "UTF-8", "unknown Content-ID": "'$9'",
                        "later Content-ID": "'$1'", "long header": "at most 8192", "many headers": "more than 128",
                        "form data": "multipart/form-data"]
        #expect(Set(mentions.keys) == Set(cases.map(\.0)))
        for (label, name, code, body, type) in cases {
            var bytes = body
            if label == "bad UTF-8", let i = bytes.firstIndex(of: 0x01) { bytes[i] = 0xFF }
            expectServiceError(name, code, h) {
                do throws(ODataError) {
                    try h.service.execute(ODataRequest(.post, "$batch", headers: ["Content-Type": type], body: bytes))
                } catch {
                    #expect(error.message.contains(mentions[label] ?? "?"), "\(label): \(error)")
                    if name != "notSupported" {
                        #expect(error.location?.hasPrefix("offset ") == true || error.location == "Content-Type", "\(label): \(error)")
                    }
                    throw error
                }
            }
        }
        #expect(try h.queue().isEmpty)
    }

    @Test("error offsets point at the offending text")
    func offsets() throws {
        let body = Self.body(["--b"] + Self.httpPart("FETCH SalesOrders HTTP/1.1") + ["--b--"])
        let text = String(decoding: body, as: UTF8.self)
        let fetch = try #require(text.firstRange(of: "FETCH"))
        let start = text.utf8.distance(from: text.startIndex, to: fetch.lowerBound)
        let badMethod = try #require(Self.parseError(body))
        #expect(badMethod.code == 3114 && badMethod.location == "offset \(start)" && badMethod.message.contains("FETCH"))
        let open = Self.body(["--b"] + Self.httpPart("GET X HTTP/1.1"))
        let unterminated = try #require(Self.parseError(open))
        #expect(unterminated.location == "offset \(open.count)" && unterminated.message.contains("--b--"))
    }

    static func parseError(_ body: [UInt8]) -> ODataError? {
        do throws(ODataError) {
            _ = try MultipartBatchRequest.parse(body, contentType: "multipart/mixed; boundary=b")
            return nil
        } catch {
            return error
        }
    }

    @Test("a batch built with MultipartBatchRequest runs like the text form: PUT $n in the change set, GET $n after it")
    func builtBatch() throws {
        let h = try Self.harness()
        let json = ["Content-Type": "application/json"]
        let batch = MultipartBatchRequest(boundary: "batch (built)", items: [
            .changeSet(boundary: "cs", [
                .init(contentID: "n", request: ODataRequest(.post, "BusinessPartners", headers: json, body: Array(newPartner("9900000003").utf8))),
                .init(contentID: "r", request: ODataRequest(.put, "$n", headers: json,
                                                            body: Array(newPartner("9900000003", name: "replaced").utf8))),
            ]),
            .request(.init(request: ODataRequest(.get, "$n?$select=CompanyName"))),
        ])
        #expect(batch.contentType == #"multipart/mixed; boundary="batch (built)""#)
        let answer = try post(h, batch.serialized(), contentType: batch.contentType)
        #expect(answer.parts.map(\.response.status) == [201, 204, 200])
        #expect(answer.parts.map(\.contentID) == ["n", "r", nil])
        #expect(try JSONReader.parse(try #require(answer.parts.last?.response.body))["CompanyName"]?.stringValue == "replaced")
        #expect(try h.entity("BusinessPartners", [.string("9900000003")])?.value(named: "CompanyName") == .string("replaced"))
        let queue = try h.queue()
        #expect(queue.map(\.method) == ["POST", "PUT"] && queue[1].url == "BusinessPartners('9900000003')")
        #expect(queue.map(\.options.transactionID) == ["changeset-1", "changeset-1"])
    }

    @Test("the multipart error codes are in the service range and documented")
    func errorCodes() throws {
        let errors: [ODataError] = [.serviceInvalidBatch("d", "offset 0"), .serviceOversizeBatchHeader("d", "offset 0"),
                                    .serviceUnknownContentID("$1", "offset 0")]
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let service = try String(contentsOf: root.appendingPathComponent("docs/LocalService.md"), encoding: .utf8)
        let errorsDoc = try String(contentsOf: root.appendingPathComponent("docs/Errors.md"), encoding: .utf8)
        for error in errors {
            #expect(StoreErrorCodes.serviceRange.contains(error.code))
            let row = "| \(error.code) | `\(error.name)` | \(error.category.rawValue)"
            #expect(service.components(separatedBy: "| \(error.code) |").count == 2, "one row for \(error.code) in LocalService.md §8")
            #expect(service.contains(row) && errorsDoc.contains(row), "\(row)")
            #expect(!error.message.isEmpty)
        }
    }

    @Test("serialized requests and responses parse back to the same batch")
    func serialiseAndParse() async throws {
        let methods = Gen.int(in: 0...(ODataMethod.allCases.count - 1)).map { ODataMethod.allCases[$0] }
        let text = Gen.letterOrNumber.string(of: 1...12)
        let part = zip(methods, text, Gen.int(in: 0...2), text)
        await propertyCheck(count: 60, input: part.array(of: 0...6), Gen.int(in: 0...3)) { parts, split in
            let built = parts.enumerated().map { n, p in
                let (method, name, kind, value) = p
                let body: [UInt8]? = kind == 0 || method == .get ? nil : Array(#"{"v":"\#(value)\#r\#n--x"}"#.utf8)
                var headers = ["X-N": name]
                if kind == 2 { headers["If-Match"] = "W/\"\(value)\"" }
                return MultipartBatchRequest.Part(contentID: kind == 1 ? "id\(n)" : nil,
                                                  request: ODataRequest(method, "Set('\(name)')", headers: headers, body: body))
            }
            var items: [MultipartBatchRequest.Item] = []
            var changes: [MultipartBatchRequest.Part] = []
            for (n, p) in built.enumerated() {
                if n < split || p.request.method == .get { items.append(.request(p)) } else { changes.append(p) }
            }
            if !changes.isEmpty { items.append(.changeSet(boundary: "changeset (1)", changes)) }
            let batch = MultipartBatchRequest(boundary: "batch_x", items: items)
            let parsed = try MultipartBatchRequest.parse(batch.serialized(), contentType: batch.contentType)
            #expect(Self.withoutOffsets(parsed) == batch)

            let answers = built.enumerated().map { n, p in
                MultipartBatchResponse.Part(contentID: p.contentID, response: ODataResponse(status: 200 + n, headers: p.request.headers, body: p.request.body))
            }
            var responseItems = answers.prefix(split).map(MultipartBatchResponse.Item.response)
            if answers.count > split { responseItems.append(.changeSet(boundary: "cs_r", Array(answers.dropFirst(split)))) }
            let response = MultipartBatchResponse(boundary: "batchresponse_1", items: responseItems)
            #expect(try MultipartBatchResponse.parse(response.serialized(), contentType: response.contentType) == response)
        }
    }

    static func withoutOffsets(_ batch: MultipartBatchRequest) -> MultipartBatchRequest {
        func clean(_ part: MultipartBatchRequest.Part) -> MultipartBatchRequest.Part {
            var copy = part
            copy.offset = 0
            return copy
        }
        return MultipartBatchRequest(boundary: batch.boundary, items: batch.items.map { item in
            switch item {
            case .request(let part): return .request(clean(part))
            case .changeSet(let boundary, let parts): return .changeSet(boundary: boundary, parts.map(clean))
            }
        })
    }

    @Test("random truncations and byte flips give a typed error or a valid multipart answer, never a crash")
    func fuzz() async throws {
        let h = try Self.harness()
        let partner = try h.first("BusinessPartners")
        guard case .string(let partnerID)? = try partner.key().first else { Issue.record("partner key"); return }
        let valid = Self.roundTripBody(partnerID: partnerID)
        let flips = zip(Gen.int(in: 0...(valid.count - 1)), Gen.int(in: 0...255)).array(of: 0...4)
        // Half the inputs keep their full length (flips only), the others are cut anywhere.
        let lengths = zip(Gen.int(in: 0...1), Gen.int(in: 0...valid.count)).map { keep, cut in keep == 1 ? valid.count : cut }
        var answered = 0
        var rejected = 0
        await propertyCheck(count: 400, input: lengths, flips) { length, changes in
            var body = Array(valid.prefix(length))
            for (position, byte) in changes where position < body.count { body[position] = UInt8(byte) }
            let response: ODataResponse
            do throws(ODataError) {
                response = try h.service.execute(ODataRequest(.post, "$batch", headers: ["Content-Type": Self.contentType], body: body))
            } catch {
                #expect([3114, 3117, 3118].contains(error.code), "\(error)")
                #expect(error.location?.hasPrefix("offset ") == true, "\(error)")
                rejected += 1
                return
            }
            answered += 1
            #expect(response.status == 200)
            let type = try #require(response.headers["Content-Type"])
            let answer = try MultipartBatchResponse.parse(try #require(response.body), contentType: type)
            #expect(answer.parts.allSatisfy { (100...599).contains($0.response.status) })
        }
        #expect(answered > 20 && rejected > 20, "answered \(answered), rejected \(rejected)")
    }
}
