import Foundation
import OfflineODataEngine
import OfflineODataFixtures
import OfflineODataModel
import Testing
@testable import OfflineODataStore

@Suite struct OfflineStoreDownloadTests {
    static let sales = OfflineFixtures.sales
    static let next = OfflineFixtures.salesNext

    @Test("defining queries are validated, listed, persisted; duplicates and unknown names are typed errors")
    func definingQueryValidation() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: OfflineFixtures.parameters(
            dir, definingQueries: [DefiningQuery(name: "Orders", url: "SalesOrders?$expand=ToItems")]))
        try store.addDefiningQuery(DefiningQuery(name: "Items of one", url: "SalesOrders('0500000000')/ToItems", automaticallyRetrievesStreams: true))
        // One entity by its key (SAP's type-3 query: one media entity) is a collection of at most one.
        try store.addDefiningQuery(DefiningQuery(name: "One order", url: "SalesOrders('0500000001')"))
        for (url, why) in [("SalesOrders/$count", "count"), ("SalesOrders('1')/ToItems/$count", "count of one's items"),
                           ("SalesOrders('1')/Note", "property"), ("SalesOrders('1')/$value", "raw value"),
                           ("RequestQueue", "built-in set"), ("Nope", "unknown set"), ("SalesOrders?$filter=", "syntax"),
                           ("SalesOrders/$ref", "references"), ("", "empty"),
                           ("SalesOrders?$compute=GrossAmount mul 2 as D", "compute"),
                           ("SalesOrders?$expand=ToItems($compute=Quantity mul 2 as Q)", "nested compute")] {
            expectStoreError("invalidDefiningQuery", 3259) { try store.addDefiningQuery(DefiningQuery(name: "bad " + why, url: url)) }
        }
        expectStoreError("invalidDefiningQuery", 3259) { try store.addDefiningQuery(DefiningQuery(name: "", url: "SalesOrders")) }
        expectStoreError("invalidDefiningQuery", 3259) { try store.addDefiningQuery(DefiningQuery(name: "a\u{0}b", url: "SalesOrders")) }
        expectStoreError("definingQueryExists", 3260) { try store.addDefiningQuery(DefiningQuery(name: "Orders", url: "Products")) }
        expectStoreError("definingQueryNotFound", 3261) { try store.removeDefiningQuery(named: "nope") }
        await expectStoreErrorAsync("definingQueryNotFound", 3261) {
            _ = try await store.applyDownload(definingQuery: "nope", pages: [[UInt8]]())
        }
        try store.close()
        let again = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: OfflineFixtures.parameters(
            dir, definingQueries: [DefiningQuery(name: "Orders", url: "SalesOrders?$expand=ToItems")]))
        #expect(try again.definingQueries() == [
            DefiningQuery(name: "Items of one", url: "SalesOrders('0500000000')/ToItems", automaticallyRetrievesStreams: true),
            DefiningQuery(name: "One order", url: "SalesOrders('0500000001')"),
            DefiningQuery(name: "Orders", url: "SalesOrders?$expand=ToItems"),
        ])
        try again.close()
        // Same name, other URL at open: refused.
        await expectStoreErrorAsync("definingQueryExists", 3260) {
            _ = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: OfflineFixtures.parameters(
                dir, definingQueries: [DefiningQuery(name: "Orders", url: "SalesOrders")]))
        }
    }

    @Test("applyDownload of the sales service: a local change survives a second download, removed server entities go, undo restores the fresh server version")
    func downloadKeepsLocalChanges() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: OfflineFixtures.parameters(
            dir, definingQueries: [DefiningQuery(name: "Orders", url: "SalesOrders")]))
        defer { try? store.close() }
        try await OfflineFixtures.downloadPartners(store)
        let progress = DownloadProgressLog()
        let first = try await store.applyDownload(definingQuery: "Orders", pages: try OfflineFixtures.pages(.salesOrders),
                                                  progress: { progress.append($0) })
        #expect(first == DownloadSummary(definingQuery: "Orders", entitiesApplied: 500, entitiesRemoved: 0, pendingChangesKept: 0))
        #expect(progress.values.filter { $0.pagesApplied > 0 }.map(\.pagesApplied) == [1, 2, 3, 4, 5])
        #expect(progress.values.map(\.pagesReceived).max() == 5)
        #expect(progress.values.last?.entitiesApplied == 500)
        let id0 = Self.sales.salesOrderID(0), id1 = Self.sales.salesOrderID(1), id450 = Self.sales.salesOrderID(450)
        let serverETag = try #require(try store.execute(.get, "SalesOrders('\(id0)')").headers["ETag"])
        #expect(try store.execute(.patch, "SalesOrders('\(id0)')", body: #"{"Note":"mine"}"#).status == 204)

        // The back end changed every order and dropped the last hundred.
        let second = try await store.applyDownload(definingQuery: "Orders", pages: try OfflineFixtures.pages(.salesOrders, from: Self.next, range: 0..<4))
        #expect(second == DownloadSummary(definingQuery: "Orders", entitiesApplied: 400, entitiesRemoved: 100, pendingChangesKept: 1))
        #expect(try store.count("SalesOrders/$count") == 400)
        #expect(try store.execute(.get, "SalesOrders('\(id450)')").status == 404)
        let fresh = try Self.serverEntity(Self.next, index: 1, model: store.model)
        let stored1 = try #require(try store.storage.reader().entity(in: "SalesOrders", key: [.string(id1)]))
        #expect(try stored1.value(named: "GrossAmount") == fresh[property: "GrossAmount"])
        #expect(stored1.etag == fresh.control.etag && stored1.flags == [])
        let mine = try #require(try store.storage.reader().entity(in: "SalesOrders", key: [.string(id0)]))
        #expect(try mine.value(named: "Note") == .string("mine"))
        #expect(mine.localState.hasPendingChanges)
        // The queued request still names the original server ETag; undo brings the new server state.
        #expect(try store.service.requestQueue().map(\.serverETag) == [serverETag])
        #expect(try store.service.undoPendingChanges(set: "SalesOrders", key: [.string(id0)]))
        let restored = try #require(try store.storage.reader().entity(in: "SalesOrders", key: [.string(id0)]))
        let fresh0 = try Self.serverEntity(Self.next, index: 0, model: store.model)
        #expect(try restored.value(named: "Note") == (fresh0[property: "Note"] ?? .null))
        #expect(try restored.value(named: "GrossAmount") == fresh0[property: "GrossAmount"])
        #expect(restored.etag == fresh0.control.etag && restored.flags == [])
        let events = try store.service.eventLog()
        #expect(events.map(\.type) == ["Download", "Download", "Download"])
        #expect(events.last?.details?.contains("removed=100") == true)
    }

    @Test("a locally deleted entity stays deleted across a download; a pending entity is not removed when the server drops it")
    func pendingDeleteAndDrop() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineFixtures.loaded(dir)
        defer { try? store.close() }
        let id2 = Self.sales.salesOrderID(2), id499 = Self.sales.salesOrderID(499)
        #expect(try store.execute(.delete, "SalesOrders('\(id2)')").status == 204)
        #expect(try store.execute(.patch, "SalesOrders('\(id499)')", body: #"{"Note":"keep me"}"#).status == 204)
        let summary = try await store.applyDownload(definingQuery: "Orders", pages: try OfflineFixtures.pages(.salesOrders, from: Self.next, range: 0..<4))
        #expect(summary.entitiesRemoved == 99 && summary.pendingChangesKept == 1)
        #expect(try store.execute(.get, "SalesOrders('\(id2)')").status == 404)
        #expect(try store.count("SalesOrders/$count?$filter=SalesOrderID eq '\(id499)' and Note eq 'keep me'") == 1)
        // Undoing the delete brings back the downloaded (fresh) version.
        #expect(try store.service.undoPendingChanges(set: "SalesOrders", key: [.string(id2)]))
        let back = try #require(try store.storage.reader().entity(in: "SalesOrders", key: [.string(id2)]))
        #expect(back.etag == (try Self.serverEntity(Self.next, index: 2, model: store.model)).control.etag)
    }

    @Test("a cancelled applyDownload changes nothing")
    func cancelled() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineFixtures.loaded(dir)
        defer { try? store.close() }
        let before = try store.execute(.get, "SalesOrders?$orderby=SalesOrderID").bodyText
        let events = try store.service.eventLog().count
        let pages = try OfflineFixtures.pages(.salesOrders, from: Self.next, range: 0..<3)
        let task = Task { () async throws(ODataError) -> DownloadSummary in
            try await store.applyDownload(definingQuery: "Orders", pages: pages,
                                          progress: { _ in withUnsafeCurrentTask { $0?.cancel() } })
        }
        await expectStoreErrorAsync("operationCancelled", 3264) { _ = try await task.value }
        #expect(try store.execute(.get, "SalesOrders?$orderby=SalesOrderID").bodyText == before)
        #expect(try store.service.eventLog().count == events)
        #expect(store.state == .open)
        // A malformed page also leaves everything as it was.
        await expectStoreErrorAsync("jsonUnexpectedEnd", 1202) {
            _ = try await store.applyDownload(definingQuery: "Orders", pages: [Array(#"{"value":[{"SalesOrderID":"1""#.utf8)])
        }
        #expect(try store.count("SalesOrders/$count") == 500)
    }

    @Test("expanded content is stored and linked; removing a defining query deletes only what no other query covers")
    func expandAndRemove() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: OfflineFixtures.parameters(
            dir, definingQueries: [DefiningQuery(name: "All", url: "BusinessPartners?$expand=ToContacts"),
                                   DefiningQuery(name: "Some", url: "BusinessPartners?$top=10")]))
        defer { try? store.close() }
        let partners = try OfflineFixtures.pages(.businessPartners, pageSize: 10, range: 0..<3)
        let contacts = try OfflineFixtures.pages(.contacts, pageSize: 1000, range: 0..<1)
        // Build an expanded payload: the partners of the first page with their contacts inline.
        let expanded = try Self.expandedPartners(partners[0], contacts: contacts[0], model: store.model)
        let all = try await store.applyDownload(definingQuery: "All", pages: [expanded] + partners.dropFirst())
        let contactCount = try store.count("Contacts/$count")
        #expect(contactCount > 0 && all.entitiesApplied == 30 + contactCount)
        let firstPartner = Self.sales.businessPartnerID(0)
        #expect(try store.count("BusinessPartners('\(firstPartner)')/ToContacts/$count") > 0)
        _ = try await store.applyDownload(definingQuery: "Some", pages: [partners[0]])
        expectStoreError("definingQueryHasPendingChanges", 3262) {
            _ = try store.execute(.patch, "BusinessPartners('\(Self.sales.businessPartnerID(20))')", body: #"{"CompanyName":"Local"}"#)
            try store.removeDefiningQuery(named: "All")
        }
        try store.service.undoPendingChanges(set: "BusinessPartners", key: [.string(Self.sales.businessPartnerID(20))])
        try store.removeDefiningQuery(named: "All")
        #expect(try store.count("BusinessPartners/$count") == 10)
        #expect(try store.count("Contacts/$count") == 0)
        #expect(try store.definingQueries().map(\.name) == ["Some"])
    }

    @Test("removing a defining query goes in bounded commits; stopped after two of them (as a crash would), open finishes it")
    func removalInBoundedCommitsResumesAtOpen() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let some = DefiningQuery(name: "Some", url: "BusinessPartners?$top=10")
        var store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: OfflineFixtures.parameters(
            dir, definingQueries: [DefiningQuery(name: "All", url: "BusinessPartners"), some]))
        let partners = try OfflineFixtures.pages(.businessPartners, pageSize: 10, range: 0..<5)
        _ = try await store.applyDownload(definingQuery: "All", pages: partners)
        _ = try await store.applyDownload(definingQuery: "Some", pages: [partners[0]])
        #expect(try store.count("BusinessPartners/$count") == 50)
        func marker(_ store: OfflineStore) throws -> [UInt8]? {
            try store.storage.reader().systemValue(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.removalKey)
        }
        try store.removeDefiningQuery(named: "All", membersPerCommit: 7, stopAfterCommits: 2)
        // The query is gone at once; 14 of its 50 members are handled, those "Some" covers stay.
        #expect(try store.definingQueries().map(\.name) == ["Some"])
        #expect(try marker(store).map { try OfflineStoreFormat.decodeRemoval($0) } == "All")
        let left = try store.count("BusinessPartners/$count")
        #expect(left > 36 && left < 50, "\(left) partners after two commits of 7")
        try store.close()
        store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: OfflineFixtures.parameters(
            dir, definingQueries: [some]))
        defer { try? store.close() }
        #expect(try marker(store) == nil)
        #expect(try store.count("BusinessPartners/$count") == 10)
        #expect(try store.definingQueries().map(\.name) == ["Some"])
        // No membership row of "All" is left: registered again, it covers nothing until downloaded.
        let prefix = OfflineStoreFormat.membershipPrefix("All")
        var rows = try store.storage.reader().systemScan(tree: OfflineStoreFormat.membershipTree, from: prefix,
                                                          to: OfflineStoreFormat.end(of: prefix))
        #expect(try rows.next() == nil)
        // A removal that runs to the end in small commits leaves what one commit would.
        try store.addDefiningQuery(DefiningQuery(name: "Again", url: "BusinessPartners"))
        _ = try await store.applyDownload(definingQuery: "Again", pages: partners)
        try store.removeDefiningQuery(named: "Again", membersPerCommit: 3, stopAfterCommits: nil)
        #expect(try marker(store) == nil)
        #expect(try store.count("BusinessPartners/$count") == 10)
        // A damaged marker is a typed error.
        #expect(throws: ODataError.self) { try OfflineStoreFormat.decodeRemoval([2, 65]) }
        #expect(throws: ODataError.self) { try OfflineStoreFormat.decodeRemoval([1]) }
        #expect(throws: ODataError.self) { try OfflineStoreFormat.decodeRemoval([1, 0xFF]) }
    }

    // MARK: helpers

    static func serverEntity(_ generator: SalesServiceGenerator, index: Int, model: ServiceModel) throws -> ODataEntity {
        let page = try generator.page(set: .salesOrders, index: index / 100, pageSize: 100, options: PageOptions(includeETags: true))
        let entities = try ODataJSONReader(model: model).readCollection(page, entitySet: "SalesOrders").entities
        return entities[index % 100]
    }

    /// A V4 page of partners whose members carry `ToContacts` inline.
    static func expandedPartners(_ partners: [UInt8], contacts: [UInt8], model: ServiceModel) throws -> [UInt8] {
        let reader = ODataJSONReader(model: model)
        let contactList = try reader.readCollection(contacts, entitySet: "Contacts").entities
        var collection = try reader.readCollection(partners, entitySet: "BusinessPartners")
        for i in collection.entities.indices {
            let id = collection.entities[i][property: "BusinessPartnerID"]
            let mine = contactList.filter { $0[property: "BusinessPartnerID"] == id }
            collection.entities[i].navigation.append(ODataNavigationValue("ToContacts", .entities(mine, count: nil, nextLink: nil)))
        }
        return try ODataJSONWriter(model: model).writeCollection(collection, entitySet: "BusinessPartners")
    }
}

/// Progress values seen by a callback.
final class DownloadProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [DownloadProgress] = []
    func append(_ value: DownloadProgress) { lock.withLock { seen.append(value) } }
    var values: [DownloadProgress] { lock.withLock { seen } }
}
