import OfflineODataModel
import Testing
@testable import OfflineODataQuery

/// Rejections: stable names and codes (1600–1649, or the model's literal codes), the offending
/// text in the message, and a location naming the option and position.
@Suite struct SyntaxErrorTests {
    static func filterError(_ text: String) -> ODataError? {
        do {
            _ = try ODataURLParser.parseFilter(text)
            return nil
        } catch {
            return error
        }
    }

    static func queryError(_ text: String) -> ODataError? {
        do {
            _ = try ODataURLParser.parseQueryOptions(text)
            return nil
        } catch {
            return error
        }
    }

    static func urlError(_ text: String) -> ODataError? {
        do {
            _ = try ODataURLParser.parse(text)
            return nil
        } catch {
            return error
        }
    }

    struct Case: Sendable, CustomStringConvertible {
        var input: String
        var name: String
        var code: Int
        var location: String
        var mentions: String
        var description: String { input }
    }

    static let filterCases: [Case] = [
        Case(input: "Price gt", name: "unexpectedEndOfInput", code: 1601, location: "$filter, position 6", mentions: "'gt' at position 6 has no right operand"),
        Case(input: "Price gt ", name: "unexpectedEndOfInput", code: 1601, location: "$filter, position 6", mentions: "gt"),
        Case(input: "(Price gt 5", name: "unexpectedEndOfInput", code: 1601, location: "$filter, position 11", mentions: "')' or ','"),
        Case(input: "Name eq 'abc", name: "unterminatedString", code: 1609, location: "$filter, position 8", mentions: "'abc"),
        Case(input: "X eq ('a','b')", name: "invalidListOperand", code: 1611, location: "$filter, position 5", mentions: "right of 'in'"),
        Case(input: "X in (A,B)", name: "invalidListOperand", code: 1611, location: "$filter, position 6", mentions: "'A'"),
        Case(input: "any()", name: "invalidLambda", code: 1612, location: "$filter, position 0", mentions: "any"),
        Case(input: "Orders/all()", name: "invalidLambda", code: 1612, location: "$filter, position 7", mentions: "all()"),
        Case(input: "contains(Name)", name: "urlSyntaxError", code: 1600, location: "$filter, position 0", mentions: "contains takes 2"),
        Case(input: "X eq 123L", name: "invalidLiteral", code: 1300, location: "$filter, position 8", mentions: "123L"),
        Case(input: "X eq 2021-02-30", name: "invalidDateTime", code: 1302, location: "$filter, position 5", mentions: "2021-02-30"),
        Case(input: "X eq " + String(repeating: "9", count: 5_000), name: "decimalTooLarge", code: 1305,
             location: "$filter, position 5", mentions: "9999"),
        Case(input: "Items(1,2)", name: "invalidKeyPredicate", code: 1602, location: "$filter, position 5", mentions: "(1,2)"),
        Case(input: "Items(A=1,2)", name: "invalidKeyPredicate", code: 1602, location: "$filter, position 5", mentions: "mixed"),
        Case(input: "Name eq #", name: "urlSyntaxError", code: 1600, location: "$filter, position 8", mentions: "'#'"),
        Case(input: "{\"a\":Name}", name: "unsupportedSyntax", code: 1616, location: "$filter, position 5", mentions: "Name"),
        // `/$filter(…)` in an expression path
        Case(input: "Orders/$filter(Quantity gt 5", name: "unexpectedEndOfInput", code: 1601, location: "$filter, position 28",
             mentions: "')' closing $filter(…)"),
        Case(input: "Orders/$filter", name: "unexpectedEndOfInput", code: 1601, location: "$filter, position 14", mentions: "'(' after /$filter"),
        Case(input: "Orders/$filter gt 1", name: "urlSyntaxError", code: 1600, location: "$filter, position 14", mentions: "'(' after /$filter"),
        Case(input: "Orders/$filter()", name: "urlSyntaxError", code: 1600, location: "$filter, position 15", mentions: "')'"),
        Case(input: "Orders/$filter(true)()", name: "invalidKeyPredicate", code: 1602, location: "$filter, position 20", mentions: "empty key"),
        Case(input: "Orders/$filter(true)(1,2)", name: "invalidKeyPredicate", code: 1602, location: "$filter, position 20", mentions: "(1,2)"),
        Case(input: "Orders/$Filter(true)", name: "urlSyntaxError", code: 1600, location: "$filter, position 7", mentions: "'$Filter'"),
    ]

    @Test(arguments: filterCases)
    func filterRejections(_ expected: Case) throws {
        let error = try #require(Self.filterError(expected.input))
        #expect(error.name == expected.name)
        #expect(error.code == expected.code)
        #expect(error.location == expected.location)
        #expect(error.message.contains(expected.mentions), "message: \(error.message)")
    }

    static let queryCases: [Case] = [
        Case(input: "$top=5&TOP=6", name: "duplicateQueryOption", code: 1604, location: "TOP, position 0", mentions: "TOP"),
        Case(input: "$filter=true&filter=false", name: "duplicateQueryOption", code: 1604, location: "filter, position 0", mentions: "$filter"),
        Case(input: "@a=1&@a=2", name: "duplicateQueryOption", code: 1604, location: "@a, position 0", mentions: "@a"),
        Case(input: "$top=-1", name: "invalidQueryOptionValue", code: 1605, location: "$top, position 0", mentions: "'-1'"),
        Case(input: "$skip=1.5", name: "invalidQueryOptionValue", code: 1605, location: "$skip, position 0", mentions: "'1.5'"),
        Case(input: "$top=99999999999999999999999", name: "invalidQueryOptionValue", code: 1605, location: "$top, position 0", mentions: "too large"),
        Case(input: "$count=yes", name: "invalidQueryOptionValue", code: 1605, location: "$count, position 0", mentions: "'yes'"),
        Case(input: "$count", name: "invalidQueryOptionValue", code: 1605, location: "$count, position 6", mentions: "$count"),
        Case(input: "$foo=1", name: "unsupportedQueryOption", code: 1606, location: "$foo, position 0", mentions: "$foo"),
        Case(input: "$apply=groupby((A))", name: "unsupportedQueryOption", code: 1606, location: "$apply, position 0", mentions: "$apply"),
        Case(input: "$levels=2", name: "invalidNestedOption", code: 1613, location: "$levels, position 0", mentions: "$expand"),
        Case(input: "$expand=A($levels=04)", name: "invalidQueryOptionValue", code: 1605, location: "$expand, position 10", mentions: "'04'"),
        Case(input: "$expand=A/$ref($select=B)", name: "invalidNestedOption", code: 1613, location: "$expand, position 7", mentions: "after /$ref"),
        Case(input: "$expand=A/$count($top=1)", name: "invalidNestedOption", code: 1613, location: "$expand, position 9", mentions: "after /$count"),
        Case(input: "$select=A($expand=B)", name: "invalidNestedOption", code: 1613, location: "$select, position 2", mentions: "$select item"),
        Case(input: "$expand=A($top=1;$top=2)", name: "duplicateQueryOption", code: 1604, location: "$expand, position 9", mentions: "$top"),
        Case(input: "$search=\"blue", name: "invalidSearch", code: 1610, location: "$search, position 0", mentions: "\"blue"),
        Case(input: "$search=(blue", name: "invalidSearch", code: 1610, location: "$search, position 0", mentions: "'('"),
        Case(input: "$search=a;b", name: "urlSyntaxError", code: 1600, location: "$search, position 1", mentions: "';b'"),
        Case(input: "$filter=%zz", name: "invalidPercentEncoding", code: 1608, location: "$filter, position 0", mentions: "%zz"),
        Case(input: "$filter=%FF", name: "invalidPercentEncoding", code: 1608, location: "$filter, position 0", mentions: "UTF-8"),
        Case(input: "$format=html", name: "invalidQueryOptionValue", code: 1605, location: "$format, position 0", mentions: "html"),
        Case(input: "$select=A.*/B", name: "urlSyntaxError", code: 1600, location: "$select, position 3", mentions: "'/B'"),
        Case(input: "$expand=*/A", name: "invalidExpandItem", code: 1617, location: "$expand, position 0", mentions: "'*'"),
        Case(input: "$filter= true", name: "urlSyntaxError", code: 1600, location: "$filter, position 0", mentions: "whitespace before 'true'"),
        Case(input: "$filter =true", name: "urlSyntaxError", code: 1600, location: "query, position 0", mentions: "$filter "),
    ]

    @Test(arguments: queryCases)
    func queryRejections(_ expected: Case) throws {
        let error = try #require(Self.queryError(expected.input))
        #expect(error.name == expected.name)
        #expect(error.code == expected.code)
        #expect(error.location == expected.location)
        #expect(error.message.contains(expected.mentions), "message: \(error.message)")
    }

    static let pathCases: [Case] = [
        Case(input: "Products/$count/foo", name: "invalidResourcePath", code: 1615, location: "path segment 3, position 0", mentions: "$count"),
        Case(input: "Categories(1)/Products/$ref/$count", name: "invalidResourcePath", code: 1615, location: "path segment 4, position 0", mentions: "$ref"),
        Case(input: "Categories(ID=wrong)", name: "invalidKeyPredicate", code: 1602, location: "path segment 1, position 14", mentions: "'wrong'"),
        Case(input: "Categories('Tablet/Slate')", name: "unterminatedString", code: 1609, location: "path segment 1, position 11", mentions: "'Tablet"),
        Case(input: "Customers('O%27Neil')", name: "urlSyntaxError", code: 1600, location: "path segment 1, position 13", mentions: "'Neil'"),
        Case(input: "OrderItems(OrderID=1;ItemID='a')", name: "urlSyntaxError", code: 1600, location: "path segment 1, position 20", mentions: "';ItemID="),
        Case(input: "Products.('foo')", name: "urlSyntaxError", code: 1600, location: "path segment 1, position 8", mentions: "'.'"),
        Case(input: "A//B", name: "invalidResourcePath", code: 1615, location: "path segment 2, position 0", mentions: "empty"),
        Case(input: "$nonsense", name: "invalidResourcePath", code: 1615, location: "path segment 1, position 0", mentions: "$nonsense"),
        Case(input: "Set(1)()", name: "invalidKeyPredicate", code: 1602, location: "path segment 1, position 6", mentions: "()"),
        Case(input: "Set/$filter(true)()", name: "invalidKeyPredicate", code: 1602, location: "path segment 2, position 13", mentions: "()"),
        Case(input: "Set/$filter(true)(Name)", name: "invalidKeyPredicate", code: 1602, location: "path segment 2, position 14", mentions: "'Name'"),
        Case(input: "Set/$filter(true)x", name: "urlSyntaxError", code: 1600, location: "path segment 2, position 13", mentions: "a key predicate"),
        Case(input: "Set/$filter(Price gt 5", name: "unexpectedEndOfInput", code: 1601, location: "path segment 2, position 18",
             mentions: "')' closing $filter(…)"),
    ]

    @Test(arguments: pathCases)
    func pathRejections(_ expected: Case) throws {
        let error = try #require(Self.urlError(expected.input))
        #expect(error.name == expected.name)
        #expect(error.code == expected.code)
        #expect(error.location == expected.location)
        #expect(error.message.contains(expected.mentions), "message: \(error.message)")
    }

    @Test func syntaxErrorsAreInvalidInputExceptUnsupported() throws {
        let syntax = try #require(Self.filterError("Price gt"))
        #expect(syntax.category == .invalidInput)
        let unsupported = try #require(Self.queryError("$apply=x"))
        #expect(unsupported.category == .notSupported)
    }

    @Test func deepParenthesesAreRejectedNotCrashing() throws {
        let fine = String(repeating: "(", count: 199) + "1" + String(repeating: ")", count: 199)
        #expect(throws: Never.self) { try ODataURLParser.parseFilter(fine) }
        // The deepest accepted nesting of every recursive construct runs within a test thread's stack.
        let calls = String(repeating: "tolower(", count: 99) + "A" + String(repeating: ")", count: 99)
        #expect(throws: Never.self) { try ODataURLParser.parseFilter(calls) }
        let lambdas = (0..<66).map { "L/any(v\($0):" }.joined() + "true" + String(repeating: ")", count: 66)
        #expect(throws: Never.self) { try ODataURLParser.parseFilter(lambdas) }
        let expands = "$expand=" + String(repeating: "A($expand=", count: 99) + "B" + String(repeating: ")", count: 99)
        #expect(throws: Never.self) { try ODataURLParser.parseQueryOptions(expands) }
        for depth in [250, 100_000] {
            let deep = String(repeating: "(", count: depth) + "1" + String(repeating: ")", count: depth)
            let error = try #require(Self.filterError(deep))
            #expect(error.name == "expressionTooDeep")
            #expect(error.code == 1607)
        }
        let nots = String(repeating: "not ", count: 50_000) + "true"
        #expect(Self.filterError(nots)?.name == "expressionTooDeep")
        let negations = String(repeating: "-", count: 50_000) + "X"
        #expect(Self.filterError(negations)?.name == "expressionTooDeep")
        let json = String(repeating: "[", count: 10_000)
        #expect(Self.filterError(json)?.name == "expressionTooDeep")
        let expand = "$expand=" + String(repeating: "A($expand=", count: 5_000) + "B" + String(repeating: ")", count: 5_000)
        #expect(Self.queryError(expand)?.name == "expressionTooDeep")
        let search = "$search=" + String(repeating: "(", count: 10_000) + "a" + String(repeating: ")", count: 10_000)
        #expect(Self.queryError(search)?.name == "expressionTooDeep")
        let searchNots = "$search=" + String(repeating: "NOT ", count: 10_000) + "a"
        #expect(Self.queryError(searchNots)?.name == "expressionTooDeep")
    }

    @Test func longOperatorChainsParseUpToTheTreeLimit() throws {
        let chain = (0..<1_200).map { "A eq \($0)" }.joined(separator: " or ")
        let tree = try ODataURLParser.parseFilter(chain)
        #expect(tree == (try ODataURLParser.parseFilter(chain)))
        #expect(SyntaxPrinter.print(tree).count > chain.count)
        let tooLong = (0..<5_000).map { "A eq \($0)" }.joined(separator: " or ")
        #expect(Self.filterError(tooLong)?.name == "expressionTooDeep")
        let list = "A in (" + (0..<10_000).map(String.init).joined(separator: ",") + ")"
        guard case .binary(.in, _, let right) = try ODataURLParser.parseFilter(list).kind,
              case .list(let items) = right.kind else {
            Issue.record("not an in-list")
            return
        }
        #expect(items.count == 10_000)
    }

    @Test func hugeInputsAreRejectedWithClippedMessages() throws {
        let huge = "Name eq '" + String(repeating: "x", count: 1_000_000)
        let error = try #require(Self.filterError(huge))
        #expect(error.name == "unterminatedString")
        #expect(error.message.count < 300)
        let garbage = String(repeating: "%", count: 100_000)
        #expect(Self.queryError("$filter=" + garbage)?.name == "invalidPercentEncoding")
    }
}
