import Foundation
import OfflineODataModel
import Testing
@testable import OfflineODataStore

/// Many concurrent readers and one writer on one open store (issue 5): every read is one
/// consistent snapshot. The writer creates orders `CC00000000`, `CC00000001`, … one by one and
/// changes two orders' notes together in one `$batch` change set; readers check that the
/// creations they see are a gap-free prefix whose `$count` equals its rows, and that the two
/// notes are always equal.
@Suite struct OfflineStoreConcurrencyTests {
    @Test func readersSeeConsistentSnapshotsWhileOneWriterChanges() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineFixtures.loaded(dir)
        defer { try? store.close() }
        let ids = try store.query("SalesOrders?$top=2&$select=SalesOrderID").entities.compactMap { entity -> String? in
            if case .string(let id)? = entity[property: "SalesOrderID"] { return id }
            return nil
        }
        try #require(ids.count == 2)
        let (a, b) = (ids[0], ids[1])
        let writes = 60
        // Both notes start equal (the server data differs), so the invariant holds from here on.
        let start = #"{"requests":[{"id":"1","atomicityGroup":"g","method":"PATCH","url":"SalesOrders('\#(a)')","body":{"Note":"start"}},{"id":"2","atomicityGroup":"g","method":"PATCH","url":"SalesOrders('\#(b)')","body":{"Note":"start"}}]}"#
        #expect(try store.execute(.post, "$batch", body: start).status == 200)

        try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                for i in 0..<writes {
                    let id = String(format: "CC%08d", i)
                    let body = #"{"SalesOrderID":"\#(id)","CustomerID":"0100000000","CustomerName":"C","CurrencyCode":"EUR","GrossAmount":1,"NetAmount":1,"TaxAmount":0,"LifecycleStatus":"N","BillingStatus":"N","DeliveryStatus":"N","CreatedAt":"2026-01-01T00:00:00Z","ChangedAt":"2026-01-01T00:00:00Z","DeliveryDate":"2026-02-01"}"#
                    let created = try store.execute(.post, "SalesOrders", body: body)
                    #expect(created.status == 201, "POST \(id): \(created.status)")
                    let batch = #"{"requests":[{"id":"1","atomicityGroup":"g","method":"PATCH","url":"SalesOrders('\#(a)')","body":{"Note":"v\#(i)"}},{"id":"2","atomicityGroup":"g","method":"PATCH","url":"SalesOrders('\#(b)')","body":{"Note":"v\#(i)"}}]}"#
                    let changed = try store.execute(.post, "$batch", body: batch)
                    #expect(changed.status == 200, "$batch \(i): \(changed.status) \(String(decoding: changed.body ?? [], as: UTF8.self).prefix(300))")
                }
                return 0
            }
            for _ in 0..<4 {
                group.addTask {
                    var reads = 0
                    var lastSeen = 0
                    while lastSeen < writes {
                        let created = try store.query("SalesOrders?$filter=startswith(SalesOrderID,'CC')&$count=true&$select=SalesOrderID")
                        guard case .collection(let rows, let count, _) = created.payload else { Issue.record("not a collection"); return reads }
                        let seen = rows.compactMap { entity -> String? in
                            if case .string(let id)? = entity[property: "SalesOrderID"] { return id }
                            return nil
                        }
                        #expect(count == seen.count, "count \(String(describing: count)) vs \(seen.count) rows in one snapshot")
                        #expect(seen == (0..<seen.count).map { String(format: "CC%08d", $0) }, "creations are not a gap-free prefix: \(seen.suffix(3))")
                        #expect(seen.count >= lastSeen, "a later read saw fewer creations (\(seen.count) < \(lastSeen))")
                        lastSeen = seen.count
                        let pair = try store.query("SalesOrders?$filter=SalesOrderID in ('\(a)','\(b)')&$select=Note").entities
                        #expect(pair.count == 2 && pair[0][property: "Note"] == pair[1][property: "Note"],
                                "the two notes of one change set differ: \(pair.map { $0[property: "Note"] })")
                        reads += 1
                    }
                    return reads
                }
            }
            var total = 0
            for try await reads in group { total += reads }
            #expect(total > 0)
        }
        #expect(try store.service.requestQueue().count == writes * 3 + 2)
    }
}
