import Foundation
import OfflineODataModel
@testable import OfflineODataQuery

/// Runs the evaluator over `odata-peers/peer-cases.jsonl` kinds `eval`, `eval-row` and
/// `parse-type` (docs/Query.md §3.9). Each case passes or fails with a reason.
enum EvalCorpus {
    static let thisDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let repoRoot = thisDirectory.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let peers = repoRoot.deletingLastPathComponent().appendingPathComponent("shared/corpora/odata-peers")
    static let casesFile = peers.appendingPathComponent("peer-cases.jsonl")
    static let fixturesFile = peers.appendingPathComponent("peer-eval-fixtures.json")
    static let knownFailuresFile = thisDirectory.appendingPathComponent("KnownEvalFailures.txt")

    static var available: Bool {
        FileManager.default.fileExists(atPath: casesFile.path) && FileManager.default.fileExists(atPath: fixturesFile.path)
    }

    struct Case {
        var source: String
        var line: Int
        var kind: String
        var input: String
        var json: JSONValue

        var key: String { "\(source)\t\(line)\t\(field(input))" }
    }

    static func field(_ text: String) -> String {
        text.replacingOccurrences(of: "\t", with: "\\t").replacingOccurrences(of: "\n", with: "\\n")
    }

    static func cases(kinds: Set<String>) throws -> [Case] {
        let text = try String(contentsOf: casesFile, encoding: .utf8)
        var result: [Case] = []
        for line in text.split(separator: "\n") {
            let json = try JSONReader.parse(String(line))
            guard let kind = json["kind"]?.stringValue, kinds.contains(kind),
                  let source = json["source"]?.stringValue, let input = json["input"]?.stringValue else { continue }
            let number = Int(json["line"]?.numberValue?.int64Value ?? 0)
            result.append(Case(source: source, line: number, kind: kind, input: input, json: json))
        }
        return result
    }

    /// `source<TAB>line<TAB>input<TAB>reason`; `#` comments and blank lines ignored.
    static func knownFailures() -> [String: String] {
        guard let text = try? String(contentsOf: knownFailuresFile, encoding: .utf8) else { return [:] }
        var result: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.isEmpty {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count >= 4 else { continue }
            result[fields[0...2].joined(separator: "\t")] = fields[3...].joined(separator: "\t")
        }
        return result
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    // MARK: - eval (fixtures)

    static func runEval(_ item: Case, fixtures: JSONValue, databases: inout [String: FixtureDatabase]) throws {
        guard let fixture = item.json["fixture"]?.stringValue else { throw Failure("no fixture") }
        let parts = fixture.split(separator: ":").map(String.init)
        let name = parts[0]
        if databases[name] == nil {
            guard let database = try FixtureDatabase(name: name, json: fixtures) else { throw Failure("unknown fixture \(name)") }
            databases[name] = database
        }
        guard let database = databases[name] else { throw Failure("unknown fixture \(name)") }
        let table = item.json["entity_set"]?.stringValue ?? (parts.count > 1 ? parts[1] : "")
        let options: SyntaxQueryOptions
        if item.json["option"]?.stringValue == "filter" && !item.input.hasPrefix("$") {
            options = SyntaxQueryOptions(filter: try ODataURLParser.parseFilter(item.input))
        } else {
            options = try ODataURLParser.parseQueryOptions(item.input)
        }
        let unsupported = options.otherSystemOptions.keys.sorted()
        guard unsupported.isEmpty else { throw Failure("unsupported options \(unsupported)") }
        let binder = try ExpressionBinder(model: database.model, entityType: table, aliases: options.aliases)
        let evaluator = Evaluator()
        var rows = database.rows(table)
        if let filter = options.filter {
            let bound = try binder.bindFilter(filter)
            rows = try rows.filter { row throws(ODataError) -> Bool in try evaluator.matches(bound, on: row) }
        }
        if let search = options.search {
            let matcher = try SearchMatcher(model: database.model, entityType: table)
            rows = try rows.filter { row throws(ODataError) -> Bool in try matcher.matches(search, on: row) }
        }
        if let orderBy = options.orderBy {
            rows = try ODataOrdering.sorted(rows, by: try binder.bindOrderBy(orderBy), evaluator: evaluator)
        }
        if let skip = options.skip { rows = Array(rows.dropFirst(skip)) }
        if let top = options.top { rows = Array(rows.prefix(top)) }
        if let expected = item.json["expected_count"]?.numberValue?.int64Value, Int(expected) != rows.count {
            throw Failure("expected \(expected) rows, got \(rows.count)")
        }
        for entry in item.json["expected_entities"]?.arrayValue ?? [] {
            guard let index = entry["index"]?.numberValue?.int64Value, let property = entry["property"]?.stringValue,
                  let expected = entry["value"] else { continue }
            guard Int(index) < rows.count else { throw Failure("no row \(index)") }
            let actual = rows[Int(index)].values[property] ?? .null
            guard matchesJSON(actual, expected) else { throw Failure("row \(index) \(property) is \(actual), expected \(expected)") }
        }
    }

    // MARK: - eval-row (inline rows)

    static let rowModel: ServiceModel = {
        let row = CSDLEntityType(name: "Row", namespace: "Model", key: nil, isOpen: true)
        let order = CSDLEntityType(name: "Order", namespace: "Model", baseType: "Model.Row", isOpen: true)
        let container = CSDLEntityContainer(name: "C", namespace: "Model", entitySets: [CSDLEntitySet(name: "Rows", entityType: "Model.Row")])
        return ServiceModel(version: .v4, schemas: [CSDLSchema(namespace: "Model", entityTypes: [row, order], entityContainers: [container])])
    }()

    static func rowEntity(_ json: JSONValue?) throws -> ODataEntity {
        switch json {
        case nil, .null?: return ODataEntity(typeName: "Model.Row")
        case .object(let members)?:
            var typeName = "Model.Row"
            var properties: [ODataProperty] = []
            for (key, value) in members {
                if key == "__type", let name = value.stringValue { typeName = "Model." + name; continue }
                properties.append(ODataProperty(key, rowValue(value)))
            }
            return ODataEntity(typeName: typeName, properties: properties)
        default:
            // A primitive row ($it is the value itself): only expressions that do not read the
            // row can be evaluated; `$it eq 5` fails to bind against the entity type.
            return ODataEntity(typeName: "Model.Row")
        }
    }

    static func rowValue(_ json: JSONValue) -> ODataValue {
        switch json {
        case .null: return .null
        case .bool(let flag): return .boolean(flag)
        case .string(let text): return .string(text)
        case .number(let number):
            if let int = number.int64Value { return Int32(exactly: int).map(ODataValue.int32) ?? .int64(int) }
            return .double(number.doubleValue ?? .nan)
        case .array(let elements): return .collection(elements.map(rowValue))
        case .object(let members):
            if members.count == 1, let special = members["number"]?.stringValue {
                switch special {
                case "Infinity": return .double(.infinity)
                case "-Infinity": return .double(-.infinity)
                default: return .double(.nan)
                }
            }
            return .complex(ODataComplexValue(members.map { ($0.key, rowValue($0.value)) }))
        }
    }

    static func runEvalRow(_ item: Case) throws {
        let entity = try rowEntity(item.json["row"])
        let binder = try ExpressionBinder(model: rowModel, entityType: "Rows")
        let bound = try binder.bind(try ODataURLParser.parseFilter(item.input))
        let evaluator = Evaluator()
        let actual = try evaluator.evaluate(bound, on: entity)
        let expected = item.json["expected_value"] ?? .null
        guard matchesJSON(actual, expected) else { throw Failure("got \(actual), expected \(expected)") }
    }

    // MARK: - parse-type

    static func runParseType(_ item: Case) throws {
        let binder = try ExpressionBinder(model: rowModel, entityType: "Rows")
        let bound = try binder.bind(try ODataURLParser.parseFilter(item.input))
        guard case .path(let path) = bound.kind else { throw Failure("not a path: \(BoundPrinter.print(bound))") }
        let expected = item.json["expected"]?.stringValue ?? ""
        let kind = path.steps.count == 1 ? "ast.Identifier" : "ast.Attribute"
        guard kind == expected else { throw Failure("bound as \(kind) (\(BoundPrinter.print(bound))), expected \(expected)") }
    }

    /// Value equality against a JSON expectation (numbers by promoted value).
    static func matchesJSON(_ value: ODataValue, _ json: JSONValue) -> Bool {
        switch (value, json) {
        case (.null, .null): return true
        case let (.boolean(a), .bool(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.collection(a), .array(b)):
            return a.count == b.count && zip(a, b).allSatisfy { matchesJSON($0, $1) }
        case let (_, .number(number)) where value.isNumeric:
            let expected: ODataValue = number.int64Value.map(ODataValue.int64) ?? .double(number.doubleValue ?? .nan)
            return ODataValue.comparePromoted(value, expected) == 0
        default: return false
        }
    }
}
