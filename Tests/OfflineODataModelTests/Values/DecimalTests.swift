import PropertyBased
import Testing
@testable import OfflineODataModel

@Suite struct DecimalTests {
    @Test func parsingIsExactAndKeepsScale() throws {
        let price = try EdmDecimal(parsing: "2296.90")
        #expect(price.scale == 2 && price.digits == [2, 2, 9, 6, 9, 0])
        #expect(price.description == "2296.90")
        #expect(try EdmDecimal(parsing: "-0.00").description == "0.00")
        #expect(try EdmDecimal(parsing: "-0.00").isNegative == false)
        #expect(try EdmDecimal(parsing: "1.5E+3").description == "1500")
        #expect(try EdmDecimal(parsing: "00012.5").description == "12.5")
        #expect(try EdmDecimal(parsing: "123456789012345678901234567890.123456789").description
            == "123456789012345678901234567890.123456789")
    }

    @Test func equalityIsNumericAndIdentityIsRepresentational() throws {
        let one = try EdmDecimal(parsing: "1.0")
        let oneHundredth = try EdmDecimal(parsing: "1.00")
        #expect(one == oneHundredth)
        #expect(one.hashValue == oneHundredth.hashValue)
        #expect(!one.isIdentical(to: oneHundredth))
        #expect(Set([one, oneHundredth]).count == 1)
        #expect(try EdmDecimal(parsing: "-2") < EdmDecimal(parsing: "-1.99"))
        #expect(try EdmDecimal(parsing: "0.1") < EdmDecimal(parsing: "0.10001"))
    }

    @Test func doublesExpandExactly() throws {
        #expect(EdmDecimal(exactly: 0.1)?.description == "0.1000000000000000055511151231257827021181583404541015625")
        #expect(EdmDecimal(exactly: 1e20)?.description == "100000000000000000000")
        #expect(EdmDecimal(exactly: -0.0)?.isZero == true)
        #expect(EdmDecimal(exactly: .nan) == nil)
        let tiny = try #require(EdmDecimal(exactly: .leastNonzeroMagnitude))
        #expect(tiny.scale == 1074)
        #expect(tiny.doubleValue == .leastNonzeroMagnitude)
    }

    @Test func orderMatchesDoubleOrderForDoubles() async {
        await propertyCheck(count: 300, input: Gen.double(in: -1e12...1e12), Gen.double(in: -1e12...1e12)) { a, b in
            guard let x = EdmDecimal(exactly: a), let y = EdmDecimal(exactly: b) else { return }
            #expect((x < y) == (a < b))
            #expect((x == y) == (a == b))
            #expect(x.doubleValue == a || (a == 0 && x.doubleValue == 0))
        }
    }

    @Test func textRoundTripIsIdentical() async throws {
        await propertyCheck(count: 300, input: ValueGen.decimal) { value in
            let parsed = try EdmDecimal(parsing: value.description)
            #expect(parsed.isIdentical(to: value))
            #expect(parsed.normalized == value)
        }
    }
}
