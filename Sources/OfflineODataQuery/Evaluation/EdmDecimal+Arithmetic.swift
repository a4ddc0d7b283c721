import OfflineODataModel

/// Exact decimal arithmetic for the evaluator (docs/Query.md §3.3). Scale rules of URL
/// §5.1.1.2: add, sub and mod use the larger scale of the operands, mul the sum of the scales.
/// Division (`div` on decimals, `divby`) is exact when the quotient terminates within
/// `divisionScale` fraction digits, otherwise rounded half away from zero at that digit; the
/// result is normalized (no trailing zeros). Non-finite operands (INF, NaN) are computed in
/// binary floating point.
extension EdmDecimal {
    /// Fraction digits kept by a non-terminating division.
    static let divisionScale = 34

    /// Most digits of a dividend or divisor (after aligning scales) that `div`, `divby` and
    /// `mod` accept; schoolbook division is quadratic, so hostile operands are refused.
    static let maxDivisionDigits = 1000

    static func checkDivisionSize(_ a: Magnitude, _ b: Magnitude, at position: Int) throws(ODataError) {
        guard a.count <= maxDivisionDigits, b.count <= maxDivisionDigits else {
            throw .evalOverflow("decimal division with operands of more than \(maxDivisionDigits) digits", at: position)
        }
    }

    typealias Magnitude = [UInt8] // decimal digits, most significant first, no leading zeros

    static func make(_ negative: Bool, _ digits: Magnitude, _ scale: Int, at position: Int) throws(ODataError) -> EdmDecimal {
        let trimmed = Array(digits.drop(while: { $0 == 0 }))
        do {
            return try EdmDecimal(isNegative: negative, digits: trimmed, scale: scale)
        } catch {
            throw .evalOverflow("decimal result exceeds \(EdmDecimal.maxDigits) digits", at: position)
        }
    }

    /// Both coefficients at the larger scale.
    static func aligned(_ a: EdmDecimal, _ b: EdmDecimal) -> (Magnitude, Magnitude, Int) {
        let scale = max(a.scale, b.scale)
        let left = a.digits + Magnitude(repeating: 0, count: a.digits.isEmpty ? 0 : scale - a.scale)
        let right = b.digits + Magnitude(repeating: 0, count: b.digits.isEmpty ? 0 : scale - b.scale)
        return (left, right, scale)
    }

    static func compareMagnitudes(_ a: Magnitude, _ b: Magnitude) -> Int {
        let x = a.drop(while: { $0 == 0 }), y = b.drop(while: { $0 == 0 })
        if x.count != y.count { return x.count < y.count ? -1 : 1 }
        for (l, r) in zip(x, y) where l != r { return l < r ? -1 : 1 }
        return 0
    }

    static func addMagnitudes(_ a: Magnitude, _ b: Magnitude) -> Magnitude {
        var result = Magnitude(repeating: 0, count: max(a.count, b.count) + 1)
        var carry: UInt8 = 0
        var i = a.count - 1, j = b.count - 1, k = result.count - 1
        while k >= 0 {
            let sum = (i >= 0 ? a[i] : 0) + (j >= 0 ? b[j] : 0) + carry
            result[k] = sum % 10
            carry = sum / 10
            i -= 1; j -= 1; k -= 1
        }
        return Array(result.drop(while: { $0 == 0 }))
    }

    /// a - b for a >= b.
    static func subtractMagnitudes(_ a: Magnitude, _ b: Magnitude) -> Magnitude {
        var result = a
        var borrow: Int = 0
        var j = b.count - 1
        var i = a.count - 1
        while i >= 0 {
            var digit = Int(a[i]) - borrow - (j >= 0 ? Int(b[j]) : 0)
            borrow = digit < 0 ? 1 : 0
            if digit < 0 { digit += 10 }
            result[i] = UInt8(digit)
            i -= 1; j -= 1
        }
        return Array(result.drop(while: { $0 == 0 }))
    }

    static func multiplyMagnitudes(_ a: Magnitude, _ b: Magnitude) -> Magnitude {
        guard !a.isEmpty, !b.isEmpty else { return [] }
        var result = [Int](repeating: 0, count: a.count + b.count)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                result[i + j + 1] += Int(a[i]) * Int(b[j])
            }
        }
        for k in stride(from: result.count - 1, to: 0, by: -1) {
            result[k - 1] += result[k] / 10
            result[k] %= 10
        }
        return Array(result.map { UInt8($0) }.drop(while: { $0 == 0 }))
    }

    /// Integer division of magnitudes: (quotient, remainder); b must be nonzero.
    static func divideMagnitudes(_ a: Magnitude, _ b: Magnitude) -> (Magnitude, Magnitude) {
        var quotient: Magnitude = []
        var remainder: Magnitude = []
        for digit in a {
            remainder.append(digit)
            remainder = Array(remainder.drop(while: { $0 == 0 }))
            var q: UInt8 = 0
            while compareMagnitudes(remainder, b) >= 0 {
                remainder = subtractMagnitudes(remainder, b)
                q += 1
            }
            quotient.append(q)
        }
        return (Array(quotient.drop(while: { $0 == 0 })), remainder)
    }

    static func floating(_ a: EdmDecimal, _ b: EdmDecimal, _ op: (Double, Double) -> Double) -> EdmDecimal {
        let result = op(a.doubleValue, b.doubleValue)
        if !result.isFinite { return NumericConversion.nonFinite(result) }
        return EdmDecimal(exactly: result) ?? .nan
    }

    func adding(_ other: EdmDecimal, at position: Int) throws(ODataError) -> EdmDecimal {
        if !isFinite || !other.isFinite { return Self.floating(self, other, +) }
        let (a, b, scale) = Self.aligned(self, other)
        if isNegative == other.isNegative {
            return try Self.make(isNegative, Self.addMagnitudes(a, b), scale, at: position)
        }
        if Self.compareMagnitudes(a, b) >= 0 {
            return try Self.make(isNegative, Self.subtractMagnitudes(a, b), scale, at: position)
        }
        return try Self.make(other.isNegative, Self.subtractMagnitudes(b, a), scale, at: position)
    }

    var negated: EdmDecimal {
        switch nonFinite {
        case .positiveInfinity: return .negativeInfinity
        case .negativeInfinity: return .infinity
        case .nan: return .nan
        case nil: return (try? EdmDecimal(isNegative: !isNegative, digits: digits, scale: scale)) ?? self
        }
    }

    func subtracting(_ other: EdmDecimal, at position: Int) throws(ODataError) -> EdmDecimal {
        try adding(other.negated, at: position)
    }

    func multiplied(by other: EdmDecimal, at position: Int) throws(ODataError) -> EdmDecimal {
        if !isFinite || !other.isFinite { return Self.floating(self, other, *) }
        return try Self.make(isNegative != other.isNegative, Self.multiplyMagnitudes(digits, other.digits),
                             scale + other.scale, at: position)
    }

    /// The quotient (see the type comment); nil when dividing a finite value by zero.
    func divided(by other: EdmDecimal, at position: Int) throws(ODataError) -> EdmDecimal? {
        if !isFinite || !other.isFinite { return Self.floating(self, other, /) }
        if other.isZero { return nil }
        // value = (a / 10^sa) / (b / 10^sb); quotient at scale q: a * 10^(q + sb - sa) / b.
        let target = Self.divisionScale + 1
        let shift = target + other.scale - scale
        var numerator = digits
        var denominator = other.digits
        if shift >= 0 {
            numerator += Magnitude(repeating: 0, count: numerator.isEmpty ? 0 : shift)
        } else {
            denominator += Magnitude(repeating: 0, count: -shift)
        }
        try Self.checkDivisionSize(numerator, denominator, at: position)
        var (quotient, _) = Self.divideMagnitudes(numerator, denominator)
        // Round half away from zero at divisionScale.
        let last = quotient.last ?? 0
        quotient = Array(quotient.dropLast())
        if last >= 5 { quotient = Self.addMagnitudes(quotient, [1]) }
        return try Self.make(isNegative != other.isNegative, quotient, Self.divisionScale, at: position).normalized
    }

    /// Remainder with the sign of the left operand, at the larger scale; nil for a zero divisor.
    func remainder(dividingBy other: EdmDecimal, at position: Int) throws(ODataError) -> EdmDecimal? {
        if !isFinite || !other.isFinite { return Self.floating(self, other) { $0.truncatingRemainder(dividingBy: $1) } }
        if other.isZero { return nil }
        let (a, b, scale) = Self.aligned(self, other)
        try Self.checkDivisionSize(a, b, at: position)
        let (_, remainder) = Self.divideMagnitudes(a, b)
        return try Self.make(isNegative, remainder, scale, at: position)
    }

    enum Rounding { case halfAwayFromZero, down, up }

    /// Rounds to a whole number (scale 0): `round` halves away from zero, `floor`, `ceiling`.
    func rounded(_ mode: Rounding, at position: Int) throws(ODataError) -> EdmDecimal {
        guard isFinite, scale > 0 else { return self }
        let whole = digits.count > scale ? Array(digits.dropLast(scale)) : []
        let fraction = digits.count > scale ? Array(digits.suffix(scale)) : Magnitude(repeating: 0, count: scale - digits.count) + digits
        let hasFraction = fraction.contains { $0 != 0 }
        var up = false
        switch mode {
        case .halfAwayFromZero: up = (fraction.first ?? 0) >= 5
        case .down: up = isNegative && hasFraction
        case .up: up = !isNegative && hasFraction
        }
        let magnitude = up ? Self.addMagnitudes(whole, [1]) : whole
        return try Self.make(isNegative, magnitude, 0, at: position)
    }
}
