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
    /// Number of digits after the decimal point (>= 0, at most `maxDigits`).
    public var scale: Int { Int(storedScale) }
    /// INF, -INF or NaN; nil for every finite value.
    public let nonFinite: NonFinite?
    /// The coefficient (`Coefficient`); canonical, so equal coefficients are equal cases.
    let coefficient: Coefficient
    let storedScale: Int32

    /// The coefficient's digits. Up to `smallDigitLimit` digits (every amount, price and
    /// quantity a real service sends) it is held inline as a binary integer: reading, comparing
    /// and hashing such a decimal allocates nothing. Longer coefficients keep their digit array.
    /// The choice is canonical: a coefficient of at most `smallDigitLimit` digits is always
    /// `.small`, so `==` on `Coefficient` is equality of digit sequences.
    enum Coefficient: Sendable, Hashable {
        /// The coefficient's value and its digit count (0 for zero; no leading zeros).
        case small(UInt64, count: UInt8)
        /// More than `smallDigitLimit` digits (0...9), most significant first, no leading zeros.
        case large([UInt8])
    }

    /// Most digits held inline: every 19-digit number fits a UInt64, and so does one padded
    /// with trailing zeros to 19 digits (the comparison does that).
    static let smallDigitLimit = 19
    /// 10^0 ... 10^19.
    static let powersOfTen: [UInt64] = (0...19).map { n in (0..<n).reduce(UInt64(1)) { value, _ in value * 10 } }

    /// Coefficient digits (0...9), most significant first, no leading zeros; empty for zero.
    /// Built on each call for coefficients held inline; `digitCount` and `digit(at:)` read
    /// without building it.
    public var digits: [UInt8] {
        switch coefficient {
        case .large(let digits): return digits
        case .small(let value, let count):
            return [UInt8](unsafeUninitializedCapacity: Int(count)) { out, initialized in
                Self.writeDigits(of: value, count: Int(count), into: out)
                initialized = Int(count)
            }
        }
    }

    /// Number of coefficient digits (0 for zero and for non-finite values).
    public var digitCount: Int {
        switch coefficient {
        case .small(_, let count): return Int(count)
        case .large(let digits): return digits.count
        }
    }

    /// The coefficient digit at `index` (0 = most significant), for `0 ..< digitCount`.
    func digit(at index: Int) -> UInt8 {
        switch coefficient {
        case .small(let value, let count): return UInt8(value / Self.powersOfTen[Int(count) - 1 - index] % 10)
        case .large(let digits): return digits[index]
        }
    }

    /// Calls `body` with the coefficient digits, without allocating for inline coefficients.
    func withDigits<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        switch coefficient {
        case .large(let digits): return digits.withUnsafeBufferPointer(body)
        case .small(let value, let count):
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.smallDigitLimit) { buffer in
                Self.writeDigits(of: value, count: Int(count), into: buffer)
                return body(UnsafeBufferPointer(rebasing: buffer[0..<Int(count)]))
            }
        }
    }

    /// Writes the `count` decimal digits of `value` into `out[0..<count]`, most significant first.
    private static func writeDigits(of value: UInt64, count: Int, into out: UnsafeMutableBufferPointer<UInt8>) {
        var rest = value
        var index = count
        while index > 0 {
            index -= 1
            out[index] = UInt8(rest % 10)
            rest /= 10
        }
    }

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

    /// From checked digits (0...9, no leading zero, at most `maxDigits`) and a scale in
    /// 0...`maxDigits`.
    init(unchecked isNegative: Bool, _ digits: [UInt8], _ scale: Int) {
        if digits.count <= Self.smallDigitLimit {
            var value: UInt64 = 0
            for digit in digits { value = value &* 10 &+ UInt64(digit) }
            self.init(unchecked: isNegative, small: value, count: digits.count, scale)
        } else {
            self.init(isNegative: isNegative, coefficient: .large(digits), scale: scale)
        }
    }

    private init(isNegative: Bool, coefficient: Coefficient, scale: Int) {
        self.isNegative = isNegative
        self.coefficient = coefficient
        self.storedScale = Int32(scale)
        self.nonFinite = nil
    }

    /// From an inline coefficient: `value` has exactly `count` digits (0 for zero), at most
    /// `smallDigitLimit`; the scale is in 0...`maxDigits`.
    init(unchecked isNegative: Bool, small value: UInt64, count: Int, _ scale: Int) {
        self.init(isNegative: count == 0 ? false : isNegative, coefficient: .small(value, count: UInt8(count)), scale: scale)
    }

    init(nonFinite: NonFinite) {
        self.isNegative = nonFinite == .negativeInfinity
        self.coefficient = .small(0, count: 0)
        self.storedScale = 0
        self.nonFinite = nonFinite
    }

    /// The exact value of an integer.
    public init<I: BinaryInteger>(_ value: I) {
        var magnitude = value.magnitude
        // Below 10^19: at most 19 digits, held inline.
        if let small = UInt64(exactly: magnitude), small < Self.powersOfTen[Self.smallDigitLimit] {
            var count = 0
            while count < Self.smallDigitLimit, small >= Self.powersOfTen[count] { count += 1 }
            self.init(unchecked: value < 0, small: small, count: count, 0)
            return
        }
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

    public var isZero: Bool { digitCount == 0 && nonFinite == nil }

    public var isFinite: Bool { nonFinite == nil }

    /// True when the value is a whole (finite) number.
    public var isInteger: Bool {
        guard isFinite else { return false }
        if case .small(let value, let count) = coefficient {
            // count > scale implies scale < 19.
            return Int(count) <= scale ? count == 0 : value % Self.powersOfTen[scale] == 0
        }
        return digits.count <= scale ? isZero : digits.suffix(scale).allSatisfy { $0 == 0 }
    }

    /// Same value with trailing fraction zeros removed (scale as small as possible, >= 0).
    public var normalized: EdmDecimal {
        guard isFinite else { return self }
        if case .small(var value, let smallCount) = coefficient {
            var count = Int(smallCount), newScale = scale
            while newScale > 0, count > 0, value % 10 == 0 { value /= 10; count -= 1; newScale -= 1 }
            if count == 0 { return EdmDecimal(unchecked: false, small: 0, count: 0, 0) }
            return EdmDecimal(unchecked: isNegative, small: value, count: count, newScale)
        }
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
    var adjustedExponent: Int { digitCount - scale }

    /// Representation equality: same sign, digits and scale (1.0 is not identical to 1.00).
    public func isIdentical(to other: EdmDecimal) -> Bool {
        isNegative == other.isNegative && coefficient == other.coefficient && storedScale == other.storedScale
            && nonFinite == other.nonFinite
    }

    /// The Int64 value when the number is whole and fits.
    public var int64Value: Int64? {
        guard isInteger else { return nil }
        if case .small(let value, let count) = coefficient {
            let magnitude = value / Self.powersOfTen[min(scale, Int(count))]
            if isNegative { return magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil }
            return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
        }
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
        let scale = scale
        return withDigits { digits in
            // Zeros before the digits when there are no more digits than the scale (0.05).
            let padding = digits.count <= scale ? scale + 1 - digits.count : 0
            let length = (isNegative ? 1 : 0) + padding + digits.count + (scale > 0 ? 1 : 0)
            return String(unsafeUninitializedCapacity: length) { out in
                var at = 0
                if isNegative { out[at] = UInt8(ascii: "-"); at += 1 }
                let integerCount = padding + digits.count - scale
                for index in 0..<(padding + digits.count) {
                    if index == integerCount { out[at] = UInt8(ascii: "."); at += 1 }
                    out[at] = (index < padding ? 0 : digits[index - padding]) + UInt8(ascii: "0")
                    at += 1
                }
                return at
            }
        }
    }

    public static func == (lhs: EdmDecimal, rhs: EdmDecimal) -> Bool { compare(lhs, rhs) == 0 }

    public static func < (lhs: EdmDecimal, rhs: EdmDecimal) -> Bool { compare(lhs, rhs) < 0 }

    public func hash(into hasher: inout Hasher) {
        // Canonical coefficients (see `Coefficient`): equal normalized values hash alike.
        let canonical = normalized
        hasher.combine(canonical.isNegative)
        hasher.combine(canonical.coefficient)
        hasher.combine(canonical.storedScale)
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
        if case .small(let left, let leftCount) = lhs.coefficient, case .small(let right, let rightCount) = rhs.coefficient {
            // Same leading exponent: compare the digit sequences padded to 19 digits.
            let l = left * powersOfTen[smallDigitLimit - Int(leftCount)]
            let r = right * powersOfTen[smallDigitLimit - Int(rightCount)]
            return l < r ? -1 : (l > r ? 1 : 0)
        }
        let leftCount = lhs.digitCount, rightCount = rhs.digitCount
        for index in 0..<max(leftCount, rightCount) {
            let left = index < leftCount ? lhs.digit(at: index) : 0
            let right = index < rightCount ? rhs.digit(at: index) : 0
            if left != right { return left < right ? -1 : 1 }
        }
        return 0
    }
}
