import PropertyBased
import Testing
@testable import OfflineODataModel

/// Random values: writing then reading gives the value back; the streaming readers, fed any
/// chunking, report exactly what the DOM reader reads.
@Suite struct JSONPropertyTests {
    @Test func serializeThenParseIsIdentity() async {
        await propertyCheck(count: 300, input: JSONGen.valueCase()) { sample in
            let compact = sample.value.serialized()
            let fromCompact = try JSONReader.parse(compact)
            #expect(fromCompact == sample.value)
            let pretty = sample.value.serialized(options: JSONWriter.Options(pretty: true))
            let fromPretty = try JSONReader.parse(pretty)
            #expect(fromPretty == sample.value)
            let escaped = sample.value.serialized(options: JSONWriter.Options(escapesLineSeparators: true))
            let fromEscaped = try JSONReader.parse(escaped)
            #expect(fromEscaped == sample.value)
            #expect(!escaped.containsSubsequence([0xE2, 0x80, 0xA8]))
        }
    }

    @Test func streamReaderOverRandomChunksMatchesDOM() async {
        await propertyCheck(count: 300, input: JSONGen.valueCase()) { sample in
            var rng = SplitMix(seed: sample.seed)
            let pretty = Bool.random(using: &rng)
            let bytes = sample.value.serialized(options: JSONWriter.Options(pretty: pretty))
            let expected = JSONTesting.events(of: try JSONReader.parse(bytes))
            let cuts = rng.cuts(length: bytes.count, maxCuts: 12)
            let streamed = try JSONTesting.streamEvents(bytes, cuts: cuts)
            #expect(streamed == expected, "cuts \(cuts)")
        }
    }

    @Test func collectionStreamOverRandomChunksYieldsTheElements() async {
        await propertyCheck(count: 200, input: JSONGen.valueCase(depth: 3)) { sample in
            var rng = SplitMix(seed: sample.seed)
            let elements = (0..<Int.random(in: 0...6, using: &rng)).map { _ in
                JSONGen.value(depth: 3, using: &rng)
            }
            let count = JSONValue.number(JSONNumber(Int64(elements.count)))
            let shape = Int.random(in: 0..<4, using: &rng)
            let payload: JSONValue
            let controls: [(String, JSONValue)]
            switch shape {
            case 0:
                controls = [("@odata.context", "$metadata#Set"), ("@odata.count", count), ("@odata.nextLink", "next")]
                payload = .object(try JSONObject(members: [controls[0], controls[1], ("value", .array(elements)), controls[2]]))
            case 1:
                controls = [("@odata.deltaLink", "delta"), ("extra", sample.value)]
                payload = .object(try JSONObject(members: [("value", .array(elements))] + controls))
            case 2:
                controls = [("__count", .string(String(elements.count))), ("__next", "next")]
                let d = JSONValue.object(try JSONObject(members: [controls[0], ("results", .array(elements)), controls[1]]))
                payload = .object(try JSONObject(members: [("d", d)]))
            default:
                controls = []
                payload = .array(elements)
            }
            let bytes = payload.serialized(options: JSONWriter.Options(pretty: Bool.random(using: &rng)))
            let cuts = rng.cuts(length: bytes.count, maxCuts: 10)
            let (items, stream) = try JSONTesting.collectionItems(bytes, cuts: cuts)
            let gotElements = items.compactMap { item -> JSONValue? in
                if case .element(let value) = item { return value }
                return nil
            }
            let gotControls = items.compactMap { item -> String? in
                if case .control(let name, _) = item { return name }
                return nil
            }
            #expect(gotElements == elements)
            #expect(gotControls == controls.map(\.0))
            #expect(stream.elementCount == elements.count)
            if shape == 0 || shape == 2 {
                #expect(stream.count == Int64(elements.count))
                #expect(stream.nextLink == "next")
            }
            if shape == 1 { #expect(stream.deltaLink == "delta") }
        }
    }
}

extension Array where Element == UInt8 {
    func containsSubsequence(_ needle: [UInt8]) -> Bool {
        guard needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { start in
            self[start..<(start + needle.count)].elementsEqual(needle)
        }
    }
}
