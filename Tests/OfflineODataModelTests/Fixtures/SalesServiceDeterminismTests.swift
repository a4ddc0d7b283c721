import Foundation
import OfflineODataFixtures
import PropertyBased
import Testing

@Suite struct SalesServiceDeterminismTests {
    @Test func sameSeedAndScaleGiveIdenticalBytes() throws {
        let a = SalesServiceGenerator(seed: 7, scale: .small)
        let b = SalesServiceGenerator(seed: 7, scale: .small)
        #expect(a.metadataXML() == b.metadataXML())
        for set in SalesEntitySet.allCases {
            let options = PageOptions(includeCount: true, includeETags: true)
            let pages = try a.pageCount(of: set, pageSize: 100)
            for index in 0..<pages {
                #expect(try a.page(set: set, index: index, pageSize: 100, options: options)
                    == b.page(set: set, index: index, pageSize: 100, options: options))
            }
        }
    }

    @Test func differentSeedsGiveDifferentData() throws {
        let a = SalesServiceGenerator(seed: 1, scale: .small)
        let b = SalesServiceGenerator(seed: 2, scale: .small)
        for set in SalesEntitySet.allCases {
            #expect(try a.page(set: set, index: 0, pageSize: 50) != b.page(set: set, index: 0, pageSize: 50),
                    "\(set.name) page 0 is the same for seeds 1 and 2")
        }
        // Same counts: the scale, not the seed, decides them.
        for set in SalesEntitySet.allCases {
            #expect(a.count(of: set) == b.count(of: set))
        }
    }

    /// Entity i is the same whether produced alone, inside any page, or from a larger scale's
    /// generator that shares its sets' sizes (random access, no hidden sequential state).
    @Test func randomAccessMatchesPages() throws {
        let generator = SalesServiceGenerator(seed: 99, scale: .small)
        for set in SalesEntitySet.allCases {
            let page = try FixtureTestSupport.object(try generator.page(set: set, index: 3, pageSize: 7))
            let values = try #require(page["value"] as? [[String: Any]])
            #expect(values.count == 7)
            for (offset, value) in values.enumerated() {
                let alone = try FixtureTestSupport.object(try generator.entityJSON(set: set, index: 21 + offset))
                for key in set.keyProperties {
                    #expect(alone[key] as? String == value[key] as? String)
                }
                let bare = try #require(generator.entityProperties(set: set, index: 21 + offset))
                #expect(NSDictionary(dictionary: try FixtureTestSupport.object(bare)).isEqual(to: value))
            }
        }
    }

    @Test func randomAccessAgreesWithPagesForRandomSeedsAndOffsets() async {
        await propertyCheck(count: 60, input: Gen.uint64(in: 0 ... .max), Gen.int(in: 0...2749),
                            Gen.int(in: 1...40)) { seed, rawIndex, pageSize in
            let generator = SalesServiceGenerator(seed: seed, scale: .small)
            let set = SalesEntitySet.allCases[rawIndex % SalesEntitySet.allCases.count]
            let index = rawIndex % generator.count(of: set)
            do {
                let page = try generator.page(set: set, index: index / pageSize, pageSize: pageSize)
                let bare = try #require(generator.entityProperties(set: set, index: index))
                // The page contains the entity's exact bytes.
                #expect(page.firstRange(of: bare) != nil, "entity \(index) of \(set.name) not in its page")
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
    }

    /// Pages produced concurrently (the generator is a Sendable value with no shared state)
    /// equal the pages produced one after the other.
    @Test func concurrentPagesEqualSequentialPages() async throws {
        let generator = SalesServiceGenerator(seed: 77, scale: .small)
        let pageCount = try generator.pageCount(of: .salesOrderItems, pageSize: 100)
        let sequential = try (0..<pageCount).map { try generator.page(set: .salesOrderItems, index: $0, pageSize: 100) }
        let concurrent = try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
            for index in 0..<pageCount {
                group.addTask { (index, try generator.page(set: .salesOrderItems, index: index, pageSize: 100)) }
            }
            var pages = [[UInt8]](repeating: [], count: pageCount)
            for try await (index, page) in group { pages[index] = page }
            return pages
        }
        #expect(concurrent == sequential)
    }

    @Test func itemsAndContactsMapBackToTheirParents() async {
        await propertyCheck(count: 80, input: Gen.uint64(in: 0 ... .max), Gen.int(in: 0...1_000)) { seed, order in
            let generator = SalesServiceGenerator(seed: seed, scale: .entities(salesOrders: 1_001))
            let items = generator.itemRange(ofSalesOrder: order)
            #expect(!items.isEmpty)
            for (ordinal, item) in items.enumerated() {
                let found = generator.salesOrder(ofItem: item)
                #expect(found.salesOrder == order && found.ordinal == ordinal)
            }
            let partner = order % generator.count(of: .businessPartners)
            let contacts = generator.contactRange(ofBusinessPartner: partner)
            #expect(!contacts.isEmpty)
            for contact in contacts {
                #expect(generator.businessPartner(ofContact: contact) == partner)
            }
        }
    }

    @Test func childRangesTileTheChildSets() {
        let generator = SalesServiceGenerator(seed: 5, scale: .entities(salesOrders: 333))
        var next = 0
        var sizes: [Int] = []
        for order in 0..<generator.count(of: .salesOrders) {
            let items = generator.itemRange(ofSalesOrder: order)
            #expect(items.lowerBound == next)
            next = items.upperBound
            sizes.append(items.count)
        }
        #expect(next == generator.count(of: .salesOrderItems))
        #expect(Set(sizes).count >= 4, "item counts per order do not vary: \(Set(sizes))")
        next = 0
        for partner in 0..<generator.count(of: .businessPartners) {
            let contacts = generator.contactRange(ofBusinessPartner: partner)
            #expect(contacts.lowerBound == next && !contacts.isEmpty)
            next = contacts.upperBound
        }
        #expect(next == generator.count(of: .contacts))
    }
}

/// Pins the exact output so that an accidental change of the generated data (or a platform
/// difference) is noticed. When the data changes on purpose, update the fingerprints and say
/// so in the commit: stored benchmark baselines and fixtures built from a seed change with it.
@Suite struct SalesServiceFingerprintTests {
    static func fnv1a(_ bytes: [UInt8], into hash: inout UInt64) {
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    }

    @Test func tinyServiceBytesAreStable() throws {
        let generator = SalesServiceGenerator(seed: 20_240_305, scale: .tiny)
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        Self.fnv1a(Array(generator.metadataXML().utf8), into: &hash)
        for set in SalesEntitySet.allCases {
            for page in try generator.pages(of: set, pageSize: 16, options: PageOptions(includeCount: true, includeETags: true)) {
                Self.fnv1a(page, into: &hash)
            }
        }
        let workload = EngineWorkload(seed: 7)
        for i in 0..<64 {
            Self.fnv1a(workload.key(i), into: &hash)
            Self.fnv1a(workload.value(i), into: &hash)
        }
        #expect(String(hash, radix: 16) == "eed988ccf3ab3869")
    }
}
