import Foundation
import OfflineODataEngine
import OfflineODataFixtures
import OfflineODataModel
import Testing
@testable import OfflineODataStore

/// The store's door for sync: a download of several defining queries interrupted between them
/// is finished by the next open from its spools; a marker that cannot be finished is dropped
/// and logged, and the store opens.
@Suite struct SyncDoorTests {
    static func receive(_ store: OfflineStore, _ name: String, _ set: SalesEntitySet, url: String) throws -> SyncDownload {
        let receiver = try store.makeReceiver(for: name, durable: true)
        for page in try OfflineFixtures.pages(set) { try receiver.append(page) }
        try receiver.seal()
        return SyncDownload(definingQuery: name, mode: .full, pages: receiver,
                            state: SyncQueryState(deltaLink: nil, downloadsSinceReconcile: 0, url: url))
    }

    static func parameters(_ dir: OfflineTempDir) -> OfflineStoreParameters {
        OfflineFixtures.parameters(dir, definingQueries: [DefiningQuery(name: "Partners", url: "BusinessPartners"),
                                                          DefiningQuery(name: "Orders", url: "SalesOrders")])
    }

    @Test("a crash after the marker's commit: the next open applies every query from the spools, with their states")
    func resumeAfterCrash() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        var store: OfflineStore? = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: Self.parameters(dir))
        let first = try #require(store)
        let downloads = [try Self.receive(first, "Partners", .businessPartners, url: "BusinessPartners"),
                         try Self.receive(first, "Orders", .salesOrders, url: "SalesOrders")]
        let items = downloads.map { SyncApplyItem(name: $0.definingQuery, mode: $0.mode, spool: $0.pages.spoolFileName,
                                                  spooled: $0.pages.spooledCount, state: $0.state) }
        // The marker is committed, then the process dies (nothing applied, spools kept).
        try first.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
            try batch.putSystem(tree: OfflineStoreFormat.storeTree, key: SyncDownloadMarker.key,
                                value: SyncDownloadMarker(next: 0, items: items).encode())
        }
        try first.close()
        store = nil
        let reopened = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: Self.parameters(dir))
        defer { try? reopened.close() }
        #expect(try reopened.count("SalesOrders/$count") == OfflineFixtures.sales.count(of: .salesOrders))
        #expect(try reopened.count("BusinessPartners/$count") == OfflineFixtures.sales.count(of: .businessPartners))
        #expect(try reopened.syncState(of: "Orders")?.url == "SalesOrders")
        #expect(try reopened.syncState(of: "Partners")?.url == "BusinessPartners")
        #expect(try reopened.storage.reader().systemValue(tree: OfflineStoreFormat.storeTree, key: SyncDownloadMarker.key) == nil)
        for item in items { #expect(try reopened.storage.engine.openSpool(try #require(item.spool)) == nil) }
    }

    @Test("a marker whose spool is gone is dropped with a SyncResumeFailed event; the store opens as it was")
    func unfinishableMarker() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: Self.parameters(dir))
        let download = try Self.receive(store, "Orders", .salesOrders, url: "SalesOrders")
        let item = SyncApplyItem(name: "Orders", mode: .full, spool: download.pages.spoolFileName, spooled: download.pages.spooledCount,
                                 state: download.state)
        try store.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
            try batch.putSystem(tree: OfflineStoreFormat.storeTree, key: SyncDownloadMarker.key,
                                value: SyncDownloadMarker(next: 0, items: [item, item]).encode())
        }
        download.pages.discard()
        try store.close()
        let reopened = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: Self.parameters(dir))
        defer { try? reopened.close() }
        #expect(try reopened.count("SalesOrders/$count") == 0)
        #expect(try reopened.eventLog().contains { $0.type == "SyncResumeFailed" })
        #expect(try reopened.storage.reader().systemValue(tree: OfflineStoreFormat.storeTree, key: SyncDownloadMarker.key) == nil)
    }

    @Test("several queries need durable receivers")
    func durableRequired() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: Self.parameters(dir))
        defer { try? store.close() }
        let a = try store.makeReceiver(for: "Orders")
        let b = try store.makeReceiver(for: "Partners")
        let state = SyncQueryState(deltaLink: nil, downloadsSinceReconcile: 0, url: "x")
        await #expect(throws: ODataError.self) {
            _ = try await store.applySyncDownloads([SyncDownload(definingQuery: "Orders", mode: .full, pages: a, state: state),
                                                    SyncDownload(definingQuery: "Partners", mode: .full, pages: b, state: state)])
        }
    }

    @Test("the applier takes an AsyncSequence of pages; a local write commits while the sequence waits for its next page")
    func asyncSequenceApplier() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: Self.parameters(dir))
        defer { try? store.close() }
        let pages = try OfflineFixtures.pages(.businessPartners)
        let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let apply = Task {
            try await store.applySyncDownload(definingQuery: "Partners", mode: .full, pages: stream,
                                              state: SyncQueryState(deltaLink: nil, downloadsSinceReconcile: 0, url: "BusinessPartners"))
        }
        continuation.yield(pages[0])
        // While the download waits for its next page, the writer lock is free.
        let orders = try OfflineFixtures.pages(.salesOrders)
        try await store.applyDownload(definingQuery: "Orders", pages: orders)
        for page in pages.dropFirst() { continuation.yield(page) }
        continuation.finish()
        let summary = try await apply.value
        #expect(summary.entitiesApplied == OfflineFixtures.sales.count(of: .businessPartners))
        #expect(try store.count("SalesOrders/$count") == OfflineFixtures.sales.count(of: .salesOrders))
        #expect(try store.syncState(of: "Partners")?.url == "BusinessPartners")
    }

    /// A store of the Fixtures' orders, indexed by note, and the keys of enough of them (up to
    /// 300) for a delta of them to be read ahead on another thread (`StoredVersionReader`).
    static func ordersForALargeDelta(_ dir: OfflineTempDir) async throws -> (OfflineStore, [String]) {
        var parameters = Self.parameters(dir)
        parameters.indexes = [IndexDefinition(name: "byNote", entitySet: "SalesOrders", properties: ["Note"])]
        let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: parameters)
        do {
            try await store.applyDownload(definingQuery: "Orders", pages: try OfflineFixtures.pages(.salesOrders))
        } catch {
            try? store.close()
            throw error
        }
        let count = min(300, OfflineFixtures.sales.count(of: .salesOrders))
        #expect(count >= 2 * StoredVersionReader.minimumKeys)
        return (store, (0..<count).map { OfflineFixtures.sales.salesOrderID($0) })
    }

    /// Enough changed entities that their stored versions are read ahead on another thread
    /// (`StoredVersionReader`) while the delta applies from the start: every partial entity is
    /// merged into its stored version, whichever thread read it first.
    @Test("a delta of many partial entities: each merged into its stored version, the ones read ahead as the others")
    func largeDeltaMerges() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let (store, ids) = try await Self.ordersForALargeDelta(dir)
        defer { try? store.close() }
        let count = ids.count
        // The properties the delta leaves out, as stored before it (its entities carry no ETag,
        // so the stored one goes: the back end's version changed).
        func kept(_ id: String) throws -> String {
            let json = try store.execute(.get, "SalesOrders('\(id)')?$select=GrossAmount,CustomerID").json()
            return "\(json?["GrossAmount"].map { "\($0)" } ?? "nil") \(json?["CustomerID"]?.stringValue ?? "nil")"
        }
        var before: [String: String] = [:]
        for id in ids { before[id] = try kept(id) }
        let oldNotes = try ids.map { try store.execute(.get, "SalesOrders('\($0)')?$select=Note").json()?["Note"]?.stringValue }
        let entities = ids.enumerated().map { #"{"SalesOrderID":"\#($1)","Note":"delta \#($0)"}"# }.joined(separator: ",")
        let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        continuation.yield(Array(#"{"value":[\#(entities)]}"#.utf8))
        continuation.finish()
        let summary = try await store.applySyncDownload(definingQuery: "Orders", mode: .delta, pages: stream,
                                                        state: SyncQueryState(deltaLink: nil, downloadsSinceReconcile: 1, url: "SalesOrders"))
        #expect(summary.entitiesApplied == count)
        for (i, id) in ids.enumerated() {
            #expect(try store.execute(.get, "SalesOrders('\(id)')").json()?["Note"]?.stringValue == "delta \(i)", "\(id)")
            let after = try kept(id)
            #expect(after == before[id], "\(id) lost what the delta left out: \(after) against \(before[id] ?? "nil")")
        }
        #expect(try store.count("SalesOrders/$count") == OfflineFixtures.sales.count(of: .salesOrders))
        // The index on the changed property holds each entity once, under its new value only.
        #expect(try store.count("SalesOrders/$count?$filter=startswith(Note,'delta ')") == count)
        #expect(try store.count("SalesOrders/$count?$filter=Note eq 'delta 7'") == 1)
        #expect(try store.count("SalesOrders/$count?$filter=Note eq 'delta 299'") == (count > 299 ? 1 : 0))
        let plan = try store.execute(.get, "SalesOrders?$filter=Note eq 'delta 7'&$select=SalesOrderID").bodyText ?? ""
        #expect(plan.contains(ids[7]))
        // No entry is left under an old value: an order found by its old note has that note.
        for note in Set(oldNotes.compactMap { $0 }).prefix(20) {
            let found = try store.execute(.get, "SalesOrders?$filter=Note eq '\(note.replacingOccurrences(of: "'", with: "''"))'&$select=SalesOrderID,Note").json()
            for row in found?["value"]?.arrayValue ?? [] {
                #expect(row["Note"]?.stringValue == note, "an index entry of an old note survived the delta: \(note)")
            }
            #expect(!ids.contains { id in (found?["value"]?.arrayValue ?? []).contains { $0["SalesOrderID"]?.stringValue == id } },
                    "an order the delta changed is still found by its old note \(note)")
        }
    }

    /// An entity twice in one delta, first near its start and again at its end, which the reader
    /// ahead reads from the commit's snapshot: the second must merge into what the first wrote,
    /// not into the version stored before the delta.
    @Test("an entity twice in one large delta: the second merges into the first, not into the version read ahead")
    func entityTwiceInALargeDelta() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let (store, ids) = try await Self.ordersForALargeDelta(dir)
        defer { try? store.close() }
        let count = ids.count
        let twice = ids[1]
        let oldNote = try store.execute(.get, "SalesOrders('\(twice)')?$select=Note").json()?["Note"]?.stringValue
        var entities = ids.enumerated().map { #"{"SalesOrderID":"\#($1)","Note":"delta \#($0)"}"# }
        entities.append(#"{"SalesOrderID":"\#(twice)","CurrencyCode":"XTW"}"#)
        let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        continuation.yield(Array(#"{"value":[\#(entities.joined(separator: ","))]}"#.utf8))
        continuation.finish()
        let summary = try await store.applySyncDownload(definingQuery: "Orders", mode: .delta, pages: stream,
                                                        state: SyncQueryState(deltaLink: nil, downloadsSinceReconcile: 1, url: "SalesOrders"))
        #expect(summary.entitiesApplied == count + 1)
        let order = try store.execute(.get, "SalesOrders('\(twice)')?$select=Note,CurrencyCode").json()
        #expect(order?["Note"]?.stringValue == "delta 1", "the second change undid the first: \(String(describing: order))")
        #expect(order?["CurrencyCode"]?.stringValue == "XTW")
        #expect(try store.count("SalesOrders/$count?$filter=Note eq 'delta 1'") == 1)
        if let oldNote, !oldNote.hasPrefix("delta ") {
            let found = try store.execute(.get, "SalesOrders?$filter=Note eq '\(oldNote.replacingOccurrences(of: "'", with: "''"))'&$select=SalesOrderID").bodyText ?? ""
            #expect(!found.contains(twice), "the order is still found under its old note")
        }
    }

    @Test("an entity the back end deleted while it had local changes is kept for them, and undo then removes it instead of restoring a version the back end no longer has (found by the two-store property test)")
    func deletedOnServerWhilePending() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: Self.parameters(dir))
        defer { try? store.close() }
        try await store.applyDownload(definingQuery: "Partners", pages: try OfflineFixtures.pages(.businessPartners))
        let partner = OfflineFixtures.sales.businessPartnerID(3), other = OfflineFixtures.sales.businessPartnerID(4)
        for id in [partner, other] {
            #expect(try store.execute(.patch, "BusinessPartners('\(id)')", body: #"{"CompanyName":"edited offline"}"#).status == 204)
        }
        // A delta: both deleted on the back end. Kept for their local changes.
        let delta = Array(#"{"value":[{"@removed":{"reason":"deleted"},"@id":"BusinessPartners('\#(partner)')"},{"@removed":{"reason":"deleted"},"@id":"BusinessPartners('\#(other)')"}]}"#.utf8)
        let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        continuation.yield(delta)
        continuation.finish()
        _ = try await store.applySyncDownload(definingQuery: "Partners", mode: .delta, pages: stream,
                                              state: SyncQueryState(deltaLink: nil, downloadsSinceReconcile: 1, url: "BusinessPartners"))
        #expect(try store.execute(.get, "BusinessPartners('\(partner)')").status == 200)
        // Undo: gone, not back to the version the back end no longer has; the queue is empty of it.
        #expect(try store.undoPendingChanges(set: "BusinessPartners", key: [.string(partner)]))
        #expect(try store.execute(.get, "BusinessPartners('\(partner)')").status == 404)
        #expect(try store.execute(.get, "BusinessPartners('\(other)')").status == 200)
        #expect(try store.requestQueue().count == 1)
    }
}
