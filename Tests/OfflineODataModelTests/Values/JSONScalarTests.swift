import PropertyBased
import Testing
@testable import OfflineODataModel

@Suite struct JSONScalarTests {
    private func readBack(_ form: JSONScalarForm, like value: ODataValue, version: ODataVersion) throws -> ODataValue {
        if case .enumValue(let original) = value {
            guard case .string(let text) = form else { return .null }
            return .enumValue(try EdmEnumValue(typeName: original.typeName, memberText: text, numericValue: original.numericValue))
        }
        guard let kind = value.kind else { return .null }
        switch form {
        case .string(let text): return try ODataValue.fromJSONString(text, as: kind, version: version)
        case .number(let text): return try ODataValue.fromJSONNumber(rawText: text, as: kind, version: version)
        case .bool(let flag): return try ODataValue.fromJSONBool(flag, as: kind)
        case .null: return .null
        }
    }

    @Test func everyKindRoundTripsThroughJSONScalars() async {
        for (name, gen) in ValueGen.byKind {
            await propertyCheck(count: 150, input: gen) { value in
                for (version, ieee) in [(ODataVersion.v4, false), (.v4, true), (.v2, false)] {
                    let form = try value.jsonScalarForm(version: version, ieee754Compatible: ieee)
                    let back = try readBack(form, like: value, version: version)
                    #expect(back.isIdentical(to: value), "\(name) \(version) ieee=\(ieee): \(value) → \(form) → \(back)")
                }
            }
        }
    }

    @Test func v4FormsFollowTheJSONFormatSpec() throws {
        let dto = ODataValue.dateTimeOffset(try EdmDateTimeOffset(parsing: "2012-12-03T07:16:23Z"))
        #expect(try dto.jsonScalarForm(version: .v4) == .string("2012-12-03T07:16:23Z"))
        #expect(try ODataValue.duration(try EdmDuration(parsing: "PT3H")).jsonScalarForm(version: .v4) == .string("PT3H"))
        #expect(try ODataValue.int64(9_007_199_254_740_993).jsonScalarForm(version: .v4) == .number("9007199254740993"))
        #expect(try ODataValue.int64(5).jsonScalarForm(version: .v4, ieee754Compatible: true) == .string("5"))
        let price = ODataValue.decimal(try EdmDecimal(parsing: "2296.90"))
        #expect(try price.jsonScalarForm(version: .v4) == .number("2296.90"))
        #expect(try ODataValue.double(.nan).jsonScalarForm(version: .v4) == .string("NaN"))
        #expect(try ODataValue.double(-.infinity).jsonScalarForm(version: .v4) == .string("-INF"))
        #expect(try ODataValue.binary([0xFB, 0xFF]).jsonScalarForm(version: .v4) == .string("-_8="))
        // Strings for Int64/Decimal are accepted even without IEEE754Compatible.
        #expect(try ODataValue.fromJSONString("9007199254740993", as: .int64, version: .v4) == .int64(9_007_199_254_740_993))
        let exact = try ODataValue.fromJSONNumber(rawText: "12345678901234567890.123456789", as: .decimal, version: .v4)
        #expect(try exact.literal() == "12345678901234567890.123456789")
    }

    @Test func v2FormsFollowVerboseJSON() throws {
        let utc = try ODataValue.fromJSONString("/Date(1532743225000)/", as: .dateTimeOffset, version: .v2)
        #expect(try utc.literal() == "2018-07-28T02:00:25Z")
        let shifted = try ODataValue.fromJSONString("/Date(1532743225000+0060)/", as: .dateTimeOffset, version: .v2)
        #expect(shifted == utc)
        #expect(try shifted.literal() == "2018-07-28T03:00:25+01:00")
        #expect(try shifted.jsonScalarForm(version: .v2) == .string("/Date(1532743225000+0060)/"))
        let before1970 = try ODataValue.fromJSONString("/Date(-1)/", as: .dateTimeOffset, version: .v2)
        #expect(try before1970.literal() == "1969-12-31T23:59:59.999Z")
        let time = try ODataValue.fromJSONString("PT13H20M", as: .timeOfDay, version: .v2)
        #expect(time == .timeOfDay(try EdmTimeOfDay(hour: 13, minute: 20)))
        #expect(try time.jsonScalarForm(version: .v2) == .string("PT13H20M00S"))
        #expect(try ODataValue.int64(5).jsonScalarForm(version: .v2) == .string("5"))
        #expect(try ODataValue.decimal(try EdmDecimal(parsing: "1.50")).jsonScalarForm(version: .v2) == .string("1.50"))
        #expect(try ODataValue.binary([1, 2, 3, 0xFF]).jsonScalarForm(version: .v2) == .string("AQID/w=="))
        let iso = try ODataValue.fromJSONString("2012-12-03T07:16:23", as: .dateTimeOffset, version: .v2)
        #expect(try iso.literal() == "2012-12-03T07:16:23Z")
        // Sub-millisecond precision is written as ISO text rather than lost.
        let fine = ODataValue.dateTimeOffset(try EdmDateTimeOffset(parsing: "2012-12-03T07:16:23.1234Z"))
        #expect(try fine.jsonScalarForm(version: .v2) == .string("2012-12-03T07:16:23.1234Z"))
    }

    @Test func mismatchedJSONIsATypedError() {
        let cases: [(String, () throws -> ODataValue)] = [
            ("number for guid", { try ODataValue.fromJSONNumber(rawText: "1", as: .guid, version: .v4) }),
            ("fraction for int", { try ODataValue.fromJSONNumber(rawText: "1.5", as: .int32, version: .v4) }),
            ("bad number", { try ODataValue.fromJSONNumber(rawText: "01", as: .int32, version: .v4) }),
            ("bad number 2", { try ODataValue.fromJSONNumber(rawText: "1e", as: .double, version: .v4) }),
            ("overflow", { try ODataValue.fromJSONNumber(rawText: "2147483648", as: .int32, version: .v4) }),
            ("bool for string", { try ODataValue.fromJSONBool(true, as: .string) }),
            ("bad base64", { try ODataValue.fromJSONString("A===", as: .binary, version: .v4) }),
            ("non-ascii base64", { try ODataValue.fromJSONString("QUJD\u{00E9}", as: .binary, version: .v4) }),
            ("bad /Date", { try ODataValue.fromJSONString("/Date(12x)/", as: .dateTimeOffset, version: .v2) }),
            ("truncated /Date", { try ODataValue.fromJSONString("/Date(12", as: .dateTimeOffset, version: .v2) }),
            ("null text", { try ODataValue.fromJSONString("null", as: .int64, version: .v4) }),
            ("bad date", { try ODataValue.fromJSONString("2021-02-29", as: .date, version: .v4) }),
        ]
        for (label, body) in cases {
            do {
                let value = try body()
                Issue.record("\(label) gave \(value)")
            } catch let error as ODataError {
                #expect((1300...1399).contains(error.code), "\(label): \(error)")
            } catch {
                Issue.record("\(label) threw \(error)")
            }
        }
    }

    @Test func complexAndCollectionHaveNoScalarForm() {
        #expect(throws: ODataError.self) { try ODataValue.collection([]).jsonScalarForm(version: .v4) }
        #expect(throws: ODataError.self) { try ODataValue.complex(ODataComplexValue()).literal() }
    }
}
