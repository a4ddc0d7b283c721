/// SplitMix64 (Steele, Lea, Flood 2014): a tiny, fast, statistically solid PRNG whose whole
/// state is one `UInt64`. Every generated entity seeds its own instance from
/// `(seed, set, index, purpose)` through `SplitMix64.derive`, so entity `i` of a set is
/// produced without producing entities `0..<i` (random access, O(1) memory per entity).
///
/// Only integer arithmetic is used, so the output is identical on every platform. Public so that
/// tests and tools replaying a seed use the same generator instead of copies of it.
public struct SplitMix64: Sendable, Hashable {
    private(set) var state: UInt64

    public init(state: UInt64) {
        self.state = state
    }

    /// The SplitMix64 output function. It is a bijection on `UInt64`, which the key and GUID
    /// generators rely on for uniqueness.
    @inline(__always)
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The inverse of `mix`: `unmix(mix(x)) == x` for every `x`.
    static func unmix(_ value: UInt64) -> UInt64 {
        var z = value
        z ^= (z >> 31) ^ (z >> 62)
        z = z &* inverse(0x94D0_49BB_1331_11EB)
        z ^= (z >> 27) ^ (z >> 54)
        z = z &* inverse(0xBF58_476D_1CE4_E5B9)
        z ^= (z >> 30) ^ (z >> 60)
        return z
    }

    /// The multiplicative inverse of an odd number modulo 2^64 (Newton's iteration; each step
    /// doubles the number of correct low bits, starting from 3 correct bits for `x·x ≡ 1 mod 8`).
    static func inverse(_ odd: UInt64) -> UInt64 {
        var x = odd
        for _ in 0..<5 {
            x = x &* (2 &- odd &* x)
        }
        return x
    }

    /// A well-spread state for one purpose of one entity of one set.
    static func derive(seed: UInt64, set: UInt64, index: UInt64, purpose: UInt64 = 0) -> SplitMix64 {
        let a = mix(seed ^ (set &* 0x9E37_79B9_7F4A_7C15))
        let b = mix((a ^ index) &+ 0x632B_E59B_D9B4_E019)
        return SplitMix64(state: mix(b ^ (purpose &* 0xD6E8_FEB8_6659_FD93)))
    }

    @inline(__always)
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// A value in `0..<bound` (Lemire's multiply-shift; the bias is below 2^-32 for the small
    /// bounds used here and, more importantly, the result is deterministic). `bound <= 0` gives 0.
    @inline(__always)
    mutating func int(below bound: Int) -> Int {
        guard bound > 0 else { return 0 }
        let product = next().multipliedFullWidth(by: UInt64(bound))
        return Int(product.high)
    }

    /// A value in `range` (both ends included).
    mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + int(below: range.upperBound - range.lowerBound + 1)
    }

    /// True with the given probability in percent.
    mutating func chance(_ percent: Int) -> Bool {
        int(below: 100) < percent
    }

    /// A uniformly chosen element; `fallback` when the array is empty.
    @inline(__always)
    mutating func pick<T>(_ items: [T], or fallback: T) -> T {
        guard !items.isEmpty else { return fallback }
        return items[int(below: items.count)]
    }

    /// An index in `0..<bound` skewed towards small values (minimum of two uniform draws:
    /// index 0 is about twice as likely as the mean), for "some customers order more".
    mutating func skewed(below bound: Int) -> Int {
        Swift.min(int(below: bound), int(below: bound))
    }

    /// An index chosen according to integer weights; 0 when all weights are zero.
    mutating func weighted(_ weights: [Int]) -> Int {
        let total = weights.reduce(0, +)
        guard total > 0 else { return 0 }
        var roll = int(below: total)
        for (position, weight) in weights.enumerated() {
            if roll < weight { return position }
            roll -= weight
        }
        return weights.count - 1
    }
}
