import Foundation
import OfflineODataFixtures
import OfflineODataModel
import Testing
@testable import OfflineODataStore

/// The first download applied while it is received (`applyInitialDownload` with a
/// `PageChannel`, docs/Sync.md §2.1, "The initial download"): every page arrives, in order, with the state the producer
/// finished with; a failure on either side stops the other and leaves nothing; a store whose
/// initial download is complete refuses it (the writer lock would wait on the network).
@Suite struct InitialDownloadChannelTests {
    static func parameters(_ dir: OfflineTempDir, batchBytes: Int) -> OfflineStoreParameters {
        var parameters = OfflineFixtures.parameters(dir, definingQueries: [DefiningQuery(name: "Orders", url: "SalesOrders")])
        parameters.downloadBatchBytes = batchBytes
        return parameters
    }

    /// Sends `pages` through `channel` with a pause now and then (a slow link), then finishes.
    static func produce(_ pages: [[UInt8]], into channel: PageChannel, state: SyncQueryState) async throws(ODataError) {
        for (i, page) in pages.enumerated() {
            if i % 3 == 1 { try? await Task.sleep(for: .milliseconds(2)) }
            try await channel.send(page)
        }
        channel.finish(state: state)
    }

    @Test("every page applied while the next ones arrive, staged or in one commit, with the producer's final state", arguments: [1, 1 << 30])
    func pagesArriveInOrder(batchBytes: Int) async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: Self.parameters(dir, batchBytes: batchBytes))
        defer { try? store.close() }
        let pages = try OfflineFixtures.pages(.salesOrders)
        #expect(pages.count > 2)
        let channel = PageChannel(capacity: 1)
        let state = SyncQueryState(deltaLink: "SalesOrders?$deltatoken=7", downloadsSinceReconcile: 0, url: "SalesOrders")
        async let summary = store.applyInitialDownload(definingQuery: "Orders", channel: channel)
        try await Self.produce(pages, into: channel, state: state)
        #expect(try await summary.entitiesApplied == OfflineFixtures.sales.count(of: .salesOrders))
        #expect(try store.count("SalesOrders/$count") == OfflineFixtures.sales.count(of: .salesOrders))
        #expect(try store.syncState(of: "Orders") == state)
    }

    @Test("the producer fails after some pages: the apply throws its error and nothing is applied", arguments: [1, 1 << 30])
    func producerFails(batchBytes: Int) async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: Self.parameters(dir, batchBytes: batchBytes))
        defer { try? store.close() }
        let pages = try OfflineFixtures.pages(.salesOrders)
        let channel = PageChannel(capacity: 1)
        let apply = Task { () async -> Result<DownloadSummary, ODataError> in
            do throws(ODataError) {
                return .success(try await store.applyInitialDownload(definingQuery: "Orders", channel: channel))
            } catch {
                return .failure(error)
            }
        }
        try await channel.send(pages[0])
        try await channel.send(pages[1])
        channel.fail(.offlineCancelled("the test's network"))
        let error = await #expect(throws: ODataError.self) { _ = try await apply.value.get() }
        #expect(error?.name == ODataError.offlineCancelled("x").name)
        #expect(try store.count("SalesOrders/$count") == 0)
        #expect(try store.syncState(of: "Orders") == nil)
    }

    @Test("the apply refuses a page: the producer's next send throws the apply's error")
    func consumerStops() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: Self.parameters(dir, batchBytes: 1))
        defer { try? store.close() }
        let pages = try OfflineFixtures.pages(.salesOrders)
        let channel = PageChannel(capacity: 1)
        let apply = Task { () async -> ODataError? in
            do throws(ODataError) {
                _ = try await store.applyInitialDownload(definingQuery: "Orders", channel: channel)
                return nil
            } catch {
                return error
            }
        }
        var sendError: ODataError?
        do throws(ODataError) {
            try await channel.send(pages[0])
            try await channel.send(Array(#"{"value":[{"SalesOrderID":"X","GrossAmount":"not a number"}]}"#.utf8))
            // The pages after the refused one are not taken: a send throws within a few pages.
            for _ in 0..<64 { try await channel.send(pages[1]) }
            channel.finish(state: nil)
        } catch {
            sendError = error
        }
        let applyError = await apply.value
        #expect(applyError != nil)
        #expect(sendError != nil && sendError == applyError, "send: \(String(describing: sendError)), apply: \(String(describing: applyError))")
        #expect(try store.count("SalesOrders/$count") == 0)
    }

    @Test("a store whose initial download is complete refuses a download applied while it is received")
    func onlyForTheInitialDownload() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: Self.parameters(dir, batchBytes: 1))
        defer { try? store.close() }
        try store.markInitialDownloadComplete()
        let channel = PageChannel(capacity: 1)
        let error = await #expect(throws: ODataError.self) { _ = try await store.applyInitialDownload(definingQuery: "Orders", channel: channel) }
        #expect(error?.category == .invalidInput)
        // The producer learns it at its first send.
        await #expect(throws: ODataError.self) { try await channel.send([]) }
    }
}
