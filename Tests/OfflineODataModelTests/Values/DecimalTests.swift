import PropertyBased
import Testing
@testable import OfflineODataModel

@Suite struct DecimalTests {
    @Test func parsingIsExactAndKeepsScale() throws {
        let price = try EdmDecimal(parsing: "2296.90")
        #expect(price.scale == 2 && price.digits == [2, 2, 9, 6, 9, 0])
        #expect(price.description == "2296.90")
        #expect(try EdmDecimal(parsing: "-0.00").description == "0.00")
        #expect(try EdmDecimal(parsing: "-0.00").isNegative == false)
        #expect(try EdmDecimal(parsing: "1.5E+3").description == "1500")
        #expect(try EdmDecimal(parsing: "00012.5").description == "12.5")
        #expect(try EdmDecimal(parsing: "123456789012345678901234567890.123456789").description
            == "123456789012345678901234567890.123456789")
    }

    @Test func equalityIsNumericAndIdentityIsRepresentational() throws {
        let one = try EdmDecimal(parsing: "1.0")
        let oneHundredth = try EdmDecimal(parsing: "1.00")
        #expect(one == oneHundredth)
        #expect(one.hashValue == oneHundredth.hashValue)
        #expect(!one.isIdentical(to: oneHundredth))
        #expect(Set([one, oneHundredth]).count == 1)
        #expect(try EdmDecimal(parsing: "-2") < EdmDecimal(parsing: "-1.99"))
        #expect(try EdmDecimal(parsing: "0.1") < EdmDecimal(parsing: "0.10001"))
    }

    @Test func doublesExpandExactly() throws {
        #expect(EdmDecimal(exactly: 0.1)?.description == "0.1000000000000000055511151231257827021181583404541015625")
        #expect(EdmDecimal(exactly: 1e20)?.description == "100000000000000000000")
        #expect(EdmDecimal(exactly: -0.0)?.isZero == true)
        #expect(EdmDecimal(exactly: .nan) == nil)
        let tiny = try #require(EdmDecimal(exactly: .leastNonzeroMagnitude))
        #expect(tiny.scale == 1074)
        #expect(tiny.doubleValue == .leastNonzeroMagnitude)
    }

    @Test func orderMatchesDoubleOrderForDoubles() async {
        await propertyCheck(count: 300, input: Gen.double(in: -1e12...1e12), Gen.double(in: -1e12...1e12)) { a, b in
            guard let x = EdmDecimal(exactly: a), let y = EdmDecimal(exactly: b) else { return }
            #expect((x < y) == (a < b))
            #expect((x == y) == (a == b))
            #expect(x.doubleValue == a || (a == 0 && x.doubleValue == 0))
        }
    }

    @Test func textRoundTripIsIdentical() async throws {
        await propertyCheck(count: 300, input: ValueGen.decimal) { value in
            let parsed = try EdmDecimal(parsing: value.description)
            #expect(parsed.isIdentical(to: value))
            #expect(parsed.normalized == value)
        }
    }
}

/// Coefficients of up to 19 digits are held inline (`EdmDecimal.Coefficient.small`), longer
/// ones as digit arrays. Every operation must give what the digit arrays give, on both sides of
/// the boundary and across it: checked against a reference computed from the digits alone.
@Suite struct DecimalRepresentationTests {
    /// Sign, digits (leading zeros allowed, 0...24 of them: both representations and the
    /// boundary at 19/20), scale 0...22.
    static let parts = zip(Gen.bool, Gen.uint8(in: 0...9).array(of: 0...24), Gen.int(in: 0...22))

    /// The digits without leading zeros.
    static func trimmed(_ digits: [UInt8]) -> [UInt8] { Array(digits.drop { $0 == 0 }) }

    /// Reference three-way comparison from digits: both sides brought to one scale, then
    /// compared as integers written in decimal.
    static func referenceCompare(_ a: (Bool, [UInt8], Int), _ b: (Bool, [UInt8], Int)) -> Int {
        let scale = max(a.2, b.2)
        let left = trimmed(a.1 + [UInt8](repeating: 0, count: scale - a.2))
        let right = trimmed(b.1 + [UInt8](repeating: 0, count: scale - b.2))
        let leftSign = left.isEmpty ? 0 : (a.0 ? -1 : 1), rightSign = right.isEmpty ? 0 : (b.0 ? -1 : 1)
        if leftSign != rightSign { return leftSign < rightSign ? -1 : 1 }
        var magnitude = 0
        if left.count != right.count {
            magnitude = left.count < right.count ? -1 : 1
        } else if left != right {
            magnitude = left.lexicographicallyPrecedes(right) ? -1 : 1
        }
        return leftSign < 0 ? -magnitude : magnitude
    }

    /// Reference canonical text from digits.
    static func referenceText(_ negative: Bool, _ digits: [UInt8], _ scale: Int) -> String {
        let kept = trimmed(digits)
        let padded = kept.count <= scale ? [UInt8](repeating: 0, count: scale + 1 - kept.count) + kept : kept
        var text = negative && !kept.isEmpty ? "-" : ""
        for (index, digit) in padded.enumerated() {
            if index == padded.count - scale { text += "." }
            text += String(digit)
        }
        return text
    }

    @Test func inlineAndArrayCoefficientsBehaveAlike() async throws {
        await propertyCheck(count: 500, input: Self.parts, Self.parts) { a, b in
            let x = try EdmDecimal(isNegative: a.0, digits: a.1, scale: a.2)
            let y = try EdmDecimal(isNegative: b.0, digits: b.1, scale: b.2)
            #expect(x.digits == Self.trimmed(a.1))
            #expect(x.digitCount == Self.trimmed(a.1).count)
            #expect(x.isZero == Self.trimmed(a.1).isEmpty)
            #expect(x.description == Self.referenceText(a.0, a.1, a.2))
            #expect(EdmDecimal.compare(x, y) == Self.referenceCompare(a, b))
            #expect(EdmDecimal.compare(y, x) == Self.referenceCompare(b, a))
            if x == y { #expect(x.hashValue == y.hashValue) }
            // Normalizing keeps the value and is idempotent; the text parses back identical.
            #expect(x.normalized == x && x.normalized.isIdentical(to: x.normalized.normalized))
            #expect(try EdmDecimal(parsing: x.description).isIdentical(to: x))
            // Integer view, against the text.
            let fraction = x.description.split(separator: ".").dropFirst().first ?? ""
            #expect(x.isInteger == fraction.allSatisfy { $0 == "0" })
            let whole = x.description.split(separator: ".").first.map(String.init) ?? ""
            #expect(x.int64Value == (x.isInteger ? Int64(whole) : nil))
            // The stored encoding reads back identical.
            var bytes: [UInt8] = []
            try EntityValueEncoding.write(.decimal(x), into: &bytes, path: "$")
            var reader = EncodedBytesReader(bytes, what: "test")
            #expect(try EntityValueEncoding.read(&reader).isIdentical(to: .decimal(x)))
        }
    }

    @Test func integersAtTheBoundary() throws {
        for value: Int64 in [0, 1, -1, 9_999_999_999_999_999, 999_999_999_999_999_999, Int64.max, Int64.min, Int64.min + 1] {
            let decimal = EdmDecimal(value)
            #expect(decimal.description == String(value))
            #expect(decimal.int64Value == value)
        }
        for value: UInt64 in [9_999_999_999_999_999_999, 10_000_000_000_000_000_000, UInt64.max] {
            let decimal = EdmDecimal(value)
            #expect(decimal.description == String(value))
            #expect(decimal.digitCount == String(value).count)
            #expect(decimal.int64Value == nil)
            #expect(decimal == (try EdmDecimal(parsing: String(value))))
        }
        // An exponent that pads an inline coefficient past 19 digits, and one that stays inline.
        #expect(try EdmDecimal(parsing: "999999999999999999.9e2").description == "99999999999999999990")
        #expect(try EdmDecimal(parsing: "999999999999999999.9e2").digitCount == 20)
        #expect(try EdmDecimal(parsing: "-12.5E+3").description == "-12500")
        #expect(try EdmDecimal(parsing: "0e5").isZero)
    }
}
