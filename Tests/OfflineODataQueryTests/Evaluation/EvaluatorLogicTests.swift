import OfflineODataModel
import Testing
@testable import OfflineODataQuery

@Suite struct EvaluatorLogicTests {
    let nullRow = Eval.product([("ID", .int32(1))])

    @Test func nullEqualityAndOrdering() throws {
        #expect(try Eval.value(S.bin(.eq, S.null, S.null)) == .boolean(true))
        #expect(try Eval.value(S.bin(.eq, S.prop("Name"), S.null), on: nullRow) == .boolean(true))
        #expect(try Eval.value(S.bin(.ne, S.prop("Name"), S.null), on: nullRow) == .boolean(false))
        #expect(try Eval.value(S.bin(.eq, S.prop("Name"), S.str("a")), on: nullRow) == .boolean(false))
        #expect(try Eval.value(S.bin(.ne, S.prop("Name"), S.str("a")), on: nullRow) == .boolean(true))
        for op in [SyntaxBinaryOperator.gt, .ge, .lt, .le] {
            #expect(try Eval.value(S.bin(op, S.prop("Price"), S.int(1)), on: nullRow) == .boolean(false))
            #expect(try Eval.value(S.bin(op, S.null, S.prop("Price")), on: nullRow) == .boolean(false))
        }
    }

    @Test func threeValuedLogic() throws {
        let t = S.bool(true), f = S.bool(false)
        let n = S.bin(.add, S.prop("Price"), S.int(1)) // null on nullRow
        let unknown = S.bin(.eq, n, S.int(2))           // false (eq with null is two-valued)
        #expect(try Eval.value(unknown, on: nullRow) == .boolean(false))
        // Make a real null Boolean: the Active property is absent.
        let nb = S.prop("Active")
        func v(_ e: SyntaxExpr) throws -> ODataValue { try Eval.value(e, on: nullRow) }
        #expect(try v(S.bin(.and, nb, f)) == .boolean(false))
        #expect(try v(S.bin(.and, f, nb)) == .boolean(false))
        #expect(try v(S.bin(.and, nb, t)) == .null)
        #expect(try v(S.bin(.or, nb, t)) == .boolean(true))
        #expect(try v(S.bin(.or, t, nb)) == .boolean(true))
        #expect(try v(S.bin(.or, nb, f)) == .null)
        #expect(try v(S.not(nb)) == .null)
        #expect(try v(S.not(f)) == .boolean(true))
        #expect(try v(S.not(S.bin(.and, nb, t))) == .null)
        // A filter keeps only true.
        let bound = try TestModel.binder().bindFilter(S.bin(.or, nb, f))
        #expect(try Eval.evaluator.matches(bound, on: nullRow) == false)
    }

    @Test func theDecidingSideWinsOverAnErrorOnEitherSide() throws {
        let failing = S.bin(.eq, S.bin(.div, S.int(1), S.int(0)), S.int(1))
        #expect(try Eval.value(S.bin(.and, S.bool(false), failing)) == .boolean(false))
        #expect(try Eval.value(S.bin(.and, failing, S.bool(false))) == .boolean(false))
        #expect(try Eval.value(S.bin(.or, failing, S.bool(true))) == .boolean(true))
        #expect(Eval.error(S.bin(.and, failing, S.bool(true)))?.name == "divisionByZero")
        #expect(Eval.error(S.bin(.or, S.bool(false), failing))?.name == "divisionByZero")
    }

    @Test func specialFloatingValues() throws {
        let nan = S.dbl(.nan), inf = S.dbl(.infinity), ninf = S.dbl(-.infinity)
        #expect(try Eval.value(S.bin(.eq, nan, nan)) == .boolean(false))
        #expect(try Eval.value(S.bin(.ne, nan, nan)) == .boolean(true))
        #expect(try Eval.value(S.bin(.gt, nan, S.int(1))) == .boolean(false))
        #expect(try Eval.value(S.bin(.lt, nan, S.int(1))) == .boolean(false))
        #expect(try Eval.value(S.bin(.eq, inf, inf)) == .boolean(true))
        #expect(try Eval.value(S.bin(.gt, inf, S.dbl(1e308))) == .boolean(true))
        #expect(try Eval.value(S.bin(.lt, ninf, S.int(-5))) == .boolean(true))
    }

    @Test func stringsCompareOrdinally() throws {
        #expect(try Eval.value(S.bin(.lt, S.str("Tes"), S.str("Test"))) == .boolean(true))
        #expect(try Eval.value(S.bin(.gt, S.str("Test1"), S.str("Test"))) == .boolean(true))
        #expect(try Eval.value(S.bin(.lt, S.str("Z"), S.str("a"))) == .boolean(true))
        #expect(try Eval.value(S.bin(.eq, S.str("a"), S.str("A"))) == .boolean(false))
        #expect(try Eval.value(S.bin(.gt, S.bool(true), S.bool(false))) == .boolean(true))
    }

    @Test func numericPromotionInComparisons() throws {
        let row = Eval.product([("Rating", .int16(5)), ("Stock", .int64(5)), ("Price", Eval.dec("5.00")), ("Weight", .double(0.1))])
        #expect(try Eval.value(S.bin(.eq, S.prop("Rating"), S.int(5)), on: row) == .boolean(true))
        #expect(try Eval.value(S.bin(.eq, S.prop("Rating"), S.prop("Stock")), on: row) == .boolean(true))
        #expect(try Eval.value(S.bin(.eq, S.prop("Price"), S.int(5)), on: row) == .boolean(true))
        #expect(try Eval.value(S.bin(.eq, S.prop("Weight"), S.dec("0.1")), on: row) == .boolean(true))
        #expect(try Eval.value(S.bin(.lt, S.prop("Rating"), S.int(40000)), on: row) == .boolean(true))
    }

    @Test func inAndHas() throws {
        let row = Eval.product([("Name", .string("b")), ("Access", .enumValue(try EdmEnumValue(typeName: "Ns.Access", members: ["Read", "Write"], numericValue: 3))),
                                ("Tags", .collection([.string("x"), .string("y")]))])
        #expect(try Eval.value(S.bin(.in, S.prop("Name"), S.list(S.str("a"), S.str("b"))), on: row) == .boolean(true))
        #expect(try Eval.value(S.bin(.in, S.prop("Name"), S.list()), on: row) == .boolean(false))
        #expect(try Eval.value(S.bin(.in, S.str("y"), S.prop("Tags")), on: row) == .boolean(true))
        #expect(try Eval.value(S.bin(.in, S.str("z"), S.prop("Tags")), on: row) == .boolean(false))
        let read = S.lit(.enumValue(try EdmEnumValue(typeName: "Ns.Access", members: ["Read"])))
        let delete = S.lit(.enumValue(try EdmEnumValue(typeName: "Ns.Access", members: ["Delete"])))
        #expect(try Eval.value(S.bin(.has, S.prop("Access"), read), on: row) == .boolean(true))
        #expect(try Eval.value(S.bin(.has, S.prop("Access"), delete), on: row) == .boolean(false))
        #expect(try Eval.value(S.bin(.has, S.prop("Access"), read), on: nullRow) == .null)
    }

    @Test func lambdas() throws {
        let orders = ODataNavigationValue("Orders", .entities([
            ODataEntity(typeName: "Ns.Order", properties: [ODataProperty("Amount", Eval.dec("10")), ODataProperty("Quantity", .int32(1))]),
            ODataEntity(typeName: "Ns.Order", properties: [ODataProperty("Amount", Eval.dec("30")), ODataProperty("Quantity", .int32(3))]),
        ], count: nil, nextLink: nil))
        let row = Eval.product([("ID", .int32(2)), ("Tags", .collection([.string("a"), .string("b")]))], navigation: [orders])
        let empty = Eval.product([("ID", .int32(3)), ("Tags", .collection([]))], navigation: [ODataNavigationValue("Orders", .entities([], count: nil, nextLink: nil))])
        func any(_ pred: SyntaxExpr?) -> SyntaxExpr {
            S.path([.member("Orders", position: 0), .any(variable: pred == nil ? nil : "o", predicate: pred, position: 7)])
        }
        func all(_ pred: SyntaxExpr) -> SyntaxExpr {
            S.path([.member("Orders", position: 0), .all(variable: "o", predicate: pred, position: 7)])
        }
        let big = S.bin(.gt, S.prop("o", "Amount"), S.int(20))
        #expect(try Eval.value(any(big), on: row) == .boolean(true))
        #expect(try Eval.value(all(big), on: row) == .boolean(false))
        #expect(try Eval.value(any(big), on: empty) == .boolean(false))
        #expect(try Eval.value(all(big), on: empty) == .boolean(true))
        #expect(try Eval.value(any(nil), on: row) == .boolean(true))
        #expect(try Eval.value(any(nil), on: empty) == .boolean(false))
        // Outer property inside the lambda and $it.
        let outer = S.bin(.gt, S.prop("o", "Quantity"), S.prop("ID"))
        #expect(try Eval.value(any(outer), on: row) == .boolean(true))
        let viaIt = S.bin(.gt, S.prop("o", "Quantity"), S.path([.member("ID", position: 0)], root: .it))
        #expect(try Eval.value(all(viaIt), on: row) == .boolean(false))
        // Primitive collection.
        let tagB = S.path([.member("Tags", position: 0), .any(variable: "t", predicate: S.bin(.eq, S.prop("t"), S.str("b")), position: 5)])
        #expect(try Eval.value(tagB, on: row) == .boolean(true))
        // $count with and without filter.
        let count = S.path([.member("Orders", position: 0), .count(filter: nil, search: nil, position: 7)])
        #expect(try Eval.value(count, on: row) == .int64(2))
        let filtered = S.path([.member("Orders", position: 0), .count(filter: S.bin(.gt, S.prop("Quantity"), S.int(2)), search: nil, position: 7)])
        #expect(try Eval.value(filtered, on: row) == .int64(1))
    }

    @Test func pathsThroughNullsAndCasts() throws {
        let row = Eval.product([("Address", .complex(ODataComplexValue([("City", .string("Oslo"))])))])
        #expect(try Eval.value(S.prop("Address", "City"), on: row) == .string("Oslo"))
        #expect(try Eval.value(S.prop("Address", "City"), on: nullRow) == .null)
        #expect(try Eval.value(S.prop("Category", "Name"), on: nullRow) == .null)
        #expect(try Eval.value(S.bin(.eq, S.prop("Category"), S.null), on: nullRow) == .boolean(true))
        let cast = S.path([.typeCast("Ns.SpecialProduct", position: 0), .member("Discount", position: 17)])
        let special = Eval.product([("Discount", .int32(7))], type: "Ns.SpecialProduct")
        #expect(try Eval.value(cast, on: special) == .int32(7))
        #expect(try Eval.value(cast, on: Eval.product([("Discount", .int32(7))])) == .null)
        #expect(try Eval.value(S.call("isof", S.type("Ns.SpecialProduct")), on: special) == .boolean(true))
        #expect(try Eval.value(S.call("isof", S.type("Ns.SpecialProduct")), on: nullRow) == .boolean(false))
        // Dynamic properties: absent is null.
        let bag = Eval.product([("Color", .string("red"))], type: "Ns.Bag")
        #expect(try Eval.value(S.bin(.eq, S.prop("Color"), S.str("red")), on: bag, set: "Bags") == .boolean(true))
        #expect(try Eval.value(S.bin(.eq, S.prop("Missing"), S.null), on: bag, set: "Bags") == .boolean(true))
    }

    @Test func caseExpression() throws {
        let row = Eval.product([("Rating", .int16(3))])
        let expr = SyntaxExpr(.caseOf([
            SyntaxCaseBranch(condition: S.bin(.gt, S.prop("Rating"), S.int(5)), value: S.str("high")),
            SyntaxCaseBranch(condition: S.bin(.gt, S.prop("Rating"), S.int(1)), value: S.str("mid")),
        ]), at: 0)
        #expect(try Eval.value(expr, on: row) == .string("mid"))
        #expect(try Eval.value(expr, on: nullRow) == .null)
    }
}
