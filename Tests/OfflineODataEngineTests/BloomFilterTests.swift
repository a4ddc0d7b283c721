import Testing
@testable import OfflineODataEngine

@Suite struct BloomFilterTests {
    @Test func noFalseNegativesAndAboutOnePercentFalsePositives() {
        var filter = BloomFilter(expectedEntries: 20_000)
        for i in 0..<20_000 { key(i).withUnsafeBytes { filter.insert($0) } }
        #expect((0..<20_000).allSatisfy { filter.mayContain(key($0)) })
        let falsePositives = (20_000..<70_000).filter { filter.mayContain(key($0)) }.count
        // 10 bits per key, 7 probes in one cache line: about 1–2% in theory.
        #expect(falsePositives < 50_000 * 3 / 100, "false positive rate \(Double(falsePositives) / 500)%")
        #expect(falsePositives > 0)
    }

    @Test func encodedRoundTripAndRejectsBadSizes() throws {
        var filter = BloomFilter(expectedEntries: 100)
        for i in 0..<100 { key(i).withUnsafeBytes { filter.insert($0) } }
        let copy = try #require(BloomFilter(encoded: filter.encoded))
        #expect((0..<100).allSatisfy { copy.mayContain(key($0)) })
        #expect(BloomFilter(encoded: [1, 2, 3]) == nil)
        #expect(BloomFilter(encoded: [UInt8](repeating: 0, count: 72)) == nil)
    }
}
