import OfflineODataModel
import Testing
@testable import OfflineODataQuery

@Suite struct SyntaxTreeTests {
    @Test func expressionsCompareStructurally() {
        let left = SyntaxExpr(.path(SyntaxPath(segments: [.member("Price", position: 0)])), at: 0)
        let right = SyntaxExpr(.literal(.int32(5), text: "5"), at: 9)
        let a = SyntaxExpr(.binary(.gt, left, right), at: 0)
        let b = SyntaxExpr(.binary(.gt, left, right), at: 0)
        let c = SyntaxExpr(.binary(.ge, left, right), at: 0)
        #expect(a == b)
        #expect(a != c)
        #expect(Set([a, b, c]).count == 2)
    }

    @Test func errorCodeRangesDoNotOverlap() {
        let ranges = [QueryErrorCodes.syntaxRange, QueryErrorCodes.bindingRange,
                      QueryErrorCodes.evaluationRange, QueryErrorCodes.planningRange]
        for (i, a) in ranges.enumerated() {
            for b in ranges[(i + 1)...] { #expect(!a.overlaps(b)) }
        }
    }
}
