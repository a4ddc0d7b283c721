import OfflineODataModel
import PropertyBased
import Testing
@testable import OfflineODataQuery

/// Differential property test: random well-typed filter trees over random rows give the same
/// result (or both an error) in `ReferenceInterpreter` and in binder + `Evaluator`.
@Suite struct ReferenceAgreementTests {
    static let model: ServiceModel = {
        func p(_ name: String, _ kind: EdmPrimitiveKind) -> CSDLProperty {
            CSDLProperty(name: name, type: CSDLTypeReference(kind: .primitive(kind)))
        }
        let item = CSDLEntityType(name: "Item", namespace: "Ns", key: [CSDLPropertyRef(name: "ID")],
                                  properties: [p("ID", .int32), p("I", .int32), p("L", .int64), p("D", .double), p("S", .string), p("B", .boolean)])
        let container = CSDLEntityContainer(name: "C", namespace: "Ns", entitySets: [CSDLEntitySet(name: "Items", entityType: "Ns.Item")])
        return ServiceModel(version: .v4, schemas: [CSDLSchema(namespace: "Ns", entityTypes: [item], entityContainers: [container])])
    }()

    /// Turns a list of choices into a tree; running out of choices yields leaves, so shrinking
    /// the list shrinks the tree.
    struct Decoder {
        var choices: [Int]
        var index = 0

        mutating func next(_ count: Int) -> Int {
            guard index < choices.count else { return 0 }
            defer { index += 1 }
            return choices[index] % count
        }

        var exhausted: Bool { index >= choices.count }

        func leaf(_ kind: SyntaxExprKind) -> SyntaxExpr { SyntaxExpr(kind, at: 0) }
        func prop(_ name: String) -> SyntaxExpr { leaf(.path(SyntaxPath(segments: [.member(name, position: 0)]))) }
        func lit(_ value: ODataValue) -> SyntaxExpr { leaf(.literal(value, text: (try? value.literal()) ?? "")) }

        mutating func boolean(_ depth: Int) -> SyntaxExpr {
            if depth <= 0 || exhausted { return next(2) == 0 ? prop("B") : lit(.boolean(next(2) == 0)) }
            switch next(10) {
            case 0: return prop("B")
            case 1: return leaf(.binary(next(2) == 0 ? .and : .or, boolean(depth - 1), boolean(depth - 1)))
            case 2: return leaf(.unary(.not, boolean(depth - 1)))
            case 3, 4: return leaf(.binary(comparison(), number(depth - 1), number(depth - 1)))
            case 5: return leaf(.binary(comparison(), string(depth - 1), string(depth - 1)))
            case 6:
                let names = ["contains", "startswith", "endswith"]
                return leaf(.call(name: names[next(3)], arguments: [string(depth - 1), string(depth - 1)]))
            case 7:
                let count = next(4)
                var items: [SyntaxExpr] = []
                for _ in 0..<count { items.append(next(5) == 0 ? leaf(.null) : numberLiteral()) }
                return leaf(.binary(.in, number(depth - 1), leaf(.list(items))))
            case 8: return leaf(.binary(next(2) == 0 ? .eq : .ne, prop(["I", "S", "B", "D"][next(4)]), leaf(.null)))
            default: return leaf(.binary(comparison(), boolean(depth - 1), boolean(depth - 1)))
            }
        }

        mutating func comparison() -> SyntaxBinaryOperator { [.eq, .ne, .gt, .ge, .lt, .le][next(6)] }

        mutating func numberLiteral() -> SyntaxExpr {
            switch next(8) {
            case 0: return lit(.int32(Int32(next(7)) - 3))
            case 1: return lit(.int32([Int32.max, Int32.min, 1000][next(3)]))
            case 2: return lit(.int64(Int64(next(7)) - 3))
            case 3: return lit(.int64([Int64.max, Int64.min, 1 << 40][next(3)]))
            case 4: return lit(.double([0.5, -1.5, 2.0, 1e300][next(4)]))
            case 5: return lit(.double([Double.nan, .infinity, -.infinity][next(3)]))
            default: return lit(.int32(Int32(next(3))))
            }
        }

        mutating func number(_ depth: Int) -> SyntaxExpr {
            if depth <= 0 || exhausted { return next(2) == 0 ? prop(["I", "L", "D"][next(3)]) : numberLiteral() }
            switch next(8) {
            case 0, 1: return prop(["I", "L", "D"][next(3)])
            case 2: return numberLiteral()
            case 3, 4, 5: return leaf(.binary([.add, .sub, .mul][next(3)], number(depth - 1), number(depth - 1)))
            case 6: return leaf(.call(name: "length", arguments: [string(depth - 1)]))
            default: return leaf(.null)
            }
        }

        mutating func string(_ depth: Int) -> SyntaxExpr {
            let words = ["", "a", "ab", "Ab", "b", "É", "éa"]
            if depth <= 0 || exhausted { return next(2) == 0 ? prop("S") : lit(.string(words[next(words.count)])) }
            switch next(5) {
            case 0, 1: return prop("S")
            case 2: return lit(.string(words[next(words.count)]))
            case 3: return leaf(.call(name: "tolower", arguments: [string(depth - 1)]))
            default: return leaf(.null)
            }
        }

        mutating func row() -> [String: ODataValue] {
            var row: [String: ODataValue] = ["ID": .int32(1)]
            if next(4) != 0 { row["I"] = .int32([0, 1, -2, 5, Int32.max, Int32.min][next(6)]) }
            if next(4) != 0 { row["L"] = .int64([0, 3, -7, Int64.max, 1 << 40][next(5)]) }
            if next(4) != 0 { row["D"] = .double([0, 0.5, -1.5, .nan, .infinity, 2][next(6)]) }
            if next(4) != 0 { row["S"] = .string(["", "a", "ab", "Ab", "bab", "É"][next(6)]) }
            if next(4) != 0 { row["B"] = .boolean(next(2) == 0) }
            return row
        }
    }

    @Test func evaluatorAgreesWithTheReferenceInterpreter() async throws {
        let binder = try ExpressionBinder(model: Self.model, entityType: "Items")
        let evaluator = Evaluator()
        let choices = Gen.int(in: 0...1_000_000).array(of: 0...80)
        let rowChoices = Gen.int(in: 0...1_000_000).array(of: 10)
        var evaluated = 0, trueResults = 0, errors = 0, deep = 0
        await propertyCheck(count: 500, input: choices, rowChoices) { choices, rowChoices in
            var decoder = Decoder(choices: choices)
            let expr = decoder.boolean(5)
            var rowDecoder = Decoder(choices: rowChoices)
            let row = rowDecoder.row()
            let entity = ODataEntity(typeName: "Ns.Item", properties: row.sorted { $0.key < $1.key }.map { ODataProperty($0.key, $0.value) })
            let expected: ODataValue?
            do {
                expected = try ReferenceInterpreter.evaluate(expr, row: row)
            } catch ReferenceInterpreter.Failure.unsupported(let what) {
                Issue.record("generator produced an unsupported expression (\(what)): \(SyntaxPrinter.print(expr))")
                return
            } catch {
                expected = nil
            }
            let actual: ODataValue?
            do {
                actual = try evaluator.evaluate(try binder.bind(expr), on: entity)
            } catch {
                actual = nil
            }
            #expect(actual == expected, "\(SyntaxPrinter.print(expr)) on \(row)")
            if actual == nil { errors += 1 } else { evaluated += 1 }
            if actual == .boolean(true) { trueResults += 1 }
            if decoder.index > 8 { deep += 1 }
        }
        print("reference agreement: \(evaluated) evaluated (\(trueResults) true), \(errors) errors in both, \(deep) larger trees")
        // The generator must exercise real evaluation, not only errors or trivial trees.
        #expect(evaluated > 200 && trueResults > 50 && deep > 100)
    }

    @Test func referenceInterpreterBasics() throws {
        let row: [String: ODataValue] = ["A": .int32(2), "S": .string("Test")]
        func e(_ text: String) throws -> ODataValue { try ReferenceInterpreter.evaluate(try ODataURLParser.parseFilter(text), row: row) }
        #expect(try e("A add 1 eq 3") == .boolean(true))
        #expect(try e("Missing eq null") == .boolean(true))
        #expect(try e("Missing gt 1") == .boolean(false))
        #expect(try e("Missing eq 1 or true") == .boolean(true))
        #expect(try e("'Tes' lt S") == .boolean(true))
        #expect(try e("A in (1, 2)") == .boolean(true))
        #expect(try e("length(S) eq 4 and startswith(tolower(S), 'te')") == .boolean(true))
        #expect(throws: ReferenceInterpreter.Failure.self) { try e("year(S) eq 1") }
    }
}
