import OfflineODataModel
import Testing
@testable import OfflineODataQuery

@Suite struct EvaluatorArithmeticTests {
    func v(_ e: SyntaxExpr) throws -> ODataValue { try Eval.value(e) }

    @Test func integerArithmetic() throws {
        #expect(try v(S.bin(.add, S.int(2), S.int(3))) == .int32(5))
        #expect(try v(S.bin(.sub, S.int(2), S.int(3))) == .int32(-1))
        #expect(try v(S.bin(.mul, S.int(4), S.int(3))) == .int32(12))
        #expect(try v(S.bin(.div, S.int(7), S.int(2))) == .int32(3))
        #expect(try v(S.bin(.div, S.int(-7), S.int(2))) == .int32(-3))
        #expect(try v(S.bin(.mod, S.int(-7), S.int(2))) == .int32(-1))
        #expect(try v(S.bin(.mod, S.int(7), S.int(-2))) == .int32(1))
        #expect(try v(S.bin(.add, S.int(1), S.lit(.int64(2)))) == .int64(3))
        #expect(try v(S.bin(.add, S.int(1), S.null)) == .null)
        #expect(try v(S.neg(S.int(4))) == .int32(-4))
    }

    @Test func divisionByZero() throws {
        for op in [SyntaxBinaryOperator.div, .mod] {
            let error = Eval.error(S.bin(op, S.int(1), S.int(0)))
            #expect(error?.name == "divisionByZero")
            #expect(error?.code == 1700)
            #expect(Eval.error(S.bin(op, S.dec("1.5"), S.dec("0")))?.name == "divisionByZero")
        }
        #expect(try v(S.bin(.div, S.dbl(1), S.dbl(0))) == .double(.infinity))
        #expect(try v(S.bin(.div, S.dbl(-1), S.dbl(0))) == .double(-.infinity))
        guard case .double(let nan) = try v(S.bin(.div, S.dbl(0), S.dbl(0))) else { Issue.record("not a double"); return }
        #expect(nan.isNaN)
        #expect(try v(S.bin(.divby, S.int(1), S.int(0))) == .decimal(.infinity))
        #expect(try v(S.bin(.divby, S.int(-1), S.int(0))) == .decimal(.negativeInfinity))
    }

    @Test func overflowIsAnError() {
        let error = Eval.error(S.bin(.add, S.int(.max), S.int(1)))
        #expect(error?.name == "arithmeticOverflow")
        #expect(error?.code == 1703)
    }

    @Test func decimalArithmeticIsExactWithScaleRules() throws {
        func text(_ e: SyntaxExpr) throws -> String? {
            if case .decimal(let d) = try v(e) { return d.description }
            return nil
        }
        #expect(try text(S.bin(.add, S.dec("0.1"), S.dec("0.2"))) == "0.3")
        #expect(try text(S.bin(.add, S.dec("1.10"), S.dec("2.205"))) == "3.305")
        #expect(try text(S.bin(.sub, S.dec("1.5"), S.dec("2.25"))) == "-0.75")
        #expect(try text(S.bin(.mul, S.dec("1.5"), S.dec("2.25"))) == "3.375")
        #expect(try text(S.bin(.mul, S.dec("1.50"), S.dec("2.0"))) == "3.000")
        #expect(try text(S.bin(.mod, S.dec("-7.5"), S.dec("2"))) == "-1.5")
        #expect(try text(S.bin(.div, S.dec("1"), S.dec("4"))) == "0.25")
        #expect(try text(S.bin(.divby, S.int(1), S.int(3))) == "0.3333333333333333333333333333333333")
        #expect(try text(S.bin(.divby, S.int(2), S.int(3))) == "0.6666666666666666666666666666666667")
        #expect(try text(S.bin(.add, S.int(1), S.dec("0.5"))) == "1.5")
        #expect(try v(S.bin(.eq, S.bin(.add, S.dec("0.1"), S.dec("0.2")), S.dec("0.3"))) == .boolean(true))
    }

    @Test func hugeDecimalDivisionIsRefusedNotSlow() throws {
        let huge = S.dec(String(repeating: "9", count: 1500))
        let error = Eval.error(S.bin(.divby, huge, S.dec("7")))
        #expect(error?.name == "arithmeticOverflow")
        #expect(Eval.error(S.bin(.mod, huge, S.dec("7")))?.name == "arithmeticOverflow")
        // Still exact below the limit.
        #expect(try v(S.bin(.mod, S.dec(String(repeating: "9", count: 40)), S.dec("7"))) == Eval.dec("3"))
    }

    @Test func rounding() throws {
        #expect(try v(S.call("round", S.dbl(2.5))) == .double(3))
        #expect(try v(S.call("round", S.dbl(-0.5))) == .double(-1))
        #expect(try v(S.call("round", S.dbl(1.4))) == .double(1))
        #expect(try v(S.call("round", S.dec("2.5"))) == Eval.dec("3"))
        #expect(try v(S.call("round", S.dec("-0.5"))) == Eval.dec("-1"))
        #expect(try v(S.call("round", S.dec("-2.45"))) == Eval.dec("-2"))
        #expect(try v(S.call("floor", S.dec("-1.5"))) == Eval.dec("-2"))
        #expect(try v(S.call("ceiling", S.dec("-1.5"))) == Eval.dec("-1"))
        #expect(try v(S.call("ceiling", S.dec("1.01"))) == Eval.dec("2"))
        #expect(try v(S.call("floor", S.dbl(-1.5))) == .double(-2))
        #expect(try v(S.call("ceiling", S.dbl(1.2))) == .double(2))
        #expect(try v(S.call("round", S.null)) == .null)
    }

    @Test func dateAndTimeArithmetic() throws {
        let day = S.lit(Eval.date("2024-03-10"))
        #expect(try v(S.bin(.add, day, S.lit(Eval.dur("PT23H")))) == Eval.date("2024-03-10"))
        #expect(try v(S.bin(.sub, day, S.lit(Eval.dur("PT1H")))) == Eval.date("2024-03-09"))
        #expect(try v(S.bin(.add, day, S.lit(Eval.dur("P1DT1H")))) == Eval.date("2024-03-11"))
        let instant = S.lit(Eval.dto("2024-03-10T23:30:00+02:00"))
        let later = try v(S.bin(.add, instant, S.lit(Eval.dur("PT1H"))))
        guard case .dateTimeOffset(let t) = later else { Issue.record("not a DTO"); return }
        #expect(t.description == "2024-03-11T00:30:00+02:00")
        #expect(try v(S.bin(.sub, S.lit(Eval.dto("2024-03-11T00:00:00Z")), S.lit(Eval.dto("2024-03-10T00:00:00Z")))) == Eval.dur("P1D"))
        #expect(try v(S.bin(.sub, S.lit(Eval.date("2024-03-01")), S.lit(Eval.date("2024-02-28")))) == Eval.dur("P2D"))
        #expect(try v(S.bin(.add, S.lit(Eval.dur("PT1.5S")), S.lit(Eval.dur("-PT2S")))) == Eval.dur("-PT0.5S"))
        #expect(try v(S.bin(.mul, S.lit(Eval.dur("PT1H")), S.int(3))) == Eval.dur("PT3H"))
        #expect(try v(S.bin(.div, S.lit(Eval.dur("PT1H")), S.int(4))) == Eval.dur("PT15M"))
        #expect(try v(S.neg(S.lit(Eval.dur("PT1H")))) == Eval.dur("-PT1H"))
    }

    @Test func dateFunctionsUseTheValuesOwnOffset() throws {
        let t = S.lit(Eval.dto("2024-03-10T23:30:15.25+02:00"))
        #expect(try v(S.call("year", t)) == .int32(2024))
        #expect(try v(S.call("day", t)) == .int32(10))
        #expect(try v(S.call("hour", t)) == .int32(23))
        #expect(try v(S.call("minute", t)) == .int32(30))
        #expect(try v(S.call("second", t)) == .int32(15))
        #expect(try v(S.call("fractionalseconds", t)) == Eval.dec("0.25"))
        #expect(try v(S.call("totaloffsetminutes", t)) == .int32(120))
        #expect(try v(S.call("date", t)) == Eval.date("2024-03-10"))
        #expect(try v(S.call("time", t)) == Eval.tod("23:30:15.25"))
        #expect(try v(S.call("totalseconds", S.lit(Eval.dur("P1DT0.5S")))) == Eval.dec("86400.5"))
        #expect(try v(S.call("month", S.lit(Eval.date("2024-03-10")))) == .int32(3))
        #expect(try v(S.call("now")) == Eval.dto("2024-06-01T12:00:00Z"))
        #expect(try v(S.bin(.lt, S.call("mindatetime"), S.call("maxdatetime"))) == .boolean(true))
    }
}
