/// A small unsigned big integer (base 10^9 limbs, least significant first), only for the exact
/// decimal expansion of binary floating point values.
struct DecimalBigDigits {
    private var limbs: [UInt64]
    private static let base: UInt64 = 1_000_000_000

    init(_ value: UInt64) {
        limbs = []
        var rest = value
        repeat { limbs.append(rest % Self.base); rest /= Self.base } while rest > 0
    }

    mutating func multiply(by factor: UInt64) {
        var carry: UInt64 = 0
        for index in limbs.indices {
            let product = limbs[index] * factor + carry
            limbs[index] = product % Self.base
            carry = product / Self.base
        }
        while carry > 0 { limbs.append(carry % Self.base); carry /= Self.base }
    }

    /// Multiplies by base^exponent in chunks whose factor stays below 2^32.
    mutating func multiply(byPowerOf base: UInt64, _ exponent: Int) {
        let chunk = base == 2 ? 31 : 13
        var remaining = exponent
        while remaining > 0 {
            let step = min(chunk, remaining)
            var factor: UInt64 = 1
            for _ in 0..<step { factor *= base }
            multiply(by: factor)
            remaining -= step
        }
    }

    func decimalDigits() -> [UInt8] {
        var out: [UInt8] = []
        for (index, limb) in limbs.enumerated().reversed() {
            var chunk = [UInt8](repeating: 0, count: 9)
            var rest = limb
            for position in stride(from: 8, through: 0, by: -1) {
                chunk[position] = UInt8(rest % 10); rest /= 10
            }
            out += index == limbs.count - 1 ? Array(chunk.drop(while: { $0 == 0 })) : chunk
        }
        return out
    }
}
