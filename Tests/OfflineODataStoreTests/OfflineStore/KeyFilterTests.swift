import Testing
@testable import OfflineODataStore

/// The filter of keys a bulk download took (`KeyFilter`): no key taken is ever missed (a miss
/// would load an entity twice and leave its first version's index entries), and keys not taken
/// are rarely taken for taken ones (each such error sends the rest of a download the commit way).
@Suite struct KeyFilterTests {
    /// Keys as a download's GUID keys look: 16 bytes, from a SplitMix64 sequence.
    static func key(_ n: UInt64) -> [UInt8] {
        var z = n &* 0x9E37_79B9_7F4A_7C15
        var bytes: [UInt8] = []
        for _ in 0..<2 {
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: z >> UInt64(shift))) }
        }
        return bytes
    }

    @Test("a million keys taken: every one found, a few in a million others taken for one")
    func falsePositives() {
        var filter = KeyFilter()
        #expect(!filter.mightContain(KeyFilter.hash(Self.key(1))), "an empty filter holds nothing")
        let taken: UInt64 = 1_000_000
        for n in 0..<taken { filter.insert(KeyFilter.hash(Self.key(n))) }
        var missed = 0
        for n in stride(from: 0, to: taken, by: 7) where !filter.mightContain(KeyFilter.hash(Self.key(n))) { missed += 1 }
        #expect(missed == 0)
        var wrong = 0
        let probes: UInt64 = 500_000
        for n in taken..<(taken + probes) where filter.mightContain(KeyFilter.hash(Self.key(n))) { wrong += 1 }
        print("KeyFilter: \(wrong) of \(probes) keys not taken were taken for taken ones after \(taken) keys")
        #expect(wrong <= 10)
    }
}
