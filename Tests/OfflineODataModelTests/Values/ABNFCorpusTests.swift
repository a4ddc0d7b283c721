import Foundation
import Testing
@testable import OfflineODataModel

/// The OASIS ABNF test cases for primitive literals (`odata-abnf/odata-abnf-cases.jsonl` in the
/// shared corpora): every case of a literal rule must be accepted or rejected as the ABNF says.
enum ValueCorpora {
    /// `<repo>/../shared/corpora`, found from this file's path.
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/corpora")

    static var available: Bool { FileManager.default.fileExists(atPath: root.path) }
}

@Suite struct ABNFCorpusTests {
    struct Case {
        var rule: String
        var input: String
        var expectFail: Bool
    }

    static func cases() throws -> [Case] {
        let url = ValueCorpora.root.appendingPathComponent("odata-abnf/odata-abnf-cases.jsonl")
        let text = try String(contentsOf: url, encoding: .utf8)
        return try text.split(separator: "\n").compactMap { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let rule = object["rule"] as? String, let input = object["input"] as? String,
                  let fail = object["expect_fail"] as? Bool else { return nil }
            return Case(rule: rule, input: input, expectFail: fail)
        }
    }

    /// `*Literal` rules are URL text (percent-decoded first); `*Value` rules are the raw value
    /// text, where a percent sign is simply invalid.
    static func parse(_ rule: String, _ input: String) throws -> Bool? {
        let decoded = input.removingPercentEncoding ?? input
        let kinds: [String: (EdmPrimitiveKind, Bool)] = [
            "binaryLiteral": (.binary, true), "boolean": (.boolean, true), "date": (.date, false), "dateValue": (.date, false),
            "dateTimeOffsetValue": (.dateTimeOffset, false), "dateTimeOffsetLiteral": (.dateTimeOffset, true),
            "dateTimeOffsetValueInUrl": (.dateTimeOffset, true), "decimalValue": (.decimal, false),
            "decimalLiteral": (.decimal, true), "doubleValue": (.double, false), "doubleLiteral": (.double, true),
            "singleLiteral": (.single, true), "singleValue": (.single, false), "durationValue": (.duration, false),
            "durationLiteral": (.duration, true), "byteValue": (.byte, false), "sbyteLiteral": (.sbyte, true),
            "sbyteValue": (.sbyte, false), "int16Literal": (.int16, true), "int16Value": (.int16, false),
            "int32Literal": (.int32, true), "int32Value": (.int32, false), "int64Literal": (.int64, true),
            "int64Value": (.int64, false), "stringLiteral": (.string, true), "guid": (.guid, false),
            "timeOfDayValue": (.timeOfDay, false), "timeOfDayLiteral": (.timeOfDay, true), "primitiveLiteral": (.untyped, true),
        ]
        if let (kind, isLiteral) = kinds[rule] {
            _ = try ODataValue.parseLiteral(isLiteral ? decoded : input, as: kind)
            return true
        }
        switch rule {
        case "null": _ = try ODataValue.parseLiteral(input, as: .int32); return true
        case "enumLiteral": _ = try ODataValue.parseEnumLiteral(decoded); return true
        case "enumValue": _ = try EdmEnumValue(typeName: nil, memberText: input); return true
        default:
            guard let kind = EdmPrimitiveKind(rawValue: "Edm." + rule.prefix(1).uppercased() + rule.dropFirst()), kind.isGeo else {
                return nil
            }
            _ = try ODataValue.parseLiteral(decoded, as: kind)
            return true
        }
    }

    /// Cases where this implementation knowingly differs from the ABNF (see the report).
    static let knownDeviations: Set<String> = [
        // The grammar allows 1*3DIGIT; the range -128...127 is checked here, as the ABNF comment says.
        "sbyteLiteral %2B128",
    ]

    @Test(.enabled(if: ValueCorpora.available, "../shared/corpora not found"))
    func literalCasesMatchTheABNF() throws {
        var checked = 0
        for testCase in try Self.cases() {
            let accepted: Bool
            do {
                guard let handled = try Self.parse(testCase.rule, testCase.input) else { continue }
                accepted = handled
            } catch {
                accepted = false
            }
            checked += 1
            if Self.knownDeviations.contains("\(testCase.rule) \(testCase.input)") { continue }
            #expect(accepted == !testCase.expectFail,
                    "\(testCase.rule) '\(testCase.input)' should be \(testCase.expectFail ? "rejected" : "accepted")")
        }
        #expect(checked >= 100, "only \(checked) literal cases found")
    }
}
