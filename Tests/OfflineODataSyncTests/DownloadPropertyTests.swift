import Foundation
import OfflineODataModel
import OfflineODataStore
import OfflineODataSync
import PropertyBased
import Testing

/// Random changes on the back end (creates, updates, deletes, partners moving across the
/// filter boundary) interleaved with downloads: after every download each defining query's
/// content in the store equals what the back end returns for it. The seed is printed on failure
/// (swift-property-based) to replay it.
@Suite(.enabled(if: OdatapyServer.available, OdatapyServer.skipReason), .serialized)
struct DownloadPropertyTests {
    static let queries = [
        DefiningQuery(name: "Orders", url: "SalesOrders"),
        DefiningQuery(name: "DEPartners", url: "BusinessPartners?$filter=Country eq 'DE'"),
        DefiningQuery(name: "USPartners", url: "BusinessPartners?$filter=Country eq 'US'&$expand=SalesOrders($expand=Items)"),
    ]

    /// One step: kind, a target number, a second number.
    static let step = zip(Gen.int(in: 0...5), Gen.int(in: 1...30), Gen.int(in: 0...2))

    @Test("after every download, each defining query's content equals the back end's answer")
    func storeFollowsTheBackEnd() async throws {
        await propertyCheck(count: 15, input: Self.step.array(of: 1...12)) { steps in
            let server = try OdatapyServer(pageSize: 4)
            defer { server.stop() }
            let dir = SyncTempDir()
            defer { dir.cleanup() }
            let provider = try OfflineODataProvider(serviceRoot: server.serviceRoot,
                                                    parameters: .test(dir, queries: Self.queries, pageSize: 3, reconcileEvery: 4))
            try await provider.open()
            try await Self.compare(provider, server, "after open")
            var created = 0
            for (index, (kind, target, extra)) in steps.enumerated() {
                let order = String(format: "SO%03d", (target % 24) + 1)
                let partner = "BP\((target % 8) + 1)"
                switch kind {
                case 0: try await server.send("PATCH", "SalesOrders('\(order)')", json: #"{"Note":"step \#(index)"}"#)
                case 1:
                    created += 1
                    try await server.send("POST", "SalesOrders", json: #"{"SalesOrderID":"X\#(created)","BusinessPartnerID":"\#(partner)","LifecycleStatus":"N","CurrencyCode":"EUR","GrossAmount":\#(target)}"#)
                case 2: try await server.send("DELETE", "SalesOrders('\(order)')")
                case 3: try await server.send("PATCH", "BusinessPartners('\(partner)')", json: #"{"Country":"\#(["US", "DE", "FR"][extra])"}"#)
                case 4: try await server.send("PATCH", "BusinessPartners('\(partner)')", json: #"{"City":"City \#(index)"}"#)
                default:
                    try await provider.download()
                    try await Self.compare(provider, server, "after step \(index)")
                }
            }
            try await provider.download()
            try await Self.compare(provider, server, "at the end")
            try provider.close()
        }
    }

    /// The store against the back end, query by query.
    static func compare(_ provider: OfflineODataProvider, _ server: OdatapyServer, _ when: String) async throws {
        let store = try provider.store
        let orders = try await server.keys("SalesOrders", key: "SalesOrderID").sorted()
        #expect(try store.keys("SalesOrders", key: "SalesOrderID") == orders, "\(when): SalesOrders")
        let de = try await server.keys("BusinessPartners?$filter=Country%20eq%20'DE'", key: "BusinessPartnerID")
        let us = try await server.keys("BusinessPartners?$filter=Country%20eq%20'US'", key: "BusinessPartnerID")
        #expect(try store.keys("BusinessPartners", key: "BusinessPartnerID") == (de + us).sorted(), "\(when): BusinessPartners")
        var items: [String] = []
        for partner in us {
            for order in try await server.keys("BusinessPartners('\(partner)')/SalesOrders", key: "SalesOrderID") {
                items += try await server.keys("SalesOrders('\(order)')/Items", key: "ItemNumber").map { "\(order)/\($0)" }
            }
        }
        let json = try #require(try store.execute(.get, "SalesOrderItems?$select=SalesOrderID,ItemNumber").json())
        let local = (json["value"]?.arrayValue ?? []).map { "\($0["SalesOrderID"]?.stringValue ?? "")/\($0["ItemNumber"]?.numberValue?.text ?? "")" }
        #expect(local.sorted() == items.sorted(), "\(when): SalesOrderItems")
        for partner in (de + us) {
            let (_, body) = try await server.send("GET", "BusinessPartners('\(partner)')")
            let remote = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
            let mine = try store.execute(.get, "BusinessPartners('\(partner)')").json()
            #expect(mine?["City"]?.stringValue == remote?["City"] as? String, "\(when): \(partner) City")
            #expect(mine?["Country"]?.stringValue == remote?["Country"] as? String, "\(when): \(partner) Country")
        }
    }
}
