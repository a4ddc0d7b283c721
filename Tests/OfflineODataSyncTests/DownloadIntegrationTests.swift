import Foundation
import OfflineODataModel
import OfflineODataStore
import OfflineODataSync
import Testing

/// Download against a real OData V4 back end (odatapy on loopback): initial download with
/// filter, expand and paging; changes by a second client then a delta; an entity leaving a
/// filtered query; a deleted entity; a bad delta token; a metadata change; a defining query
/// changed at runtime.
@Suite(.enabled(if: OdatapyServer.available, OdatapyServer.skipReason), .serialized)
struct DownloadIntegrationTests {
    static let usPartners = DefiningQuery(name: "USPartners", url: "BusinessPartners?$filter=Country eq 'US'&$expand=SalesOrders($expand=Items)")
    static let orders = DefiningQuery(name: "Orders", url: "SalesOrders")

    @Test("initial download: $filter, nested $expand and server paging land in their own sets, linked; reopen needs no network")
    func initialDownload() async throws {
        let server = try OdatapyServer(pageSize: 2)
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let parameters = OfflineODataParameters.test(dir, queries: [Self.usPartners], pageSize: 2)
        let provider = try OfflineODataProvider(serviceRoot: server.serviceRoot, parameters: parameters)
        try await provider.open()
        let store = try provider.store
        let expectedPartners = try await server.keys("BusinessPartners?$filter=Country%20eq%20'US'", key: "BusinessPartnerID").sorted()
        #expect(expectedPartners.count == 3)
        #expect(try store.keys("BusinessPartners", key: "BusinessPartnerID") == expectedPartners)
        // Every order of those partners and every item of those orders, linked.
        var expectedOrders: [String] = []
        for partner in expectedPartners {
            expectedOrders += try await server.keys("BusinessPartners('\(partner)')/SalesOrders", key: "SalesOrderID")
        }
        #expect(try store.keys("SalesOrders", key: "SalesOrderID") == expectedOrders.sorted())
        #expect(try store.keys("BusinessPartners('BP1')/SalesOrders", key: "SalesOrderID") == ["SO001", "SO002", "SO003"])
        let items = try #require(try store.execute(.get, "SalesOrders('SO001')/Items").json())
        #expect(items["value"]?.arrayValue?.count == 2)
        let events = try #require(try store.execute(.get, "EventLog?$filter=Type eq 'Download'").json())
        #expect(events["value"]?.arrayValue?.count == 1)
        try provider.close()

        // Offline reopen: the server is gone.
        server.stop()
        let again = try OfflineODataProvider(serviceRoot: server.serviceRoot, parameters: parameters)
        try await again.open()
        #expect(try again.store.keys("BusinessPartners", key: "BusinessPartnerID") == expectedPartners)
        try again.close()
    }

    @Test("delta: changes, a new entity and a delete by a second client arrive by the delta link; a tombstone for an unknown entity is ignored")
    func deltaDownload() async throws {
        let server = try OdatapyServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let provider = try OfflineODataProvider(serviceRoot: server.serviceRoot, parameters: .test(dir, queries: [Self.orders]))
        try await provider.open()
        let store = try provider.store
        #expect(try store.keys("SalesOrders", key: "SalesOrderID").count == 24)
        #expect(try store.syncState(of: "Orders")?.deltaLink != nil)

        try await server.send("PATCH", "SalesOrders('SO001')", json: #"{"Note":"changed by another client"}"#)
        try await server.send("POST", "SalesOrders", json: #"{"SalesOrderID":"SO100","BusinessPartnerID":"BP2","LifecycleStatus":"N","CurrencyCode":"EUR","GrossAmount":12.5}"#)
        try await server.send("DELETE", "SalesOrders('SO005')")
        // Created and deleted between two downloads: a tombstone for an entity the store never had.
        try await server.send("POST", "SalesOrders", json: #"{"SalesOrderID":"SO101","BusinessPartnerID":"BP2","LifecycleStatus":"N","CurrencyCode":"EUR","GrossAmount":1}"#)
        try await server.send("DELETE", "SalesOrders('SO101')")

        let summaries = try await provider.download()
        #expect(summaries.count == 1)
        let expected = try await server.keys("SalesOrders", key: "SalesOrderID").sorted()
        #expect(try store.keys("SalesOrders", key: "SalesOrderID") == expected)
        let changed = try #require(try store.execute(.get, "SalesOrders('SO001')").json())
        #expect(changed["Note"]?.stringValue == "changed by another client")
        let events = try #require(try store.execute(.get, "EventLog?$filter=Type eq 'Download'&$orderby=ID desc&$top=1").json())
        #expect(events["value"]?[0]?["Details"]?.stringValue?.contains("mode=delta") == true)
        try provider.close()
    }
}

extension DownloadIntegrationTests {
    @Test("an entity that leaves a filtered query is removed by the reconcile; a pending local change keeps its entity")
    func leavesFilter() async throws {
        let server = try OdatapyServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let provider = try OfflineODataProvider(serviceRoot: server.serviceRoot, parameters: .test(dir, queries: [Self.usPartners]))
        try await provider.open()
        let store = try provider.store
        #expect(try store.keys("BusinessPartners", key: "BusinessPartnerID") == ["BP1", "BP4", "BP7"])
        // BP4 moves to Germany; BP7 too, but BP7 has a local change pending.
        try await server.send("PATCH", "BusinessPartners('BP4')", json: #"{"Country":"DE"}"#)
        try await server.send("PATCH", "BusinessPartners('BP7')", json: #"{"Country":"DE"}"#)
        let patched = try store.execute(.patch, "BusinessPartners('BP7')", body: #"{"City":"Aurora"}"#)
        #expect(patched.status == 204)
        try await provider.download()
        #expect(try store.keys("BusinessPartners", key: "BusinessPartnerID") == ["BP1", "BP7"])
        // BP4's orders and items left with it; BP7's stay (its membership waits for the upload).
        #expect(try store.keys("SalesOrders?$filter=BusinessPartnerID eq 'BP4'", key: "SalesOrderID").isEmpty)
        #expect(try store.keys("SalesOrders?$filter=BusinessPartnerID eq 'BP1'", key: "SalesOrderID") == ["SO001", "SO002", "SO003"])
        let local = try #require(try store.execute(.get, "BusinessPartners('BP7')").json())
        #expect(local["City"]?.stringValue == "Aurora")
        #expect(try store.syncState(of: "USPartners")?.deltaLink == nil, "a filtered, expanded query keeps no delta link")
        try provider.close()
    }

    @Test("a back end restarted between downloads answers the old delta link with nothing: the periodic reconcile catches up")
    func silentResetCaughtByReconcile() async throws {
        var server = try OdatapyServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let provider = try OfflineODataProvider(serviceRoot: server.serviceRoot,
                                                parameters: .test(dir, queries: [Self.orders], reconcileEvery: 2))
        try await provider.open()
        let store = try provider.store
        let port = server.port
        server.stop()
        // The same port, seed data again, its change counter back at zero.
        server = try OdatapyServer(port: port)
        try await server.send("DELETE", "SalesOrders('SO007')")
        try await server.send("PATCH", "SalesOrders('SO008')", json: #"{"Note":"after the restart"}"#)
        try await provider.download()   // a delta: odatapy answers the stale token with an empty 200
        try await provider.download()   // the second download since the full one: a reconcile
        let expected = try await server.keys("SalesOrders", key: "SalesOrderID").sorted()
        #expect(try store.keys("SalesOrders", key: "SalesOrderID") == expected)
        #expect(!expected.contains("SO007"))
        let note = try #require(try store.execute(.get, "SalesOrders('SO008')").json())
        #expect(note["Note"]?.stringValue == "after the restart")
        try provider.close()
    }

    @Test("an additive $metadata change upgrades the store in place; a changed key is refused and changes nothing")
    func schemaUpgrade() async throws {
        var server = try OdatapyServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let items = DefiningQuery(name: "Items", url: "SalesOrderItems")
        let partners = DefiningQuery(name: "Partners", url: "BusinessPartners")
        let provider = try OfflineODataProvider(serviceRoot: server.serviceRoot,
                                                parameters: .test(dir, queries: [partners, Self.orders, items]))
        try await provider.open()
        _ = try provider.store.execute(.patch, "SalesOrders('SO002')", body: #"{"Note":"local"}"#)
        let port = server.port
        server.stop()
        server = try OdatapyServer(port: port, extraProperties: ["SalesOrder:Priority:Edm.String"])
        try await server.send("PATCH", "SalesOrders('SO001')", json: #"{"Priority":"high"}"#)
        try await provider.download()
        let store = try provider.store
        let upgraded = try #require(try store.execute(.get, "SalesOrders('SO001')?$select=SalesOrderID,Priority").json())
        #expect(upgraded["Priority"]?.stringValue == "high")
        #expect(try store.keys("SalesOrders", key: "SalesOrderID").count == 24)
        let queue = try #require(try store.execute(.get, "RequestQueue").json())
        #expect(queue["value"]?.arrayValue?.count == 1, "the request queue survives the upgrade")
        let local = try #require(try store.execute(.get, "SalesOrders('SO002')").json())
        #expect(local["Note"]?.stringValue == "local")

        server.stop()
        server = try OdatapyServer(port: port, model: "model-key-changed.xml")
        let error = await #expect(throws: ODataError.self) { try await provider.download() }
        #expect(error?.code == SyncErrorCode.incompatibleMetadata.code)
        let after = try provider.store
        #expect(try after.keys("SalesOrderItems", key: "ItemNumber").count == 48)
        #expect(try after.execute(.get, "SalesOrders('SO001')?$select=Priority").json()?["Priority"]?.stringValue == "high")
        try provider.close()
    }

    @Test("a defining query whose URL changes at runtime moves exactly the difference, keeping pending changes")
    func definingQueryChangedAtRuntime() async throws {
        let server = try OdatapyServer()
        defer { server.stop() }
        let dir = SyncTempDir()
        defer { dir.cleanup() }
        let partners = DefiningQuery(name: "Partners", url: "BusinessPartners?$filter=Country eq 'US'")
        let provider = try OfflineODataProvider(serviceRoot: server.serviceRoot, parameters: .test(dir, queries: [partners]))
        try await provider.open()
        let store = try provider.store
        #expect(try store.keys("BusinessPartners", key: "BusinessPartnerID") == ["BP1", "BP4", "BP7"])
        _ = try store.execute(.patch, "BusinessPartners('BP4')", body: #"{"City":"Cambridge"}"#)
        try provider.update(definingQuery: DefiningQuery(name: "Partners", url: "BusinessPartners?$filter=Country eq 'DE'"))
        #expect(try provider.hasPendingDownload)
        let summaries = try await provider.download()
        #expect(try store.keys("BusinessPartners", key: "BusinessPartnerID") == ["BP2", "BP4", "BP5"], "DE partners, and BP4 with its pending change")
        #expect(summaries.first?.entitiesRemoved == 2 && summaries.first?.entitiesApplied == 2)
        #expect(try !provider.hasPendingDownload)

        // Added and removed at runtime.
        try provider.add(definingQuery: Self.orders)
        try await provider.download(subset: ["Orders"])
        #expect(try store.keys("SalesOrders", key: "SalesOrderID").count == 24)
        try provider.remove(definingQuery: "Orders")
        #expect(try store.keys("SalesOrders", key: "SalesOrderID").isEmpty)
        let unknown = await #expect(throws: ODataError.self) { try await provider.download(subset: ["Nope"]) }
        #expect(unknown?.code == SyncErrorCode.unknownDefiningQuery.code)
        try provider.close()
    }
}
