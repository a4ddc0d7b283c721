import Foundation
import OfflineODataFixtures
import PropertyBased
import Testing

@Suite struct EngineWorkloadTests {
    @Test func keysAreUniqueSixteenBytesAndUnsorted() {
        let workload = EngineWorkload(seed: 11)
        var seen = Set<[UInt8]>()
        var ascending = 0
        var previous: [UInt8] = []
        for i in 0..<100_000 {
            let key = workload.key(i)
            #expect(key.count == 16)
            seen.insert(key)
            if key.lexicographicallyPrecedes(previous) == false { ascending += 1 }
            previous = key
        }
        #expect(seen.count == 100_000)
        // Random order: about half of consecutive pairs ascend, far from all of them.
        #expect(ascending > 45_000 && ascending < 55_000, "\(ascending) of 100000 pairs ascend")
        // UUID version-4 shape.
        let key = workload.key(12_345)
        #expect(key[6] >> 4 == 4 && key[8] >> 6 == 0b10)
        #expect(workload.keyText(12_345).wholeMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/) != nil)
    }

    @Test func valuesAverageAbout420BytesOfValidJSON() throws {
        let workload = EngineWorkload(seed: 11)
        var total = 0
        var smallest = Int.max
        var largest = 0
        for i in 0..<100_000 {
            let size = workload.value(i).count
            total += size
            smallest = min(smallest, size)
            largest = max(largest, size)
        }
        let average = Double(total) / 100_000
        #expect(average >= 400 && average <= 440, "average value size \(average)")
        #expect(largest - smallest > 100, "value sizes barely vary: \(smallest)...\(largest)")
        for i in stride(from: 0, to: 5_000, by: 50) {
            let object = try FixtureTestSupport.object(workload.value(i))
            #expect(object["ProductID"] != nil || object["SalesOrderID"] != nil)
        }
    }

    @Test func workloadIsDeterministicAndSeedDependent() async {
        await propertyCheck(count: 50, input: Gen.uint64(in: 0 ... .max), Gen.int(in: 0...Int.max)) { seed, i in
            let a = EngineWorkload(seed: seed)
            let b = EngineWorkload(seed: seed)
            #expect(a.key(i) == b.key(i))
            #expect(a.value(i) == b.value(i))
            let other = EngineWorkload(seed: seed &+ 1)
            #expect(a.key(i) != other.key(i))
            #expect(a.key(i) != a.key(i &+ 1))
        }
    }

    @Test func negativeAndHugeIndicesAreHandled() throws {
        let workload = EngineWorkload(seed: 3)
        for i in [-1, Int.min, Int.max, 1 << 40] {
            #expect(workload.key(i).count == 16)
            _ = try FixtureTestSupport.object(workload.value(i))
        }
        #expect(workload.key(-1) != workload.key(Int.max))
    }
}
