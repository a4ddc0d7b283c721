/// JSON scalar forms of primitive values (OData JSON Format 4.01 §7.1 and V2 verbose JSON).
/// The JSON layer hands over raw text: the unescaped content of a JSON string, or the exact
/// text of a JSON number.
extension ODataValue {
    /// Reads the content of a JSON string as a value of `kind`.
    /// V4: Int64/Decimal/Double may arrive as strings (IEEE754Compatible, `INF`, `NaN`).
    /// V2: numbers of every width may be strings; DateTime/DateTimeOffset use `/Date(ms)/` or
    /// `/Date(ms±mmmm)/` (ms = UTC milliseconds since 1970, `±mmmm` = offset in minutes) or ISO
    /// text; Edm.Time uses `PT13H20M`. Binary accepts base64 and base64url, padded or not.
    public static func fromJSONString(
        _ text: String, as kind: EdmPrimitiveKind, version: ODataVersion
    ) throws(ODataError) -> ODataValue {
        switch kind {
        case .string, .untyped: return .string(text)
        case .boolean: throw .valueJSONTypeMismatch(text, "Edm.Boolean as a string")
        case .byte, .sbyte, .int16, .int32, .int64, .decimal, .single, .double:
            guard text.lowercased() != "null", !text.isEmpty else { throw .valueJSONTypeMismatch(text, kind.rawValue) }
            if kind == .decimal { return .decimal(try EdmDecimal.parse(Array(text.utf8), text: text)) }
            return try parseLiteral(text, as: kind, version: version)
        case .binary: return .binary(try BinaryTextCodec.decodeBase64(text))
        case .guid: return .guid(try EdmGuid(parsing: text))
        case .date:
            if text.hasPrefix("/Date(") {
                let instant = try parseV2Date(text)
                guard instant.time.secondsSinceMidnight == 0, instant.time.picoseconds == 0 else {
                    throw .valueInvalidDateTime(text, "an Edm.Date must be midnight")
                }
                return .date(instant.date)
            }
            if version == .v2, text.contains("T") {
                let instant = try EdmDateTimeOffset(parsing: text, offsetOptional: true)
                guard instant.time.secondsSinceMidnight == 0, instant.time.picoseconds == 0 else {
                    throw .valueInvalidDateTime(text, "an Edm.Date must be midnight")
                }
                return .date(instant.date)
            }
            return .date(try EdmDate(parsing: text))
        case .dateTimeOffset:
            if text.hasPrefix("/Date(") { return .dateTimeOffset(try parseV2Date(text)) }
            return .dateTimeOffset(try EdmDateTimeOffset(parsing: text, offsetOptional: version == .v2))
        case .timeOfDay: return .timeOfDay(try parseTimeOfDayLiteral(text))
        case .duration: return .duration(try EdmDuration(parsing: text))
        case .stream: throw .valueUnsupported("Edm.Stream has no JSON scalar form")
        default: throw .valueJSONTypeMismatch(text, "\(kind.rawValue) (a GeoJSON object, not a string)")
        }
    }

    /// Reads the exact text of a JSON number as a value of `kind`. For `.untyped`, whole numbers
    /// become Int32/Int64/Decimal and others Decimal (exact; never rounded through Double).
    public static func fromJSONNumber(
        rawText: String, as kind: EdmPrimitiveKind, version: ODataVersion
    ) throws(ODataError) -> ODataValue {
        let bytes = Array(rawText.utf8)
        guard isValidJSONNumberText(bytes) else { throw .valueInvalidLiteral(rawText, "not a JSON number") }
        let isWhole = !bytes.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") })
        switch kind {
        case .byte, .sbyte, .int16, .int32, .int64:
            guard isWhole else { throw .valueJSONTypeMismatch(rawText, kind.rawValue) }
            return try parseLiteral(rawText, as: kind, version: version)
        case .decimal: return .decimal(try EdmDecimal.parse(bytes, text: rawText))
        case .double: return .double(try parseFloatingLiteral(rawText, suffixes: "", Double.self, kind))
        case .single: return .single(try parseFloatingLiteral(rawText, suffixes: "", Float.self, kind))
        case .untyped:
            let decimal = try EdmDecimal.parse(bytes, text: rawText)
            if isWhole, let whole = decimal.int64Value {
                if let small = Int32(exactly: whole) { return .int32(small) }
                return .int64(whole)
            }
            return .decimal(decimal)
        default: throw .valueJSONTypeMismatch(rawText, kind.rawValue)
        }
    }

    /// A JSON `true`/`false` as a value of `kind` (Edm.Boolean or untyped).
    public static func fromJSONBool(
        _ value: Bool, as kind: EdmPrimitiveKind, version: ODataVersion = .v4
    ) throws(ODataError) -> ODataValue {
        guard kind == .boolean || kind == .untyped else {
            throw .valueJSONTypeMismatch(value ? "true" : "false", kind.rawValue)
        }
        return .boolean(value)
    }

    /// The JSON scalar that `fromJSON*` reads back to this value.
    /// V4: Int64 and Decimal are numbers, or strings with `ieee754Compatible`; INF/NaN are
    /// strings; Binary is base64url. V2: Int64, Decimal, Single and Double are strings;
    /// DateTime(Offset) is `/Date(ms)/` / `/Date(ms±mmmm)/` (ISO text when the value has a
    /// sub-millisecond fraction or is beyond Int64 milliseconds, so nothing is lost); Edm.Time
    /// is `PT13H20M05S`; Binary is base64. Geo, complex and collection values throw `notAScalar`
    /// (geo values are written from `EdmGeo.geoJSON`).
    public func jsonScalarForm(version: ODataVersion, ieee754Compatible: Bool = false) throws(ODataError) -> JSONScalarForm {
        let v2 = version == .v2
        let bigAsString = v2 || ieee754Compatible
        switch self {
        case .null: return .null
        case .boolean(let value): return .bool(value)
        case .byte(let value): return .number(String(value))
        case .sbyte(let value): return .number(String(value))
        case .int16(let value): return .number(String(value))
        case .int32(let value): return .number(String(value))
        case .int64(let value): return bigAsString ? .string(String(value)) : .number(String(value))
        case .decimal(let value):
            return bigAsString || !value.isFinite ? .string(value.description) : .number(value.description)
        case .double(let value):
            return value.isFinite && !v2 ? .number(Self.floatingLiteralText(value)) : .string(Self.floatingLiteralText(value))
        case .single(let value):
            return value.isFinite && !v2 ? .number(Self.floatingLiteralText(value)) : .string(Self.floatingLiteralText(value))
        case .string(let value): return .string(value)
        case .binary(let bytes): return .string(BinaryTextCodec.base64(bytes, url: !v2))
        case .guid(let value): return .string(value.description)
        case .date(let value):
            guard v2 else { return .string(value.description) }
            let midnight = try EdmDateTimeOffset(date: value, time: EdmTimeOfDay(hour: 0, minute: 0))
            return .string(Self.v2DateText(midnight) ?? midnight.description)
        case .dateTimeOffset(let value):
            return .string(v2 ? (Self.v2DateText(value) ?? value.description) : value.description)
        case .timeOfDay(let value): return .string(v2 ? Self.v2TimeText(value) : value.description)
        case .duration(let value): return .string(value.description)
        case .enumValue(let value):
            if value.typeName == nil, value.members.count == 1, let number = value.numericValue {
                return .number(String(number))
            }
            return .string(value.memberText)
        case .geo(let value): throw .valueNotAScalar("a geo value (\(value.kind.rawValue)); write its geoJSON")
        case .complex: throw .valueNotAScalar("a complex value")
        case .collection: throw .valueNotAScalar("a collection")
        }
    }

    // MARK: V2 /Date(…)/

    /// `/Date(ms)/`, or `/Date(ms±mmmm)/` for a non-UTC offset; nil when it would lose precision.
    static func v2DateText(_ value: EdmDateTimeOffset) -> String? {
        let picosPerMilli: Int64 = 1_000_000_000
        guard value.picoseconds % picosPerMilli == 0, !value.isLeapSecond else { return nil }
        let (scaled, overflow1) = value.utcSeconds.multipliedReportingOverflow(by: 1000)
        let (millis, overflow2) = scaled.addingReportingOverflow(value.picoseconds / picosPerMilli)
        guard !overflow1, !overflow2 else { return nil }
        var text = "/Date(\(millis)"
        if value.offsetMinutes != 0 {
            text += (value.offsetMinutes < 0 ? "-" : "+") + ValueText.zeroPadded(abs(value.offsetMinutes), 4)
        }
        return text + ")/"
    }

    static func parseV2Date(_ text: String) throws(ODataError) -> EdmDateTimeOffset {
        let (negative, magnitude, offset) = try LiteralScanner.reading(text) {
            (scanner: inout LiteralScanner) throws(ODataError) -> (Bool, UInt64, Int) in
            for char in "/Date(".unicodeScalars { try scanner.expect(char) }
            let negative = scanner.consume("-")
            let magnitude = try scanner.digits(upTo: UInt64(Int64.max), "milliseconds")
            var offset = 0
            if let sign = scanner.peek, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                scanner.index += 1
                offset = try scanner.fixedDigits(4, "offset minutes") * (sign == UInt8(ascii: "-") ? -1 : 1)
            }
            try scanner.expect(")")
            try scanner.expect("/")
            try scanner.requireEnd()
            return (negative, magnitude, offset)
        }
        let millis = negative ? -Int64(magnitude) : Int64(magnitude)
        var seconds = millis / 1000
        var remainder = millis % 1000
        if remainder < 0 { seconds -= 1; remainder += 1000 }
        return try EdmDateTimeOffset(utcSeconds: seconds, picoseconds: remainder * 1_000_000_000, offsetMinutes: offset)
    }

    /// RFC 8259 number grammar.
    static func isValidJSONNumberText(_ bytes: [UInt8]) -> Bool {
        var index = 0
        func digits() -> Int {
            let start = index
            while index < bytes.count, bytes[index].literalDigit != nil { index += 1 }
            return index - start
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { return false }
        if bytes[index] == UInt8(ascii: "0") { index += 1 } else if digits() == 0 { return false }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            if digits() == 0 { return false }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            if digits() == 0 { return false }
        }
        return index == bytes.count
    }
}
