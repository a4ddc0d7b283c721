import OfflineODataModel
import PropertyBased
import Testing
@testable import OfflineODataQuery

/// `matchesPattern`'s engine: the same answers as a backtracking engine on small inputs, linear
/// time on the patterns that made the backtracking one run for minutes, and typed refusals.
@Suite struct LinearRegexTests {
    /// A random pattern over `a`, `b`, `c` from a small grammar of the supported constructs.
    static func pattern(_ choices: [Int]) -> String {
        var index = 0
        func next(_ bound: Int) -> Int {
            defer { index += 1 }
            return index < choices.count ? choices[index] % bound : 0
        }
        func atom(_ depth: Int) -> String {
            switch next(depth > 2 ? 6 : 8) {
            case 0: return "a"
            case 1: return "b"
            case 2: return "."
            case 3: return "[ab]"
            case 4: return "[^a]"
            case 5: return "\\w"
            case 6: return "(" + alternation(depth + 1) + ")"
            default: return "(?:" + alternation(depth + 1) + ")"
            }
        }
        func quantified(_ depth: Int) -> String {
            let base = atom(depth)
            // A repeated group that itself repeats ((a*)*) makes the backtracking oracle
            // exponential (one seed ran for minutes): groups take at most `?`.
            if base.hasPrefix("(") { return next(2) == 0 ? base + "?" : base }
            switch next(9) {
            case 0: return base + "*"
            case 1: return base + "+"
            case 2: return base + "?"
            case 3: return base + "{2}"
            case 4: return base + "{1,3}"
            case 5: return base + "{0,}"
            case 6: return base + "*?"
            default: return base
            }
        }
        func sequence(_ depth: Int) -> String {
            (0..<(1 + next(3))).map { _ in quantified(depth) }.joined()
        }
        func alternation(_ depth: Int) -> String {
            next(4) == 0 ? sequence(depth) + "|" + sequence(depth) : sequence(depth)
        }
        let anchorStart = next(4) == 0 ? "^" : ""
        let body = alternation(0)
        let anchorEnd = next(4) == 0 ? "$" : ""
        return anchorStart + body + anchorEnd
    }

    @Test("random patterns and texts: the same answer as the standard library's backtracking Regex")
    func differential() async throws {
        await propertyCheck(count: 400, input: Gen.int(in: 0...1000).array(of: 0...24), Gen.int(in: 0...2).array(of: 0...9)) { choices, letters in
            let pattern = Self.pattern(choices)
            let text = String(letters.map { Character(["a", "b", "c"][$0]) })
            let expected = text.contains(try Regex(pattern))
            let linear = try LinearRegex(pattern)
            #expect(linear.matches(text) == expected, "pattern \(pattern) on '\(text)'")
        }
    }

    @Test("escapes, classes, anchors, word boundaries, case-insensitivity")
    func constructs() throws {
        func m(_ pattern: String, _ text: String) throws -> Bool { try LinearRegex(pattern).matches(text) }
        #expect(try m("^[A-Z]+-\\d{3}$", "ABC-123"))
        #expect(try !m("^[A-Z]+-\\d{3}$", "ABC-1234"))
        #expect(try m("\\bfoo\\b", "a foo b") && !m("\\bfoo\\b", "afoob"))
        #expect(try m("\\Boo", "foo") && !m("\\Bfo", "foo"))
        #expect(try m("(?i)speedy", "Speedy Express") && !m("speedy", "Speedy Express"))
        #expect(try m("(?i)[a-c]x", "BX"))
        #expect(try m("\\u00e9", "caf\u{e9}") && m("\\u{1F600}", "smile \u{1F600}") && m("\\x41", "A"))
        #expect(try m("a.c", "abc") && !m("a.c", "a\nc"))
        #expect(try m("[\\d\\s]+x", "1 2x") && m("[^\\d]", "12a") && !m("^[^\\d]+$", "12a"))
        #expect(try m("a{,2}", "a{,2}"), "a brace that is no quantifier is a literal")
        #expect(try m("[]", "") == false && m("[^]", "z"))
        #expect(try m("(?<year>\\d{4})-\\d{2}", "on 2024-05"))
        #expect(try m("", "anything") && m("^$", "") && !m("^$", "x"))
        #expect(try m("\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\^\\$\\\\", ".*+?()[]{}|^$\\"))
    }

    @Test("invalid patterns and constructs that need backtracking are refused with their reason")
    func refusals() {
        for (pattern, unsupported) in [("(", false), ("a)", false), ("[a", false), ("*a", false), ("a**", false), ("a{3,1}", false),
                                       ("[z-a]", false), ("\\", false), ("\\xZZ", false), ("\\u{110000}", false), ("a{99999}", false),
                                       ("(?<=a)b", true), ("(?=a)", true), ("(?!a)", true), ("(a)\\1", true), ("\\k<n>", true),
                                       ("\\p{L}", true), ("(?:a{1000}){1000}", true)] {
            do {
                _ = try LinearRegex(pattern)
                Issue.record("\(pattern) was accepted")
            } catch {
                #expect(error.unsupported == unsupported, "\(pattern): \(error.message)")
            }
        }
    }

    @Test("patterns that made a backtracking engine run for minutes answer at once")
    func catastrophic() throws {
        #expect(try !LinearRegex("(.*){25}x").matches("United Package"))
        #expect(try LinearRegex("(.*){25}x").matches("Speedy Express"))
        let a40 = String(repeating: "a", count: 40)
        #expect(try !LinearRegex("^(a|aa)+$").matches(a40 + "b"))
        #expect(try LinearRegex("^(a|aa)+$").matches(a40))
        let a5000 = String(repeating: "a", count: 5000)
        #expect(try !LinearRegex("(a*)*b").matches(a5000))
        #expect(try !LinearRegex("((a+)+)+c").matches(a5000))
    }

    @Test("contains and indexof on 30 KB strings: the linear search finds the same offsets")
    func longSearch() throws {
        let a = String(repeating: "a", count: 30_000)
        #expect(LinearSearch.firstScalarOffset(of: a + "b", in: a) == nil)
        #expect(LinearSearch.firstScalarOffset(of: String(a.prefix(15_000)) + "b", in: a + "b") == 15_000)
        #expect(LinearSearch.firstScalarOffset(of: "", in: "x") == 0)
        #expect(LinearSearch.firstScalarOffset(of: "aab", in: "aaab") == 1)
        #expect(LinearSearch.firstScalarOffset(of: "é", in: "caf\u{e9}") == 3)
        #expect(LinearSearch.firstScalarOffset(of: "abcabd", in: "abcabcabd") == 3)
    }

    @Test("random needles and texts: the linear search agrees with a naive one")
    func searchDifferential() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...2).array(of: 0...6), Gen.int(in: 0...2).array(of: 0...20)) { needle, hay in
            var naive: Int?
            if needle.count <= hay.count {
                naive = (0...(hay.count - needle.count)).first { Array(hay[$0..<($0 + needle.count)]) == needle }
            }
            let found = LinearSearch.firstOffset(of: needle, in: hay) { (x: Int, y: Int) throws(Never) -> Bool in x == y }
            #expect(found == naive, "\(needle) in \(hay)")
        }
    }
}
