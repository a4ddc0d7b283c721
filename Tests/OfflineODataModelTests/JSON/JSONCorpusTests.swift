import Foundation
import Testing
@testable import OfflineODataModel

/// Every JSON file of the shared corpora (real OData services) through both readers and back.
@Suite(.enabled(if: Corpora.available, "../shared/corpora not found next to the repository; corpus tests skipped"))
struct JSONCorpusTests {
    static let files = Corpora.available ? Corpora.jsonFiles() : []

    @Test func corpusHasJSONFiles() {
        #expect(Self.files.count >= 40)
        #expect(Self.files.contains { $0.path.contains("/raw/") })
        #expect(Self.files.contains { $0.path.contains("/links/") })
    }

    @Test(arguments: files)
    func parsesStreamsAndRoundTrips(_ url: URL) throws {
        let bytes = try Corpora.bytes(url)
        let value = try JSONReader.parse(bytes)
        #expect(try JSONReader.parse(value.serialized()) == value)
        #expect(try JSONReader.parse(value.serialized(options: JSONWriter.Options(pretty: true))) == value)

        let events = JSONTesting.events(of: value)
        #expect(try JSONTesting.streamEvents(bytes, chunkSize: 4096) == events)
        #expect(try JSONTesting.streamEvents(bytes, chunkSize: 7919) == events)
        if bytes.count < 20_000 {
            #expect(try JSONTesting.streamEvents(bytes, chunkSize: 1) == events)
        }

        // Every number literal of the file comes back with exactly the same text.
        let numbers = events.compactMap { event -> String? in
            if case .number(let number) = event { return number.text }
            return nil
        }
        #expect(numbers == Self.numberLiterals(bytes))
    }

    @Test(arguments: files)
    func collectionsStreamElementByElement(_ url: URL) throws {
        let bytes = try Corpora.bytes(url)
        let value = try JSONReader.parse(bytes)
        let collection = value.arrayValue ?? value["value"]?.arrayValue ?? value["d"]?["results"]?.arrayValue
        guard let expected = collection else { return }  // a single entity (e.g. TripPin Me.json)
        let (items, stream) = try JSONTesting.collectionItems(
            bytes, cuts: Array(stride(from: 8192, to: bytes.count, by: 8192)))
        let elements = items.compactMap { item -> JSONValue? in
            if case .element(let element) = item { return element }
            return nil
        }
        #expect(elements == expected)
        #expect(stream.elementCount == expected.count)
    }

    @Test func decimalLiteralsKeepTheirScale() throws {
        let details = try JSONReader.parse(Corpora.bytes(Corpora.root.appendingPathComponent("northwind/Order_Details.json")))
        let first = try #require(details["value"]?[0])
        #expect(first["UnitPrice"]?.numberValue?.text == "14.0000")
        #expect(String(decoding: first.serialized(), as: UTF8.self).contains(#""UnitPrice":14.0000"#))
        let orders = try JSONReader.parse(Corpora.bytes(Corpora.root.appendingPathComponent("epm_salesorder_v4/SalesOrder.json")))
        let texts = (orders["value"]?.arrayValue ?? []).compactMap { $0["Taxamountintransactioncurrency"]?.numberValue?.text }
        #expect(texts.contains("2296.90"))
    }

    @Test func singleEntityIsNotACollection() throws {
        let bytes = try Corpora.bytes(Corpora.root.appendingPathComponent("trippin/Me.json"))
        let error = #expect(throws: ODataError.self) { _ = try JSONTesting.collectionItems(bytes, cuts: []) }
        #expect(error?.name == "jsonNotACollection")
    }

    /// Number tokens of a JSON text found by a plain scan outside strings (independent of the reader).
    static func numberLiterals(_ bytes: [UInt8]) -> [String] {
        var result: [String] = []
        var inString = false
        var escaped = false
        var current: [UInt8] = []
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            let isNumberByte = (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
            if isNumberByte && (!current.isEmpty || byte == UInt8(ascii: "-") || (byte >= 0x30 && byte <= 0x39)) {
                current.append(byte)
                continue
            }
            if !current.isEmpty {
                result.append(String(decoding: current, as: UTF8.self))
                current.removeAll()
            }
            if byte == UInt8(ascii: "\"") { inString = true }
        }
        if !current.isEmpty { result.append(String(decoding: current, as: UTF8.self)) }
        return result
    }
}
