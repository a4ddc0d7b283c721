import Foundation
import OfflineODataModel
import Testing
@testable import OfflineODataQuery

@Suite struct EvalCorpusTests {
    @Test(.enabled(if: EvalCorpus.available, "../shared/corpora/odata-peers not found: evaluation corpus skipped"))
    func peerEvaluationCases() throws {
        let cases = try EvalCorpus.cases(kinds: ["eval", "eval-row", "parse-type"])
        let fixtures = try JSONReader.parse(try String(contentsOf: EvalCorpus.fixturesFile, encoding: .utf8))
        let known = EvalCorpus.knownFailures()
        var databases: [String: FixtureDatabase] = [:]
        var passed: [String: Int] = [:], total: [String: Int] = [:], listedFailing = 0
        // A key (source, line, input) can name several cases (same test, other rows): it counts
        // as failing when any of them fails.
        var keyFails: [String: Bool] = [:]
        for item in cases {
            total[item.kind, default: 0] += 1
            var failure: String?
            do {
                switch item.kind {
                case "eval": try EvalCorpus.runEval(item, fixtures: fixtures, databases: &databases)
                case "eval-row": try EvalCorpus.runEvalRow(item)
                default: try EvalCorpus.runParseType(item)
                }
            } catch {
                failure = "\(error)"
            }
            keyFails[item.key, default: false] = keyFails[item.key, default: false] || failure != nil
            switch (failure, known[item.key]) {
            case (nil, _): passed[item.kind, default: 0] += 1
            case (let failure?, nil):
                Issue.record("\(item.kind) failed: \(item.key)\n  \(failure)")
            case (_?, _?):
                listedFailing += 1
            }
        }
        for (key, reason) in known.sorted(by: { $0.key < $1.key }) {
            switch keyFails[key] {
            case nil: Issue.record("KnownEvalFailures.txt lists a case that is not in the corpus: \(key)")
            case false?: Issue.record("listed in KnownEvalFailures.txt but passes (\(reason)): \(key)")
            case true?: break
            }
        }
        for kind in total.keys.sorted() {
            print("eval corpus \(kind): \(passed[kind, default: 0]) of \(total[kind, default: 0]) pass")
        }
        print("eval corpus: \(listedFailing) known failures (KnownEvalFailures.txt)")
    }
}
