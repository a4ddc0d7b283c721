/// `Edm.DateTimeOffset`: a local date and time plus the UTC offset it was written with.
///
/// - Ordering, `==` and hashing use the *instant* (`2012-12-03T08:16:23+01:00` equals
///   `2012-12-03T07:16:23Z`), so Equatable, Hashable and Comparable agree.
/// - The offset is kept, so the text round-trips; `isIdentical(to:)` compares the written form.
/// - V2's `Edm.DateTime` (no offset) is represented with offset 0.
public struct EdmDateTimeOffset: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let date: EdmDate
    public let time: EdmTimeOfDay
    /// Offset from UTC in minutes, -1439...1439 (`+01:00` is 60).
    public var offsetMinutes: Int { Int(storedOffset) }
    /// Stored as Int16 (the whole value is 26 bytes instead of 64; it sits inline in `ODataValue`).
    private let storedOffset: Int16

    public init(date: EdmDate, time: EdmTimeOfDay, offsetMinutes: Int = 0) throws(ODataError) {
        guard offsetMinutes.magnitude < 24 * 60 else {
            throw .valueInvalidDateTime("\(date)T\(time)", "offset \(offsetMinutes) minutes is beyond ±23:59")
        }
        self.date = date
        self.time = time
        self.storedOffset = Int16(offsetMinutes)
    }

    /// The instant `utcSeconds` (+ `picoseconds`) after 1970-01-01T00:00:00Z, shown at
    /// `offsetMinutes`; `leapSecond` turns that second (a :59) into the leap second :60 after it.
    public init(utcSeconds: Int64, picoseconds: Int64 = 0, offsetMinutes: Int = 0, leapSecond: Bool = false) throws(ODataError) {
        guard offsetMinutes.magnitude < 24 * 60 else {
            throw .valueInvalidDateTime(String(utcSeconds), "offset \(offsetMinutes) minutes is beyond ±23:59")
        }
        let limit: Int64 = 40_000_000_000_000_000
        guard utcSeconds > -limit, utcSeconds < limit else {
            throw .valueInvalidDateTime(String(utcSeconds), "instant outside the supported years")
        }
        let local = utcSeconds + Int64(offsetMinutes) * 60
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let secondOfDay = local - days * 86_400
        self.date = try EdmDate(daysSinceEpoch: days)
        self.time = try EdmTimeOfDay(secondsSinceMidnight: secondOfDay, picoseconds: picoseconds, leapSecond: leapSecond)
        self.storedOffset = Int16(offsetMinutes)
    }

    /// Parses `YYYY-MM-DDThh:mm[:ss[.f]](Z|±hh:mm)`. With `offsetOptional` (V2 `datetime'…'`),
    /// a missing zone means UTC.
    public init(parsing text: String, offsetOptional: Bool = false) throws(ODataError) {
        self = try LiteralScanner.reading(text) { (scanner: inout LiteralScanner) throws(ODataError) in
            try Self.scan(&scanner, offsetOptional: offsetOptional)
        }
    }

    /// The whole of the scanner's text as `init(parsing:)` reads it.
    static func scan(_ scanner: inout LiteralScanner, offsetOptional: Bool) throws(ODataError) -> EdmDateTimeOffset {
        let date = try EdmDate.scan(&scanner)
        guard scanner.consume("T") || scanner.consume("t") else { throw scanner.fail("expected 'T'") }
        let time = try EdmTimeOfDay.scan(&scanner)
        var offset = 0
        if scanner.consume("Z") || scanner.consume("z") {
            offset = 0
        } else if let sign = scanner.peek, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            scanner.index += 1
            let hours = try scanner.fixedDigits(2, "offset hours")
            try scanner.expect(":")
            let minutes = try scanner.fixedDigits(2, "offset minutes")
            guard hours <= 23, minutes <= 59 else { throw .valueInvalidDateTime(scanner.text, "offset out of range") }
            offset = (hours * 60 + minutes) * (sign == UInt8(ascii: "-") ? -1 : 1)
        } else if !offsetOptional {
            throw scanner.fail("expected 'Z' or a ±hh:mm offset")
        }
        try scanner.requireEnd()
        return try EdmDateTimeOffset(date: date, time: time, offsetMinutes: offset)
    }

    /// Seconds from 1970-01-01T00:00:00Z to this instant (whole seconds; see `picoseconds`).
    /// A leap second counts as the second before it, flagged by `isLeapSecond`.
    public var utcSeconds: Int64 {
        date.daysSinceEpoch * 86_400 + time.secondsSinceMidnight - Int64(offsetMinutes) * 60
    }

    public var picoseconds: Int64 { time.picoseconds }

    public var isLeapSecond: Bool { time.isLeapSecond }

    /// The same instant shown in UTC.
    public var utc: EdmDateTimeOffset {
        (try? EdmDateTimeOffset(utcSeconds: utcSeconds, picoseconds: picoseconds, offsetMinutes: 0,
                                 leapSecond: isLeapSecond)) ?? self
    }

    /// `Z` for UTC, otherwise `±hh:mm`.
    public var offsetText: String {
        var bytes: [UInt8] = []
        appendOffset(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `offsetText`'s UTF-8 bytes, appended.
    private func appendOffset(to bytes: inout [UInt8]) {
        if offsetMinutes == 0 {
            bytes.append(UInt8(ascii: "Z"))
            return
        }
        let magnitude = Int(offsetMinutes.magnitude)
        bytes.append(offsetMinutes < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
        ValueText.appendZeroPadded(magnitude / 60, 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        ValueText.appendZeroPadded(magnitude % 60, 2, to: &bytes)
    }

    /// `YYYY-MM-DDThh:mm:ss[.f…](Z|±hh:mm)` (the OData literal and JSON form).
    public var description: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(40)
        date.appendText(to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        time.appendText(to: &bytes)
        appendOffset(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// (seconds, leap flag, picoseconds): a leap second sorts after :59.999… and before :00.
    private var instantKey: (Int64, Int, Int64) { (utcSeconds, isLeapSecond ? 1 : 0, picoseconds) }

    public func isIdentical(to other: EdmDateTimeOffset) -> Bool {
        date == other.date && time == other.time && offsetMinutes == other.offsetMinutes
    }

    public static func == (lhs: EdmDateTimeOffset, rhs: EdmDateTimeOffset) -> Bool {
        lhs.instantKey == rhs.instantKey
    }

    public static func < (lhs: EdmDateTimeOffset, rhs: EdmDateTimeOffset) -> Bool {
        lhs.instantKey < rhs.instantKey
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(utcSeconds)
        hasher.combine(isLeapSecond)
        hasher.combine(picoseconds)
    }
}
