/// A cursor over UTF-8 bytes of a literal; every read is bounds-checked and failures throw
/// `invalidLiteral` naming the whole text and the byte offset.
struct TextScanner {
    let bytes: [UInt8]
    let text: String
    var index = 0

    init(_ text: String) {
        self.text = text
        self.bytes = Array(text.utf8)
    }

    init(bytes: [UInt8], text: String) {
        self.bytes = bytes
        self.text = text
    }

    var atEnd: Bool { index >= bytes.count }
    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    func fail(_ reason: String) -> ODataError { .invalidLiteral(text, reason, offset: index) }

    mutating func consume(_ char: Character) -> Bool {
        guard let ascii = char.asciiValue, peek == ascii else { return false }
        index += 1
        return true
    }

    mutating func expect(_ char: Character) throws(ODataError) {
        guard consume(char) else { throw fail("expected '\(char)'") }
    }

    /// Exactly `count` ASCII digits as a number.
    mutating func fixedDigits(_ count: Int, _ what: String) throws(ODataError) -> Int {
        var value = 0
        for _ in 0..<count {
            guard let digit = peek?.asciiDigit else { throw fail("expected \(count) digits for \(what)") }
            value = value * 10 + Int(digit)
            index += 1
        }
        return value
    }

    /// One or more digits as an unsigned number, throwing `overflow` past `limit`.
    mutating func digits(upTo limit: UInt64, _ what: String) throws(ODataError) -> UInt64 {
        let start = index
        var value: UInt64 = 0
        while let digit = peek?.asciiDigit {
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(UInt64(digit))
            guard !overflow1, !overflow2, sum <= limit else { throw .literalOutOfRange(text, what) }
            value = sum
            index += 1
        }
        guard index > start else { throw fail("expected digits for \(what)") }
        return value
    }

    /// `1*12DIGIT` fractional seconds as picoseconds.
    mutating func fractionPicoseconds() throws(ODataError) -> Int64 {
        let start = index
        var value: Int64 = 0
        while let digit = peek?.asciiDigit {
            guard index - start < 12 else { throw fail("more than 12 fractional-second digits") }
            value = value * 10 + Int64(digit)
            index += 1
        }
        let count = index - start
        guard count > 0 else { throw fail("expected fractional-second digits") }
        for _ in count..<12 { value *= 10 }
        return value
    }

    func requireEnd() throws(ODataError) {
        guard atEnd else { throw fail("unexpected character") }
    }
}

/// Formats picoseconds (0..<10^12) as `.ffff` with trailing zeros removed; empty for zero.
func fractionText(_ picoseconds: Int64) -> String {
    guard picoseconds > 0 else { return "" }
    var digits = String(picoseconds)
    digits = String(repeating: "0", count: 12 - digits.count) + digits
    while digits.hasSuffix("0") { digits.removeLast() }
    return "." + digits
}

/// Zero-padded decimal text of a non-negative number.
func padded(_ value: Int, _ width: Int) -> String {
    let text = String(value)
    return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
}

/// Proleptic Gregorian calendar arithmetic (days relative to 1970-01-01).
enum Calendar {
    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysInMonth(_ year: Int, _ month: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(year) - (month <= 2 ? 1 : 0)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civil(fromDays value: Int64) -> (year: Int, month: Int, day: Int) {
        let z = value + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }
}
