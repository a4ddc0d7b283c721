import Testing
@testable import OfflineODataModel

@Suite struct JSONStreamReaderTests {
    /// Documents with every kind of token, escapes, surrogate pairs, multi-byte UTF-8, numbers
    /// and literals at the very end, and a byte order mark.
    static let tricky: [[UInt8]] = [
        Array(#"{"a\"b":"x\\y\u00e9\ud83d\ude00é😀","n":[-0.5e+10,12345678901234567890,0,1e400],"t":true,"f":false,"z":null}"#.utf8),
        Array("[\n  {\"k\": \"v\"},\n  [],\n  {}\n]\n".utf8),
        Array("-12.5e-3".utf8),
        Array(#""\u0041\n""#.utf8),
        Array("null".utf8),
        Array("  false  ".utf8),
        [0xEF, 0xBB, 0xBF] + Array(#"{"@odata.count":3}"#.utf8),
    ]

    @Test(arguments: tricky)
    func everySplitPointGivesTheSameEvents(_ bytes: [UInt8]) throws {
        let expected = JSONTesting.events(of: try JSONReader.parse(bytes))
        for cut in 0...bytes.count {
            #expect(try JSONTesting.streamEvents(bytes, cuts: [cut]) == expected, "cut at \(cut)")
        }
    }

    @Test(arguments: tricky.filter { $0.count <= 40 })
    func everyPairOfSplitPointsGivesTheSameEvents(_ bytes: [UInt8]) throws {
        let expected = JSONTesting.events(of: try JSONReader.parse(bytes))
        for first in 0...bytes.count {
            for second in first...bytes.count {
                #expect(try JSONTesting.streamEvents(bytes, cuts: [first, second]) == expected)
            }
        }
    }

    @Test func eventsCarryExactNumberTextAndPath() throws {
        var reader = JSONStreamReader()
        try reader.feed(Array(#"{"value":[{"Price":14.0000}]}"#.utf8))
        try reader.finish()
        var events: [JSONEvent] = []
        var pathAtPrice = ""
        while let event = try reader.next() {
            if case .number = event { pathAtPrice = reader.path }
            events.append(event)
        }
        #expect(events == [
            .startObject, .key("value"), .startArray, .startObject, .key("Price"),
            .number(JSONNumber(unchecked: "14.0000")), .endObject, .endArray, .endObject,
        ])
        #expect(pathAtPrice == "$.value[0].Price")
        #expect(reader.isComplete)
        #expect(reader.depth == 0)
    }

    @Test func reportsNothingUntilATokenIsComplete() throws {
        var reader = JSONStreamReader()
        try reader.feed(Array(#"["abc"#.utf8))
        #expect(try reader.next() == .startArray)
        #expect(try reader.next() == nil)
        #expect(!reader.isComplete)
        try reader.feed(Array(#"def", 12"#.utf8))
        #expect(try reader.next() == .string("abcdef"))
        // "12" could go on ("123"): not reported before more input or finish().
        #expect(try reader.next() == nil)
        try reader.feed(Array("3]".utf8))
        #expect(try reader.next() == .number(JSONNumber(unchecked: "123")))
        #expect(try reader.next() == .endArray)
        #expect(try reader.next() == nil)
        #expect(!reader.isComplete)
        try reader.finish()
        #expect(try reader.next() == nil)
        #expect(reader.isComplete)
    }

    @Test func bufferHoldsOnlyTheUnfinishedToken() throws {
        var reader = JSONStreamReader()
        try reader.feed(Array(#"[{"Name":"a long na"#.utf8))
        while try reader.next() != nil {}
        #expect(reader.bufferedByteCount == #""a long na"#.utf8.count)
        try reader.feed(Array(#"me"},"#.utf8))
        while try reader.next() != nil {}
        #expect(reader.bufferedByteCount == 0)
    }

    @Test func longStringInTinyChunks() throws {
        let content = String(repeating: "abc\\\"é\\u00e9", count: 4000)
        let bytes = Array("[\"\(content)\"]".utf8)
        let expected = try JSONReader.parse(bytes)
        var reader = JSONStreamReader()
        var events: [JSONEvent] = []
        var peak = 0
        var start = 0
        while start < bytes.count {
            let end = min(start + 3, bytes.count)
            try reader.feed(Array(bytes[start..<end]))
            while let event = try reader.next() { events.append(event) }
            peak = max(peak, reader.bufferedByteCount)
            start = end
        }
        try reader.finish()
        while let event = try reader.next() { events.append(event) }
        #expect(events == JSONTesting.events(of: expected))
        #expect(peak <= bytes.count)
        #expect(peak >= bytes.count - 4)
    }

    @Test func tokenSizeLimitBoundsTheBuffer() throws {
        var reader = JSONStreamReader(options: JSONReaderOptions(maxTokenSize: 16))
        try reader.feed(Array(#"["0123456789"#.utf8))
        #expect(try reader.next() == .startArray)
        #expect(try reader.next() == nil)
        try reader.feed(Array("0123456789".utf8))
        let error = try #require(throws: ODataError.self) { try reader.next() }
        #expect(error.name == "jsonTokenTooLarge")
        #expect(error.code == 1211)
        #expect(error.location == "$[0] (line 1, column 2, offset 1)")
        // The error is sticky.
        #expect(throws: error) { try reader.next() }
    }

    @Test func brokenUnfinishedStringFailsWithoutWaitingForTheEnd() throws {
        var reader = JSONStreamReader()
        try reader.feed(Array("[\"ab\n".utf8))
        #expect(try reader.next() == .startArray)
        let error = try #require(throws: ODataError.self) { try reader.next() }
        #expect(error.name == "jsonControlCharacter")
        #expect(error.location == "$[0] (line 1, column 5, offset 4)")
    }

    @Test func feedAfterFinishIsMisuse() throws {
        var reader = JSONStreamReader()
        try reader.feed(Array("[]".utf8))
        try reader.finish()
        let error = #expect(throws: ODataError.self) { try reader.feed(Array(" ".utf8)) }
        #expect(error?.name == "jsonStreamMisuse")
        #expect(error?.code == 1212)
        #expect(error?.category == .preconditionFailed)
    }

    @Test func truncatedDocumentFailsAtFinish() throws {
        var reader = JSONStreamReader()
        try reader.feed(Array(#"{"a":[1,2"#.utf8))
        while try reader.next() != nil {}
        try reader.finish()
        let error = #expect(throws: ODataError.self) { while try reader.next() != nil {} }
        #expect(error?.name == "jsonUnexpectedEnd")
        #expect(error?.message == "unexpected end of input: expected ',' or ']'")
        #expect(error?.location == "$.a[2] (line 1, column 10, offset 9)")
    }

    @Test func lineNumbersAcrossChunks() throws {
        let bytes = Array("[\n1,\n2,\n  x]".utf8)
        let error = try #require(JSONTesting.streamError(bytes, cuts: [2, 5, 9]))
        #expect(error.location == "$[2] (line 4, column 3, offset 10)")
        #expect(error == JSONTesting.domError(bytes).map { dom in
            var same = dom
            same.message = error.message
            return same
        })
    }
}
