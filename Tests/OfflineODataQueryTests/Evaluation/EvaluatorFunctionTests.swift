import OfflineODataModel
import Testing
@testable import OfflineODataQuery

@Suite struct EvaluatorFunctionTests {
    func v(_ e: SyntaxExpr) throws -> ODataValue { try Eval.value(e) }
    func strings(_ items: String...) -> SyntaxExpr { S.lit(.collection(items.map(ODataValue.string))) }

    @Test func stringFunctions() throws {
        #expect(try v(S.call("contains", S.str("Alfreds"), S.str("fred"))) == .boolean(true))
        #expect(try v(S.call("contains", S.str("Alfreds"), S.str("Fred"))) == .boolean(false))
        #expect(try v(S.call("startswith", S.str("Alfreds"), S.str("Alf"))) == .boolean(true))
        #expect(try v(S.call("endswith", S.str("Alfreds"), S.str("eds"))) == .boolean(true))
        #expect(try v(S.call("endswith", S.str("s"), S.str("eds"))) == .boolean(false))
        #expect(try v(S.call("length", S.str("héllo"))) == .int32(5))
        #expect(try v(S.call("indexof", S.str("Alfreds"), S.str("lf"))) == .int32(1))
        #expect(try v(S.call("indexof", S.str("Alfreds"), S.str("x"))) == .int32(-1))
        #expect(try v(S.call("tolower", S.str("ÄBC"))) == .string("äbc"))
        #expect(try v(S.call("toupper", S.str("abc"))) == .string("ABC"))
        #expect(try v(S.call("trim", S.str("\u{2003} a b \t"))) == .string("a b"))
        #expect(try v(S.call("concat", S.str("a"), S.str("b"))) == .string("ab"))
        #expect(try v(S.call("contains", S.null, S.str("a"))) == .null)
    }

    @Test func substringRules() throws {
        #expect(try v(S.call("substring", S.str("Hello"), S.int(1))) == .string("ello"))
        #expect(try v(S.call("substring", S.str("Hello"), S.int(1), S.int(2))) == .string("el"))
        #expect(try v(S.call("substring", S.str("Hello"), S.int(9))) == .string(""))
        #expect(try v(S.call("substring", S.str("Hello"), S.int(3), S.int(99))) == .string("lo"))
        #expect(try v(S.call("substring", S.str("Hello"), S.int(-2))) == .string("lo"))
        #expect(try v(S.call("substring", S.str("Hello"), S.null)) == .null)
        let error = Eval.error(S.call("substring", S.str("Hello"), S.int(1), S.int(-1, at: 22)))
        #expect(error?.name == "invalidArgument")
        #expect(error?.code == 1701)
        #expect(error?.location == "position 22")
    }

    @Test func matchesPattern() throws {
        #expect(try v(S.call("matchesPattern", S.str("ABC-123"), S.str("^[A-Z]+-\\d{3}$"))) == .boolean(true))
        #expect(try v(S.call("matchesPattern", S.str("abc"), S.str("b"))) == .boolean(true))
        #expect(try v(S.call("matchesPattern", S.str("abc"), S.str("^b"))) == .boolean(false))
        // A pattern from a property is checked at run time.
        let row = Eval.product([("Name", .string("(oops"))])
        let error = Eval.error(S.call("matchesPattern", S.str("x"), S.prop("Name")), on: row)
        #expect(error?.name == "invalidPattern")
        #expect(error?.code == 1702)
    }

    @Test func collectionFunctions() throws {
        #expect(try v(S.call("hassubset", strings("a", "b", "a", "c"), strings("a", "a"))) == .boolean(true))
        #expect(try v(S.call("hassubset", strings("a", "b", "c"), strings("a", "a"))) == .boolean(false))
        #expect(try v(S.call("hassubset", strings("a", "b", "c"), strings("c", "a"))) == .boolean(true))
        #expect(try v(S.call("hassubsequence", strings("a", "b", "c"), strings("a", "c"))) == .boolean(true))
        #expect(try v(S.call("hassubsequence", strings("a", "b", "c"), strings("c", "a"))) == .boolean(false))
        #expect(try v(S.call("length", strings("a", "b"))) == .int32(2))
        #expect(try v(S.call("contains", strings("a", "b", "c"), strings("b", "c"))) == .boolean(true))
        #expect(try v(S.call("startswith", strings("a", "b", "c"), strings("b"))) == .boolean(false))
        #expect(try v(S.call("concat", strings("a"), strings("b"))) == .collection([.string("a"), .string("b")]))
        #expect(try v(S.call("substring", strings("a", "b", "c"), S.int(1), S.int(1))) == .collection([.string("b")]))
    }

    @Test func casts() throws {
        #expect(try v(S.call("cast", S.int(5), S.type("Edm.String"))) == .string("5"))
        #expect(try v(S.call("cast", S.str("12"), S.type("Edm.Int32"))) == .int32(12))
        #expect(try v(S.call("cast", S.str("x12"), S.type("Edm.Int32"))) == .null)
        #expect(try v(S.call("cast", S.dbl(2.5), S.type("Edm.Int32"))) == .int32(3))
        #expect(try v(S.call("cast", S.int(300), S.type("Edm.Byte"))) == .null)
        #expect(try v(S.call("cast", S.dbl(0.1), S.type("Edm.Decimal"))) == Eval.dec("0.1"))
        #expect(try v(S.call("cast", S.null, S.type("Edm.Int32"))) == .null)
        #expect(try v(S.call("cast", S.dbl(1e-5), S.type("Edm.Decimal"))) == Eval.dec("0.00001"))
        #expect(try v(S.call("cast", S.dbl(-2.5), S.type("Edm.Int64"))) == .int64(-3))
        #expect(try v(S.call("cast", S.dbl(.nan), S.type("Edm.Int32"))) == .null)
        #expect(try v(S.call("cast", S.str("true"), S.type("Edm.Boolean"))) == .boolean(true))
        #expect(try v(S.call("cast", S.lit(Eval.date("2024-01-02")), S.type("Edm.String"))) == .string("2024-01-02"))
        #expect(try v(S.call("cast", S.str("2024-01-02"), S.type("Edm.Date"))) == Eval.date("2024-01-02"))
        #expect(try v(S.call("isof", S.str("12"), S.type("Edm.Int32"))) == .boolean(true))
        #expect(try v(S.call("isof", S.str("ab"), S.type("Edm.Int32"))) == .boolean(false))
        let red = try v(S.call("cast", S.str("Red"), S.type("Ns.Color")))
        guard case .enumValue(let e) = red else { Issue.record("not an enum"); return }
        #expect(e.memberText == "Red")
    }
}
