/// `Edm.Date`: a proleptic Gregorian calendar date. The year may be zero, negative, or above
/// 9999 as the OData ABNF allows (`-0044-03-15`, `12345-01-01`); it is bounded by `maxYear`.
public struct EdmDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Largest absolute year accepted (keeps every derived count of seconds inside Int64).
    public static let maxYear = 999_999_999

    // Stored narrow (8 bytes instead of 24: a date sits inline in every `ODataValue`, whose
    // size is that of its largest payload); `maxYear` fits an Int32.
    private let storedYear: Int32
    private let storedMonth: UInt8
    private let storedDay: UInt8

    public var year: Int { Int(storedYear) }
    public var month: Int { Int(storedMonth) }
    public var day: Int { Int(storedDay) }

    /// Validates the fields (month 1...12, day within the month, leap years proleptically).
    public init(year: Int, month: Int, day: Int) throws(ODataError) {
        guard year.magnitude <= UInt(Self.maxYear) else {
            throw .valueInvalidDateTime("\(year)-\(month)-\(day)", "year beyond ±\(Self.maxYear)")
        }
        guard (1...12).contains(month) else {
            throw .valueInvalidDateTime("\(year)-\(month)-\(day)", "month \(month) is not 1...12")
        }
        guard day >= 1, day <= ProlepticCalendar.daysInMonth(year, month) else {
            throw .valueInvalidDateTime("\(year)-\(month)-\(day)", "day \(day) does not exist in that month")
        }
        self.storedYear = Int32(year)
        self.storedMonth = UInt8(month)
        self.storedDay = UInt8(day)
    }

    /// The date that is `days` days after 1970-01-01 (negative for earlier dates).
    public init(daysSinceEpoch days: Int64) throws(ODataError) {
        guard days <= Self.lastDay, days >= Self.firstDay else {
            throw .valueInvalidDateTime(String(days), "day count outside the supported years")
        }
        // A day count inside the supported years is a valid date: no field check (every
        // decoded date/time offset passes here).
        let civil = ProlepticCalendar.civil(fromDays: days)
        storedYear = Int32(civil.year)
        storedMonth = UInt8(civil.month)
        storedDay = UInt8(civil.day)
    }

    /// The day counts of -maxYear-01-01 and maxYear-12-31.
    static let firstDay = ProlepticCalendar.days(year: -maxYear, month: 1, day: 1)
    static let lastDay = ProlepticCalendar.days(year: maxYear, month: 12, day: 31)

    /// Parses `[-]YYYY-MM-DD` (four or more year digits, no superfluous leading zero).
    public init(parsing text: String) throws(ODataError) {
        self = try LiteralScanner.reading(text) { (scanner: inout LiteralScanner) throws(ODataError) in
            let date = try Self.scan(&scanner)
            try scanner.requireEnd()
            return date
        }
    }

    static func scan(_ scanner: inout LiteralScanner) throws(ODataError) -> EdmDate {
        let negative = scanner.consume("-")
        let start = scanner.index
        let year = try scanner.digits(upTo: UInt64(maxYear), "year")
        let yearDigits = scanner.index - start
        guard yearDigits >= 4 else { throw scanner.fail("year needs at least four digits") }
        guard yearDigits == 4 || scanner.bytes[start] != UInt8(ascii: "0") else {
            throw scanner.fail("year longer than four digits has a leading zero")
        }
        try scanner.expect("-")
        let month = try scanner.fixedDigits(2, "month")
        try scanner.expect("-")
        let day = try scanner.fixedDigits(2, "day")
        do {
            return try EdmDate(year: negative ? -Int(year) : Int(year), month: month, day: day)
        } catch {
            throw .valueInvalidDateTime(scanner.text, error.message)
        }
    }

    /// Days since 1970-01-01.
    public var daysSinceEpoch: Int64 { ProlepticCalendar.days(year: year, month: month, day: day) }

    /// `YYYY-MM-DD`, with at least four year digits and `-` for years before 0.
    public var description: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(11)
        appendText(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The `description`'s UTF-8 bytes, appended.
    func appendText(to bytes: inout [UInt8]) {
        if year < 0 { bytes.append(UInt8(ascii: "-")) }
        ValueText.appendZeroPadded(Int(year.magnitude), 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        ValueText.appendZeroPadded(month, 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        ValueText.appendZeroPadded(day, 2, to: &bytes)
    }

    public static func < (lhs: EdmDate, rhs: EdmDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}
