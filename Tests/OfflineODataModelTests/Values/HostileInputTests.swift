import PropertyBased
import Testing
@testable import OfflineODataModel

@Suite struct HostileInputTests {
    /// Literal-ish text: pieces of real literals glued at random.
    static let literalish = Gen.int(in: 0...(pieces.count - 1)).array(of: 0...8).map { $0.map { pieces[$0] }.joined() }
    static let pieces = ["'", "''", "1", "-", "9999999999999999999999", ".", "e", "E+", "T", ":", "Z", "+01:00", "P", "D",
                         "H", "M", "S", "binary'", "X'", "guid'", "datetime'", "time'", "duration'", "Ns.E'", ",", "=",
                         "(", ")", "INF", "NaN", "null", "2012-12-03", "07:16", "\u{0}", "é", "😀", "AQ==", "L", "f"]

    @Test func literalParsersOnlyThrowODataErrors() async {
        await propertyCheck(count: 1500, input: Self.literalish) { text in
            for version in [ODataVersion.v4, .v2] {
                if let value = try? ODataValue.inferLiteral(text, version: version), value.kind != nil {
                    // Whatever parses must format and parse back to the same value.
                    let again = try ODataValue.parseLiteral(try value.literal(version: version), as: value.kind ?? .untyped, version: version)
                    #expect(again.isIdentical(to: value), "\(text) → \(value) → \(again)")
                }
                for kind in EdmPrimitiveKind.allCases { _ = try? ODataValue.parseLiteral(text, as: kind, version: version) }
                _ = try? ODataValue.fromJSONString(text, as: .dateTimeOffset, version: version)
                _ = try? ODataValue.fromJSONNumber(rawText: text, as: .decimal, version: version)
            }
            _ = try? KeyPredicate.parse(text, keys: [KeyProperty("A", .int32), KeyProperty("B", .string)])
            _ = try? KeyPredicate.parse("(" + text + ")", keys: [KeyProperty("A", .dateTimeOffset)])
        }
    }

    /// A day count builds its date without the field checks: every count in the supported
    /// years must give the date whose checked fields and day count are the same, and the
    /// counts just outside must throw.
    @Test func dayCountsGiveValidDatesAndBack() async throws {
        let first = EdmDate.firstDay, last = EdmDate.lastDay
        let near = Gen.int(in: -800_000...800_000).map { Int64($0) }
        let anywhere = Gen.int(in: 0...1_000_000).map { first + (last - first) / 1_000_000 * Int64($0) }
        for gen in [near, anywhere] {
            await propertyCheck(count: 400, input: gen) { days in
                let date = try EdmDate(daysSinceEpoch: days)
                #expect(try EdmDate(year: date.year, month: date.month, day: date.day) == date)
                #expect(ProlepticCalendar.days(year: date.year, month: date.month, day: date.day) == days)
            }
        }
        for days in [first, last, 0, -1, 59, 60] {
            let date = try EdmDate(daysSinceEpoch: days)
            #expect(ProlepticCalendar.days(year: date.year, month: date.month, day: date.day) == days)
        }
        #expect(try EdmDate(daysSinceEpoch: first) == EdmDate(year: -EdmDate.maxYear, month: 1, day: 1))
        #expect(try EdmDate(daysSinceEpoch: last) == EdmDate(year: EdmDate.maxYear, month: 12, day: 31))
        #expect(throws: ODataError.self) { try EdmDate(daysSinceEpoch: first - 1) }
        #expect(throws: ODataError.self) { try EdmDate(daysSinceEpoch: last + 1) }
    }

    @Test func extremeFieldValuesAreErrorsNotTraps() throws {
        #expect(throws: ODataError.self) { try EdmDate(year: .min, month: 1, day: 1) }
        #expect(throws: ODataError.self) { try EdmDate(daysSinceEpoch: .min) }
        #expect(throws: ODataError.self) { try EdmDateTimeOffset(utcSeconds: .max) }
        #expect(throws: ODataError.self) { try EdmDateTimeOffset(utcSeconds: 0, offsetMinutes: .min) }
        #expect(throws: ODataError.self) { try EdmDuration(seconds: .max) }
        #expect(throws: ODataError.self) { try EdmDecimal(isNegative: false, digits: [10], scale: 0) }
        #expect(throws: ODataError.self) { try EdmGuid(bytes: [1, 2, 3]) }
        #expect(throws: ODataError.self) { try EdmGeo(kind: .string, geoJSON: "{}") }
        #expect(throws: ODataError.self) { try EdmEnumValue(typeName: "NoNamespace", members: ["A"]) }
        let farPast = try? ODataValue.fromJSONString("/Date(-9223372036854775807)/", as: .dateTimeOffset, version: .v2)
        #expect(farPast?.kind == .dateTimeOffset)
        #expect(throws: ODataError.self) {
            try ODataValue.fromJSONString("/Date(99999999999999999999)/", as: .dateTimeOffset, version: .v2)
        }
        #expect(throws: ODataError.self) { try EdmDecimal(parsing: String(repeating: "9", count: 5000)) }
        #expect(throws: ODataError.self) { try EdmDecimal(parsing: "1e-5000") }
        #expect(try EdmDate(parsing: "-999999999-12-31").year == -999_999_999)
        #expect(throws: ODataError.self) { try EdmDate(parsing: "1000000000-01-01") }
    }
}
