import Testing
@testable import OfflineODataModel

@Suite struct JSONWriterTests {
    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func escapesOnlyWhatJSONRequires() throws {
        var writer = JSONWriter()
        writer.string("q\"b\\s/\u{8}\u{C}\n\r\t\u{1}\u{1F}\u{7F}é😀\u{2028}")
        #expect(text(try writer.finish()) == "\"q\\\"b\\\\s/\\b\\f\\n\\r\\t\\u0001\\u001f\u{7F}é😀\u{2028}\"")
    }

    @Test func lineSeparatorsCanBeEscaped() throws {
        var writer = JSONWriter(options: JSONWriter.Options(escapesLineSeparators: true))
        writer.string("a\u{2028}b\u{2029}c")
        #expect(text(try writer.finish()) == #""a\u2028b\u2029c""#)
    }

    @Test func compactStructure() throws {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("@odata.context")
        writer.string("$metadata#P")
        writer.key("value")
        writer.beginArray()
        writer.beginObject()
        writer.key("ID")
        writer.number(Int64(9_223_372_036_854_775_807))
        writer.key("Price")
        writer.number(raw: "2296.90")
        writer.key("Rate")
        writer.number(0.1)
        writer.key("Ok")
        writer.bool(true)
        writer.key("Note")
        writer.null()
        writer.endObject()
        writer.beginArray()
        writer.endArray()
        writer.endArray()
        writer.endObject()
        #expect(writer.isComplete)
        #expect(text(try writer.finish())
            == #"{"@odata.context":"$metadata#P","value":[{"ID":9223372036854775807,"Price":2296.90,"Rate":0.1,"Ok":true,"Note":null},[]]}"#)
    }

    @Test func prettyOutput() throws {
        let value: JSONValue = ["a": [1, [:], []], "b": ["c": nil]]
        let pretty = text(value.serialized(options: JSONWriter.Options(pretty: true)))
        #expect(pretty == """
            {
              "a": [
                1,
                {},
                []
              ],
              "b": {
                "c": null
              }
            }
            """)
        let four = text(JSONValue.array([1]).serialized(options: JSONWriter.Options(pretty: true, indentWidth: 4)))
        #expect(four == "[\n    1\n]")
    }

    @Test func misuseIsRecordedAndThrownByFinish() throws {
        var keyOutside = JSONWriter()
        keyOutside.key("a")
        #expect(keyOutside.error?.name == "jsonWriterMisuse")
        #expect(keyOutside.error?.code == 1214)
        let recorded = try #require(keyOutside.error)
        #expect(throws: recorded) { try keyOutside.finish() }

        var valueWithoutKey = JSONWriter()
        valueWithoutKey.beginObject()
        valueWithoutKey.number(1)
        #expect(valueWithoutKey.error?.message == "a number written in an object where a key is due")

        var twoValues = JSONWriter()
        twoValues.null()
        twoValues.null()
        #expect(twoValues.error?.message == "null written after the complete top-level value")

        var unclosed = JSONWriter()
        unclosed.beginArray()
        let error = #expect(throws: ODataError.self) { try unclosed.finish() }
        #expect(error?.message == "1 container(s) still open")

        var mismatched = JSONWriter()
        mismatched.beginArray()
        mismatched.endObject()
        #expect(mismatched.error?.name == "jsonWriterMisuse")

        let empty = JSONWriter()
        #expect(throws: ODataError.self) { try empty.finish() }
    }

    @Test func invalidNumbersAreRejected() throws {
        for raw in ["01", "1.", "+1", "", " 1", "0x10", "NaN", "1e", "--1"] {
            var writer = JSONWriter()
            writer.number(raw: raw)
            #expect(writer.error?.name == "jsonInvalidNumber", "\(raw)")
            #expect(writer.error?.message == "\"\(raw)\" is not a valid JSON number")
        }
        var nan = JSONWriter()
        nan.number(Double.nan)
        #expect(nan.error?.name == "jsonNonFiniteNumber")
        #expect(nan.error?.code == 1215)
        var infinity = JSONWriter()
        infinity.number(-Double.infinity)
        #expect(infinity.error?.message == "-inf has no JSON representation")
    }

    @Test func takeBytesStreamsTheSameText() throws {
        let value: JSONValue = ["value": [["ID": 1], ["ID": 2], ["ID": 3]]]
        var writer = JSONWriter()
        var streamed: [UInt8] = []
        writer.beginObject()
        writer.key("value")
        writer.beginArray()
        for element in value["value"]?.arrayValue ?? [] {
            writer.value(element)
            streamed += writer.takeBytes()
        }
        writer.endArray()
        writer.endObject()
        streamed += try writer.finish()
        #expect(streamed == value.serialized())
    }

    @Test func descriptionIsCompactJSON() {
        let value: JSONValue = ["n": 1.5, "s": "x\"y", "l": [true, nil]]
        #expect(value.description == #"{"n":1.5,"s":"x\"y","l":[true,null]}"#)
    }
}
