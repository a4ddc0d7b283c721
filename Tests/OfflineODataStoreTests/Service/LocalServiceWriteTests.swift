import OfflineODataModel
import Testing
@testable import OfflineODataStore

/// Create, update, replace, delete and relationship changes through `execute` and the typed
/// calls: status codes, bodies, ETags, flags and the queued requests.
@Suite struct LocalServiceWriteTests {
    @Test("POST creates: 201, Location, local ETag, JSON body, flags, one queued POST")
    func create() throws {
        let h = try ServiceHarness()
        let response = try h.run(.post, "BusinessPartners", newPartner("9900000001"), headers: ["X-Trace": "t1"],
                                 options: RequestOptions(transactionID: "tx1", uploadCategory: "cat", customTag: "tag"))
        #expect(response.status == 201)
        #expect(response.headers["Location"] == "BusinessPartners('9900000001')")
        #expect(response.headers["ETag"] == "W/\"local-1\"")
        let body = try json(response)
        #expect(body["BusinessPartnerID"]?.stringValue == "9900000001")
        #expect(body["@odata.etag"]?.stringValue == "W/\"local-1\"")
        let stored = try #require(try h.entity("BusinessPartners", [.string("9900000001")]))
        #expect(stored.flags == [.local, .pending])
        #expect(stored.localState == LocalEntityState(isLocal: true, hasPendingChanges: true, inErrorState: false))
        #expect(try stored.value(named: "CompanyName") == .string("New Partner"))
        let queue = try h.queue()
        #expect(queue.count == 1)
        let q = try #require(queue.first)
        #expect(q.requestID == 1 && q.method == "POST" && q.url == "BusinessPartners" && q.status == "Pending")
        #expect(q.affectedEntitySet == "BusinessPartners" && q.affectedEntityKey == "('9900000001')")
        #expect(q.serverETag == nil)
        #expect(q.body?.contains("9900000001") == true)
        #expect(q.customHeaders == ["X-Trace": "t1"])
        #expect(q.options == RequestOptions(transactionID: "tx1", uploadCategory: "cat", customTag: "tag"))
        #expect(response.requestID == 1)
    }

    @Test("Prefer: return=minimal gives 204 with Location and ETag")
    func createMinimal() throws {
        let h = try ServiceHarness()
        let response = try h.run(.post, "BusinessPartners", newPartner("9900000002"), headers: ["Prefer": "return=minimal"])
        #expect(response.status == 204 && response.body == nil)
        #expect(response.headers["Preference-Applied"] == "return=minimal")
        #expect(response.headers["Location"] == "BusinessPartners('9900000002')")
    }

    @Test("duplicate key: typed 409 error, nothing changed")
    func duplicate() throws {
        let h = try ServiceHarness()
        let existing = try h.first("BusinessPartners")
        guard case .string(let id)? = try existing.key().first else { Issue.record("no key"); return }
        expectServiceError("duplicateKey", 3103, h) { try h.run(.post, "BusinessPartners", newPartner(id)) }
        let error = #expect(throws: ODataError.self) { try h.run(.post, "BusinessPartners", newPartner(id)) }
        #expect(error.map { ODataResponse.status(for: $0) } == 409)
        #expect(error.map { ODataResponse.error($0).status } == 409)
        try h.run(.post, "BusinessPartners", newPartner("9900000003"))
        expectServiceError("duplicateKey", 3103, h) { try h.run(.post, "BusinessPartners", newPartner("9900000003")) }
    }

    @Test("PATCH merges: others stay, new ETag, server ETag queued; Prefer representation gives 200")
    func patch() throws {
        let h = try ServiceHarness()
        let order = try h.first("SalesOrders")
        let key = try order.key()
        let url = "SalesOrders" + (try keyText(key))
        let serverETag = order.etag
        let before = try order.toODataEntity()
        let r1 = try h.run(.patch, url, #"{"Note":"changed"}"#)
        #expect(r1.status == 204 && r1.body == nil)
        let r2 = try h.run(.patch, url, #"{"LifecycleStatus":"C"}"#, headers: ["Prefer": "return=representation"])
        #expect(r2.status == 200)
        #expect(try json(r2)["Note"]?.stringValue == "changed")
        let after = try #require(try h.entity("SalesOrders", key))
        #expect(try after.value(named: "Note") == .string("changed"))
        #expect(try after.value(named: "LifecycleStatus") == .string("C"))
        #expect(try after.value(named: "CustomerName") == before[property: "CustomerName"])
        #expect(after.etag == "W/\"local-2\"" && r2.headers["ETag"] == "W/\"local-2\"")
        #expect(after.flags == [.pending])
        #expect(after.localState == LocalEntityState(isLocal: true, hasPendingChanges: true, inErrorState: false))
        let queue = try h.queue()
        #expect(queue.map(\.method) == ["PATCH", "PATCH"])
        #expect(queue.map(\.requestID) == [1, 2])
        #expect(queue.allSatisfy { $0.serverETag == serverETag && $0.url == url })
    }

    @Test("PUT replaces: omitted nullable properties become null; omitted non-nullable ones are a typed error")
    func put() throws {
        let h = try ServiceHarness()
        let partner = try h.first("BusinessPartners")
        let key = try partner.key()
        guard case .string(let id)? = key.first else { return }
        let url = "BusinessPartners('\(id)')"
        #expect(try partner.value(named: "PhoneNumber") != nil || true)
        let response = try h.run(.put, url, newPartner(id, name: "Replaced"))
        #expect(response.status == 204)
        let after = try #require(try h.entity("BusinessPartners", key))
        #expect(try after.value(named: "CompanyName") == .string("Replaced"))
        #expect(try after.value(named: "PhoneNumber") == nil)
        #expect(try h.queue().map(\.method) == ["PUT"])
        expectServiceError("constraintViolation", 3106, h) {
            try h.run(.put, url, #"{"BusinessPartnerID":"\#(id)","CompanyName":"only a name"}"#)
        }
    }

    @Test("DELETE: 204, gone, DELETE queued with the server ETag; deleting again is 404")
    func delete() throws {
        let h = try ServiceHarness()
        let product = try h.first("Products")
        let key = try product.key()
        let url = "Products" + (try keyText(key))
        let response = try h.run(.delete, url)
        #expect(response.status == 204)
        #expect(try h.entity("Products", key) == nil)
        let q = try #require(try h.queue().first)
        #expect(q.method == "DELETE" && q.url == url && q.serverETag == product.etag && q.body == nil)
        expectServiceError("entityNotFound", 3102, h) { try h.run(.delete, url) }
        do { try h.run(.delete, url) } catch let e as ODataError { #expect(ODataResponse.status(for: e) == 404) }
    }

    @Test("If-Match: a stale or wrong ETag is 412 and changes nothing; * and the current ETag match")
    func ifMatch() throws {
        let h = try ServiceHarness()
        let order = try h.first("SalesOrders")
        let url = "SalesOrders" + (try keyText(try order.key()))
        let serverETag = try #require(order.etag)
        expectServiceError("preconditionFailed", 3108, h) {
            try h.run(.patch, url, #"{"Note":"x"}"#, headers: ["If-Match": "W/\"nope\""])
        }
        let stale = #expect(throws: ODataError.self) { try h.run(.patch, url, #"{"Note":"x"}"#, headers: ["If-Match": "W/\"nope\""]) }
        #expect(stale.map { ODataResponse.status(for: $0) } == 412 && stale?.category == .preconditionFailed)
        let r = try h.run(.patch, url, #"{"Note":"a"}"#, headers: ["If-Match": serverETag])
        let local = try #require(r.headers["ETag"])
        expectServiceError("preconditionFailed", 3108, h) {
            try h.run(.patch, url, #"{"Note":"b"}"#, headers: ["If-Match": serverETag])
        }
        try h.run(.patch, url, #"{"Note":"c"}"#, headers: ["If-Match": "W/\"other\", " + local])
        try h.run(.patch, url, #"{"Note":"d"}"#, headers: ["If-Match": "*"])
        expectServiceError("preconditionFailed", 3108, h) { try h.run(.delete, url, headers: ["If-Match": local]) }
        // The server's ETag is what the queue sends, whatever the local ETag is now.
        #expect(try h.queue().allSatisfy { $0.serverETag == serverETag })
        try h.service.delete(set: "SalesOrders", key: try order.key(), ifMatch: "*")
    }

    @Test("facets and constraints are typed errors and change nothing")
    func constraints() throws {
        let h = try ServiceHarness()
        let order = try h.first("SalesOrders")
        let url = "SalesOrders" + (try keyText(try order.key()))
        expectServiceError("constraintViolation", 3106, h) {
            try h.run(.patch, url, #"{"LifecycleStatus":"TOO LONG"}"#)
        }
        // Null for a non-nullable property: the JSON reader rejects it in a body, the service in a typed call.
        expectServiceError("nullNotAllowed", 1253, h) { try h.run(.patch, url, #"{"CustomerName":null}"#) }
        expectServiceError("constraintViolation", 3106, h) {
            try h.service.update(ODataEntity(typeName: "", properties: [ODataProperty("CustomerName", .null)]), in: "SalesOrders",
                                 key: try order.key())
        }
        expectServiceError("constraintViolation", 3106, h) {
            try h.service.update(ODataEntity(typeName: "", properties: [ODataProperty("GrossAmount", .string("lots"))]),
                                 in: "SalesOrders", key: try order.key())
        }
        expectServiceError("missingPrincipal", 3107, h) {
            try h.run(.patch, url, #"{"CustomerID":"9999999999"}"#)
        }
        expectServiceError("missingPrincipal", 3107, h) {
            try h.run(.post, "Contacts", """
            {"ContactGuid":"00000000-0000-0000-0000-0000000000AA","BusinessPartnerID":"9999999999","FirstName":"A","LastName":"B",
             "Sex":"F","PhoneNumber":"1","EmailAddress":"x@y.z",
             "Address":{"City":"W","PostalCode":"1","Street":"S","Building":"1","Country":"DE","AddressType":"02"}}
            """)
        }
        expectServiceError("keyMismatch", 3105, h) { try h.run(.patch, url, #"{"SalesOrderID":"0000000000"}"#) }
        expectServiceError("missingKeyValue", 3104, h) {
            try h.run(.post, "BusinessPartners", #"{"CompanyName":"no key"}"#)
        }
        expectServiceError("constraintViolation", 3106, h) {
            try h.run(.post, "BusinessPartners", newPartner("12345678901"))
        }
        #expect(try h.queue().isEmpty)
    }

    @Test("typed calls: create, update, replace, delete, link and unlink")
    func typedCalls() throws {
        let h = try ServiceHarness()
        let partner = try h.first("BusinessPartners")
        let order = try h.first("SalesOrders")
        let orderKey = try order.key()
        let created = try h.service.create(try ODataJSONReader(model: h.model).readEntity(Array(newPartner("9900000010").utf8),
                                                                                            entitySet: "BusinessPartners"),
                                           in: "BusinessPartners")
        #expect(created.status == 201 && created.entity?[property: "BusinessPartnerID"] == .string("9900000010"))
        try h.service.update(ODataEntity(typeName: "", properties: [ODataProperty("Note", .string("typed"))]), in: "SalesOrders", key: orderKey)
        #expect(try h.entity("SalesOrders", orderKey)?.value(named: "Note") == .string("typed"))
        try h.service.link(from: "SalesOrders", key: orderKey, navigation: "ToCustomer", to: [.string("9900000010")])
        #expect(try h.entity("SalesOrders", orderKey)?.value(named: "CustomerID") == .string("9900000010"))
        let queue = try h.queue()
        #expect(queue.map(\.method) == ["POST", "PATCH", "PUT"])
        #expect(queue[2].url == "SalesOrders\(try keyText(orderKey))/ToCustomer/$ref")
        #expect(queue[2].body == #"{"@odata.id":"BusinessPartners('9900000010')"}"#)
        _ = partner
        try h.service.delete(set: "BusinessPartners", key: [.string("9900000010")], ifMatch: "*")
        #expect(try h.entity("BusinessPartners", [.string("9900000010")]) == nil)
        expectServiceError("entityNotFound", 3102, h) {
            try h.service.update(ODataEntity(typeName: "", properties: [ODataProperty("Note", .string("x"))]), in: "SalesOrders",
                                 key: [.string("0000000000")])
        }
    }

    @Test("@odata.bind on create and update, $ref PUT and DELETE")
    func binds() throws {
        let h = try ServiceHarness()
        let partners = try h.all("BusinessPartners")
        #expect(partners.count >= 2)
        guard case .string(let p1)? = try partners[0].key().first, case .string(let p2)? = try partners[1].key().first else { return }
        let product = """
        {"ProductID":"HT-NEW1","TypeCode":"PR","Category":"Notebooks","Name":"N","SupplierID":"\(p2)","TaxTarifCode":1,
         "MeasureUnit":"EA","WeightMeasure":1.5,"WeightUnit":"KG","CurrencyCode":"EUR","Price":10,"CreatedAt":"2024-01-01T00:00:00Z",
         "ToSupplier@odata.bind":"BusinessPartners('\(p1)')"}
        """
        try h.run(.post, "Products", product)
        #expect(try h.entity("Products", [.string("HT-NEW1")])?.value(named: "SupplierID") == .string(p1))
        let order = try h.first("SalesOrders")
        let orderURL = "SalesOrders" + (try keyText(try order.key()))
        try h.run(.patch, orderURL, #"{"ToCustomer@odata.bind":"BusinessPartners('\#(p2)')"}"#)
        #expect(try h.entity("SalesOrders", try order.key())?.value(named: "CustomerID") == .string(p2))
        try h.run(.put, orderURL + "/ToCustomer/$ref", #"{"@odata.id":"BusinessPartners('\#(p1)')"}"#)
        #expect(try h.entity("SalesOrders", try order.key())?.value(named: "CustomerID") == .string(p1))
        expectServiceError("invalidBody", 3109, h) {
            try h.run(.put, orderURL + "/ToCustomer/$ref", #"{"@odata.id":"Products('HT-NEW1')"}"#)
        }
        expectServiceError("entityNotFound", 3102, h) {
            try h.run(.put, orderURL + "/ToCustomer/$ref", #"{"@odata.id":"BusinessPartners('0000000000')"}"#)
        }
        #expect(try h.queue().map(\.method) == ["POST", "PATCH", "PUT"])
    }

    @Test("deep insert: items stored with the order's key, linked, one queued request")
    func deepInsert() throws {
        let h = try ServiceHarness()
        let partner = try h.first("BusinessPartners")
        let product = try h.first("Products")
        guard case .string(let customer)? = try partner.key().first, case .string(let productID)? = try product.key().first else { return }
        func item(_ position: String) -> String {
            """
            {"ItemPosition":"\(position)","ProductID":"\(productID)","CurrencyCode":"EUR","GrossAmount":1,"NetAmount":1,
             "TaxAmount":0,"Quantity":1,"QuantityUnit":"EA","DeliveryDate":"2024-02-01"}
            """
        }
        let body = """
        {"SalesOrderID":"0599999999","CustomerID":"\(customer)","CustomerName":"C","CurrencyCode":"EUR","GrossAmount":2,
         "NetAmount":2,"TaxAmount":0,"LifecycleStatus":"N","BillingStatus":"N","DeliveryStatus":"N",
         "CreatedAt":"2024-01-01T00:00:00Z","ChangedAt":"2024-01-01T00:00:00Z","DeliveryDate":"2024-02-01",
         "ToItems":[\(item("0000000010")),\(item("0000000020"))]}
        """
        let response = try h.run(.post, "SalesOrders", body)
        #expect(response.status == 201)
        let items = try h.reader().targets("SalesOrders", [.string("0599999999")], "ToItems")
        #expect(items == [[.string("0599999999"), .string("0000000010")], [.string("0599999999"), .string("0000000020")]])
        for key in items {
            let stored = try #require(try h.entity("SalesOrderItems", key))
            #expect(stored.flags == [.local, .pending])
            #expect(stored.etag?.hasPrefix("W/\"local-") == true)
        }
        #expect(try h.queue().count == 1)
        // A deep insert whose item breaks a facet applies nothing.
        expectServiceError("constraintViolation", 3106, h) {
            try h.run(.post, "SalesOrders", body.replacingOccurrences(of: "0599999999", with: "0599999998")
                .replacingOccurrences(of: "\"QuantityUnit\":\"EA\"", with: "\"QuantityUnit\":\"TOOLONG\""))
        }
        // Undo of the order removes its items too.
        #expect(try h.service.undoPendingChanges(set: "SalesOrders", key: [.string("0599999999")]))
        #expect(try h.entity("SalesOrderItems", items[0]) == nil && h.queue().isEmpty)
    }

    @Test("POST to a navigation collection fills the foreign key from the parent")
    func postToNavigation() throws {
        let h = try ServiceHarness()
        let order = try h.first("SalesOrders")
        let product = try h.first("Products")
        guard case .string(let orderID)? = try order.key().first, case .string(let productID)? = try product.key().first else { return }
        let response = try h.run(.post, "SalesOrders('\(orderID)')/ToItems", """
        {"ItemPosition":"0000009990","ProductID":"\(productID)","CurrencyCode":"EUR","GrossAmount":1,"NetAmount":1,
         "TaxAmount":0,"Quantity":1,"QuantityUnit":"EA","DeliveryDate":"2024-02-01"}
        """)
        #expect(response.status == 201)
        #expect(response.headers["Location"] == "SalesOrderItems(SalesOrderID='\(orderID)',ItemPosition='0000009990')")
        #expect(try h.entity("SalesOrderItems", [.string(orderID), .string("0000009990")]) != nil)
        #expect(try h.queue().first?.url == "SalesOrders('\(orderID)')/ToItems")
    }
}

func keyText(_ key: [ODataValue]) throws -> String {
    let parts = try key.map { try $0.literal() }
    if parts.count == 1 { return "(" + parts[0] + ")" }
    return "(SalesOrderID=\(parts[0]),ItemPosition=\(parts[1]))"
}
