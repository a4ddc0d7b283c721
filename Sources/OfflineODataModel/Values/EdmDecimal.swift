/// An exact decimal number of arbitrary precision: `±digits × 10^-scale`.
///
/// - No binary rounding ever happens: `2296.90` keeps its two fraction digits (scale 2), and
///   exponent forms are expanded exactly (`1.5e3` is 1500 with scale 0, `1.5e-3` is 0.0015 with
///   scale 4).
/// - `==`, `hashValue` and `<` are *numeric*: `1.0 == 1.00`, and both hash alike (the hash is
///   taken over the normalized form). The representation (scale) is still kept and printed;
///   use `isIdentical(to:)` to compare representations. This keeps Equatable, Hashable and
///   Comparable mutually consistent.
/// - Size is bounded by `maxDigits` (coefficient digits and scale) so hostile text cannot make a
///   value of a billion digits.
/// - `INF`, `-INF` and `NaN` (allowed by the 4.01 ABNF for decimals with floating scale) are
///   represented by `nonFinite`. For Equatable/Comparable they form a total order
///   -INF < finite < INF < NaN with NaN == NaN; OData's own comparison (`ODataValue.compare`)
///   treats NaN as incomparable.
public struct EdmDecimal: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The non-finite decimal values.
    public enum NonFinite: Sendable, Hashable {
        case positiveInfinity
        case negativeInfinity
        case nan
    }

    public static let infinity = EdmDecimal(nonFinite: .positiveInfinity)
    public static let negativeInfinity = EdmDecimal(nonFinite: .negativeInfinity)
    public static let nan = EdmDecimal(nonFinite: .nan)

    /// Most coefficient digits and largest scale accepted.
    public static let maxDigits = 4096

    /// True for negative values; zero is never negative.
    public let isNegative: Bool
    /// Coefficient digits (0...9), most significant first, no leading zeros; empty for zero.
    public let digits: [UInt8]
    /// Number of digits after the decimal point (>= 0).
    public let scale: Int
    /// INF, -INF or NaN; nil for every finite value.
    public let nonFinite: NonFinite?

    /// Builds a decimal from parts; leading zeros are dropped and a zero is made non-negative.
    public init(isNegative: Bool, digits: [UInt8], scale: Int) throws(ODataError) {
        guard scale >= 0, scale <= Self.maxDigits else {
            throw .valueInvalidFields("decimal scale \(scale) is outside 0...\(Self.maxDigits)")
        }
        guard digits.allSatisfy({ $0 <= 9 }) else { throw .valueInvalidFields("decimal digit above 9") }
        let trimmed = Array(digits.drop(while: { $0 == 0 }))
        guard trimmed.count <= Self.maxDigits else {
            throw .valueInvalidFields("decimal with \(trimmed.count) digits exceeds \(Self.maxDigits)")
        }
        self.init(unchecked: isNegative, trimmed, scale)
    }

    init(unchecked isNegative: Bool, _ digits: [UInt8], _ scale: Int) {
        self.isNegative = digits.isEmpty ? false : isNegative
        self.digits = digits
        self.scale = scale
        self.nonFinite = nil
    }

    init(nonFinite: NonFinite) {
        self.isNegative = nonFinite == .negativeInfinity
        self.digits = []
        self.scale = 0
        self.nonFinite = nonFinite
    }

    /// The exact value of an integer.
    public init<I: BinaryInteger>(_ value: I) {
        var magnitude = value.magnitude
        var out: [UInt8] = []
        while magnitude > 0 {
            out.append(UInt8(magnitude % 10))
            magnitude /= 10
        }
        self.init(unchecked: value < 0, out.reversed(), 0)
    }

    /// The exact decimal expansion of a finite double (0.1 becomes
    /// 0.1000000000000000055511151231257827021181583404541015625); nil for INF and NaN.
    /// Negative zero gives zero.
    public init?(exactly value: Double) {
        guard value.isFinite else { return nil }
        guard value != 0 else { self.init(unchecked: false, [], 0); return }
        let bits = value.bitPattern
        let exponentBits = Int((bits >> 52) & 0x7FF)
        let fraction = bits & ((1 << 52) - 1)
        var significand = exponentBits == 0 ? fraction : fraction | (1 << 52)
        var exponent = exponentBits == 0 ? -1074 : exponentBits - 1075
        while significand & 1 == 0 { significand >>= 1; exponent += 1 }
        var number = DecimalBigDigits(significand)
        if exponent >= 0 {
            number.multiply(byPowerOf: 2, exponent)
            self.init(unchecked: value < 0, number.decimalDigits(), 0)
        } else {
            number.multiply(byPowerOf: 5, -exponent)
            self.init(unchecked: value < 0, number.decimalDigits(), -exponent)
        }
    }

    public var isZero: Bool { digits.isEmpty && nonFinite == nil }

    public var isFinite: Bool { nonFinite == nil }

    /// True when the value is a whole (finite) number.
    public var isInteger: Bool {
        guard isFinite else { return false }
        return digits.count <= scale ? isZero : digits.suffix(scale).allSatisfy { $0 == 0 }
    }

    /// Same value with trailing fraction zeros removed (scale as small as possible, >= 0).
    public var normalized: EdmDecimal {
        guard isFinite else { return self }
        var count = digits.count
        var newScale = scale
        while newScale > 0, count > 0, digits[count - 1] == 0 { count -= 1; newScale -= 1 }
        if count == 0 { return EdmDecimal(unchecked: false, [], 0) }
        return EdmDecimal(unchecked: isNegative, Array(digits[0..<count]), newScale)
    }

    /// The same value written with `newScale` fraction digits, or nil when digits would be lost.
    public func rescaled(to newScale: Int) -> EdmDecimal? {
        guard isFinite else { return newScale == 0 ? self : nil }
        guard newScale >= 0, newScale <= Self.maxDigits else { return nil }
        if newScale >= scale {
            if isZero { return EdmDecimal(unchecked: false, [], newScale) }
            let zeroPadded = digits + [UInt8](repeating: 0, count: newScale - scale)
            guard zeroPadded.count <= Self.maxDigits else { return nil }
            return EdmDecimal(unchecked: isNegative, zeroPadded, newScale)
        }
        let drop = scale - newScale
        let kept = digits.count >= drop ? Array(digits.dropLast(drop)) : []
        guard digits.suffix(drop).allSatisfy({ $0 == 0 }) else { return nil }
        return EdmDecimal(unchecked: isNegative, Array(kept.drop(while: { $0 == 0 })), newScale)
    }

    /// Exponent of the leading digit plus one: value = 0.d1d2… × 10^adjustedExponent (nonzero only).
    var adjustedExponent: Int { digits.count - scale }

    /// Representation equality: same sign, digits and scale (1.0 is not identical to 1.00).
    public func isIdentical(to other: EdmDecimal) -> Bool {
        isNegative == other.isNegative && digits == other.digits && scale == other.scale && nonFinite == other.nonFinite
    }

    /// The Int64 value when the number is whole and fits.
    public var int64Value: Int64? {
        guard isInteger else { return nil }
        let whole = digits.dropLast(min(scale, digits.count))
        guard whole.count <= 19 else { return nil }
        var magnitude: UInt64 = 0
        for digit in whole { magnitude = magnitude * 10 + UInt64(digit) }
        if isNegative {
            if magnitude == UInt64(Int64.max) + 1 { return Int64.min }
            return magnitude <= UInt64(Int64.max) ? -Int64(magnitude) : nil
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    /// The nearest double (correctly rounded); may be ±infinity for huge values.
    public var doubleValue: Double {
        switch nonFinite {
        case .positiveInfinity: return .infinity
        case .negativeInfinity: return -.infinity
        case .nan: return .nan
        case nil: return Double(description) ?? .nan
        }
    }

    /// Canonical plain text: optional `-`, integer digits, and exactly `scale` fraction digits.
    public var description: String {
        switch nonFinite {
        case .positiveInfinity: return "INF"
        case .negativeInfinity: return "-INF"
        case .nan: return "NaN"
        case nil: break
        }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count + 3)
        if isNegative { out.append(UInt8(ascii: "-")) }
        let zeroPadded = digits.count <= scale
            ? [UInt8](repeating: 0, count: scale + 1 - digits.count) + digits : digits
        let integerCount = zeroPadded.count - scale
        for (index, digit) in zeroPadded.enumerated() {
            if index == integerCount { out.append(UInt8(ascii: ".")) }
            out.append(digit + UInt8(ascii: "0"))
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func == (lhs: EdmDecimal, rhs: EdmDecimal) -> Bool { compare(lhs, rhs) == 0 }

    public static func < (lhs: EdmDecimal, rhs: EdmDecimal) -> Bool { compare(lhs, rhs) < 0 }

    public func hash(into hasher: inout Hasher) {
        let canonical = normalized
        hasher.combine(canonical.isNegative)
        hasher.combine(canonical.digits)
        hasher.combine(canonical.scale)
        hasher.combine(nonFinite)
    }

    /// Numeric three-way comparison (-1, 0, 1).
    public static func compare(_ lhs: EdmDecimal, _ rhs: EdmDecimal) -> Int {
        if lhs.nonFinite != nil || rhs.nonFinite != nil {
            let left = lhs.totalOrderRank, right = rhs.totalOrderRank
            return left < right ? -1 : (left > right ? 1 : 0)
        }
        if lhs.isZero || rhs.isZero {
            let left = lhs.isZero ? 0 : (lhs.isNegative ? -1 : 1)
            let right = rhs.isZero ? 0 : (rhs.isNegative ? -1 : 1)
            return left < right ? -1 : (left > right ? 1 : 0)
        }
        if lhs.isNegative != rhs.isNegative { return lhs.isNegative ? -1 : 1 }
        let magnitude = compareMagnitude(lhs, rhs)
        return lhs.isNegative ? -magnitude : magnitude
    }

    /// -INF 0, finite 1, INF 2, NaN 3.
    private var totalOrderRank: Int {
        switch nonFinite {
        case .negativeInfinity: return 0
        case nil: return 1
        case .positiveInfinity: return 2
        case .nan: return 3
        }
    }

    /// Compares |lhs| and |rhs| for nonzero values.
    static func compareMagnitude(_ lhs: EdmDecimal, _ rhs: EdmDecimal) -> Int {
        if lhs.adjustedExponent != rhs.adjustedExponent {
            return lhs.adjustedExponent < rhs.adjustedExponent ? -1 : 1
        }
        let count = max(lhs.digits.count, rhs.digits.count)
        for index in 0..<count {
            let left = index < lhs.digits.count ? lhs.digits[index] : 0
            let right = index < rhs.digits.count ? rhs.digits[index] : 0
            if left != right { return left < right ? -1 : 1 }
        }
        return 0
    }
}
