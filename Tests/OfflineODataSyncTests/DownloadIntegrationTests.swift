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
