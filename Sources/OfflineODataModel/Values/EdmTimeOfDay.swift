/// `Edm.TimeOfDay`: hour 0–23, minute, second and exact fractional seconds (up to 12 digits,
/// kept as picoseconds). Trailing zeros of the fraction are not significant: `07:16:23.50` and
/// `07:16:23.5` are the same value and print as the latter. Second 60 (a leap second, as the
/// ABNF allows) orders after second 59 and before the next minute.
public struct EdmTimeOfDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    public static let picosecondsPerSecond: Int64 = 1_000_000_000_000

    // Hour, minute and second stored as bytes (16 bytes instead of 32: a time sits inline in
    // every `ODataValue` through `Edm.DateTimeOffset`).
    private let storedHour: UInt8
    private let storedMinute: UInt8
    private let storedSecond: UInt8
    /// Fractional second in picoseconds, 0..<10^12.
    public let picoseconds: Int64

    public var hour: Int { Int(storedHour) }
    public var minute: Int { Int(storedMinute) }
    public var second: Int { Int(storedSecond) }

    public init(hour: Int, minute: Int, second: Int = 0, picoseconds: Int64 = 0) throws(ODataError) {
        // The text for messages is only built on the error path (this runs for every decoded value).
        func text() -> String { "\(hour):\(minute):\(second)+\(picoseconds)ps" }
        guard (0...23).contains(hour) else { throw .valueInvalidDateTime(text(), "hour \(hour) is not 0...23") }
        guard (0...59).contains(minute) else { throw .valueInvalidDateTime(text(), "minute \(minute) is not 0...59") }
        guard (0...60).contains(second) else { throw .valueInvalidDateTime(text(), "second \(second) is not 0...60") }
        guard picoseconds >= 0, picoseconds < Self.picosecondsPerSecond else {
            throw .valueInvalidDateTime(text(), "fraction is not 0..<10^12 picoseconds")
        }
        self.storedHour = UInt8(hour)
        self.storedMinute = UInt8(minute)
        self.storedSecond = UInt8(second)
        self.picoseconds = picoseconds
    }

    /// The time `seconds` (0..<86400) and `picoseconds` after midnight; with `leapSecond` the
    /// second must be a :59, which becomes :60.
    public init(secondsSinceMidnight seconds: Int64, picoseconds: Int64 = 0, leapSecond: Bool = false) throws(ODataError) {
        guard seconds >= 0, seconds < 86_400 else {
            throw .valueInvalidDateTime(String(seconds), "not within one day")
        }
        guard !leapSecond || seconds % 60 == 59 else {
            throw .valueInvalidDateTime(String(seconds), "a leap second follows second 59")
        }
        try self.init(hour: Int(seconds / 3600), minute: Int(seconds / 60 % 60),
                      second: leapSecond ? 60 : Int(seconds % 60), picoseconds: picoseconds)
    }

    /// True for second 60.
    public var isLeapSecond: Bool { second == 60 }

    /// Parses `hh:mm[:ss[.fffffffffff]]`.
    public init(parsing text: String) throws(ODataError) {
        self = try LiteralScanner.reading(text) { (scanner: inout LiteralScanner) throws(ODataError) in
            let time = try Self.scan(&scanner)
            try scanner.requireEnd()
            return time
        }
    }

    static func scan(_ scanner: inout LiteralScanner) throws(ODataError) -> EdmTimeOfDay {
        let hour = try scanner.fixedDigits(2, "hour")
        try scanner.expect(":")
        let minute = try scanner.fixedDigits(2, "minute")
        var second = 0
        var fraction: Int64 = 0
        if scanner.consume(":") {
            second = try scanner.fixedDigits(2, "second")
            if scanner.consume(".") { fraction = try scanner.fractionPicoseconds() }
        }
        do {
            return try EdmTimeOfDay(hour: hour, minute: minute, second: second, picoseconds: fraction)
        } catch {
            throw .valueInvalidDateTime(scanner.text, error.message)
        }
    }

    /// Whole seconds since midnight; a leap second counts as second 59 (see `isLeapSecond`).
    public var secondsSinceMidnight: Int64 { Int64(hour * 3600 + minute * 60 + min(second, 59)) }

    /// `hh:mm:ss[.f…]`.
    public var description: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(21)
        appendText(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The `description`'s UTF-8 bytes, appended.
    func appendText(to bytes: inout [UInt8]) {
        ValueText.appendZeroPadded(hour, 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        ValueText.appendZeroPadded(minute, 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        ValueText.appendZeroPadded(second, 2, to: &bytes)
        ValueText.appendFraction(picoseconds, to: &bytes)
    }

    public static func < (lhs: EdmTimeOfDay, rhs: EdmTimeOfDay) -> Bool {
        (lhs.hour, lhs.minute, lhs.second, lhs.picoseconds) < (rhs.hour, rhs.minute, rhs.second, rhs.picoseconds)
    }
}
