import Foundation
import OfflineODataModel
import Testing
@testable import OfflineODataQuery

/// Mutated corpus inputs (byte flips, truncation, insertion of quotes, parentheses and `%xx`)
/// and random strings through every entry point: the parser never crashes, every rejection is
/// an ODataError with a syntax code (1600–1649) or a literal code (1300–1309) and a location,
/// and every accepted filter reads back from its canonical text. The seed is printed; replay or
/// extend with `OODATA_FUZZ_SEED` / `OODATA_FUZZ_COUNT`.
@Suite struct SyntaxFuzzTests {
    static let fragments = ["'", "''", "(", ")", "%", "%2", "%27", "%28", "%3B", "%00", "%FF", "%C3%A9", "/", "$", "@", "[", "]",
                            "{", "}", "\"", " ", "\t", ",", ";", "=", "&", "?", "eq ", " or ", "not ", "-", "any(", "$count",
                            "$it", "$root/", "cast(", "1e", "INF", "2012-", "T", ":", "*", "#", "\u{0}", "é", "\u{FFFF}"]

    static func seeds() -> [String] {
        var inputs = ExpressionGoldenTests.goldens.map(\.0)
        inputs += ["Products(1)/Orders?$filter=Price gt 5&$top=2", "$expand=A($select=B;$expand=C($levels=max))",
                   "$search=blue NOT (green OR \"red car\")", "$orderby=Name desc,Price", "$compute=A mul 2 as B"]
        guard ConformanceCorpus.available else { return inputs }
        for file in [ConformanceCorpus.abnfCases, ConformanceCorpus.peerCases] {
            for item in (try? ConformanceCorpus.readLines(file)) ?? [] {
                if let input = item["input"] as? String { inputs.append(input) }
            }
        }
        return inputs
    }

    static func mutate(_ input: String, _ rng: inout SplitMix) -> String {
        var bytes = Array(input.utf8)
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            switch Int.random(in: 0..<5, using: &rng) {
            case 0 where !bytes.isEmpty:
                let index = Int.random(in: 0..<bytes.count, using: &rng)
                bytes[index] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng))
            case 1 where !bytes.isEmpty:
                bytes.removeLast(Int.random(in: 0...bytes.count, using: &rng))
            case 2 where !bytes.isEmpty:
                bytes.remove(at: Int.random(in: 0..<bytes.count, using: &rng))
            default:
                let fragment = Array(fragments[Int.random(in: 0..<fragments.count, using: &rng)].utf8)
                bytes.insert(contentsOf: fragment, at: Int.random(in: 0...bytes.count, using: &rng))
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func randomString(_ rng: inout SplitMix) -> String {
        let alphabet = Array("abcXYZ019 '()[]{}\",;:=&@$/%.-+*#eqnotandrany".unicodeScalars)
        let length = Int.random(in: 0...40, using: &rng)
        return String(String.UnicodeScalarView((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &rng)] }))
    }

    /// Nil when fine; else what was wrong.
    static func check(_ input: String) -> String? {
        let entryPoints: [(String, (String) throws(ODataError) -> Void)] = [
            ("url", { (text: String) throws(ODataError) in _ = try ODataURLParser.parse(text) }),
            ("query", { (text: String) throws(ODataError) in _ = try ODataURLParser.parseQueryOptions(text) }),
            ("search", { (text: String) throws(ODataError) in _ = try ODataURLParser.parseSearch(text) }),
            ("expand", { (text: String) throws(ODataError) in _ = try ODataURLParser.parseExpand(text) }),
            ("select", { (text: String) throws(ODataError) in _ = try ODataURLParser.parseSelect(text) }),
            ("orderby", { (text: String) throws(ODataError) in _ = try ODataURLParser.parseOrderBy(text) }),
            ("compute", { (text: String) throws(ODataError) in _ = try ODataURLParser.parseCompute(text) }),
            ("path", { (text: String) throws(ODataError) in _ = try ODataURLParser.parseResourcePath(text) }),
        ]
        for (name, entry) in entryPoints {
            do {
                try entry(input)
            } catch {
                if let problem = badRejection(error) { return "\(name): \(problem)" }
            }
        }
        do {
            let tree = try ODataURLParser.parseFilter(input)
            let text = SyntaxPrinter.print(tree)
            do {
                let again = try ODataURLParser.parseFilter(text)
                if again.normalized != tree.normalized { return "filter: canonical text \(text) reads back differently" }
            } catch {
                return "filter: canonical text \(text) rejected: \(error)"
            }
        } catch {
            if let problem = badRejection(error) { return "filter: \(problem)" }
        }
        return nil
    }

    static func badRejection(_ error: ODataError) -> String? {
        let syntax = QueryErrorCodes.syntaxRange.contains(error.code)
        let literal = (1300...1309).contains(error.code)
        guard syntax || literal else { return "foreign code: \(error)" }
        guard error.location != nil else { return "no location: \(error)" }
        return nil
    }

    @Test func mutatedAndRandomInputsNeverCrashAndFailCleanly() {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["OODATA_FUZZ_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        let count = environment["OODATA_FUZZ_COUNT"].flatMap(Int.init) ?? 6_000
        print("SyntaxFuzzTests: seed \(seed), \(count) inputs (OODATA_FUZZ_SEED=\(seed) to replay)")
        var rng = SplitMix(seed: seed)
        let seeds = Self.seeds()
        var problems: [String] = []
        for index in 0..<count {
            let input = index % 5 == 4 ? Self.randomString(&rng)
                : Self.mutate(seeds[Int.random(in: 0..<seeds.count, using: &rng)], &rng)
            if let problem = Self.check(input) {
                problems.append("\(input.debugDescription) → \(problem)")
                if problems.count >= 10 { break }
            }
        }
        #expect(problems.isEmpty, "seed \(seed): \(problems.joined(separator: "\n"))")
    }
}
