import Foundation
import OfflineODataEngine
import OfflineODataFixtures
import OfflineODataModel
import Testing
@testable import OfflineODataStore

@Suite struct OfflineStoreExecuteTests {
    static let order0 = OfflineFixtures.sales.salesOrderID(0)
    static let order1 = OfflineFixtures.sales.salesOrderID(1)

    @Test("GET, POST, PATCH, DELETE through execute: statuses, OData JSON bodies, ETags, 404")
    func crud() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineFixtures.loaded(dir)
        defer { try? store.close() }
        let list = try store.execute(.get, "SalesOrders?$top=2&$count=true&$select=SalesOrderID,Note")
        #expect(list.status == 200 && list.headers["Content-Type"] == "application/json")
        let json = try #require(try list.json())
        // The context names the selected properties (OData 4.01 Protocol §10.9).
        #expect(json["@odata.context"]?.stringValue == "$metadata#SalesOrders(SalesOrderID,Note)")
        #expect(json["@odata.count"]?.numberValue?.text == "500")
        #expect(json["value"]?.arrayValue?.count == 2)
        #expect(json["value"]?[0]?["SalesOrderID"]?.stringValue == Self.order0)

        let one = try store.execute(.get, "SalesOrders('\(Self.order0)')")
        #expect(one.status == 200)
        let etag = try #require(one.headers["ETag"])
        #expect(etag.hasPrefix("W/\""))
        #expect(try one.json()?["@odata.context"]?.stringValue == "$metadata#SalesOrders/$entity")
        #expect(try one.json()?["SalesOrderID"]?.stringValue == Self.order0)

        let count = try store.execute(.get, "SalesOrders/$count")
        #expect(count.headers["Content-Type"] == "text/plain" && count.bodyText == "500")
        let property = try store.execute(.get, "SalesOrders('\(Self.order0)')/SalesOrderID")
        #expect(try property.json()?["value"]?.stringValue == Self.order0)

        let missing = try store.execute(.get, "SalesOrders('nope')")
        #expect(missing.status == 404)
        #expect(try missing.json()?["error"]?["code"]?.stringValue == "3091")

        // PATCH with the server ETag, then a stale one.
        let patched = try store.execute(.patch, "SalesOrders('\(Self.order0)')", body: #"{"Note":"changed locally"}"#,
                                        headers: ["If-Match": etag])
        #expect(patched.status == 204)
        expectStoreError("preconditionFailed", 3108) {
            _ = try store.execute(.patch, "SalesOrders('\(Self.order0)')", body: #"{"Note":"again"}"#, headers: ["If-Match": etag])
        }
        #expect(try store.execute(.get, "SalesOrders('\(Self.order0)')").json()?["Note"]?.stringValue == "changed locally")

        // POST a business partner, then DELETE an order.
        let post = try store.execute(.post, "BusinessPartners", body: #"{"BusinessPartnerID":"BPNEW","CompanyName":"New","EmailAddress":"n@x.y","CurrencyCode":"EUR","BusinessPartnerRole":"01","Address":{"City":"X","PostalCode":"1","Street":"S","Building":"1","Country":"DE","AddressType":"02"},"CreatedAt":"2024-01-01T00:00:00Z"}"#)
        #expect(post.status == 201 && post.headers["Location"] == "BusinessPartners('BPNEW')")
        #expect(try post.json()?["CompanyName"]?.stringValue == "New")
        let deleted = try store.execute(.delete, "SalesOrders('\(Self.order1)')")
        #expect(deleted.status == 204)
        #expect(try store.execute(.get, "SalesOrders('\(Self.order1)')").status == 404)
        #expect(try store.stats() == StoreStatistics(entityCounts: ["SalesOrders": 499, "BusinessPartners": OfflineFixtures.sales.count(of: .businessPartners) + 1, "Contacts": 0, "Products": 0, "SalesOrderItems": 0],
                                                     queuedRequests: 3, failedRequests: 0))
        let queue = try store.execute(.get, "RequestQueue?$select=Method,AffectedEntitySet")
        #expect(try queue.json()?["value"]?.arrayValue?.compactMap { $0["Method"]?.stringValue } == ["PATCH", "POST", "DELETE"])
        // $expand=AffectedEntity: the changed entity inline, null after a local deletion; paging keeps the option.
        let expanded = try #require(try store.execute(.get, "RequestQueue?$expand=AffectedEntity").json()?["value"]?.arrayValue)
        #expect(expanded.count == 3)
        #expect(expanded[0]["AffectedEntity"]?["Note"]?.stringValue == "changed locally")
        #expect(expanded[1]["AffectedEntity"]?["CompanyName"]?.stringValue == "New")
        #expect(expanded[2]["AffectedEntity"] == .null)
        let firstPage = try #require(try store.execute(.get, "RequestQueue?$expand=AffectedEntity",
                                                       headers: ["Prefer": "odata.maxpagesize=2"]).json())
        let nextLink = try #require(firstPage["@odata.nextLink"]?.stringValue)
        let secondPage = try #require(try store.execute(.get, nextLink).json()?["value"]?.arrayValue)
        #expect(secondPage.count == 1 && secondPage[0]["AffectedEntity"] == .null && secondPage[0]["Method"]?.stringValue == "DELETE")
        #expect(try store.execute(.get, "RequestQueue(1)?$expand=AffectedEntity").json()?["AffectedEntity"]?["SalesOrderID"]?.stringValue == Self.order0)
    }

    @Test("server-driven paging: following @odata.nextLink through execute returns every entity once")
    func paging() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineFixtures.loaded(dir, pageSize: 64)
        defer { try? store.close() }
        var url: String? = "SalesOrders?$select=SalesOrderID&$orderby=GrossAmount desc"
        var seen: [String] = []
        var pages = 0
        while let next = url {
            let response = try store.execute(.get, next)
            #expect(response.status == 200)
            let json = try #require(try response.json())
            seen += json["value"]?.arrayValue?.compactMap { $0["SalesOrderID"]?.stringValue } ?? []
            url = json["@odata.nextLink"]?.stringValue
            pages += 1
        }
        #expect(pages == 8)
        #expect(seen.count == 500 && Set(seen).count == 500)
        // Prefer: odata.maxpagesize overrides the store's page size.
        let small = try store.execute(.get, "SalesOrders", headers: ["Prefer": "odata.maxpagesize=10"])
        #expect(try small.json()?["value"]?.arrayValue?.count == 10)
        #expect(small.headers["Preference-Applied"] == "odata.maxpagesize=10")
    }

    @Test("ErrorArchive?$filter=HTTPStatusCode eq 412 after markFailed; sap.islocal(), haspendingchanges(), inerrorstate()")
    func localStateFunctions() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineFixtures.loaded(dir)
        defer { try? store.close() }
        #expect(try store.count("SalesOrders/$count?$filter=sap.islocal()") == 0)
        let a = try store.execute(.patch, "SalesOrders('\(Self.order0)')", body: #"{"Note":"a"}"#)
        _ = try store.execute(.patch, "SalesOrders('\(Self.order1)')", body: #"{"Note":"b"}"#)
        let requestID = try #require(a.requestID)
        #expect(try store.count("SalesOrders/$count?$filter=sap.islocal()") == 2)
        #expect(try store.count("SalesOrders/$count?$filter=not sap.islocal()") == 498)
        #expect(try store.count("SalesOrders/$count?$filter=sap.haspendingchanges() and SalesOrderID eq '\(Self.order1)'") == 1)
        #expect(try store.count("SalesOrders/$count?$filter=sap.inerrorstate()") == 0)

        try store.service.markFailed(requestID: requestID, httpStatus: 412, code: "PRECONDITION", message: "stale")
        let archive = try store.execute(.get, "ErrorArchive?$filter=HTTPStatusCode eq 412")
        let rows = try #require(try archive.json()?["value"]?.arrayValue)
        #expect(rows.count == 1 && rows.first?["AffectedEntityKey"]?.stringValue == "('\(Self.order0)')")
        #expect(try store.count("ErrorArchive/$count?$filter=HTTPStatusCode eq 500") == 0)
        let failed = try store.execute(.get, "SalesOrders?$filter=sap.inerrorstate()&$select=SalesOrderID")
        #expect(try failed.json()?["value"]?.arrayValue?.compactMap { $0["SalesOrderID"]?.stringValue } == [Self.order0])
        #expect(try store.count("SalesOrders/$count?$filter=sap.haspendingchanges()") == 1)
        #expect(try store.count("SalesOrders/$count?$filter=sap.islocal()") == 2)

        // Annotations when asked for.
        let annotated = try store.execute(.get, "SalesOrders('\(Self.order0)')", headers: ["Prefer": #"odata.include-annotations="sap.*""#])
        let body = try #require(try annotated.json())
        #expect(body["@com.sap.vocabularies.Offline.v1.islocal"]?.boolValue == true)
        #expect(body["@com.sap.vocabularies.Offline.v1.inerrorstate"]?.boolValue == true)
        let plain = try store.execute(.get, "SalesOrders('\(Self.order0)')")
        #expect(try plain.json()?["@com.sap.vocabularies.Offline.v1.islocal"] == nil)
        let clean = try store.execute(.get, "SalesOrders?$top=1&$skip=5", headers: ["Prefer": #"odata.include-annotations="*""#])
        #expect(try clean.json()?["value"]?[0]?["@com.sap.vocabularies.Offline.v1.islocal"]?.boolValue == false)

        // Bad uses are binding errors.
        expectStoreError("invalidArgumentCount", 1653) { _ = try store.query("SalesOrders?$filter=sap.islocal(x=1)") }
    }
}
