import PropertyBased
import Testing
@testable import OfflineODataModel

@Suite struct CompareTests {
    private func dec(_ text: String) throws -> ODataValue { .decimal(try EdmDecimal(parsing: text)) }

    @Test func numericPromotionIsExact() throws {
        #expect(ODataValue.compare(.int32(1), .int64(1)) == 0)
        #expect(ODataValue.compare(.byte(255), .sbyte(-1)) == 1)
        #expect(try ODataValue.compare(dec("1.00"), .int16(1)) == 0)
        #expect(try ODataValue.compare(dec("9223372036854775807.5"), .int64(.max)) == 1)
        #expect(try ODataValue.compare(dec("9223372036854775806.99"), .int64(.max)) == -1)
        #expect(try ODataValue.compare(.double(0.1), dec("0.1")) == 1)
        #expect(try ODataValue.compare(.double(0.5), dec("0.50")) == 0)
        #expect(ODataValue.compare(.single(0.1), .double(0.1)) == 1) // Float 0.1 is 0.100000001…
        #expect(ODataValue.compare(.double(-0.0), .int32(0)) == 0)
        #expect(try ODataValue.compare(.double(.infinity), dec("1e4000")) == 1)
        #expect(ODataValue.compare(.double(-.infinity), .int64(.min)) == -1)
    }

    @Test func nanIsIncomparable() throws {
        #expect(ODataValue.compare(.double(.nan), .double(.nan)) == nil)
        #expect(ODataValue.compare(.double(.nan), .int32(1)) == nil)
        #expect(try ODataValue.compare(dec("1"), .single(.nan)) == nil)
        #expect(try ODataValue.compare(dec("NaN"), dec("NaN")) == nil)
        #expect(try ODataValue.compare(dec("INF"), .double(.infinity)) == 0)
        #expect(try ODataValue.compare(dec("-INF"), dec("-1e4000")) == -1)
    }

    @Test func stringsCompareByCodePoint() {
        #expect(ODataValue.compare(.string("B"), .string("a")) == -1)
        #expect(ODataValue.compare(.string("\u{FFFF}"), .string("\u{1F600}")) == -1) // UTF-16 order would disagree
        #expect(ODataValue.compare(.string("e\u{301}"), .string("\u{E9}")) == -1) // no normalization
        #expect(ODataValue.compare(.string("ab"), .string("abc")) == -1)
    }

    @Test func otherKinds() throws {
        #expect(ODataValue.compare(.boolean(false), .boolean(true)) == -1)
        let plusOne = ODataValue.dateTimeOffset(try EdmDateTimeOffset(parsing: "2012-12-03T08:16:23+01:00"))
        let utc = ODataValue.dateTimeOffset(try EdmDateTimeOffset(parsing: "2012-12-03T07:16:23Z"))
        #expect(ODataValue.compare(plusOne, utc) == 0)
        #expect(!plusOne.isIdentical(to: utc))
        let red = try EdmEnumValue(typeName: "Ns.Color", members: ["Red"], numericValue: 1)
        let blue = try EdmEnumValue(typeName: "Ns.Color", members: ["Blue"], numericValue: 4)
        #expect(ODataValue.compare(.enumValue(red), .enumValue(blue)) == -1)
        #expect(ODataValue.compare(.null, .int32(0)) == -1)
        #expect(ODataValue.compare(.null, .null) == 0)
        #expect(ODataValue.compare(.string("1"), .int32(1)) == nil)
        #expect(ODataValue.compare(.collection([]), .collection([])) == nil)
        #expect(try ODataValue.compare(.duration(EdmDuration(parsing: "-P1D")), .duration(EdmDuration(parsing: "PT1S"))) == -1)
    }

    @Test func compareIsAntisymmetricAndAgreesWithEquality() async {
        await propertyCheck(count: 400, input: ValueGen.numeric, ValueGen.numeric) { a, b in
            let forward = ODataValue.compare(a, b)
            let backward = ODataValue.compare(b, a)
            #expect(forward.map { -$0 } == backward)
            if a.kind == b.kind, forward != nil { #expect((forward == 0) == (a == b), "\(a) vs \(b)") }
        }
    }
}
