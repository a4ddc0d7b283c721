import PropertyBased
import Testing
@testable import OfflineODataModel

/// The digit helpers behind times, dates and durations give the text the simple definitions
/// give: a fraction is its twelve digits with the trailing zeros removed, a padded number its
/// digits with zeros in front up to the width.
@Suite struct ValueTextPropertyTests {
    static func fractionByDefinition(_ picoseconds: Int64) -> String {
        guard picoseconds > 0 else { return "" }
        var digits = String(picoseconds)
        digits = String(repeating: "0", count: max(0, 12 - digits.count)) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "." + digits
    }

    @Test func fractionsAreTheirDigitsWithoutTrailingZeros() async {
        // Whole powers of ten and their neighbours, and random values over the whole range.
        let edges: [Int64] = [0, 1, 9, 10, 100, 500_000_000_000, 999_999_999_999, 100_000_000_000, 120_000_000_000]
        for p in edges { #expect(ValueText.fractionText(p) == Self.fractionByDefinition(p), "\(p)") }
        await propertyCheck(count: 500, input: Gen.int64(in: 0...999_999_999_999)) { p in
            #expect(ValueText.fractionText(p) == Self.fractionByDefinition(p), "\(p)")
        }
        // Values made of few significant digits (most real times: .5, .25, .125).
        await propertyCheck(count: 300, input: zip(Gen.int64(in: 1...999), Gen.int(in: 0...9))) { digits, shift in
            var p = digits
            for _ in 0..<shift { p *= 10 }
            guard p < 1_000_000_000_000 else { return }
            #expect(ValueText.fractionText(p) == Self.fractionByDefinition(p), "\(p)")
        }
    }

    @Test func paddedNumbersAreTheirDigitsAfterZeros() async {
        await propertyCheck(count: 500, input: zip(Gen.int(in: 0...10_000_000), Gen.int(in: 0...6))) { value, width in
            let digits = String(value)
            let expected = String(repeating: "0", count: max(0, width - digits.count)) + digits
            #expect(ValueText.zeroPadded(value, width) == expected, "\(value) width \(width)")
        }
    }

    @Test func timesOfDayPrintAsBefore() throws {
        let cases: [(Int, Int, Int, Int64, String)] = [
            (0, 0, 0, 0, "00:00:00"), (7, 16, 23, 500_000_000_000, "07:16:23.5"), (23, 59, 59, 999_999_999_999, "23:59:59.999999999999"),
            (12, 5, 9, 1, "12:05:09.000000000001"), (1, 2, 3, 120_000_000_000, "01:02:03.12"),
        ]
        for (h, m, s, p, text) in cases {
            #expect(try EdmTimeOfDay(hour: h, minute: m, second: s, picoseconds: p).description == text)
        }
    }

    @Test func datesAndInstantsPrintAsTheirFields() async throws {
        // The text the fields define: year with at least four digits (a sign before years
        // below 0), two-digit month and day, the time, `Z` or the offset as ±hh:mm.
        func pad(_ v: Int, _ w: Int) -> String { String(repeating: "0", count: max(0, w - String(v).count)) + String(v) }
        let fields = zip(Gen.int(in: -9999...9999), Gen.int(in: 1...12), Gen.int(in: 1...28), Gen.int(in: 0...23), Gen.int(in: 0...59),
                         Gen.int(in: 0...59), Gen.int64(in: 0...999_999_999_999), Gen.int(in: -840...840))
        await propertyCheck(count: 300, input: fields) { year, month, day, hour, minute, second, picos, offset in
            let date = try EdmDate(year: year, month: month, day: day)
            let dateText = (year < 0 ? "-" : "") + pad(abs(year), 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
            #expect(date.description == dateText)
            let time = try EdmTimeOfDay(hour: hour, minute: minute, second: second, picoseconds: picos)
            let timeText = pad(hour, 2) + ":" + pad(minute, 2) + ":" + pad(second, 2) + Self.fractionByDefinition(picos)
            let instant = try EdmDateTimeOffset(date: date, time: time, offsetMinutes: offset)
            let offsetText = offset == 0 ? "Z" : (offset < 0 ? "-" : "+") + pad(abs(offset) / 60, 2) + ":" + pad(abs(offset) % 60, 2)
            #expect(instant.description == dateText + "T" + timeText + offsetText)
        }
    }
}
