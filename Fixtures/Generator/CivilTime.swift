/// Calendar arithmetic on Unix milliseconds (proleptic Gregorian, UTC), using Howard Hinnant's
/// days-from-civil algorithms; integer-only so results are platform-independent.
enum CivilTime {
    static let millisPerDay: Int64 = 86_400_000

    /// Days since 1970-01-01 of a civil date.
    static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of a day count since 1970-01-01.
    static func civil(days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// `YYYY-MM-DD` of the UTC day containing `millis`.
    static func dateText(millis: Int64) -> String {
        dateText(days: floorDiv(millis, millisPerDay))
    }

    static func dateText(days: Int64) -> String {
        var bytes: [UInt8] = []
        appendDate(days: days, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `YYYY-MM-DDThh:mm:ss.fffZ`, or with `±hh:mm` when `offsetMinutes` is not 0 (the local
    /// wall-clock time is shifted accordingly; the instant is the same).
    static func dateTimeOffsetText(millis: Int64, offsetMinutes: Int) -> String {
        var bytes: [UInt8] = []
        appendDateTimeOffset(millis: millis, offsetMinutes: offsetMinutes, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    static func appendDate(days: Int64, to bytes: inout [UInt8]) {
        let (y, m, d) = civil(days: days)
        appendPadded(y, 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendPadded(m, 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendPadded(d, 2, to: &bytes)
    }

    static func appendDateTimeOffset(millis: Int64, offsetMinutes: Int, to bytes: inout [UInt8]) {
        let local = millis + Int64(offsetMinutes) * 60_000
        let days = floorDiv(local, millisPerDay)
        let inDay = local - days * millisPerDay
        appendDate(days: days, to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        appendPadded(Int(inDay / 3_600_000), 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendPadded(Int(inDay / 60_000 % 60), 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendPadded(Int(inDay / 1000 % 60), 2, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        appendPadded(Int(inDay % 1000), 3, to: &bytes)
        if offsetMinutes == 0 {
            bytes.append(UInt8(ascii: "Z"))
        } else {
            bytes.append(offsetMinutes < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            let magnitude = abs(offsetMinutes)
            appendPadded(magnitude / 60, 2, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            appendPadded(magnitude % 60, 2, to: &bytes)
        }
    }

    /// Appends a non-negative `value` with at least `width` digits (negative values: `-` and
    /// the magnitude).
    static func appendPadded(_ value: Int, _ width: Int, to bytes: inout [UInt8]) {
        JSONWriter.appendDecimal(Int64(value), scale: 0, to: &bytes, minimumDigits: width)
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        var bytes: [UInt8] = []
        appendPadded(value, width, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
