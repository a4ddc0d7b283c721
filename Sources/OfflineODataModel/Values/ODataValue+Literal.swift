/// URL literal forms: the OData 4.01 ABNF primitive literals, and with `version: .v2` also the
/// V2 forms `datetime'…'`, `datetimeoffset'…'`, `time'…'`, `guid'…'`, `123L`, `1.5M`/`1.5m`,
/// `1.5d`, `1.5f`, `X'0A1B'` and hex `binary'0A1B'`. V2 mode also accepts the V4 forms; V4 mode
/// rejects the V2-only forms (as the ABNF does). The text must already be percent-decoded.
extension ODataValue {
    /// Parses the literal as a value of `kind`. `null` is accepted for every kind.
    public static func parseLiteral(
        _ text: String, as kind: EdmPrimitiveKind, version: ODataVersion = .v4
    ) throws(ODataError) -> ODataValue {
        if text.lowercased() == "null" { return .null }
        let v2 = version == .v2
        switch kind {
        case .untyped: return try inferLiteral(text, version: version)
        case .boolean:
            switch text.lowercased() {
            case "true": return .boolean(true)
            case "false": return .boolean(false)
            default: throw .valueInvalidLiteral(text, "expected true or false")
            }
        case .byte: return .byte(UInt8(try integer(text, min: 0, max: Int64(UInt8.max), kind)))
        case .sbyte: return .sbyte(Int8(try integer(text, min: Int64(Int8.min), max: Int64(Int8.max), kind)))
        case .int16: return .int16(Int16(try integer(text, min: Int64(Int16.min), max: Int64(Int16.max), kind)))
        case .int32: return .int32(Int32(try integer(text, min: Int64(Int32.min), max: Int64(Int32.max), kind)))
        case .int64: return .int64(try integer(text, min: .min, max: .max, kind, suffixes: v2 ? "Ll" : ""))
        case .decimal:
            let body = dropSuffix(text, v2 ? "Mm" : "")
            return .decimal(try EdmDecimal.parse(Array(body.utf8), text: text))
        case .double: return .double(try parseFloatingLiteral(text, suffixes: v2 ? "dD" : "", Double.self, kind))
        case .single: return .single(try parseFloatingLiteral(text, suffixes: v2 ? "fF" : "", Float.self, kind))
        case .string:
            guard let quoted = try splitQuotedLiteral(text), quoted.prefix.isEmpty else {
                throw .valueInvalidLiteral(text, "a string literal is enclosed in single quotes")
            }
            return .string(quoted.body)
        case .binary:
            guard let quoted = try splitQuotedLiteral(text) else {
                throw .valueInvalidLiteral(text, v2 ? "expected binary'…' or X'…'" : "expected binary'…'")
            }
            return .binary(try binaryBody(quoted.prefix, quoted.body, text, version))
        case .guid:
            if let quoted = try splitQuotedLiteral(text) {
                try requireV2(quoted.prefix, "guid", text, version)
                return .guid(try EdmGuid(parsing: quoted.body))
            }
            return .guid(try EdmGuid(parsing: text))
        case .date: return .date(try EdmDate(parsing: text))
        case .dateTimeOffset:
            if let quoted = try splitQuotedLiteral(text) {
                try requireV2(quoted.prefix, "datetime", text, version, or: "datetimeoffset")
                let offsetOptional = quoted.prefix.lowercased() == "datetime"
                return .dateTimeOffset(try EdmDateTimeOffset(parsing: quoted.body, offsetOptional: offsetOptional))
            }
            return .dateTimeOffset(try EdmDateTimeOffset(parsing: text))
        case .timeOfDay:
            if let quoted = try splitQuotedLiteral(text) {
                try requireV2(quoted.prefix, "time", text, version)
                return .timeOfDay(try parseTimeOfDayLiteral(quoted.body))
            }
            return .timeOfDay(try EdmTimeOfDay(parsing: text))
        case .duration:
            if let quoted = try splitQuotedLiteral(text) {
                // 4.01: `duration'P1D'` or `'P1D'`; V2: `time'P1D'`.
                let prefix = quoted.prefix.lowercased()
                if !(prefix == "duration" || prefix.isEmpty) { try requireV2(prefix, "time", text, version) }
                return .duration(try EdmDuration(parsing: quoted.body))
            }
            return .duration(try EdmDuration(parsing: text))
        case .stream:
            throw .valueUnsupported("Edm.Stream values have no literal form")
        default:
            return .geo(try EdmGeo(literal: text, as: kind))
        }
    }

    /// Determines the type from the literal's own form (ABNF `primitiveLiteral`; V2 forms with
    /// `version: .v2`): integers become Int32, else Int64, else Decimal; `1.5` is Decimal;
    /// `1.5e10`, `INF`, `NaN` are Double; `Ns.Type'…'` is an enum value; `'…'` is a String.
    public static func inferLiteral(_ text: String, version: ODataVersion = .v4) throws(ODataError) -> ODataValue {
        let bytes = Array(text.utf8)
        let v2 = version == .v2
        guard let first = bytes.first else { throw .valueInvalidLiteral(text, "empty literal") }
        switch text.lowercased() {
        case "null": return .null
        case "true": return .boolean(true)
        case "false": return .boolean(false)
        default: break
        }
        if first == UInt8(ascii: "'") { return try parseLiteral(text, as: .string) }
        if let quoted = try splitQuotedLiteral(text) {
            switch quoted.prefix.lowercased() {
            case "duration": return .duration(try EdmDuration(parsing: quoted.body))
            case "time" where v2:
                if let time = try? parseTimeOfDayLiteral(quoted.body) { return .timeOfDay(time) }
                return .duration(try EdmDuration(parsing: quoted.body))
            case "binary": return .binary(try binaryBody(quoted.prefix, quoted.body, text, version))
            case "x" where v2: return .binary(try binaryBody(quoted.prefix, quoted.body, text, version))
            case "guid" where v2: return .guid(try EdmGuid(parsing: quoted.body))
            case "datetime" where v2, "datetimeoffset" where v2: return try parseLiteral(text, as: .dateTimeOffset, version: version)
            case "geography": return .geo(try EdmGeo(literal: text, as: .geography))
            case "geometry": return .geo(try EdmGeo(literal: text, as: .geometry))
            case "time", "x", "guid", "datetime", "datetimeoffset":
                throw .valueInvalidLiteral(text, "\(quoted.prefix)'…' is a V2 literal; parse with version .v2")
            default: return .enumValue(try parseEnumLiteral(text))
            }
        }
        if bytes.count == 36, bytes[8] == UInt8(ascii: "-"), bytes[13] == UInt8(ascii: "-") {
            return .guid(try EdmGuid(parsing: text))
        }
        if looksLikeDate(bytes) {
            if bytes.contains(UInt8(ascii: "T")) { return .dateTimeOffset(try EdmDateTimeOffset(parsing: text)) }
            return .date(try EdmDate(parsing: text))
        }
        if bytes.count >= 3, bytes[0].literalDigit != nil, bytes[1].literalDigit != nil, bytes[2] == UInt8(ascii: ":") {
            return .timeOfDay(try EdmTimeOfDay(parsing: text))
        }
        if first == UInt8(ascii: "P") || (bytes.count > 1 && first == UInt8(ascii: "-") && bytes[1] == UInt8(ascii: "P")) {
            return .duration(try EdmDuration(parsing: text))
        }
        return try inferNumber(text, bytes, v2: v2)
    }

    /// Accepts the V2-only prefix `name` (or `other`) only in V2 mode.
    private static func requireV2(
        _ prefix: String, _ name: String, _ text: String, _ version: ODataVersion, or other: String? = nil
    ) throws(ODataError) {
        let lower = prefix.lowercased()
        guard lower == name || lower == other else { throw .valueInvalidLiteral(text, "unexpected prefix '\(prefix)'") }
        guard version == .v2 else {
            throw .valueInvalidLiteral(text, "\(prefix)'…' is a V2 literal; parse with version .v2")
        }
    }

    private static func inferNumber(_ text: String, _ bytes: [UInt8], v2: Bool) throws(ODataError) -> ODataValue {
        if ["INF", "-INF", "NaN"].contains(text) { return try parseLiteral(text, as: .double) }
        guard let last = bytes.last else { throw .valueInvalidLiteral(text, "empty literal") }
        let version: ODataVersion = v2 ? .v2 : .v4
        switch v2 ? last : 0 {
        case UInt8(ascii: "L"), UInt8(ascii: "l"): return try parseLiteral(text, as: .int64, version: version)
        case UInt8(ascii: "M"), UInt8(ascii: "m"): return try parseLiteral(text, as: .decimal, version: version)
        case UInt8(ascii: "d"), UInt8(ascii: "D"): return try parseLiteral(text, as: .double, version: version)
        case UInt8(ascii: "f"), UInt8(ascii: "F"): return try parseLiteral(text, as: .single, version: version)
        default: break
        }
        if bytes.contains(UInt8(ascii: "e")) || bytes.contains(UInt8(ascii: "E")) {
            return try parseLiteral(text, as: .double)
        }
        let decimal = try EdmDecimal.parse(bytes, text: text)
        if bytes.contains(UInt8(ascii: ".")) { return .decimal(decimal) }
        if let whole = decimal.int64Value {
            if let small = Int32(exactly: whole) { return .int32(small) }
            return .int64(whole)
        }
        return .decimal(decimal)
    }

    /// Parses `Ns.Type'Member'`, `Ns.Type'A,B'`, `Ns.Type'3'`, or (4.01) the type-less `'A,B'`,
    /// which takes `typeName` (the type the context expects) when given.
    public static func parseEnumLiteral(_ text: String, typeName: String? = nil) throws(ODataError) -> EdmEnumValue {
        guard let quoted = try splitQuotedLiteral(text),
              quoted.prefix.isEmpty || EdmEnumValue.isQualifiedName(quoted.prefix) else {
            throw .valueInvalidLiteral(text, "expected Namespace.EnumType'Member'")
        }
        if let typeName, !quoted.prefix.isEmpty, quoted.prefix != typeName {
            throw .valueInvalidLiteral(text, "expected a value of \(typeName)")
        }
        return try EdmEnumValue(typeName: quoted.prefix.isEmpty ? typeName : quoted.prefix, memberText: quoted.body)
    }

    // MARK: pieces

    /// Splits `prefix'body'` with `''` unescaped in the body; nil when the text does not start
    /// with an identifier-ish prefix followed by a quote. A started but unterminated quote, or a
    /// lone quote inside, is an error.
    static func splitQuotedLiteral(_ text: String) throws(ODataError) -> (prefix: String, body: String)? {
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count, bytes[index] != UInt8(ascii: "'") {
            let char = bytes[index]
            let isNameChar = char.literalDigit != nil || char == UInt8(ascii: ".") || char == UInt8(ascii: "_")
                || (char | 0x20 >= UInt8(ascii: "a") && char | 0x20 <= UInt8(ascii: "z")) || char >= 0x80
            guard isNameChar else { return nil }
            index += 1
        }
        guard index < bytes.count else { return nil }
        let prefix = String(decoding: bytes[0..<index], as: UTF8.self)
        index += 1
        var body: [UInt8] = []
        while true {
            guard index < bytes.count else { throw .valueInvalidLiteral(text, "unterminated quote", offset: index) }
            if bytes[index] == UInt8(ascii: "'") {
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "'") {
                    body.append(UInt8(ascii: "'"))
                    index += 2
                    continue
                }
                guard index + 1 == bytes.count else {
                    throw .valueInvalidLiteral(text, "unescaped quote (write '' inside a literal)", offset: index)
                }
                return (prefix, String(decoding: body, as: UTF8.self))
            }
            body.append(bytes[index])
            index += 1
        }
    }

    private static func binaryBody(_ prefix: String, _ body: String, _ text: String, _ version: ODataVersion) throws(ODataError) -> [UInt8] {
        switch prefix.lowercased() {
        case "x" where version == .v2, "binary" where version == .v2:
            return try naming(text) { () throws(ODataError) in try BinaryTextCodec.decodeHex(body) }
        case "x": throw .valueInvalidLiteral(text, "X'…' is a V2 literal; parse with version .v2")
        case "binary":
            return try naming(text) { () throws(ODataError) in try BinaryTextCodec.decodeBase64(body, allowStandard: false, allowURL: true) }
        default: throw .valueInvalidLiteral(text, "expected binary'…' or X'…'")
        }
    }

    /// The codec's error (which names only the payload) with the literal it came from.
    private static func naming<T>(_ text: String, _ body: () throws(ODataError) -> T) throws(ODataError) -> T {
        do {
            return try body()
        } catch {
            var named = error
            named.message = "in literal '\(ODataError.valueClip(text))': " + error.message
            throw named
        }
    }

    private static func dropSuffix(_ text: String, _ suffixes: String) -> Substring {
        if let last = text.last, suffixes.contains(last) { return text.dropLast() }
        return Substring(text)
    }

    private static func integer(
        _ text: String, min: Int64, max: Int64, _ kind: EdmPrimitiveKind, suffixes: String = ""
    ) throws(ODataError) -> Int64 {
        let body = Array(dropSuffix(text, suffixes).utf8)
        var index = 0
        var negative = false
        if index < body.count, body[index] == UInt8(ascii: "-") || body[index] == UInt8(ascii: "+") {
            negative = body[index] == UInt8(ascii: "-"); index += 1
        }
        guard index < body.count else { throw .valueInvalidLiteral(text, "expected digits", offset: index) }
        var magnitude: UInt64 = 0
        var overflow = false
        while index < body.count {
            guard let digit = body[index].literalDigit else {
                throw .valueInvalidLiteral(text, "not an integer", offset: index)
            }
            let (times, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(UInt64(digit))
            overflow = overflow || o1 || o2
            magnitude = sum
            index += 1
        }
        let limit = negative ? min.magnitude : UInt64(max)
        guard !overflow, magnitude <= limit else { throw .valueOutOfRange(text, kind.rawValue) }
        if negative { return magnitude == Int64.min.magnitude ? .min : -Int64(magnitude) }
        return Int64(magnitude)
    }

    static func parseFloatingLiteral<F: BinaryFloatingPoint & LosslessStringConvertible>(
        _ text: String, suffixes: String, _ type: F.Type, _ kind: EdmPrimitiveKind
    ) throws(ODataError) -> F {
        let body = String(dropSuffix(text, suffixes))
        switch body {
        case "INF": return F.infinity
        case "-INF": return -F.infinity
        case "NaN": return F.nan
        default: break
        }
        // Validate the ABNF grammar first (Swift's parser also takes hex, "inf", "nan").
        _ = try EdmDecimal.parse(Array(body.utf8), text: text)
        guard let value = F(body) else { throw .valueInvalidLiteral(text, "not a number") }
        guard value.isFinite else { throw .valueOutOfRange(text, kind.rawValue) }
        return value
    }

    /// `hh:mm[:ss[.f]]` or a V2 `PTnHnMnS` duration below 24 hours.
    static func parseTimeOfDayLiteral(_ body: String) throws(ODataError) -> EdmTimeOfDay {
        guard body.hasPrefix("P") || body.hasPrefix("-") || body.hasPrefix("+") else {
            return try EdmTimeOfDay(parsing: body)
        }
        let duration = try EdmDuration(parsing: body)
        guard !duration.isNegative, duration.seconds < 86_400 else {
            throw .valueInvalidDateTime(body, "a time of day is a duration from 0 up to 24 hours")
        }
        return try EdmTimeOfDay(secondsSinceMidnight: Int64(duration.seconds), picoseconds: duration.picoseconds)
    }

    private static func looksLikeDate(_ bytes: [UInt8]) -> Bool {
        var index = bytes.first == UInt8(ascii: "-") ? 1 : 0
        let start = index
        while index < bytes.count, bytes[index].literalDigit != nil { index += 1 }
        return index - start >= 4 && index < bytes.count && bytes[index] == UInt8(ascii: "-")
    }
}
