extension ODataValue {
    /// The URL literal (not percent-encoded) that `parseLiteral(_:as:version:)` reads back to
    /// this value. V4 forms are bare where the ABNF allows; V2 forms use the V2 prefixes and
    /// suffixes (`123L`, `1.5M`, `guid'…'`, `datetime'…'`, `X'…'`, `time'PT…'`).
    /// Complex and collection values have no literal here (`notAScalar`); a geo value whose
    /// GeoJSON is not a geometry throws `invalidLiteral`.
    public func literal(version: ODataVersion = .v4) throws(ODataError) -> String {
        let v2 = version == .v2
        switch self {
        case .null: return "null"
        case .boolean(let value): return value ? "true" : "false"
        case .byte(let value): return String(value)
        case .sbyte(let value): return String(value)
        case .int16(let value): return String(value)
        case .int32(let value): return String(value)
        case .int64(let value): return String(value) + (v2 ? "L" : "")
        case .decimal(let value): return value.description + (v2 ? "M" : "")
        case .double(let value): return Self.floatingLiteralText(value) + (v2 ? "d" : "")
        case .single(let value): return Self.floatingLiteralText(value) + (v2 ? "f" : "")
        case .string(let value): return Self.quotedStringLiteral(value)
        case .binary(let bytes):
            return v2 ? "X'" + BinaryTextCodec.hex(bytes) + "'" : "binary'" + BinaryTextCodec.base64(bytes, url: true) + "'"
        case .guid(let value): return v2 ? "guid'\(value)'" : value.description
        case .date(let value): return v2 ? "datetime'\(value)T00:00:00'" : value.description
        case .dateTimeOffset(let value):
            guard v2 else { return value.description }
            if value.offsetMinutes == 0 { return "datetime'\(value.date)T\(value.time)'" }
            return "datetimeoffset'\(value)'"
        case .timeOfDay(let value): return v2 ? "time'\(Self.v2TimeText(value))'" : value.description
        case .duration(let value): return (v2 ? "time'" : "duration'") + value.description + "'"
        case .enumValue(let value): return value.description
        case .geo(let value): return try value.literal()
        case .complex: throw .valueNotAScalar("a complex value")
        case .collection: throw .valueNotAScalar("a collection")
        }
    }

    /// `'text'` with every `'` doubled.
    static func quotedStringLiteral(_ text: String) -> String {
        // Most keys hold no quote: no split and join (a create formats its key for the queue
        // and the Location; the split was about 3 % of it, perf).
        guard text.utf8.contains(UInt8(ascii: "'")) else { return "'" + text + "'" }
        return "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'"
    }

    /// Shortest round-trip text, `INF`, `-INF` or `NaN`. The finite form is also a JSON number.
    static func floatingLiteralText<F: BinaryFloatingPoint & CustomStringConvertible>(_ value: F) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-INF" : "INF" }
        return value.description
    }

    /// V2 `Edm.Time` text: `PT13H20M05S`, `PT07H00M00.5S` (a leap second keeps `hh:mm:60`).
    static func v2TimeText(_ value: EdmTimeOfDay) -> String {
        if value.isLeapSecond { return value.description }
        return "PT" + ValueText.zeroPadded(value.hour, 2) + "H" + ValueText.zeroPadded(value.minute, 2) + "M"
            + ValueText.zeroPadded(value.second, 2) + ValueText.fractionText(value.picoseconds) + "S"
    }
}
