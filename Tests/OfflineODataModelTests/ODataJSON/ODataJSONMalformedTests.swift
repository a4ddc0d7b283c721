import Testing
import PropertyBased
@testable import OfflineODataModel

/// Bad payloads give typed errors (category, name, code, JSON path), never a crash.
@Suite struct ODataJSONMalformedTests {
    let model: ServiceModel
    let reader: ODataJSONReader

    init() throws {
        model = try ODataJSONTestModel.model()
        reader = ODataJSONReader(model: model)
    }

    func read(_ text: String) throws {
        _ = try reader.readEntity(Array(text.utf8), entitySet: "Items")
    }

    /// `{"ID":1,"Name":"n","Tags":[], <member>}`.
    /// Replaces the base member of the same name, so the object has no duplicate.
    func withMember(_ member: String) throws {
        let name = member.split(separator: ":").first.map(String.init) ?? ""
        let base = [#""ID":1"#, #""Name":"n""#, #""Tags":[]"#].filter { !$0.hasPrefix(name + ":") }
        try read("{" + (base + [member]).joined(separator: ",") + "}")
    }

    @Test("wrong JSON type or text per property kind: invalidPropertyValue with path and offending text",
          arguments: [
              (#""Big":1.5"#, "$.Big", "1.5"), (#""Big":"x""#, "$.Big", "x"), (#""Small":40000"#, "$.Small", "40000"),
              (#""Tiny":-1"#, "$.Tiny", "-1"), (#""Signed":128"#, "$.Signed", "128"), (#""Price":true"#, "$.Price", "true"),
              (#""Price":"1.2.3""#, "$.Price", "1.2.3"), (#""Ratio":"fast""#, "$.Ratio", "fast"),
              (#""Flag":"true""#, "$.Flag", "true"), (#""Flag":1"#, "$.Flag", "1"),
              (#""Stamp":"2024-13-01T00:00:00Z""#, "$.Stamp", "2024-13-01"), (#""Stamp":"2024-02-30T00:00:00Z""#, "$.Stamp", "2024-02-30"),
              (#""Stamp":1700000000"#, "$.Stamp", "1700000000"), (#""Day":"2023-02-29""#, "$.Day", "2023-02-29"),
              (#""Time":"25:00:00""#, "$.Time", "25:00"), (#""Span":"P1Y""#, "$.Span", "P1Y"),
              (#""Uid":"not-a-guid""#, "$.Uid", "not-a-guid"), (#""Blob":"@@@@""#, "$.Blob", "@@@@"),
              (#""Blob":"AQIDB""#, "$.Blob", "AQIDB"), (#""Name":5"#, "$.Name", "5"), (#""Tags":"x""#, "$.Tags", "x"),
              (#""Tags":[1]"#, "$.Tags[0]", "1"), (#""Home":"street""#, "$.Home", "street"),
              (#""Home":{"Street":7}"#, "$.Home.Street", "7"), (#""Addresses":[{"City":"a"},{"City":[]}]"#, "$.Addresses[1].City", "[]"),
              (#""Spot":"POINT(1 2)""#, "$.Spot", "POINT"), (#""Spot":{"type":"Nonsense"}"#, "$.Spot", "Nonsense"),
              (#""Color":{}"#, "$.Color", "{}"), (#""ID":2147483648"#, "$.ID", "2147483648"),
              (#""Price":1e5000"#, "$.Price", "1e5000"),
          ])
    func wrongValues(_ member: String, _ path: String, _ offending: String) {
        let error = ODataJSONTesting.expectError("invalidPropertyValue", code: 1251, path: path) {
            try withMember(member)
        }
        #expect(error?.category == .invalidInput)
        #expect(error?.message.contains(offending) == true, "\(error?.message ?? "")")
    }

    @Test("decimal with more digits than the decimal type holds")
    func hugeDecimal() {
        let digits = String(repeating: "9", count: 5000)
        ODataJSONTesting.expectError("invalidPropertyValue", code: 1251, path: "$.Price") {
            try withMember(#""Price":"# + digits)
        }
    }

    @Test("unknown property, null in non-nullable, missing key")
    func structure() {
        ODataJSONTesting.expectError("unknownProperty", code: 1250, path: "$.Nope") { try withMember(#""Nope":1"#) }
        ODataJSONTesting.expectError("unknownProperty", code: 1250, path: #"$["Nope@odata.bind"]"#) {
            try withMember(#""Nope@odata.bind":"X(1)""#)
        }
        ODataJSONTesting.expectError("nullNotAllowed", code: 1253, path: "$.Name") { try read(#"{"ID":1,"Name":null}"#) }
        ODataJSONTesting.expectError("nullNotAllowed", code: 1253, path: "$.Tags[1]") { try read(#"{"ID":1,"Name":"n","Tags":["a",null]}"#) }
        ODataJSONTesting.expectError("missingKeyProperty", code: 1252, path: "$") { try read(#"{"Name":"n"}"#) }
        ODataJSONTesting.expectError("missingKeyProperty", code: 1252, path: "$.Children[0]") {
            try withMember(#""Children":[{"Name":"c"}]"#)
        }
    }

    @Test("bad @odata.type: unknown, not derived, wrong kind, not a string")
    func badTypes() {
        ODataJSONTesting.expectError("invalidTypeAnnotation", code: 1254, path: #"$["@odata.type"]"#) {
            try read(##"{"@odata.type":"#T.Nope","ID":1,"Name":"n","Tags":[]}"##)
        }
        ODataJSONTesting.expectError("invalidTypeAnnotation", code: 1254, path: #"$["@odata.type"]"#) {
            try read(##"{"@odata.type":"#T.Thing","ID":1,"Name":"n","Tags":[]}"##)
        }
        ODataJSONTesting.expectError("invalidTypeAnnotation", code: 1254, path: #"$.Home["@odata.type"]"#) {
            try withMember(##""Home":{"@odata.type":"#T.Item"}"##)
        }
        ODataJSONTesting.expectError("invalidTypeAnnotation", code: 1254, path: #"$.Home["@odata.type"]"#) {
            try withMember(##""Home":{"@odata.type":"#T.Bag"}"##)
        }
        ODataJSONTesting.expectError("invalidControlInformation", code: 1258, path: #"$["@odata.type"]"#) {
            try read(#"{"@odata.type":5,"ID":1,"Name":"n","Tags":[]}"#)
        }
        ODataJSONTesting.expectError("invalidTypeAnnotation", code: 1254, path: #"$["X@odata.type"]"#) {
            _ = try reader.readEntity(Array(##"{"Key":"k","X@odata.type":"#Edm.Nope","X":1}"##.utf8), entitySet: "Things")
        }
    }

    @Test("control information and navigation of the wrong shape")
    func shapes() {
        ODataJSONTesting.expectError("invalidControlInformation", code: 1258, path: #"$["@odata.etag"]"#) {
            try withMember(#""@odata.etag":1"#)
        }
        ODataJSONTesting.expectError("invalidControlInformation", code: 1258, path: #"$["Children@odata.bind"][1]"#) {
            try withMember(#""Children@odata.bind":["a",2]"#)
        }
        ODataJSONTesting.expectError("invalidControlInformation", code: 1258, path: #"$["Children@odata.count"]"#) {
            try withMember(#""Children":[],"Children@odata.count":-1"#)
        }
        ODataJSONTesting.expectError("invalidPayloadShape", code: 1256, path: "$.Parent") { try withMember(#""Parent":[]"#) }
        ODataJSONTesting.expectError("invalidPayloadShape", code: 1256, path: "$.Children") { try withMember(#""Children":5"#) }
        ODataJSONTesting.expectError("invalidPayloadShape", code: 1256, path: "$") { try read("[1]") }
        ODataJSONTesting.expectError("invalidPayloadShape", code: 1256, path: "$") {
            _ = try reader.readCollection(Array(#"{"value":5}"#.utf8), entitySet: "Items")
        }
        ODataJSONTesting.expectError("invalidPayloadShape", code: 1256, path: "$.value[1]") {
            _ = try reader.readCollection(Array(#"{"value":[{"ID":1,"Name":"n","Tags":[]},"x"]}"#.utf8), entitySet: "Items")
        }
        ODataJSONTesting.expectError("unknownModelElement", code: 1255) {
            _ = try reader.readCollection(Array("[]".utf8), entitySet: "Nope")
        }
    }

    @Test("deep nesting: expanded entities and complex values beyond maxNesting")
    func deepNesting() {
        var text = #"{"ID":0,"Name":"n","Tags":[]}"#
        for depth in 1...80 { text = #"{"ID":\#(depth),"Name":"n","Tags":[],"Parent":"# + text + "}" }
        let error = ODataJSONTesting.expectError("nestingTooDeep", code: 1257) { try read(text) }
        #expect(error?.location?.hasPrefix("$.Parent.Parent") == true)
        var untyped = "1"
        for _ in 0..<200 { untyped = #"{"a":"# + untyped + "}" }
        ODataJSONTesting.expectError("nestingTooDeep", code: 1257, path: "$.Any") { try withMember(#""Any":"# + untyped) }
        // Deeper than the JSON reader allows: its own error.
        let brackets = String(repeating: "[", count: 100_000)
        ODataJSONTesting.expectError("jsonDepthLimitExceeded", code: 1209) { try withMember(#""Any":"# + brackets) }
    }

    @Test("truncated payloads at every offset: a typed error, never a crash (DOM and streaming)")
    func truncation() throws {
        let payload = Array("""
            {"@odata.count":2,"value":[{"ID":1,"Name":"n","Tags":["a"],"Price":12.50,"Stamp":"2024-01-01T00:00:00Z",
            "Home":{"Street":"s"},"Children":[{"ID":2,"Name":"c","Tags":[]}]},{"ID":3,"Name":"m","Tags":[]}],
            "@odata.nextLink":"Items?$skip=2"}
            """.utf8)
        #expect(try reader.readCollection(payload, entitySet: "Items").entities.count == 2)
        for end in 0..<payload.count {
            let prefix = Array(payload[..<end])
            do {
                _ = try reader.readCollection(prefix, entitySet: "Items")
                Issue.record("truncated at \(end) was accepted")
            } catch {
                #expect(error.category == .invalidInput)
                #expect(error.location != nil)
            }
            var stream = try reader.collectionReader(entitySet: "Items")
            do {
                try stream.feed(prefix)
                try stream.finish()
                while try stream.next() != nil {}
                Issue.record("streamed truncation at \(end) was accepted")
            } catch {
                #expect(error.category == .invalidInput)
            }
        }
    }
}

extension ODataJSONMalformedTests {
    static let validPayload = Array("""
        {"@odata.count":2,"value":[{"@odata.type":"#T.SpecialItem","ID":1,"Name":"n","Tags":["a"],"Price":12.50,
        "Stamp":"2024-01-01T00:00:00Z","Color":"Red","Rights":"Read,Write","Blob":"AQID","Uid":"01234567-89ab-cdef-0123-456789abcdef",
        "Home":{"@odata.type":"#T.GeoAddress","Street":"s","Where":{"type":"Point","coordinates":[1,2]}},
        "Children@odata.count":1,"Children":[{"ID":2,"Name":"c","Tags":[]}],"Parent@odata.bind":"Items(0)","Extra2":"e"}],
        "@odata.nextLink":"Items?$skip=2"}
        """.utf8)

    @Test("random byte corruption: the DOM and streaming readers throw typed errors or read, never crash")
    func corruption() async throws {
        let reader = reader
        #expect(try reader.readCollection(Self.validPayload, entitySet: "Items").entities.count == 1)
        let specials: [UInt8] = Array(#"{}[]",:0123456789-.eE"\@#tfnul "#.utf8) + [0x00, 0xC3, 0xFF]
        let edits = zip(Gen.int(in: 0...(Self.validPayload.count - 1)), Gen.int(in: 0...(specials.count - 1)), Gen.int(in: 0...2))
            .array(of: 1...4)
        await propertyCheck(count: 300, input: edits) { edits in
            var bytes = Self.validPayload
            for (position, special, mode) in edits where position < bytes.count {
                switch mode {
                case 0: bytes[position] = specials[special]
                case 1: bytes.insert(specials[special], at: position)
                default: bytes.remove(at: position)
                }
            }
            var domAccepted = true
            do throws(ODataError) {
                _ = try reader.readCollection(bytes, entitySet: "Items")
            } catch {
                domAccepted = false
                #expect(error.category == .invalidInput, "\(error)")
                #expect(error.location != nil, "\(error)")
                #expect((1200...1299).contains(error.code), "\(error)")
            }
            var streamAccepted = true
            do throws(ODataError) {
                var stream = try reader.collectionReader(entitySet: "Items")
                try stream.feed(bytes)
                try stream.finish()
                while try stream.next() != nil {}
            } catch {
                streamAccepted = false
                #expect(error.category == .invalidInput, "\(error)")
            }
            #expect(domAccepted == streamAccepted, "\(String(decoding: bytes, as: UTF8.self))")
        }
    }
}
