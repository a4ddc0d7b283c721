import Foundation
import PropertyBased
@testable import OfflineODataModel

/// Helpers shared by the JSON tests.
enum JSONTesting {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// The events a streaming reader must report for `value`.
    static func events(of value: JSONValue) -> [JSONEvent] {
        var result: [JSONEvent] = []
        appendEvents(of: value, to: &result)
        return result
    }

    private static func appendEvents(of value: JSONValue, to result: inout [JSONEvent]) {
        switch value {
        case .null: result.append(.null)
        case .bool(let b): result.append(.bool(b))
        case .number(let n): result.append(.number(n))
        case .string(let s): result.append(.string(s))
        case .array(let elements):
            result.append(.startArray)
            for element in elements { appendEvents(of: element, to: &result) }
            result.append(.endArray)
        case .object(let object):
            result.append(.startObject)
            for (key, member) in object {
                result.append(.key(key))
                appendEvents(of: member, to: &result)
            }
            result.append(.endObject)
        }
    }

    /// Streams `bytes` cut at the given (sorted) offsets and collects every event.
    static func streamEvents(
        _ bytes: [UInt8], cuts: [Int], options: JSONReaderOptions = JSONReaderOptions()
    ) throws -> [JSONEvent] {
        var reader = JSONStreamReader(options: options)
        var events: [JSONEvent] = []
        var start = 0
        for cut in cuts + [bytes.count] where cut >= start {
            try reader.feed(Array(bytes[start..<cut]))
            while let event = try reader.next() { events.append(event) }
            start = cut
        }
        try reader.finish()
        while let event = try reader.next() { events.append(event) }
        guard reader.isComplete else { throw TestFailure("stream did not complete") }
        return events
    }

    /// Streams `bytes` in chunks of `size` bytes.
    static func streamEvents(_ bytes: [UInt8], chunkSize size: Int) throws -> [JSONEvent] {
        try streamEvents(bytes, cuts: Array(stride(from: size, to: bytes.count, by: size)))
    }

    /// The error a streaming reader reports for `bytes` cut at `cuts`, or nil.
    static func streamError(_ bytes: [UInt8], cuts: [Int], options: JSONReaderOptions = JSONReaderOptions())
        -> ODataError?
    {
        do {
            _ = try streamEvents(bytes, cuts: cuts, options: options)
            return nil
        } catch let error as ODataError {
            return error
        } catch {
            return ODataError(.clientInternalError, name: "unexpected", code: 0, message: "\(error)")
        }
    }

    static func domError(_ bytes: [UInt8], options: JSONReaderOptions = JSONReaderOptions()) -> ODataError? {
        do {
            _ = try JSONReader.parse(bytes, options: options)
            return nil
        } catch {
            return error
        }
    }

    /// Items of a collection payload cut at `cuts`.
    static func collectionItems(_ bytes: [UInt8], cuts: [Int]) throws -> (items: [JSONCollectionItem], stream: JSONCollectionStream) {
        var stream = JSONCollectionStream()
        var items: [JSONCollectionItem] = []
        var start = 0
        for cut in cuts + [bytes.count] where cut >= start {
            try stream.feed(Array(bytes[start..<cut]))
            while let item = try stream.next() { items.append(item) }
            start = cut
        }
        try stream.finish()
        while let item = try stream.next() { items.append(item) }
        guard stream.isComplete else { throw TestFailure("collection stream did not complete") }
        return (items, stream)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A small deterministic generator (SplitMix64) for chunk cuts.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Up to `maxCuts` sorted random cut offsets in `0...length`.
    mutating func cuts(length: Int, maxCuts: Int) -> [Int] {
        guard length > 0 else { return [] }
        let count = Int.random(in: 0...maxCuts, using: &self)
        return (0..<count).map { _ in Int.random(in: 0...length, using: &self) }.sorted()
    }
}

/// Random JSON values for property tests.
enum JSONGen {
    struct Case: Sendable, CustomStringConvertible {
        var value: JSONValue
        var seed: UInt64
        var description: String { "seed \(seed): \(value)" }
    }

    /// A random value (nesting up to `depth`) and a seed for chunk cuts.
    static func valueCase(depth: Int = 4) -> Generator<Case, Shrink.None<Case>> {
        Generator { rng in
            var local = SplitMix(seed: rng.next())
            return Case(value: value(depth: depth, using: &local), seed: local.next())
        }
    }

    static func value(depth: Int, using rng: inout SplitMix) -> JSONValue {
        let pick = Int.random(in: 0..<(depth > 0 ? 8 : 5), using: &rng)
        switch pick {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .number(number(using: &rng))
        case 3, 4: return .string(string(using: &rng))
        case 5: return .array((0..<Int.random(in: 0...5, using: &rng)).map { _ in value(depth: depth - 1, using: &rng) })
        default:
            var object = JSONObject()
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                object[string(using: &rng)] = value(depth: depth - 1, using: &rng)
            }
            return .object(object)
        }
    }

    /// Any text matching the JSON number grammar, including long and extreme literals.
    static func number(using rng: inout SplitMix) -> JSONNumber {
        var text = Bool.random(using: &rng) ? "-" : ""
        if Int.random(in: 0..<4, using: &rng) == 0 {
            text += "0"
        } else {
            text += String(Int.random(in: 1...9, using: &rng))
            text += digits(Int.random(in: 0...24, using: &rng), using: &rng)
        }
        if Bool.random(using: &rng) { text += "." + digits(Int.random(in: 1...8, using: &rng), using: &rng) }
        if Int.random(in: 0..<3, using: &rng) == 0 {
            text += ["e", "E"][Int.random(in: 0...1, using: &rng)]
            text += ["", "+", "-"][Int.random(in: 0...2, using: &rng)]
            text += digits(Int.random(in: 1...4, using: &rng), using: &rng)
        }
        return JSONNumber(unchecked: text)
    }

    private static func digits(_ count: Int, using rng: inout SplitMix) -> String {
        String((0..<count).map { _ in Character(Unicode.Scalar(UInt8(0x30 + Int.random(in: 0...9, using: &rng)))) })
    }

    /// Strings mixing ASCII, JSON specials, control characters, U+2028 and astral scalars.
    static func string(using rng: inout SplitMix) -> String {
        let pool: [Unicode.Scalar] = [
            "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "€", "\u{2028}",
            "\u{2029}", "\u{FEFF}", "\u{FFFF}", "😀", "\u{10FFFF}", "ü", "@", ".",
        ]
        var text = ""
        for _ in 0..<Int.random(in: 0...12, using: &rng) {
            if Int.random(in: 0..<3, using: &rng) == 0 {
                text.unicodeScalars.append(pool[Int.random(in: 0..<pool.count, using: &rng)])
            } else {
                text.unicodeScalars.append(Unicode.Scalar(UInt8(Int.random(in: 0x61...0x7A, using: &rng))))
            }
        }
        return text
    }
}

/// The shared corpora folder (`<repo>/../shared/corpora`), found from this file's path.
enum Corpora {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // JSON
        .deletingLastPathComponent()  // OfflineODataModelTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repo root
        .deletingLastPathComponent()
        .appendingPathComponent("shared/corpora")

    static var available: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Every `*.json` file below the corpora folder, sorted.
    static func jsonFiles() -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
            return []
        }
        var files: [URL] = []
        for case let url as URL in enumerator where url.pathExtension == "json" {
            files.append(url)
        }
        return files.sorted { $0.path < $1.path }
    }

    static func bytes(_ url: URL) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url))
    }
}
