import Foundation
import OfflineODataFixtures
import OfflineODataModel
import Testing
@testable import OfflineODataStore

/// One `$batch` answer settled in one commit (`settleUploads`): an entity stays pending while
/// a request of it is still queued, also one queued after the upload's snapshot and re-keyed
/// by an earlier confirmation of the same answer (the transaction's memo of the queue's tail
/// must not outlive the re-key).
@Suite struct UploadSettleTests {
    @Test("confirmations of one answer: a request queued after the snapshot keeps its entity pending, across a server key given before it")
    func memoOfTheQueuesTailAcrossARekey() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await MediaTests.open(dir)
        defer { try? store.close() }
        // In the snapshot: a change of photo 1, a create of photo 5 and a change of it.
        _ = try store.execute(.post, "Photos", body: #"{"ID":1,"Name":"one"}"#)
        _ = try store.confirmUpload(requestID: try #require(store.requestQueue().last?.requestID), etag: "W/\"a\"", serverKey: nil)
        let other = try #require(store.execute(.patch, "Photos(1)", body: #"{"Name":"one, changed"}"#).requestID)
        let create = try #require(store.execute(.post, "Photos", body: #"{"ID":5,"Name":"five"}"#).requestID)
        let change = try #require(store.execute(.patch, "Photos(5)", body: #"{"Name":"five, changed"}"#).requestID)
        let knownUpTo = change
        // Queued while the answer was on its way: another change of photo 5.
        let later = try #require(store.execute(.patch, "Photos(5)", body: #"{"Name":"five, later"}"#).requestID)
        let hint = QueueHint(nextOfEntity: nil, knownUpTo: knownUpTo)
        let confirmations = try store.settleUploads([
            // Reads the requests queued after the snapshot (the later change, under key 5)...
            .confirmed(requestID: other, etag: "W/\"b\"", serverKey: nil, hint: hint, message: nil),
            // ...then the back end gives photo 5 the key 500: the later change is re-keyed...
            .confirmed(requestID: create, etag: "W/\"c\"", serverKey: [.int32(500)], hint: QueueHint(nextOfEntity: change, knownUpTo: knownUpTo), message: nil),
            // ...and confirming the change of it must still see the later change, now of 500.
            .confirmed(requestID: change, etag: "W/\"d\"", serverKey: nil, hint: hint, message: nil),
        ])
        #expect(confirmations.count == 3)
        #expect(try store.requestQueue().map(\.requestID) == [later])
        #expect(try store.requestQueue().first?.url.contains("500") == true)
        #expect(try store.count("Photos/$count?$filter=sap.haspendingchanges() and ID eq 500") == 1, "photo 500 has a request queued")
        #expect(try store.count("Photos/$count?$filter=sap.haspendingchanges() and ID eq 1") == 0)
    }
}
