import OfflineODataModel
import PropertyBased
import Testing
@testable import OfflineODataQuery

/// Random trees → SyntaxPrinter → parser → the same tree, and printing again gives the same
/// text. Search expressions likewise.
@Suite struct SyntaxRoundTripPropertyTests {
    @Test func expressionTreesReadBackFromTheirCanonicalText() async throws {
        await propertyCheck(count: 400, input: Gen.int(in: 0...Int.max)) { seed in
            var random = RandomSyntaxTrees(seed: UInt64(seed))
            let tree = random.expression(depth: 5)
            let text = SyntaxPrinter.print(tree)
            let parsed = try ODataURLParser.parseFilter(text)
            #expect(parsed.normalized == tree.normalized, "\(text)")
            #expect(SyntaxPrinter.print(parsed) == text)
        }
    }

    @Test func searchTreesReadBackFromTheirCanonicalText() async throws {
        await propertyCheck(count: 200, input: Gen.int(in: 0...Int.max)) { seed in
            var random = RandomSyntaxTrees(seed: UInt64(seed))
            let search = random.search(depth: 5)
            let text = SyntaxPrinter.print(search)
            let parsed = try ODataURLParser.parseSearch(text)
            #expect(parsed == search, "\(text)")
        }
    }
}
