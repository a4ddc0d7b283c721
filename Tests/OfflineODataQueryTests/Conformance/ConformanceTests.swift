import Foundation
import Testing
@testable import OfflineODataQuery

/// The OASIS ABNF cases and the peer implementations' cases against the parser. Cases that do
/// not pass yet are listed in KnownFailures.txt with a reason; the test fails when an unlisted
/// case fails and when a listed case passes (so the list only shrinks). Set
/// `OODATA_UPDATE_KNOWN_FAILURES=1` to rewrite the list from the current failures (reasons of
/// cases already listed are kept).
@Suite struct ConformanceTests {
    @Test(.enabled(if: ConformanceCorpus.available, "../shared/corpora not found: conformance corpora skipped"))
    func corporaAgainstParser() throws {
        let constraints = try ConformanceCorpus.constraints()
        var results: [ConformanceResult] = []
        for item in try ConformanceCorpus.readLines(ConformanceCorpus.abnfCases) {
            if let result = ABNFConformance.run(item, constraints: constraints) { results.append(result) }
        }
        for item in try ConformanceCorpus.readLines(ConformanceCorpus.peerCases) {
            if let result = PeerConformance.run(item) { results.append(result) }
        }
        #expect(results.filter { $0.category.hasPrefix("abnf/") }.count >= 690)

        var byCategory: [String: (passed: Int, total: Int)] = [:]
        for result in results {
            var entry = byCategory[result.category] ?? (0, 0)
            entry.total += 1
            if result.passed { entry.passed += 1 }
            byCategory[result.category] = entry
        }
        for (category, entry) in byCategory.sorted(by: { $0.key < $1.key }) {
            print("conformance \(category): \(entry.passed)/\(entry.total)")
        }

        let known = try ConformanceCorpus.knownFailures()
        var failing: [String: ConformanceResult] = [:]
        for result in results where !result.passed { failing[result.key] = result }
        print("conformance: \(failing.count) failing, \(known.count) listed in KnownFailures.txt")

        if ProcessInfo.processInfo.environment["OODATA_UPDATE_KNOWN_FAILURES"] == "1" {
            var lines = ["# Conformance cases that do not pass yet: source<TAB>id-or-input<TAB>reason.",
                         "# The test fails when an unlisted case fails or a listed case passes."]
            for key in failing.keys.sorted() {
                lines.append(key + "\t" + (known[key] ?? "TODO " + ConformanceCorpus.field(failing[key]?.detail ?? "")))
            }
            try (lines.joined(separator: "\n") + "\n").write(to: ConformanceCorpus.knownFailuresFile, atomically: true, encoding: .utf8)
            return
        }
        for (key, result) in failing.sorted(by: { $0.key < $1.key }) where known[key] == nil {
            Issue.record("unlisted conformance failure \(key): \(result.detail)")
        }
        for key in known.keys.sorted() where failing[key] == nil {
            Issue.record("listed in KnownFailures.txt but passes now (remove it): \(key)")
        }
    }
}
