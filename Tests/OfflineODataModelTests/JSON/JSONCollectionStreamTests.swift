import Testing
@testable import OfflineODataModel

@Suite struct JSONCollectionStreamTests {
    private func items(_ text: String, chunk: Int = 5) throws -> ([JSONCollectionItem], JSONCollectionStream) {
        let bytes = Array(text.utf8)
        return try JSONTesting.collectionItems(bytes, cuts: Array(stride(from: chunk, to: bytes.count, by: chunk)))
    }

    @Test func v4PayloadWithControlsBeforeAndAfter() throws {
        let (got, stream) = try items(
            #"{"@odata.context":"$metadata#Products","@odata.count":2,"value":[{"ID":1,"Price":2296.90},{"ID":2,"Price":null}],"@odata.nextLink":"Products?$skiptoken=2"}"#)
        #expect(got == [
            .control(name: "@odata.context", value: "$metadata#Products"),
            .control(name: "@odata.count", value: 2),
            .element(["ID": 1, "Price": .number(JSONNumber(unchecked: "2296.90"))]),
            .element(["ID": 2, "Price": nil]),
            .control(name: "@odata.nextLink", value: "Products?$skiptoken=2"),
        ])
        #expect(stream.context == "$metadata#Products")
        #expect(stream.count == 2)
        #expect(stream.nextLink == "Products?$skiptoken=2")
        #expect(stream.deltaLink == nil)
        #expect(stream.elementCount == 2)
        #expect(stream.controlInformation.keys == ["@odata.context", "@odata.count", "@odata.nextLink"])
    }

    @Test func v4DeltaLinkAndEmptyCollection() throws {
        let (got, stream) = try items(#"{"value":[],"@odata.deltaLink":"Products?$deltatoken=9"}"#)
        #expect(got == [.control(name: "@odata.deltaLink", value: "Products?$deltatoken=9")])
        #expect(stream.deltaLink == "Products?$deltatoken=9")
        #expect(stream.elementCount == 0)
    }

    @Test func v2PayloadWithStringCount() throws {
        let (got, stream) = try items(
            #"{"d":{"__count":"3","results":[{"__metadata":{"uri":"P('1')"},"ID":"1"},{"ID":"2"},{"ID":"3"}],"__next":"P?$skiptoken='3'"}}"#,
            chunk: 3)
        #expect(got.count == 5)
        #expect(got[1] == .element(["__metadata": ["uri": "P('1')"], "ID": "1"]))
        #expect(stream.count == 3)
        #expect(stream.nextLink == "P?$skiptoken='3'")
        #expect(stream.elementCount == 3)
    }

    @Test func v1StyleDArrayAndBareArray() throws {
        let (v1, _) = try items(#"{"d":[{"a":1},{"a":2}]}"#)
        #expect(v1 == [.element(["a": 1]), .element(["a": 2])])
        let (bare, stream) = try items(#"[1,"two",[3],{"four":4}]"#, chunk: 1)
        #expect(bare == [.element(1), .element("two"), .element([3]), .element(["four": 4])])
        #expect(stream.count == nil)
    }

    @Test func notACollection() throws {
        for (text, message) in [
            (#""text""#, "the payload is a single a string, not a collection"),
            (#"{"ID":1}"#, #"the payload object has no "value" array nor "d" collection"#),
            (#"{"value":5}"#, #"member "value" is a number, not an array"#),
            (#"{"d":"x"}"#, #"member "d" is a string, not an object or array"#),
        ] {
            let error = #expect(throws: ODataError.self) { _ = try items(text) }
            #expect(error?.name == "jsonNotACollection")
            #expect(error?.code == 1213)
            #expect(error?.message == message)
        }
    }

    @Test func duplicateMemberInAnElementIsReportedWithItsPath() throws {
        let error = #expect(throws: ODataError.self) {
            _ = try items(#"{"value":[{"ID":1},{"ID":2,"Name":"a","Name":"b"}]}"#)
        }
        #expect(error?.name == "jsonDuplicateMember")
        #expect(error?.message == #"duplicate member "Name""#)
        #expect(error?.location == "$.value[1].Name (line 1, column 49, offset 48)")
        let nested = #expect(throws: ODataError.self) { _ = try items(#"[{"a":{"x":1,"x":2}}]"#) }
        #expect(nested?.location == "$[0].a.x (line 1, column 19, offset 18)")
        let top = #expect(throws: ODataError.self) { _ = try items(#"{"value":[],"value":[]}"#) }
        #expect(top?.name == "jsonDuplicateMember")
    }

    @Test func syntaxErrorsPassThroughWithPath() throws {
        let error = #expect(throws: ODataError.self) { _ = try items(#"{"value":[{"ID":1},{"ID":01}]}"#) }
        #expect(error?.name == "jsonInvalidNumber")
        #expect(error?.location == "$.value[1].ID (line 1, column 26, offset 25)")
    }

    /// A payload far larger than any buffer limit, produced and consumed chunk by chunk: the
    /// stream's buffer never holds more than one chunk plus one entity.
    @Test func largePayloadIsReadWithBoundedMemory() throws {
        let entityCount = 20_000
        let chunkSize = 16 * 1024
        func entity(_ i: Int) -> [UInt8] {
            Array(#"{"ID":\#(i),"Name":"Product \#(i) \u00e9","Price":\#(i).50,"Tags":["a","b"],"Ref":null}"#.utf8)
        }
        var pending: [UInt8] = Array(#"{"@odata.context":"$metadata#P","value":["#.utf8)
        var stream = JSONCollectionStream()
        var largestEntity = 0
        var peakBuffered = 0
        var seen = 0
        var totalBytes = 0
        func drain() throws {
            while let item = try stream.next() {
                if case .element(let value) = item {
                    #expect(value["ID"]?.numberValue?.int64Value == Int64(seen))
                    seen += 1
                }
            }
            peakBuffered = max(peakBuffered, stream.bufferedByteCount)
        }
        for i in 0..<entityCount {
            let bytes = entity(i)
            largestEntity = max(largestEntity, bytes.count)
            if i > 0 { pending.append(UInt8(ascii: ",")) }
            pending += bytes
            while pending.count >= chunkSize {
                try stream.feed(Array(pending[0..<chunkSize]))
                totalBytes += chunkSize
                pending.removeFirst(chunkSize)
                try drain()
            }
        }
        pending += Array(#"],"@odata.nextLink":"P?$skip=20000"}"#.utf8)
        totalBytes += pending.count
        try stream.feed(pending)
        try stream.finish()
        try drain()
        #expect(stream.isComplete)
        #expect(seen == entityCount)
        #expect(stream.nextLink == "P?$skip=20000")
        #expect(totalBytes > 50 * chunkSize)
        #expect(peakBuffered <= chunkSize + largestEntity)
    }
}
