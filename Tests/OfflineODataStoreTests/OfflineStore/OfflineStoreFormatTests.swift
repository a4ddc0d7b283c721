import Foundation
import OfflineODataFixtures
import OfflineODataModel
import Testing
@testable import OfflineODataStore

@Suite struct OfflineStoreFormatTests {
    @Test("registry records round-trip; bad versions, flags and UTF-8 are storeRecordCorrupted (3265)")
    func registryRecords() throws {
        let query = DefiningQuery(name: "Orders é", url: "SalesOrders?$filter=Note eq 'ü'", automaticallyRetrievesStreams: true)
        let bytes = OfflineStoreFormat.encode(query)
        #expect(bytes.prefix(2) == [1, 1])
        #expect(try OfflineStoreFormat.decodeQuery(name: Array(query.name.utf8), value: bytes) == query)
        for bad: [UInt8] in [[], [1], [2, 0], [1, 2], [1, 0, 0xFF]] {
            expectStoreError("storeRecordCorrupted", 3265) { _ = try OfflineStoreFormat.decodeQuery(name: Array("q".utf8), value: bad) }
        }
        expectStoreError("storeRecordCorrupted", 3265) { _ = try OfflineStoreFormat.decodeQuery(name: [0xC3], value: [1, 0]) }
    }

    @Test("download markers round-trip byte for byte (docs/OfflineStore.md §8.5); damaged ones are storeRecordCorrupted (3265)")
    func downloadMarkers() throws {
        let marker = DownloadMarker(phase: OfflineStoreFormat.phaseApplying, generation: 0x0102, pages: 3, pagesApplied: 2, applied: 1000,
                                    removed: 7, kept: 2, rejected: 1, name: "Orders é", set: "SalesOrders", spoolBase: 2)
        let bytes = marker.encode()
        #expect(bytes.prefix(10) == [2, 2, 0, 0, 0, 0, 0, 0, 1, 2])
        #expect(bytes.count == 2 + 8 * 7 + 4 + "Orders é".utf8.count + 4 + 11 + 8)
        #expect(bytes[18..<26] == [0, 0, 0, 0, 0, 0, 0, 2])
        #expect(bytes.suffix(8) == [0, 0, 0, 0, 0, 0, 0, 2])
        #expect(try DownloadMarker.decode(bytes) == marker)
        // Version 1 (written before bulk loads): no spool base.
        var version1 = Array(bytes.dropLast(8)); version1[0] = 1
        var old = marker; old.spoolBase = 0
        #expect(try DownloadMarker.decode(version1) == old)
        var badVersion = bytes; badVersion[0] = 3
        var badPhase = bytes; badPhase[1] = 3
        var hugeCount = bytes; hugeCount[10] = 0x80
        var badUTF8 = bytes; badUTF8[62] = 0xFF
        var baseOverApplied = bytes; baseOverApplied[bytes.count - 1] = 3
        for bad in [[], Array(bytes.prefix(20)), Array(bytes.dropLast()), bytes + [0], version1 + [0], badVersion, badPhase, hugeCount,
                    badUTF8, baseOverApplied] {
            expectStoreError("storeRecordCorrupted", 3265) { _ = try DownloadMarker.decode(bad) }
        }
        // Membership values: the generation big-endian; the older one-byte value is generation 0.
        #expect(OfflineStoreFormat.generation(ofMembership: OfflineStoreFormat.be64(42)) == 42)
        #expect(OfflineStoreFormat.generation(ofMembership: [1]) == 0)
    }

    @Test("membership keys: prefix, split, and the end of a prefix range")
    func membershipKeys() throws {
        let key = OfflineStoreFormat.membershipKey("Q", set: "Set", keyBytes: [0, 1, 0xFF])
        #expect(key == Array("Q".utf8) + [0] + Array("Set".utf8) + [0, 0, 1, 0xFF])
        let member = try OfflineStoreFormat.splitMember(key, prefixLength: 2)
        #expect(member == EntityMember(set: "Set", keyBytes: [0, 1, 0xFF]))
        expectStoreError("storeRecordCorrupted", 3265) { _ = try OfflineStoreFormat.splitMember(Array("Q".utf8) + [0, 65], prefixLength: 2) }
        #expect(OfflineStoreFormat.end(of: [0x51, 0]) == [0x51, 1])
        #expect(OfflineStoreFormat.end(of: [0x51, 0xFF]) == [0x52])
        #expect(OfflineStoreFormat.end(of: [0xFF]) == [0xFF])
        // Another query's keys sort outside the range.
        let prefix = OfflineStoreFormat.membershipPrefix("Q")
        let other = OfflineStoreFormat.membershipKey("Q2", set: "Set", keyBytes: [1])
        #expect(!(other.lexicographicallyPrecedes(OfflineStoreFormat.end(of: prefix)) && !other.lexicographicallyPrecedes(prefix)))
    }

    @Test("indexes from the parameters are built on open and used; declareIndex reports progress")
    func indexes() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineFixtures.loaded(dir)
        let progress = IndexProgressLog()
        try await store.declareIndex(IndexDefinition(name: "byNote", entitySet: "SalesOrders", properties: ["Note"]),
                                     progress: { progress.append($0) })
        #expect(progress.values.last?.entitiesIndexed == 500)
        try store.close()
        var parameters = OfflineFixtures.parameters(dir)
        parameters.indexes = [IndexDefinition(name: "byCurrency", entitySet: "SalesOrders", properties: ["CurrencyCode"])]
        let again = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: parameters)
        defer { try? again.close() }
        let all = try again.query("SalesOrders").entities
        let currency = try #require(all.first?[property: "CurrencyCode"])
        guard case .string(let code) = currency else { return }
        #expect(try again.explain("SalesOrders?$filter=CurrencyCode eq '\(code)'").contains("index byCurrency"))
        let viaIndex = try again.count("SalesOrders/$count?$filter=CurrencyCode eq '\(code)'")
        #expect(viaIndex == all.filter { $0[property: "CurrencyCode"] == currency }.count && viaIndex > 0)
        #expect(try again.storage.reader().indexes(of: "SalesOrders").map(\.definition.name).contains("byNote"))
    }
}

final class IndexProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [IndexBuildProgress] = []
    func append(_ value: IndexBuildProgress) { lock.withLock { seen.append(value) } }
    var values: [IndexBuildProgress] { lock.withLock { seen } }
}
