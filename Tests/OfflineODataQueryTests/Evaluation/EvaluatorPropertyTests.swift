import OfflineODataModel
import PropertyBased
import Testing
@testable import OfflineODataQuery

/// Algebraic properties of the arithmetic and ordering, checked against exact Int128 math.
@Suite struct EvaluatorPropertyTests {
    static func decimal(_ coefficient: Int64, scale: Int) -> EdmDecimal? {
        let magnitude = coefficient.magnitude
        let digits = magnitude == 0 ? [] : Array(String(magnitude).utf8.map { $0 - 48 })
        return try? EdmDecimal(isNegative: coefficient < 0, digits: digits, scale: scale)
    }

    /// The decimal's value as coefficient × 10^-scale in Int128.
    static func scaled(_ value: EdmDecimal, to scale: Int) -> Int128? {
        guard value.isFinite, scale >= value.scale else { return nil }
        var result: Int128 = 0
        for digit in value.digits { result = result * 10 + Int128(digit) }
        for _ in 0..<(scale - value.scale) { result *= 10 }
        return value.isNegative ? -result : result
    }

    @Test func decimalAddSubMulModMatchInt128() async {
        let coefficient = Gen.int64(in: -999_999_999_999...999_999_999_999)
        let scale = Gen.int(in: 0...8)
        await propertyCheck(count: 400, input: coefficient, scale, coefficient, scale) { ca, sa, cb, sb in
            guard let a = Self.decimal(ca, scale: sa), let b = Self.decimal(cb, scale: sb) else {
                Issue.record("could not build decimals"); return
            }
            let s = max(sa, sb)
            guard let x = Self.scaled(a, to: s), let y = Self.scaled(b, to: s) else { Issue.record("scale"); return }
            let sum = try a.adding(b, at: 0), difference = try a.subtracting(b, at: 0), product = try a.multiplied(by: b, at: 0)
            #expect(sum.scale == s && Self.scaled(sum, to: s) == x + y, "\(a) + \(b) = \(sum)")
            #expect(difference.scale == s && Self.scaled(difference, to: s) == x - y, "\(a) - \(b) = \(difference)")
            #expect(product.scale == sa + sb && Self.scaled(product, to: sa + sb) == Int128(ca) * Int128(cb), "\(a) * \(b) = \(product)")
            if y != 0 {
                let remainder = try a.remainder(dividingBy: b, at: 0)
                #expect(remainder.flatMap { Self.scaled($0, to: s) } == x % y, "\(a) mod \(b) = \(String(describing: remainder))")
            }
        }
    }

    @Test func exactQuotientsAreExact() async {
        let coefficient = Gen.int64(in: -9_999_999...9_999_999)
        let scale = Gen.int(in: 0...6)
        await propertyCheck(count: 300, input: coefficient, scale, coefficient, scale) { cb, sb, cc, sc in
            guard cb != 0, let b = Self.decimal(cb, scale: sb), let c = Self.decimal(cc, scale: sc) else { return }
            let a = try b.multiplied(by: c, at: 0)
            let quotient = try a.divided(by: b, at: 0)
            #expect(quotient == c, "\(a) / \(b) = \(String(describing: quotient)), expected \(c)")
        }
    }

    @Test func dateTimeOffsetPlusDurationRoundTrips() async {
        let seconds = Gen.int64(in: -10_000_000_000...10_000_000_000)
        let picos = Gen.int64(in: 0...999_999_999_999)
        let offset = Gen.int(in: -840...840)
        await propertyCheck(count: 300, input: seconds, picos, offset, seconds) { s, p, o, d in
            guard let t = try? EdmDateTimeOffset(utcSeconds: s, picoseconds: p, offsetMinutes: o),
                  let duration = try? EdmDuration(isNegative: d < 0, seconds: d.magnitude, picoseconds: p) else { return }
            let sum = try Arithmetic.apply(.add, .dateTimeOffset(t), .duration(duration), at: 0)
            #expect(try Arithmetic.apply(.sub, sum, .duration(duration), at: 0) == .dateTimeOffset(t))
            #expect(try Arithmetic.apply(.sub, sum, .dateTimeOffset(t), at: 0) == .duration(duration))
            if case .dateTimeOffset(let shifted) = sum { #expect(shifted.offsetMinutes == o) }
        }
    }

    @Test func orderingIsATotalOrder() async throws {
        let day = try EdmDate(year: 2020, month: 1, day: 1)
        let values: [ODataValue] = [
            .null, .boolean(false), .boolean(true), .int32(-1), .int16(3), .int64(3), .double(.nan), .double(-.infinity),
            .double(2.5), .single(2.5), .decimal(EdmDecimal(3)), .string(""), .string("a"), .string("B"),
            .date(day), .byte(200), .double(.nan), .string("zz"),
        ]
        let pick = Gen.int(in: 0...(values.count - 1))
        await propertyCheck(count: 500, input: pick, pick, pick) { i, j, k in
            let a = values[i], b = values[j], c = values[k]
            let ab = ODataOrdering.compare(a, b), ba = ODataOrdering.compare(b, a)
            #expect(ab == -ba, "\(a) vs \(b)")
            if ab <= 0 && ODataOrdering.compare(b, c) <= 0 {
                #expect(ODataOrdering.compare(a, c) <= 0, "\(a) ≤ \(b) ≤ \(c)")
            }
        }
    }
}
