import Testing
@testable import OfflineODataModel

/// JSONTestSuite-style cases: `y_` must be accepted (with the given value), `n_` rejected with
/// the given error name. Both readers are checked: the streaming reader must accept exactly the
/// same documents and report exactly the same errors as the DOM reader.
@Suite struct JSONConformanceTests {
    struct Accept: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var expected: JSONValue?
        var testDescription: String { name }
        init(_ name: String, _ text: String, _ expected: JSONValue? = nil) {
            self.name = name
            bytes = Array(text.utf8)
            self.expected = expected
        }
        init(_ name: String, bytes: [UInt8], _ expected: JSONValue? = nil) {
            self.name = name
            self.bytes = bytes
            self.expected = expected
        }
    }

    struct Reject: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var error: String
        var testDescription: String { name }
        init(_ name: String, _ text: String, _ error: String) {
            self.name = name
            bytes = Array(text.utf8)
            self.error = error
        }
        init(_ name: String, bytes: [UInt8], _ error: String) {
            self.name = name
            self.bytes = bytes
            self.error = error
        }
    }

    static let accepted: [Accept] = [
        Accept("y_empty_array", "[]", []),
        Accept("y_empty_object", "{}", [:]),
        Accept("y_nested_empty", "[[],{}]", [[], [:]]),
        Accept("y_object_in_object", #"{"a":{}}"#, ["a": [:]]),
        Accept("y_zero", "0", .number(JSONNumber(unchecked: "0"))),
        Accept("y_negative_zero", "-0", .number(JSONNumber(unchecked: "-0"))),
        Accept("y_negative_zero_fraction", "[-0.0e0]", [.number(JSONNumber(unchecked: "-0.0e0"))]),
        Accept("y_int", "[123]", [123]),
        Accept("y_negative_int", "[-1]", [-1]),
        Accept("y_fraction", "[1.5]", [.number(JSONNumber(unchecked: "1.5"))]),
        Accept("y_exponent", "[1e5,1E+5,1e-5]", [
            .number(JSONNumber(unchecked: "1e5")), .number(JSONNumber(unchecked: "1E+5")),
            .number(JSONNumber(unchecked: "1e-5")),
        ]),
        Accept("y_huge_exponent_kept", "[1e400]", [.number(JSONNumber(unchecked: "1e400"))]),
        Accept("y_long_integer_kept", "[123456789012345678901234567890]",
               [.number(JSONNumber(unchecked: "123456789012345678901234567890"))]),
        Accept("y_decimal_scale_kept", #"{"Price":2296.90}"#, ["Price": .number(JSONNumber(unchecked: "2296.90"))]),
        Accept("y_int64_max", "[9223372036854775807]", [.number(JSONNumber(unchecked: "9223372036854775807"))]),
        Accept("y_string", #""abc""#, "abc"),
        Accept("y_empty_string", #""""#, ""),
        Accept("y_escaped_nul", #"["\u0000"]"#, ["\u{0}"]),
        Accept("y_simple_escapes", #"["\"\\\/\b\f\n\r\t"]"#, ["\"\\/\u{8}\u{C}\n\r\t"]),
        Accept("y_surrogate_pair", #"["\ud83d\ude00"]"#, ["😀"]),
        Accept("y_max_scalar_pair", #"["\uDBFF\uDFFF"]"#, ["\u{10FFFF}"]),
        Accept("y_unicode_escape_latin", #"["\u00e9\u20AC"]"#, ["é€"]),
        Accept("y_raw_utf8", #"["é€😀"]"#, ["é€😀"]),
        Accept("y_noncharacter", #"["\uFFFF"]"#, ["\u{FFFF}"]),
        Accept("y_line_separator_raw", "[\"\u{2028}\u{2029}\"]", ["\u{2028}\u{2029}"]),
        Accept("y_del_raw", "[\"\u{7F}\"]", ["\u{7F}"]),
        Accept("y_bom_inside_string", "[\"\u{FEFF}\"]", ["\u{FEFF}"]),
        Accept("y_true", "true", true),
        Accept("y_false", "false", false),
        Accept("y_null", "null", nil),
        Accept("y_whitespace_around", " \t\r\n[1] \n", [1]),
        Accept("y_whitespace_everywhere", "{ \"a\" : 1 ,\n\t\"b\" : [ true , false , null ] }",
               ["a": 1, "b": [true, false, nil]]),
        Accept("y_leading_bom_skipped", bytes: [0xEF, 0xBB, 0xBF] + Array("[1]".utf8), [1]),
        Accept("y_empty_key", #"{"":1}"#, ["": 1]),
        Accept("y_keys_case_sensitive", #"{"a":1,"A":2}"#, ["a": 1, "A": 2]),
        Accept("y_member_order_kept", #"{"b":1,"a":2}"#, ["b": 1, "a": 2]),
        Accept("y_escaped_key", #"{"\u0041\n":1}"#, ["A\n": 1]),
        Accept("y_depth_512", String(repeating: "[", count: 512) + String(repeating: "]", count: 512)),
        Accept("y_long_string", "[\"" + String(repeating: "abcdefgh", count: 1000) + "\"]",
               [.string(String(repeating: "abcdefgh", count: 1000))]),
    ]

    static let rejected: [Reject] = [
        Reject("n_empty", "", "jsonUnexpectedEnd"),
        Reject("n_whitespace_only", " \n\t ", "jsonUnexpectedEnd"),
        Reject("n_bom_only", "\u{FEFF}", "jsonUnexpectedEnd"),
        Reject("n_array_trailing_comma", "[1,]", "jsonSyntaxError"),
        Reject("n_object_trailing_comma", #"{"a":1,}"#, "jsonSyntaxError"),
        Reject("n_missing_colon", #"{"a" 1}"#, "jsonSyntaxError"),
        Reject("n_double_colon", #"{"a"::1}"#, "jsonSyntaxError"),
        Reject("n_leading_zero", "[01]", "jsonInvalidNumber"),
        Reject("n_negative_leading_zero", "-01", "jsonInvalidNumber"),
        Reject("n_fraction_without_digits", "[1.]", "jsonInvalidNumber"),
        Reject("n_dot_exponent", "[1.e1]", "jsonInvalidNumber"),
        Reject("n_leading_dot", "[.5]", "jsonSyntaxError"),
        Reject("n_plus_sign", "[+1]", "jsonSyntaxError"),
        Reject("n_minus_only", "[-]", "jsonInvalidNumber"),
        Reject("n_minus_at_end", "-", "jsonInvalidNumber"),
        Reject("n_exponent_without_digits", "[1e]", "jsonInvalidNumber"),
        Reject("n_exponent_sign_only", "[1e+]", "jsonInvalidNumber"),
        Reject("n_fractional_exponent", "[1e1.5]", "jsonSyntaxError"),
        Reject("n_hex_number", "[0x1F]", "jsonSyntaxError"),
        Reject("n_nan", "[NaN]", "jsonSyntaxError"),
        Reject("n_infinity", "[Infinity]", "jsonSyntaxError"),
        Reject("n_unterminated_string", #"["abc"#, "jsonUnexpectedEnd"),
        Reject("n_unterminated_escape", #"["\"#, "jsonUnexpectedEnd"),
        Reject("n_bad_escape_x", #"["\x41"]"#, "jsonInvalidEscape"),
        Reject("n_bad_escape_uppercase_u", #"["\U0041"]"#, "jsonInvalidEscape"),
        Reject("n_short_unicode_escape", #"["\u12"]"#, "jsonInvalidEscape"),
        Reject("n_bad_hex_digit", #"["\u12G4"]"#, "jsonInvalidEscape"),
        Reject("n_lone_high_surrogate", #"["\ud800"]"#, "jsonInvalidSurrogate"),
        Reject("n_lone_low_surrogate", #"["\udc00"]"#, "jsonInvalidSurrogate"),
        Reject("n_high_surrogate_then_ascii", #"["\ud800\u0041"]"#, "jsonInvalidSurrogate"),
        Reject("n_high_surrogate_then_text", #"["\ud800x"]"#, "jsonInvalidSurrogate"),
        Reject("n_two_high_surrogates", #"["\ud800\ud800"]"#, "jsonInvalidSurrogate"),
        Reject("n_utf8_overlong_nul", bytes: [0x22, 0xC0, 0x80, 0x22], "jsonInvalidUTF8"),
        Reject("n_utf8_ff", bytes: [0x22, 0xFF, 0x22], "jsonInvalidUTF8"),
        Reject("n_utf8_overlong_3byte", bytes: [0x22, 0xE0, 0x80, 0x80, 0x22], "jsonInvalidUTF8"),
        Reject("n_utf8_overlong_4byte", bytes: [0x22, 0xF0, 0x80, 0x80, 0x80, 0x22], "jsonInvalidUTF8"),
        Reject("n_utf8_encoded_surrogate", bytes: [0x22, 0xED, 0xA0, 0x80, 0x22], "jsonInvalidUTF8"),
        Reject("n_utf8_above_10ffff", bytes: [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], "jsonInvalidUTF8"),
        Reject("n_utf8_truncated", bytes: [0x22, 0xE2, 0x82, 0x22], "jsonInvalidUTF8"),
        Reject("n_utf8_lone_continuation", bytes: [0x5B, 0x22, 0x80, 0x22, 0x5D], "jsonInvalidUTF8"),
        Reject("n_utf8_in_key", bytes: Array(#"{""#.utf8) + [0xC1, 0xBF] + Array(#"":1}"#.utf8), "jsonInvalidUTF8"),
        Reject("n_utf8_outside_string", bytes: [0x5B, 0xC3, 0xA9, 0x5D], "jsonSyntaxError"),
        Reject("n_control_char_in_string", "[\"a\u{1}b\"]", "jsonControlCharacter"),
        Reject("n_newline_in_string", "[\"a\nb\"]", "jsonControlCharacter"),
        Reject("n_tab_in_string", "[\"a\tb\"]", "jsonControlCharacter"),
        Reject("n_nul_in_string", "[\"\u{0}\"]", "jsonControlCharacter"),
        Reject("n_missing_comma_array", "[1 2]", "jsonSyntaxError"),
        Reject("n_missing_comma_object", #"{"a":1 "b":2}"#, "jsonSyntaxError"),
        Reject("n_unquoted_key", "{a:1}", "jsonSyntaxError"),
        Reject("n_single_quotes", "{'a':1}", "jsonSyntaxError"),
        Reject("n_extra_close", "[1]]", "jsonSyntaxError"),
        Reject("n_trailing_garbage", "[1] x", "jsonSyntaxError"),
        Reject("n_two_values", #""a" "b""#, "jsonSyntaxError"),
        Reject("n_line_comment", "// c\n[1]", "jsonSyntaxError"),
        Reject("n_block_comment", "[1/*c*/]", "jsonSyntaxError"),
        Reject("n_truncated_true", "tru", "jsonUnexpectedEnd"),
        Reject("n_misspelled_true", "[trux]", "jsonSyntaxError"),
        Reject("n_capital_true", "[True]", "jsonSyntaxError"),
        Reject("n_truncated_null", "[nul", "jsonUnexpectedEnd"),
        Reject("n_open_array", "[", "jsonUnexpectedEnd"),
        Reject("n_open_object", "{", "jsonUnexpectedEnd"),
        Reject("n_object_key_only", #"{"a""#, "jsonUnexpectedEnd"),
        Reject("n_object_no_value", #"{"a":"#, "jsonUnexpectedEnd"),
        Reject("n_array_after_comma", "[1,", "jsonUnexpectedEnd"),
        Reject("n_array_after_value", "[1", "jsonUnexpectedEnd"),
        Reject("n_double_comma", "[1,,2]", "jsonSyntaxError"),
        Reject("n_leading_comma", "[,1]", "jsonSyntaxError"),
        Reject("n_object_comma_only", "{,}", "jsonSyntaxError"),
        Reject("n_object_extra_close", #"{"a":1}}"#, "jsonSyntaxError"),
        Reject("n_array_closed_by_brace", "[1}", "jsonSyntaxError"),
        Reject("n_object_closed_by_bracket", #"{"a":1]"#, "jsonSyntaxError"),
        Reject("n_bom_in_middle", bytes: Array("[1]".utf8) + [0xEF, 0xBB, 0xBF], "jsonSyntaxError"),
        Reject("n_two_boms", bytes: [0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF] + Array("[1]".utf8), "jsonSyntaxError"),
        Reject("n_nul_after_value", bytes: Array("[1]".utf8) + [0], "jsonSyntaxError"),
        Reject("n_nbsp_whitespace", "\u{A0}[1]", "jsonSyntaxError"),
        Reject("n_vertical_tab_whitespace", "[1,\u{B}2]", "jsonSyntaxError"),
        Reject("n_duplicate_member", #"{"a":1,"a":2}"#, "jsonDuplicateMember"),
        Reject("n_duplicate_nested", #"{"a":1,"b":{"c":1,"d":2,"c":3}}"#, "jsonDuplicateMember"),
        Reject("n_depth_513", String(repeating: "[", count: 513) + String(repeating: "]", count: 513),
               "jsonDepthLimitExceeded"),
        Reject("n_depth_100k", String(repeating: "[", count: 100_000), "jsonDepthLimitExceeded"),
        Reject("n_depth_100k_objects", String(repeating: #"{"a":"#, count: 100_000), "jsonDepthLimitExceeded"),
    ]

    @Test(arguments: accepted)
    func domReaderAccepts(_ sample: Accept) throws {
        let value = try JSONReader.parse(sample.bytes)
        if let expected = sample.expected { #expect(value == expected) }
        #expect(try JSONReader.parse(value.serialized()) == value)
    }

    @Test(arguments: accepted)
    func streamReaderAcceptsWithSameEvents(_ sample: Accept) throws {
        let expected = JSONTesting.events(of: try JSONReader.parse(sample.bytes))
        #expect(try JSONTesting.streamEvents(sample.bytes, cuts: []) == expected)
        #expect(try JSONTesting.streamEvents(sample.bytes, chunkSize: 1) == expected)
    }

    @Test(arguments: rejected)
    func domReaderRejects(_ sample: Reject) throws {
        let error = try #require(JSONTesting.domError(sample.bytes))
        #expect(error.name == sample.error)
        #expect(error.category == .invalidInput)
        #expect((1200...1299).contains(error.code))
        #expect(error.location?.contains("offset") == true)
    }

    @Test(arguments: rejected.filter { !$0.error.hasSuffix("DuplicateMember") })
    func streamReaderRejectsWithSameError(_ sample: Reject) throws {
        let domError = try #require(JSONTesting.domError(sample.bytes))
        // One chunk: the reader sees what the DOM reader sees, so the error is identical.
        #expect(JSONTesting.streamError(sample.bytes, cuts: []) == domError)
        // Byte by byte: same kind and location (the "near" snippet only has the bytes fed so far).
        let split = try #require(JSONTesting.streamError(sample.bytes, cuts: Array(0...sample.bytes.count)))
        #expect(split.name == domError.name)
        #expect(split.code == domError.code)
        #expect(split.location == domError.location)
    }

    @Test func caseCountsMeetTheBar() {
        #expect(Self.accepted.count + Self.rejected.count >= 60)
    }

    @Test func byteOrderMarkCanBeRejected() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("[1]".utf8)
        let options = JSONReaderOptions(allowsByteOrderMark: false)
        let error = try #require(JSONTesting.domError(bytes, options: options))
        #expect(error.name == "jsonSyntaxError")
        #expect(error.message.hasPrefix("byte order mark not allowed"))
        #expect(JSONTesting.streamError(bytes, cuts: [], options: options) == error)
        #expect(JSONTesting.streamError(bytes, cuts: [1, 2], options: options) == error)
        #expect(try JSONTesting.streamEvents(bytes, cuts: [1, 2]) == [.startArray, .number(JSONNumber(1)), .endArray])
    }

    @Test func depthLimitIsConfigurable() throws {
        let three = Array("[[[1]]]".utf8)
        #expect(try JSONReader.parse(three, options: JSONReaderOptions(maxDepth: 3)) == [[[1]]])
        let error = try #require(JSONTesting.domError(three, options: JSONReaderOptions(maxDepth: 2)))
        #expect(error.name == "jsonDepthLimitExceeded")
        #expect(error.code == 1209)
        #expect(error.location == "$[0][0] (line 1, column 3, offset 2)")
    }

    @Test func documentSizeLimit() throws {
        let bytes = Array("[1,2,3]".utf8)
        #expect(try JSONReader.parse(bytes, options: JSONReaderOptions(maxDocumentSize: 7)) == [1, 2, 3])
        let error = try #require(JSONTesting.domError(bytes, options: JSONReaderOptions(maxDocumentSize: 6)))
        #expect(error.name == "jsonDocumentTooLarge")
        #expect(error.code == 1210)
        let streamed = try #require(
            JSONTesting.streamError(bytes, cuts: [3], options: JSONReaderOptions(maxDocumentSize: 6)))
        #expect(streamed.name == "jsonDocumentTooLarge")
        #expect(streamed.location == "$[1] (offset 6)")
    }
}
