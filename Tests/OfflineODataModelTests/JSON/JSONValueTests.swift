import Testing
@testable import OfflineODataModel

@Suite struct JSONValueTests {
    @Test func numbersKeepTheirText() throws {
        for literal in ["2296.90", "14.0000", "1e400", "-0", "1234567890123456789", "0.000000000000000000001"] {
            let value = try JSONReader.parse("[\(literal)]")
            #expect(value[0]?.numberValue?.text == literal)
            #expect(String(decoding: value.serialized(), as: UTF8.self) == "[\(literal)]")
        }
        #expect(JSONNumber(unchecked: "1.0") != JSONNumber(unchecked: "1.00"))
    }

    @Test func int64Value() throws {
        #expect(try JSONNumber(validating: "9223372036854775807").int64Value == Int64.max)
        #expect(try JSONNumber(validating: "-9223372036854775808").int64Value == Int64.min)
        #expect(try JSONNumber(validating: "9223372036854775808").int64Value == nil)
        #expect(try JSONNumber(validating: "-0").int64Value == 0)
        #expect(try JSONNumber(validating: "1.0").int64Value == nil)
        #expect(try JSONNumber(validating: "1e2").int64Value == nil)
        #expect(try JSONNumber(validating: "12").isInteger)
        #expect(try !JSONNumber(validating: "12.5").isInteger)
        #expect(try !JSONNumber(validating: "12E3").isInteger)
    }

    @Test func doubleValue() throws {
        #expect(try JSONNumber(validating: "2296.90").doubleValue == 2296.9)
        #expect(try JSONNumber(validating: "-1.5e-3").doubleValue == -0.0015)
        #expect(try JSONNumber(validating: "1e400").doubleValue == nil)
        #expect(try JSONNumber(validating: "-1e400").doubleValue == nil)
        #expect(try JSONNumber(validating: "1e-400").doubleValue == 0)
        #expect(JSONNumber(0.1)?.text == "0.1")
        #expect(JSONNumber(Double.nan) == nil)
        #expect(JSONNumber(Int64(-42)).text == "-42")
    }

    @Test func validatingRejectsNonNumbers() {
        for text in ["", "01", "-", "1.", ".1", "+1", "1e", "1 ", "١"] {
            let error = #expect(throws: ODataError.self) { try JSONNumber(validating: text) }
            #expect(error?.name == "jsonInvalidNumber", "\(text)")
        }
    }

    @Test func objectKeepsOrderAndLooksUpByKey() throws {
        var object = try JSONObject(members: [("b", 1), ("a", 2)])
        #expect(object.keys == ["b", "a"])
        #expect(object["a"] == 2)
        #expect(object["c"] == nil)
        object["c"] = 3
        object["b"] = 10
        #expect(object.keys == ["b", "a", "c"])
        #expect(object["b"] == 10)
        object["a"] = nil
        #expect(object.keys == ["b", "c"])
        #expect(object.map(\.key) == ["b", "c"])
        #expect(object.index(forKey: "c") == 1)
        #expect(JSONValue.object(object) != .object(try JSONObject(members: [("c", 3), ("b", 10)])))
    }

    @Test func objectRejectsDuplicates() throws {
        let error = #expect(throws: ODataError.self) { try JSONObject(members: [("a", 1), ("b", 2), ("a", 3)]) }
        #expect(error?.name == "jsonDuplicateMember")
        #expect(error?.message == #"duplicate member "a""#)
        var object = JSONObject()
        try object.append(key: "x", value: nil)
        #expect(throws: ODataError.self) { try object.append(key: "x", value: 1) }
        // Many members take the hashed path.
        let many = (0..<40).map { ("k\($0)", JSONValue.null) } + [("k7", JSONValue.null)]
        #expect(throws: ODataError.self) { try JSONObject(members: many) }
        let text = "{" + (0..<40).map { #""k\#($0)":0"# }.joined(separator: ",") + #","k39":1}"#
        let parsed = #expect(throws: ODataError.self) { try JSONReader.parse(text) }
        #expect(parsed?.location?.hasPrefix("$.k39 ") == true)
    }

    @Test func objectsOfOneShapeKeepTheirOwnNamesAndValues() throws {
        // An object whose names equal an earlier object's shares that object's name array
        // (JSONDOMParser's shape cache): reordered, different, escaped and duplicated names
        // must still come out as written, and values stay each object's own.
        let value = try JSONReader.parse(
            #"[{"a":1,"b":2},{"a":3,"b":4},{"b":5,"a":6},{"a":7,"bb":8},{"\u0061":9,"b":10}]"#)
        let objects = try #require(value.arrayValue).map(\.objectValue)
        #expect(objects.map { $0?.keys } == [["a", "b"], ["a", "b"], ["b", "a"], ["a", "bb"], ["a", "b"]])
        #expect(objects.map { $0?["a"] } == [1, 3, 6, 7, 9])
        // Canonically equivalent spellings are different names, byte for byte.
        let spellings = try JSONReader.parse("[{\"\u{E9}\":1},{\"e\u{301}\":2},{\"\u{E9}\":3}]")
        let names = try #require(spellings.arrayValue).map { Array($0.objectValue?.keys.first?.utf8 ?? "".utf8) }
        #expect(names == [Array("\u{E9}".utf8), Array("e\u{301}".utf8), Array("\u{E9}".utf8)])
        let error = #expect(throws: ODataError.self) { try JSONReader.parse(#"[{"a":1,"b":2},{"a":1,"a":2}]"#) }
        #expect(error?.name == "jsonDuplicateMember")
        #expect(error?.location?.hasPrefix("$[1].a ") == true)
    }

    @Test func wideObjectsUseTheHashedDuplicateCheck() throws {
        let names = (0..<100).map { "Property_with_a_long_name_\($0)" }
        let text = "{" + names.map { #""\#($0)":1"# }.joined(separator: ",") + "}"
        let object = try #require(try JSONReader.parse(text).objectValue)
        #expect(object.keys == names)
        let duplicated = "{" + names.map { #""\#($0)":1"# }.joined(separator: ",") + #","Property_with_a_long_name_3":2}"#
        let error = #expect(throws: ODataError.self) { try JSONReader.parse(duplicated) }
        #expect(error?.name == "jsonDuplicateMember")
        #expect(error?.location?.hasPrefix("$.Property_with_a_long_name_3 ") == true)
        // An escaped spelling of the same name is the same name.
        let escaped = #"{"ab":1,"\u0061b":2}"#
        #expect(throws: ODataError.self) { try JSONReader.parse(escaped) }
        var stream = JSONCollectionStream()
        try stream.feed(Array("[\(duplicated)]".utf8))
        try stream.finish()
        #expect(throws: ODataError.self) { while try stream.next() != nil {} }
    }

    @Test func accessors() throws {
        let value = try JSONReader.parse(#"{"s":"x","n":1,"b":false,"a":[null],"o":{}}"#)
        #expect(value["s"]?.stringValue == "x")
        #expect(value["n"]?.numberValue?.int64Value == 1)
        #expect(value["b"]?.boolValue == false)
        #expect(value["a"]?[0]?.isNull == true)
        #expect(value["a"]?[1] == nil)
        #expect(value["o"]?.objectValue?.isEmpty == true)
        #expect(value["s"]?.numberValue == nil)
        #expect(value.arrayValue == nil)
    }

    @Test func readsFromStringsBuffersAndArraysAlike() throws {
        let text = #"{"a":[1,"é"]}"#
        let fromString = try JSONReader.parse(text)
        let fromArray = try JSONReader.parse(Array(text.utf8))
        let fromRaw = try Array(text.utf8).withUnsafeBytes { raw in try JSONReader.parse(raw) }
        #expect(fromString == fromArray)
        #expect(fromRaw == fromArray)
    }
}
