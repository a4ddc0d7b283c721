import Testing
@testable import OfflineODataModel

/// Exact error texts: a user (and the OData layer on top) relies on name, code, message with the
/// offending text, and location with JSON path, line, column and byte offset.
@Suite struct JSONErrorMessageTests {
    private func error(_ text: String) throws -> ODataError {
        try #require(JSONTesting.domError(Array(text.utf8)))
    }

    @Test func invalidNumberInsideCollectionNamesPathAndPosition() throws {
        let text = #"{"value":[{"ID":1},{"ID":2,"Price":01}]}"#
        let e = try error(text)
        #expect(e.name == "jsonInvalidNumber")
        #expect(e.code == 1203)
        #expect(e.category == .invalidInput)
        #expect(e.message == #"invalid number: leading zero near "01}]}""#)
        #expect(e.location == "$.value[1].Price (line 1, column 36, offset 35)")
        #expect(e.description
            == #"[invalidInput] jsonInvalidNumber (1203): invalid number: leading zero near "01}]}" at $.value[1].Price (line 1, column 36, offset 35)"#)
    }

    @Test func trailingComma() throws {
        let e = try error("[1,]")
        #expect(e.name == "jsonSyntaxError")
        #expect(e.code == 1201)
        #expect(e.message == #"trailing comma before ']' near "]""#)
        #expect(e.location == "$[1] (line 1, column 4, offset 3)")
    }

    @Test func missingColonNamesTheMember() throws {
        let e = try error(#"{"a" 1}"#)
        #expect(e.message == #"unexpected '1': expected ':' after a member name near "1}""#)
        #expect(e.location == "$.a (line 1, column 6, offset 5)")
    }

    @Test func lineAndColumnOnLaterLines() throws {
        let e = try error("{\n  \"value\": [\n    {\"Name\": tru}\n  ]\n}")
        #expect(e.name == "jsonSyntaxError")
        #expect(e.message == #"invalid literal: expected 'true' near "tru}""#)
        #expect(e.location == "$.value[0].Name (line 3, column 14, offset 28)")
    }

    @Test func duplicateMemberPointsAtTheSecondOccurrence() throws {
        let e = try error(#"{"ID":1,"ID":2}"#)
        #expect(e.name == "jsonDuplicateMember")
        #expect(e.code == 1208)
        #expect(e.message == #"duplicate member "ID" near "\"ID\":2}""#)
        #expect(e.location == "$.ID (line 1, column 9, offset 8)")
    }

    @Test func controlMembersUseBracketPaths() throws {
        let e = try error(#"{"@odata.count":-}"#)
        #expect(e.message == #"invalid number: expected a digit after '-' near "-}""#)
        #expect(e.location == #"$["@odata.count"] (line 1, column 17, offset 16)"#)
    }

    @Test func invalidUTF8NamesTheBytes() throws {
        let e = try #require(JSONTesting.domError(Array(#"{"a":""#.utf8) + [0xC0, 0x80] + Array(#""}"#.utf8)))
        #expect(e.name == "jsonInvalidUTF8")
        #expect(e.code == 1206)
        #expect(e.message == "invalid UTF-8 byte 0xC0")
        #expect(e.location == "$.a (line 1, column 7, offset 6)")
        let truncated = try #require(JSONTesting.domError([0x22, 0xE2, 0x82, 0x22]))
        #expect(truncated.message == "truncated UTF-8 sequence 0xE2 0x82")
    }

    @Test func escapeErrorsQuoteTheEscape() throws {
        #expect(try error(#"["\x41"]"#).message == #"invalid escape "\x" in string near "\\x41\"]""#)
        #expect(try error(#"["\u12G4"]"#).message
            == #"invalid escape "\u12G": expected four hex digits near "\\u12G4\"]""#)
        let surrogate = try error(#"{"s":"ab\ud800"}"#)
        #expect(surrogate.name == "jsonInvalidSurrogate")
        #expect(surrogate.code == 1205)
        #expect(surrogate.message
            == #"lone high surrogate \uD800 not followed by a low surrogate near "\\ud800\"}""#)
        #expect(surrogate.location == "$.s (line 1, column 9, offset 8)")
    }

    @Test func controlCharacterIsNamed() throws {
        let e = try error("[\"a\u{1}\"]")
        #expect(e.name == "jsonControlCharacter")
        #expect(e.code == 1207)
        #expect(e.message == #"unescaped control character U+0001 in string near "\u0001\"]""#)
    }

    @Test func emptyAndTruncatedDocuments() throws {
        let empty = try error("")
        #expect(empty.name == "jsonUnexpectedEnd")
        #expect(empty.code == 1202)
        #expect(empty.message == "empty document: expected a JSON value")
        #expect(empty.location == "$ (line 1, column 1, offset 0)")
        let open = try error(#"{"value":["#)
        #expect(open.message == "unexpected end of input: expected a value")
        #expect(open.location == "$.value[0] (line 1, column 11, offset 10)")
        let string = try error(#"["abc"#)
        #expect(string.message == #"unterminated string near "\"abc""#)
        #expect(string.location == "$[0] (line 1, column 2, offset 1)")
    }

    @Test func deepNestingIsATypedErrorNotACrash() throws {
        let e = try #require(JSONTesting.domError(Array(repeating: UInt8(ascii: "["), count: 100_000)))
        #expect(e.name == "jsonDepthLimitExceeded")
        #expect(e.message.hasPrefix("nesting deeper than the limit of 512 levels"))
        #expect(e.location?.hasSuffix("(line 1, column 513, offset 512)") == true)
    }

    @Test func trailingContent() throws {
        let e = try error("{}\n[]")
        #expect(e.message == #"unexpected '[' after the JSON value near "[]""#)
        #expect(e.location == "$ (line 2, column 1, offset 3)")
    }
}
