import Foundation
import OfflineODataModel
@testable import OfflineODataQuery

/// Access to `<repo>/../shared/corpora` (resolved from this file's path) and the checked-in
/// list of known failures next to this file.
enum ConformanceCorpus {
    static let thisDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let repoRoot = thisDirectory.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let corpora = repoRoot.deletingLastPathComponent().appendingPathComponent("shared/corpora")
    static let abnfCases = corpora.appendingPathComponent("odata-abnf/odata-abnf-cases.jsonl")
    static let abnfConstraints = corpora.appendingPathComponent("odata-abnf/odata-abnf-constraints.json")
    static let peerCases = corpora.appendingPathComponent("odata-peers/peer-cases.jsonl")
    static let knownFailuresFile = thisDirectory.appendingPathComponent("KnownFailures.txt")

    static var available: Bool {
        FileManager.default.fileExists(atPath: abnfCases.path) && FileManager.default.fileExists(atPath: peerCases.path)
    }

    /// One JSON object per line.
    static func readLines(_ url: URL) throws -> [[String: Any]] {
        let text = try String(contentsOf: url, encoding: .utf8)
        return try text.split(separator: "\n").compactMap { line in
            try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }
    }

    static func constraints() throws -> [String: [String]] {
        let data = try Data(contentsOf: abnfConstraints)
        return (try JSONSerialization.jsonObject(with: data) as? [String: [String]]) ?? [:]
    }

    /// `source<TAB>id<TAB>reason` lines; `#` comments and blank lines ignored.
    static func knownFailures() throws -> [String: String] {
        guard let text = try? String(contentsOf: knownFailuresFile, encoding: .utf8) else { return [:] }
        var result: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.isEmpty {
            let fields = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            result[fields[0] + "\t" + fields[1]] = String(fields[2])
        }
        return result
    }

    /// Escapes tabs and newlines so an input fits in one field.
    static func field(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\t", with: "\\t")
            .replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\r")
    }

    /// Percent-decoding for rules whose input is an option value as written in a URL.
    static func decode(_ text: String) -> String {
        text.removingPercentEncoding ?? text
    }
}

/// The outcome of one case.
struct ConformanceResult {
    var key: String
    var category: String
    var passed: Bool
    var detail: String
}

/// Accepted, or rejected with an `ODataError` (code checked) or a test-side semantic check.
enum Outcome {
    case accepted
    case rejected(String, validCode: Bool)

    static func of(_ body: () throws -> Void) -> Outcome {
        do {
            try body()
            return .accepted
        } catch let error as ODataError {
            let valid = QueryErrorCodes.syntaxRange.contains(error.code) || (1300...1309).contains(error.code)
            return .rejected(error.description, validCode: valid && error.location != nil || (1300...1309).contains(error.code))
        } catch {
            return .rejected("\(error)", validCode: true)
        }
    }

    func result(key: String, category: String, expectFail: Bool, rejectionAllowed: Bool = false) -> ConformanceResult {
        switch (self, expectFail) {
        case (.accepted, false): return ConformanceResult(key: key, category: category, passed: true, detail: "")
        case (.rejected(let message, let valid), true):
            return ConformanceResult(key: key, category: category, passed: valid,
                                     detail: valid ? "" : "rejected without a syntax code/location: \(message)")
        case (.accepted, true): return ConformanceResult(key: key, category: category, passed: false, detail: "accepted, expected rejection")
        case (.rejected(let message, _), false):
            return ConformanceResult(key: key, category: category, passed: rejectionAllowed, detail: "rejected: \(message)")
        }
    }
}
