import Testing
@testable import OfflineODataModel

@Suite struct LiteralExampleTests {
    private func infer(_ text: String) throws -> ODataValue { try ODataValue.inferLiteral(text) }

    @Test func specExamplesInferTheirTypes() throws {
        #expect(try infer("'O''Neil'") == .string("O'Neil"))
        #expect(try infer("''") == .string(""))
        #expect(try infer("1") == .int32(1))
        #expect(try infer("-5") == .int32(-5))
        #expect(try infer("3000000000") == .int64(3_000_000_000))
        #expect(try infer("99999999999999999999").kind == .decimal)
        #expect(try infer("1.5") == .decimal(try EdmDecimal(parsing: "1.5")))
        #expect(try infer("1.5e10") == .double(1.5e10))
        #expect(try infer("INF") == .double(.infinity))
        #expect(try infer("-INF") == .double(-.infinity))
        #expect(try infer("NaN").isIdentical(to: .double(.nan)))
        #expect(try infer("true") == .boolean(true))
        #expect(try infer("null") == .null)
        #expect(try infer("2012-12-03") == .date(try EdmDate(year: 2012, month: 12, day: 3)))
        let dto = try infer("2012-12-03T07:16:23.5+01:00")
        #expect(dto == .dateTimeOffset(try EdmDateTimeOffset(parsing: "2012-12-03T06:16:23.5Z")))
        #expect(try dto.literal() == "2012-12-03T07:16:23.5+01:00")
        #expect(try infer("07:16:23") == .timeOfDay(try EdmTimeOfDay(hour: 7, minute: 16, second: 23)))
        #expect(try infer("duration'P1D'") == .duration(try EdmDuration(seconds: 86_400)))
        #expect(try infer("P1D") == .duration(try EdmDuration(seconds: 86_400)))
        #expect(try ODataValue.parseLiteral("'P1D'", as: .duration) == .duration(try EdmDuration(seconds: 86_400)))
        #expect(try infer("-P1DT2H3M4.5S") == .duration(try EdmDuration(isNegative: true, seconds: 93_784, picoseconds: 500_000_000_000)))
        #expect(try infer("01234567-89ab-cdef-0123-456789ABCDEF").kind == .guid)
        #expect(try infer("binary'T0RhdGE'") == .binary(Array("OData".utf8)))
        let color = try infer("Ns.Color'Red,Blue'")
        #expect(color == .enumValue(try EdmEnumValue(typeName: "Ns.Color", members: ["Red", "Blue"])))
    }

    @Test func v2FormsParse() throws {
        func infer(_ text: String) throws -> ODataValue { try ODataValue.inferLiteral(text, version: .v2) }
        let datetime = try infer("datetime'2012-12-03T07:16'")
        #expect(datetime == .dateTimeOffset(try EdmDateTimeOffset(parsing: "2012-12-03T07:16:00Z")))
        #expect(try infer("datetimeoffset'2012-12-03T07:16:23+02:00'").kind == .dateTimeOffset)
        #expect(try infer("time'PT13H20M'") == .timeOfDay(try EdmTimeOfDay(hour: 13, minute: 20)))
        #expect(try infer("guid'01234567-89ab-cdef-0123-456789abcdef'").kind == .guid)
        #expect(try infer("123L") == .int64(123))
        #expect(try infer("1.5M") == .decimal(try EdmDecimal(parsing: "1.5")))
        #expect(try infer("1.5m") == .decimal(try EdmDecimal(parsing: "1.5")))
        #expect(try infer("1.5d") == .double(1.5))
        #expect(try infer("1.5f") == .single(1.5))
        #expect(try infer("X'0A1B'") == .binary([0x0A, 0x1B]))
        #expect(try ODataValue.inferLiteral("binary'0A1B'", version: .v2) == .binary([0x0A, 0x1B]))
        #expect(try ODataValue.parseLiteral("time'PT13H20M00S'", as: .timeOfDay, version: .v2)
            == .timeOfDay(try EdmTimeOfDay(hour: 13, minute: 20)))
        // V4 mode rejects the V2-only forms, as the 4.01 ABNF does.
        for text in ["X'0A1B'", "datetime'2012-12-03T07:16'", "guid'01234567-89ab-cdef-0123-456789abcdef'", "123L",
                     "1.5M", "1.5d", "1.5f", "time'PT13H20M'"] {
            #expect(throws: ODataError.self, "\(text)") { try ODataValue.inferLiteral(text) }
        }
        #expect(throws: ODataError.self) { try ODataValue.parseLiteral("5L", as: .int64) }
        #expect(throws: ODataError.self) { try ODataValue.parseLiteral("X'0A'", as: .binary) }
    }

    @Test func typedParsingWidensIntegersAndKeepsDecimalScale() throws {
        #expect(try ODataValue.parseLiteral("1", as: .double) == .double(1))
        #expect(try ODataValue.parseLiteral("255", as: .byte) == .byte(255))
        let price = try ODataValue.parseLiteral("2296.90", as: .decimal)
        guard case .decimal(let decimal) = price else { Issue.record("not a decimal"); return }
        #expect(decimal.scale == 2)
        #expect(try price.literal() == "2296.90")
        #expect(try ODataValue.parseLiteral("1.5e3", as: .decimal).literal() == "1500")
        #expect(try ODataValue.parseLiteral("1.50e-1", as: .decimal).literal() == "0.150")
        #expect(try ODataValue.parseLiteral("NULL", as: .int32) == .null)
    }

    @Test func literalsAreFormattedCanonically() throws {
        #expect(try ODataValue.string("O'Neil").literal() == "'O''Neil'")
        #expect(try ODataValue.int64(5).literal(version: .v2) == "5L")
        #expect(try ODataValue.decimal(try EdmDecimal(parsing: "1.50")).literal(version: .v2) == "1.50M")
        #expect(try ODataValue.binary([0x0A, 0x1B]).literal(version: .v2) == "X'0A1B'")
        #expect(try ODataValue.binary([0xFB, 0xFF]).literal() == "binary'-_8='")
        #expect(try ODataValue.double(.infinity).literal() == "INF")
        #expect(try ODataValue.guid(try EdmGuid(parsing: "01234567-89AB-CDEF-0123-456789ABCDEF")).literal()
            == "01234567-89ab-cdef-0123-456789abcdef")
        #expect(try ODataValue.date(try EdmDate(year: -44, month: 3, day: 15)).literal() == "-0044-03-15")
        #expect(try ODataValue.date(try EdmDate(year: 12345, month: 1, day: 1)).literal() == "12345-01-01")
        #expect(try ODataValue.duration(try EdmDuration(parsing: "PT25H")).literal() == "duration'P1DT1H'")
        #expect(try ODataValue.duration(try EdmDuration(parsing: "-PT0S")).literal() == "duration'PT0S'")
    }

    @Test(arguments: [
        ("'abc", EdmPrimitiveKind.string, "invalidLiteral"),
        ("'", .string, "invalidLiteral"),
        ("'a'b'", .string, "invalidLiteral"),
        ("abc", .string, "invalidLiteral"),
        ("2147483648", .int32, "literalOutOfRange"),
        ("-2147483649", .int32, "literalOutOfRange"),
        ("256", .byte, "literalOutOfRange"),
        ("-1", .byte, "literalOutOfRange"),
        ("128", .sbyte, "literalOutOfRange"),
        ("9223372036854775808", .int64, "literalOutOfRange"),
        ("99999999999999999999999", .int64, "literalOutOfRange"),
        ("1.5", .int32, "invalidLiteral"),
        ("1e400", .double, "literalOutOfRange"),
        ("1e39", .single, "literalOutOfRange"),
        ("0x10", .double, "invalidLiteral"),
        ("inf", .double, "invalidLiteral"),
        ("1.", .decimal, "invalidLiteral"),
        (".5", .decimal, "invalidLiteral"),
        ("1e99999", .decimal, "decimalTooLarge"),
        ("2021-02-30", .date, "invalidDateTime"),
        ("2021-13-01", .date, "invalidDateTime"),
        ("2100-02-29", .date, "invalidDateTime"),
        ("021-01-01", .date, "invalidLiteral"),
        ("02021-01-01", .date, "invalidLiteral"),
        ("24:00:00", .timeOfDay, "invalidDateTime"),
        ("12:60", .timeOfDay, "invalidDateTime"),
        ("12:00:00.1234567890123", .timeOfDay, "invalidLiteral"),
        ("2012-12-03T07:16:23", .dateTimeOffset, "invalidLiteral"),
        ("2012-12-03T07:16:23+24:00", .dateTimeOffset, "invalidDateTime"),
        ("P", .duration, "invalidLiteral"),
        ("PT", .duration, "invalidLiteral"),
        ("P1H", .duration, "invalidLiteral"),
        ("PT1S2H", .duration, "invalidLiteral"),
        ("P99999999999999999999D", .duration, "literalOutOfRange"),
        ("binary'T0RhdGE'x", .binary, "invalidLiteral"),
        ("binary'T0R*'", .binary, "invalidBinary"),
        ("binary'T0RhdGF'", .binary, "invalidBinary"),
        ("binary'T'", .binary, "invalidBinary"),
        ("binary'ü'", .binary, "invalidBinary"),
        ("X'0A'", .binary, "invalidLiteral"),
        ("binary'0A1B+/'", .binary, "invalidBinary"),
        ("+P1D", .duration, "invalidLiteral"),
        ("01234567-89ab-cdef-0123-456789abcdeg", .guid, "invalidGuid"),
        ("01234567-89ab-cdef-0123456789abcdef", .guid, "invalidGuid"),
        ("yes", .boolean, "invalidLiteral"),
        ("geography'SRID=0;Point(1)'", .geographyPoint, "invalidLiteral"),
        ("geography'SRID=0;LineString(1 2)'", .geographyLineString, "invalidLiteral"),
        ("geometry'SRID=0;Point(1 2)'", .geographyPoint, "invalidLiteral"),
        ("geography'SRID=0;Point(1 2)'", .geographyPolygon, "invalidLiteral"),
        ("geography'SRID=123456;Point(1 2)'", .geographyPoint, "invalidLiteral"),
        ("geography'SRID=0;Point(INF 2)'", .geographyPoint, "invalidLiteral"),
        ("Edm.Stream", .stream, "unsupportedValue"),
    ])
    func malformedLiteralsThrowTypedErrors(text: String, kind: EdmPrimitiveKind, name: String) {
        do {
            let value = try ODataValue.parseLiteral(text, as: kind)
            Issue.record("'\(text)' as \(kind.rawValue) parsed as \(value)")
        } catch {
            #expect(error.name == name, "\(text): \(error)")
            #expect((1300...1399).contains(error.code))
            #expect(error.message.contains(text), "message names the text: \(error.message)")
        }
    }

    @Test func malformedV2Literals() {
        for text in ["X'0A1'", "X'0G'", "binary'0G'"] {
            #expect(throws: ODataError.self, "\(text)") { try ODataValue.parseLiteral(text, as: .binary, version: .v2) }
        }
        #expect(throws: ODataError.self) { try ODataValue.parseLiteral("datetime'2012-02-30T00:00'", as: .dateTimeOffset, version: .v2) }
        #expect(throws: ODataError.self) { try ODataValue.parseLiteral("time'PT24H'", as: .timeOfDay, version: .v2) }
        #expect(throws: ODataError.self) { try ODataValue.parseLiteral("128L", as: .sbyte, version: .v2) }
    }

    @Test func unknownPrefixesAndGarbageAreRejectedByInference() {
        for text in ["", "abc", "1.2.3", "--1", "Ns.Color'Red", "x'", "12:3", "2012-1-1", "'a''"] {
            #expect(throws: ODataError.self, "\(text)") { try ODataValue.inferLiteral(text) }
        }
    }
}
