import Foundation
import OfflineODataFixtures
import OfflineODataModel
import Testing
@testable import OfflineODataStore

/// Which pages a bulk download takes (`DownloadBulk.takeKeys`, docs/OfflineStore.md §7.4): a
/// page whose keys are surely all new. Keys in order keep only their hashes; the first page out
/// of order makes the filter of them, or, past `ascendingLimit` keys in order, takes the
/// commit way (as every page out of order after it).
@Suite struct TakeKeysTests {
    /// Runs `body` with a fresh bulk download of SalesOrders taking at most `limit` keys in order.
    static func withBulk(limit: Int, _ body: (inout DownloadBulk) throws -> Void) throws {
        let harness = try StorageHarness(model: try ServiceModel.parse(metadata: OfflineFixtures.metadata), label: "take-keys")
        var bulk = DownloadBulk(load: try harness.engine.bulkLoad(chunkBytes: 1 << 20), info: try harness.storage.setInfo("SalesOrders"),
                                indexes: [], membership: try harness.engine.tree("m"), store: try harness.engine.tree("s"), name: "Q",
                                generation: OfflineStoreFormat.be64(1))
        bulk.ascendingLimit = limit
        defer { bulk.load.abandon() }
        try body(&bulk)
    }

    /// A page of records holding only keys (`takeKeys` reads nothing else).
    static func page(_ keys: [Int]) -> DownloadBulk.Records {
        var records = DownloadBulk.Records(pieces: 3)
        records.bounds.append(0)
        for key in keys {
            let bytes = Array(String(format: "k%06d", key).utf8)
            records.bytes += bytes
            for _ in 0..<3 { records.bounds.append(records.bytes.count) }
            records.hashes.append(KeyFilter.hash(bytes))
        }
        return records
    }

    static func take(_ bulk: inout DownloadBulk, _ keys: [Int]) -> Bool { bulk.takeKeys(page(keys)) }

    @Test("keys in order, then a page out of order: checked against the keys taken while they were in order")
    func inOrderThenOutOfOrder() throws {
        try Self.withBulk(limit: 10) { bulk in
            #expect(Self.take(&bulk, Array(0..<5)))
            #expect(Self.take(&bulk, Array(5..<10)))
            #expect(!bulk.filtering && bulk.ascendingHashes?.count == 10, "keys in order keep their hashes, no filter")
            #expect(!Self.take(&bulk, [20, 3]), "3 was taken while the keys were in order")
            #expect(bulk.filtering)
            #expect(Self.take(&bulk, [21, 11]), "11 was not taken")
            #expect(!Self.take(&bulk, [22, 11]), "11 was taken out of order")
            #expect(Self.take(&bulk, [30, 31]), "keys in order past every key taken")
            #expect(!Self.take(&bulk, [40, 31]), "31 was taken in order after the filter was made")
        }
    }

    @Test("past the limit of keys in order, a page out of order takes the commit way; pages in order are still taken")
    func pastTheLimit() throws {
        try Self.withBulk(limit: 10) { bulk in
            #expect(Self.take(&bulk, Array(0..<6)))
            #expect(Self.take(&bulk, Array(6..<12)))
            #expect(bulk.ascendingHashes == nil, "the hashes go past the limit")
            #expect(Self.take(&bulk, [13, 100]), "a page in order is taken")
            #expect(!Self.take(&bulk, [200, 150]), "a page out of order cannot be checked: the commit way")
            #expect(!bulk.filtering)
        }
    }

    @Test("a first page out of order: the filter from the start, and a key twice in a page is refused")
    func outOfOrderFromTheStart() throws {
        try Self.withBulk(limit: DownloadBulk.defaultAscendingLimit) { bulk in
            #expect(Self.take(&bulk, [5, 1, 3]))
            #expect(bulk.filtering)
            #expect(Self.take(&bulk, [2]))
            #expect(!Self.take(&bulk, [3]))
            #expect(!Self.take(&bulk, [9, 8, 9]), "a key twice in one page")
        }
    }
}
