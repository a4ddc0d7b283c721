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

    /// Corrupted documents: whatever the DOM reader says (a value, or an error), the streaming
    /// reader over random chunks says the same (duplicate names aside, which only the DOM checks).
    @Test func readersAgreeOnCorruptedInput() async {
        let noise: [UInt8] = [
            0x22, 0x5C, 0x2C, 0x3A, 0x5B, 0x5D, 0x7B, 0x7D, 0x30, 0x2D, 0x2E, 0x65, 0x75, 0x20, 0x0A, 0x01,
            0x80, 0xC0, 0xE2, 0xED, 0xF4, 0xFF, 0x74, 0x6E, 0x66,
        ]
        await propertyCheck(count: 500, input: JSONGen.valueCase()) { sample in
            var rng = SplitMix(seed: sample.seed)
            var bytes = sample.value.serialized(options: JSONWriter.Options(pretty: Bool.random(using: &rng)))
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[at] = noise[Int.random(in: 0..<noise.count, using: &rng)]
                case 1: bytes.remove(at: at)
                default: bytes.insert(noise[Int.random(in: 0..<noise.count, using: &rng)], at: at)
                }
                if bytes.isEmpty { break }
            }
            let cuts = rng.cuts(length: bytes.count, maxCuts: 8)
            let dom = Result { () throws(ODataError) in try JSONReader.parse(bytes) }
            switch dom {
            case .success(let value):
                let streamed = try JSONTesting.streamEvents(bytes, cuts: cuts)
                #expect(streamed == JSONTesting.events(of: value))
            case .failure(let error) where error.name != "jsonDuplicateMember":
                let streamed = JSONTesting.streamError(bytes, cuts: cuts)
                #expect(streamed?.name == error.name, "\(bytes) cuts \(cuts)")
                #expect(streamed?.location == error.location, "\(bytes) cuts \(cuts)")
                #expect(JSONTesting.streamError(bytes, cuts: []) == error)
            case .failure:
                break
            }
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
