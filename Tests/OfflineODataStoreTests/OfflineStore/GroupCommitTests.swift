import Foundation
import OfflineODataModel
import Synchronization
import Testing
@testable import OfflineODataEngine
@testable import OfflineODataStore

/// Group commit (issue 34): commits made without a sync of their own are covered by one later
/// sync (the mechanism, deterministic); local changes made at once from several threads each
/// return only once durable: after every change returned, a copy of the store's files taken
/// without closing it (what a power loss leaves) holds them all. How many syncs a burst shares
/// depends on the scheduling of the machine: it is printed, not asserted (bounded by one per
/// change).
@Suite struct GroupCommitTests {
    @Test("100 updates from 8 threads at once: fewer log syncs than updates; every acknowledged update is in the files")
    func burst() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        var parameters = OfflineFixtures.parameters(dir, definingQueries: [DefiningQuery(name: "Orders", url: "SalesOrders")])
        parameters.durability = .full
        let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: parameters)
        try await store.applyDownload(definingQuery: "Orders", pages: try OfflineFixtures.pages(.salesOrders))
        let rows = try #require(try store.execute(.get, "SalesOrders?$select=SalesOrderID&$top=100").json()?["value"]?.arrayValue)
        let ids = rows.compactMap { $0["SalesOrderID"]?.stringValue }
        #expect(ids.count == 100)
        let before = try store.storage.engine.stats().logSyncs
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for (n, id) in ids.enumerated() where n % 8 == worker {
                do {
                    _ = try store.execute(.patch, "SalesOrders('\(id)')", body: #"{"Note":"burst \#(n)"}"#)
                } catch {
                    failures.withLock { $0 += 1 }
                }
            }
        }
        let syncs = try store.storage.engine.stats().logSyncs - before
        #expect(failures.withLock { $0 } == 0)
        #expect(syncs > 0 && syncs <= 101, "\(syncs) log syncs for 100 updates")
        print("GroupCommitTests: 100 concurrent updates, \(syncs) log syncs")
        // What a power loss right now leaves: the files as they are, the store not closed.
        let copy = dir.path + "/copy"
        try FileManager.default.copyItem(atPath: dir.path + "/localstore.oostore", toPath: copy + ".oostore")
        let reopened = try await OfflineStore.open(metadata: OfflineFixtures.metadata,
                                                   parameters: OfflineStoreParameters(storeName: "copy", storePath: dir.path,
                                                                                      encryption: .unencrypted, durability: .full,
                                                                                      keyDerivation: .minimum))
        defer { try? reopened.close() }
        #expect(try reopened.requestQueue().count == 100)
        for (n, id) in ids.enumerated() {
            #expect(try reopened.execute(.get, "SalesOrders('\(id)')?$select=Note").json()?["Note"]?.stringValue == "burst \(n)")
        }
        try store.close()
    }

    @Test("ten commits without a sync of their own, then waits for each: one sync covers them all; a later commit needs its own")
    func oneSyncCoversEarlierCommits() throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        var options = EngineOptions(encryption: .unencrypted)
        options.durability = .full
        let engine = try StorageEngine.open(path: dir.path + "/engine", options: options)
        defer { try? engine.close() }
        let tree = try engine.tree("t")
        let before = try engine.stats().logSyncs
        var sequences: [UInt64] = []
        for i in 0..<10 {
            var batch = WriteBatch()
            batch.put([UInt8(i)], [UInt8(i)], in: tree)
            sequences.append(try engine.commit(batch, durable: false))
        }
        #expect(try engine.stats().logSyncs == before)
        for sequence in sequences { try engine.waitDurable(sequence) }
        #expect(try engine.stats().logSyncs == before + 1)
        var batch = WriteBatch()
        batch.put([99], [99], in: tree)
        let last = try engine.commit(batch, durable: false)
        // A waiter leaving the sync to others gives up after its wait and syncs itself.
        try engine.waitDurable(last, leavingSyncToOthersFor: .milliseconds(1))
        #expect(try engine.stats().logSyncs == before + 2)
        try engine.waitDurable(last)
        #expect(try engine.stats().logSyncs == before + 2)
    }
}
