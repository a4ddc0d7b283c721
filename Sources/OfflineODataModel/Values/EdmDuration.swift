/// `Edm.Duration` (an xs:dayTimeDuration): a signed amount of days, hours, minutes and exact
/// seconds. Stored normalized as a magnitude of whole seconds plus picoseconds, so `PT25H`
/// and `P1DT1H` are the same value (printed as the latter). Zero is never negative.
public struct EdmDuration: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Largest magnitude in whole seconds (keeps signed arithmetic inside Int64).
    public static let maxSeconds = UInt64(Int64.max / 2)

    public let isNegative: Bool
    /// Whole seconds of the magnitude.
    public let seconds: UInt64
    /// Fraction of a second in picoseconds, 0..<10^12.
    public let picoseconds: Int64

    public init(isNegative: Bool = false, seconds: UInt64, picoseconds: Int64 = 0) throws(ODataError) {
        guard seconds <= Self.maxSeconds else { throw .valueOutOfRange(String(seconds), "Edm.Duration") }
        guard picoseconds >= 0, picoseconds < EdmTimeOfDay.picosecondsPerSecond else {
            throw .valueInvalidFields("duration fraction \(picoseconds) is not 0..<10^12 picoseconds")
        }
        self.isNegative = isNegative && (seconds != 0 || picoseconds != 0)
        self.seconds = seconds
        self.picoseconds = picoseconds
    }

    /// Parses `[-]P[nD][T[nH][nM][n[.f]S]]` (at least one component; a `T` needs one after it).
    public init(parsing text: String) throws(ODataError) {
        let (negative, total, fraction) = try LiteralScanner.reading(text) {
            (scanner: inout LiteralScanner) throws(ODataError) -> (Bool, UInt64, Int64) in
            let negative = scanner.consume("-")
            guard scanner.consume("P") else { throw scanner.fail("expected 'P'") }
            var total: UInt64 = 0
            var fraction: Int64 = 0
            var components = 0
            func add(_ value: UInt64, _ unit: UInt64) throws(ODataError) {
                let (scaled, overflow1) = value.multipliedReportingOverflow(by: unit)
                let (sum, overflow2) = total.addingReportingOverflow(scaled)
                guard !overflow1, !overflow2, sum <= Self.maxSeconds else {
                    throw .valueOutOfRange(text, "Edm.Duration")
                }
                total = sum
                components += 1
            }
            if let next = scanner.peek, next.literalDigit != nil {
                let days = try scanner.digits(upTo: Self.maxSeconds, "days")
                try scanner.expect("D")
                try add(days, 86_400)
            }
            if scanner.consume("T") {
                let before = components
                var stage = 0 // 1 after H, 2 after M, 3 after S
                while let next = scanner.peek, next.literalDigit != nil {
                    let value = try scanner.digits(upTo: Self.maxSeconds, "duration component")
                    if scanner.consume("H"), stage < 1 {
                        try add(value, 3600); stage = 1
                    } else if scanner.consume("M"), stage < 2 {
                        try add(value, 60); stage = 2
                    } else if stage < 3 {
                        if scanner.consume(".") { fraction = try scanner.fractionPicoseconds() }
                        try scanner.expect("S")
                        try add(value, 1); stage = 3
                    } else {
                        throw scanner.fail("duration components out of order")
                    }
                }
                guard components > before else { throw scanner.fail("expected a component after 'T'") }
            }
            guard components > 0 else { throw scanner.fail("duration has no component") }
            try scanner.requireEnd()
            return (negative, total, fraction)
        }
        try self.init(isNegative: negative, seconds: total, picoseconds: fraction)
    }

    public var days: UInt64 { seconds / 86_400 }
    public var hours: Int { Int(seconds % 86_400 / 3600) }
    public var minutes: Int { Int(seconds % 3600 / 60) }
    public var wholeSeconds: Int { Int(seconds % 60) }

    /// Signed whole seconds (toward zero) and signed picoseconds.
    public var signedSeconds: Int64 { isNegative ? -Int64(seconds) : Int64(seconds) }

    /// Canonical ISO 8601 text, e.g. `-P1DT2H3M4.5S`, `PT0S` for zero.
    public var description: String {
        var text = isNegative ? "-P" : "P"
        if days > 0 { text += "\(days)D" }
        let timePart = (hours > 0 ? "\(hours)H" : "") + (minutes > 0 ? "\(minutes)M" : "")
            + (wholeSeconds > 0 || picoseconds > 0 ? "\(wholeSeconds)\(ValueText.fractionText(picoseconds))S" : "")
        if !timePart.isEmpty { text += "T" + timePart } else if days == 0 { text += "T0S" }
        return text
    }

    public static func < (lhs: EdmDuration, rhs: EdmDuration) -> Bool {
        if lhs.isNegative != rhs.isNegative { return lhs.isNegative }
        let magnitudeLess = (lhs.seconds, lhs.picoseconds) < (rhs.seconds, rhs.picoseconds)
        let magnitudeGreater = (lhs.seconds, lhs.picoseconds) > (rhs.seconds, rhs.picoseconds)
        return lhs.isNegative ? magnitudeGreater : magnitudeLess
    }
}
