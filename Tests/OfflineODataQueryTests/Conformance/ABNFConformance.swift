import Foundation
import OfflineODataModel
@testable import OfflineODataQuery

/// Runs one OASIS ABNF test case (odata-abnf-cases.jsonl) through the parser entry point that
/// matches its start rule. Header rules (`prefer`, `preference`, `maxpagesizePreference`) are
/// not URL syntax and are skipped.
enum ABNFConformance {
    static let headerRules: Set<String> = ["prefer", "preference", "maxpagesizePreference"]
    static let singleOptionRules: Set<String> = [
        "filter", "expand", "select", "orderby", "orderBy", "compute", "search", "skiptoken", "deltatoken",
        "systemQueryOption", "customQueryOption",
    ]
    static let expressionRules: Set<String> = [
        "commonExpr", "boolCommonExpr", "boolcommonExpr", "firstMemberExpr", "propertyPathExpr", "isofExpr", "notExpr",
    ]
    /// Payload ("…Value") rules: read with the model's typed literal parser, not decoded.
    static let payloadKinds: [String: EdmPrimitiveKind] = [
        "dateTimeOffsetValue": .dateTimeOffset, "decimalValue": .decimal, "doubleValue": .double, "singleValue": .single,
        "byteValue": .byte, "sbyteValue": .sbyte, "int16Value": .int16, "int32Value": .int32, "int64Value": .int64,
        "timeOfDayValue": .timeOfDay, "durationValue": .duration, "booleanValue": .boolean, "dateValue": .date,
    ]

    static func category(_ rule: String) -> String {
        if expressionRules.contains(rule) || rule == "anyExpr" || rule == "functionParameter" { return "expression" }
        if rule == "searchExpr" { return "option" }
        if singleOptionRules.contains(rule) || rule == "queryOptions" { return "option" }
        if ["odataRelativeUri", "odataUri", "resourcePath", "entitySetName", "odataIdentifier"].contains(rule) { return "url" }
        if payloadKinds[rule] != nil || rule == "enumValue" || rule == "primitiveValue" { return "payload-literal" }
        return "url-literal"
    }

    /// Returns nil when the case is out of scope.
    static func run(_ item: [String: Any], constraints: [String: [String]]) -> ConformanceResult? {
        guard let rule = item["rule"] as? String, let input = item["input"] as? String,
              let expectFail = item["expect_fail"] as? Bool, let index = item["index"] as? Int else { return nil }
        guard !headerRules.contains(rule) else { return nil }
        let outcome = Outcome.of { try check(rule: rule, input: input, constraints: constraints) }
        let category = "abnf/" + category(rule)
        let key = "abnf\t\(index) \(rule) \(ConformanceCorpus.field(input))"
        return outcome.result(key: key, category: category, expectFail: expectFail)
    }

    struct Mismatch: Error { var message: String }

    static func check(rule: String, input: String, constraints: [String: [String]]) throws {
        if let kind = payloadKinds[rule] {
            _ = try ODataValue.parseLiteral(input, as: kind)
            return
        }
        switch rule {
        case "odataRelativeUri":
            _ = try ODataURLParser.parse(input)
        case "odataUri":
            _ = try ODataURLParser.parse(stripServiceRoot(input))
        case "resourcePath":
            _ = try ODataURLParser.parseResourcePath(input)
        case "entitySetName", "odataIdentifier":
            let expr = try ODataURLParser.parseFilter(ConformanceCorpus.decode(input))
            guard case .path(let path) = expr.kind, path.root == .implicit, path.segments.count == 1,
                  case .member = path.segments[0] else { throw Mismatch(message: "not an identifier") }
        case "queryOptions":
            let options = try ODataURLParser.parseQueryOptions(input)
            try checkCustomNames(options, constraints)
        case _ where singleOptionRules.contains(rule):
            if input.contains("&") { throw Mismatch(message: "raw '&' inside a single option") }
            let options = try ODataURLParser.parseQueryOptions(input)
            try checkCustomNames(options, constraints)
        case _ where expressionRules.contains(rule):
            _ = try ODataURLParser.parseFilter(ConformanceCorpus.decode(input))
        case "anyExpr":
            _ = try ODataURLParser.parseFilter("Collection/" + ConformanceCorpus.decode(input))
        case "functionParameter":
            _ = try ODataURLParser.parseFilter("Ns.Function(" + ConformanceCorpus.decode(input) + ")")
        case "searchExpr":
            _ = try ODataURLParser.parseSearch(ConformanceCorpus.decode(input))
        case "enumValue":
            _ = try EdmEnumValue(typeName: nil, memberText: input)
        case "primitiveValue":
            try checkPrimitiveValue(input)
        case "stringInUrl":
            let expr = try ODataURLParser.parseFilter(ConformanceCorpus.decode(input))
            guard case .json(.string) = expr.kind else { throw Mismatch(message: "not a JSON string") }
        default:
            try checkURLLiteral(rule: rule, input: input)
        }
    }

    /// `http://host/service/…` → the part after the service root.
    static func stripServiceRoot(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        var rest = url[scheme.upperBound...]
        if let slash = rest.firstIndex(of: "/") { rest = rest[rest.index(after: slash)...] } else { return "" }
        if rest.hasPrefix("service/") { rest = rest.dropFirst("service/".count) }
        return String(rest)
    }

    /// Custom option names must be those the test constraints declare (`customName`).
    static func checkCustomNames(_ options: SyntaxQueryOptions, _ constraints: [String: [String]]) throws {
        let allowed = Set(constraints["customName"] ?? [])
        for custom in options.customOptions where !allowed.contains(custom.name) {
            throw Mismatch(message: "custom option \(custom.name) not declared by the constraints")
        }
    }

    /// A body value of some primitive type: one of the typed parsers must accept it.
    static func checkPrimitiveValue(_ input: String) throws {
        let kinds: [EdmPrimitiveKind] = [.int64, .decimal, .double, .guid, .boolean, .dateTimeOffset, .date, .timeOfDay, .duration]
        for kind in kinds where (try? ODataValue.parseLiteral(input, as: kind)) != nil { return }
        if (try? EdmEnumValue(typeName: nil, memberText: input)) != nil { return }
        if (try? ODataValue.parseLiteral("binary'\(input)'", as: .binary)) != nil { return }
        if (try? ODataValue.parseLiteral("geography'\(input)'", as: .geography)) != nil { return }
        throw Mismatch(message: "no primitive type reads \(input)")
    }

    /// URL literal rules: the expression parser must produce a literal of the rule's type.
    static func checkURLLiteral(rule: String, input: String) throws {
        let expr = try ODataURLParser.parseFilter(ConformanceCorpus.decode(input))
        let value: ODataValue
        switch expr.kind {
        case .literal(let literal, _): value = literal
        case .null: value = .null
        default: throw Mismatch(message: "not a literal")
        }
        let ok: Bool
        switch rule {
        case "binaryLiteral": ok = value.kind == .binary
        case "boolean": ok = value.kind == .boolean
        case "date": ok = value.kind == .date
        case "dateTimeOffsetLiteral", "dateTimeOffsetValueInUrl": ok = value.kind == .dateTimeOffset
        case "durationLiteral":
            ok = value.kind == .duration || (value.kind == .string && (try? ODataValue.parseLiteral(input, as: .duration)) != nil)
        case "enumLiteral":
            if case .enumValue = value { ok = true } else { ok = value.kind == .string }
        case "guid": ok = value.kind == .guid
        case "stringLiteral": ok = value.kind == .string
        case "null": ok = value.isNull
        case "decimalLiteral": ok = value.kind == .decimal
        case "doubleLiteral", "singleLiteral": ok = value.kind == .double || value.kind == .decimal
        case "sbyteLiteral", "int16Literal", "int32Literal", "int64Literal": ok = value.kind == .int32 || value.kind == .int64
        case "timeOfDayLiteral": ok = value.kind == .timeOfDay
        case "primitiveLiteral": ok = true
        default: ok = rule.hasPrefix("geo") ? (value.kind?.isGeo ?? false) : false
        }
        if !ok { throw Mismatch(message: "literal of the wrong type for \(rule): \(value)") }
    }
}
