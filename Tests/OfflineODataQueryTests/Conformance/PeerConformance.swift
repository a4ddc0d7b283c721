import Foundation
import OfflineODataModel
@testable import OfflineODataQuery

/// Runs one case of odata-peers/peer-cases.jsonl. Kinds: `parse-ok`, `parse-type`, `sql`,
/// `django-q`, `sqlalchemy-*`, `literal-value` must parse; `reject` must fail; `parse-tree`
/// must parse; `roundtrip` must parse to the same tree as its expected text and read back from
/// the canonical printer; `literal-type` must give a literal of the expected type. `nonstandard`
/// cases may be rejected. `eval`/`eval-row` belong to the evaluator and are skipped.
enum PeerConformance {
    static let parseKinds: Set<String> = [
        "parse-ok", "parse-type", "parse-tree", "sql", "django-q", "sqlalchemy-core", "sqlalchemy-orm", "literal-value",
    ]

    static func run(_ item: [String: Any]) -> ConformanceResult? {
        guard let kind = item["kind"] as? String, let option = item["option"] as? String,
              let input = item["input"] as? String else { return nil }
        guard parseKinds.contains(kind) || kind == "reject" || kind == "roundtrip" || kind == "literal-type" else { return nil }
        let nonstandard = item["nonstandard"] != nil
        let expected = item["expected"]
        let outcome = Outcome.of {
            try check(kind: kind, option: option, input: input, expected: expected)
        }
        let key = "peers\t\(kind) \(option) \(ConformanceCorpus.field(input))"
        return outcome.result(key: key, category: "peers/" + kind, expectFail: kind == "reject",
                              rejectionAllowed: nonstandard)
    }

    struct Mismatch: Error { var message: String }

    static func parse(option: String, input: String) throws -> Any {
        switch option {
        case "filter", "filter-member": return try ODataURLParser.parseFilter(input)
        case "filter-list": return try ODataURLParser.parseFilter("X in " + input)
        case "orderby": return try ODataURLParser.parseOrderBy(input)
        case "select": return try ODataURLParser.parseSelect(input)
        case "expand": return try ODataURLParser.parseExpand(input)
        case "search": return try ODataURLParser.parseSearch(input)
        case "top", "skip", "count": return try ODataURLParser.parseQueryOptions("$\(option)=" + input)
        case "literal":
            let expr = try ODataURLParser.parseFilter(input)
            switch expr.kind {
            case .literal, .null: return expr
            default: throw Mismatch(message: "not a literal")
            }
        default: return try ODataURLParser.parseQueryOptions(input)
        }
    }

    static func check(kind: String, option: String, input: String, expected: Any?) throws {
        let parsed = try parse(option: option, input: input)
        switch kind {
        case "roundtrip":
            guard let expr = parsed as? SyntaxExpr, let expectedText = expected as? String else { return }
            let other = try ODataURLParser.parseFilter(expectedText)
            guard other.normalized == expr.normalized else { throw Mismatch(message: "differs from \(expectedText)") }
            let printed = SyntaxPrinter.print(expr)
            let again = try ODataURLParser.parseFilter(printed)
            guard again.normalized == expr.normalized else { throw Mismatch(message: "canonical \(printed) reads back differently") }
        case "literal-type":
            guard let expr = parsed as? SyntaxExpr, let typeName = expected as? String else { return }
            guard case .literal(let value, _) = expr.kind else { throw Mismatch(message: "not a literal") }
            let ok: Bool
            switch typeName {
            case "ast.Integer": ok = value.kind == .int32 || value.kind == .int64
            case "ast.Float": ok = value.kind == .double || value.kind == .decimal
            case "ast.Boolean": ok = value.kind == .boolean
            case "ast.String": ok = value.kind == .string
            case "ast.GUID": ok = value.kind == .guid
            case "ast.Date": ok = value.kind == .date
            case "ast.DateTime": ok = value.kind == .dateTimeOffset
            case "ast.Time": ok = value.kind == .timeOfDay
            case "ast.Duration": ok = value.kind == .duration
            default: ok = true
            }
            if !ok { throw Mismatch(message: "literal \(value) is not \(typeName)") }
        default:
            break
        }
    }
}
