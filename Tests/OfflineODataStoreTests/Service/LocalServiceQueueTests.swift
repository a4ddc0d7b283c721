import OfflineODataModel
import Testing
@testable import OfflineODataStore

/// Undo, failed requests and the ErrorArchive, temporary keys, the built-in sets, durability.
@Suite struct LocalServiceQueueTests {
    func order(_ h: ServiceHarness) throws -> (key: [ODataValue], url: String, stored: StoredEntity) {
        let stored = try h.first("SalesOrders")
        let key = try stored.key()
        return (key, "SalesOrders" + (try keyText(key)), stored)
    }

    @Test("undo: an update returns to the server version, flags and ETag included; requests removed")
    func undoUpdate() throws {
        let h = try ServiceHarness()
        let (key, url, original) = try order(h)
        try h.run(.patch, url, #"{"Note":"one"}"#)
        try h.run(.patch, url, #"{"Note":"two","LifecycleStatus":"C"}"#)
        let change = try #require(try h.service.localChanges().first)
        #expect(change.key == key && !change.createdLocally && change.firstRequestID == 1 && change.serverETag == original.etag)
        try h.run(.post, "BusinessPartners", newPartner("9900000001"))
        #expect(try h.queue().count == 3)
        #expect(try h.service.undoPendingChanges(set: "SalesOrders", key: key))
        let restored = try #require(try h.entity("SalesOrders", key))
        expectSameEntity(try restored.toODataEntity(), try original.toODataEntity(), "restored")
        #expect(restored.flags == [] && restored.etag == original.etag)
        #expect(try h.queue().map(\.method) == ["POST"])
        #expect(try h.service.localChanges().map(\.entitySet) == ["BusinessPartners"])
        #expect(try h.service.undoPendingChanges(set: "SalesOrders", key: key) == false)
        // Indexes follow: the order is found over the customer again.
        guard case .string(let customer)? = try original.value(named: "CustomerID") else { return }
        #expect(try h.reader().targets("BusinessPartners", [.string(customer)], "ToSalesOrders").contains(key))
    }

    @Test("undo: a local creation disappears, a deletion comes back")
    func undoCreateDelete() throws {
        let h = try ServiceHarness()
        try h.run(.post, "BusinessPartners", newPartner("9900000001"))
        try h.run(.patch, "BusinessPartners('9900000001')", #"{"CompanyName":"renamed"}"#)
        #expect(try h.service.undoPendingChanges(set: "BusinessPartners", key: [.string("9900000001")]))
        #expect(try h.entity("BusinessPartners", [.string("9900000001")]) == nil)
        #expect(try h.queue().isEmpty)
        let (key, url, original) = try order(h)
        try h.run(.patch, url, #"{"Note":"before delete"}"#)
        try h.run(.delete, url)
        #expect(try h.entity("SalesOrders", key) == nil)
        try h.service.undoPendingChanges(set: "SalesOrders", key: key)
        let back = try #require(try h.entity("SalesOrders", key))
        expectSameEntity(try back.toODataEntity(), try original.toODataEntity(), "deleted and restored")
        #expect(try h.queue().isEmpty)
    }

    @Test("markFailed moves the request to the ErrorArchive; the entity is in error state")
    func markFailed() throws {
        let h = try ServiceHarness()
        let (key, url, _) = try order(h)
        try h.run(.patch, url, #"{"Note":"bad"}"#, options: RequestOptions(customTag: "t1"))
        let id = try #require(try h.queue().first?.requestID)
        let entry = try h.service.markFailed(requestID: id, httpStatus: 412, code: "ETAG", message: "stale", innerError: "{}", domain: "SAP")
        #expect(entry.httpStatusCode == 412 && entry.requestMethod == "PATCH" && entry.requestURL == url && entry.customTag == "t1")
        #expect(try h.queue().isEmpty)
        let archive = try h.service.errorArchive()
        #expect(archive == [entry])
        #expect(archive.first?.requestBody == #"{"Note":"bad"}"#)
        let stored = try #require(try h.entity("SalesOrders", key))
        #expect(stored.localState == LocalEntityState(isLocal: true, hasPendingChanges: false, inErrorState: true))
        #expect(try stored.value(named: "Note") == .string("bad"))
        expectServiceError("requestNotFound", 3201, h) { try h.service.markFailed(requestID: id, httpStatus: 400) }
        expectServiceError("invalidFailure", 3204, h) { try h.service.markFailed(requestID: 999, httpStatus: 42) }
        // ErrorArchive is an ordinary set: HTTPStatusCode is stored typed.
        let row = try #require(try h.reader().entity(in: "ErrorArchive", key: [.int64(id)]))
        #expect(try row.value(named: "HTTPStatusCode") == .int32(412))
        #expect(try row.value(named: "AffectedEntitySet") == .string("SalesOrders"))
    }

    @Test("deleting an ErrorArchive entry, default mode: every failed request is reverted")
    func archiveDefault() throws {
        let h = try ServiceHarness()
        let orders = try h.all("SalesOrders")
        let keys = try orders.prefix(3).map { try $0.key() }
        for key in keys { try h.run(.patch, "SalesOrders" + (try keyText(key)), #"{"Note":"x"}"#) }
        let ids = try h.queue().map(\.requestID)
        try h.service.markFailed(requestID: ids[0], httpStatus: 400)
        try h.service.markFailed(requestID: ids[1], httpStatus: 500)
        let removed = try h.service.deleteErrorArchiveEntry(requestID: ids[1])
        #expect(removed == [ids[0], ids[1]])
        #expect(try h.service.errorArchive().isEmpty)
        #expect(try h.queue().map(\.requestID) == [ids[2]])
        for (n, key) in keys.enumerated() {
            let stored = try #require(try h.entity("SalesOrders", key))
            #expect((try stored.value(named: "Note") == .string("x")) == (n == 2))
            #expect(!stored.flags.contains(.inError))
        }
        expectServiceError("requestNotFound", 3201, h) { try h.service.deleteErrorArchiveEntry(requestID: ids[0]) }
    }

    @Test("deleting an ErrorArchive entry, individual mode: that request and its dependents only")
    func archiveIndividual() throws {
        let h = try ServiceHarness(individual: true)
        let orders = try h.all("SalesOrders")
        let k0 = try orders[0].key()
        let k1 = try orders[1].key()
        try h.run(.patch, "SalesOrders" + (try keyText(k0)), #"{"Note":"a"}"#)
        try h.run(.patch, "SalesOrders" + (try keyText(k1)), #"{"Note":"b"}"#)
        try h.run(.patch, "SalesOrders" + (try keyText(k0)), #"{"Note":"a2"}"#)
        let ids = try h.queue().map(\.requestID)
        try h.service.markFailed(requestID: ids[0], httpStatus: 400)
        try h.service.markFailed(requestID: ids[1], httpStatus: 400)
        // The entity of request 1 still has request 3 queued: it depends on the failed one.
        #expect(try h.entity("SalesOrders", k0)?.localState.hasPendingChanges == true)
        let removed = try h.service.deleteErrorArchiveEntry(requestID: ids[0])
        #expect(removed == [ids[0], ids[2]])
        #expect(try h.service.errorArchive().map(\.requestID) == [ids[1]])
        #expect(try h.queue().isEmpty)
        #expect(try h.entity("SalesOrders", k0)?.value(named: "Note") == orders[0].value(named: "Note"))
        #expect(try h.entity("SalesOrders", k1)?.value(named: "Note") == .string("b"))
        // DELETE ErrorArchive(<id>) through execute does the same.
        let response = try h.run(.delete, "ErrorArchive(\(ids[1]))")
        #expect(response.status == 204)
        #expect(try h.service.errorArchive().isEmpty)
        #expect(try h.entity("SalesOrders", k1)?.value(named: "Note") == orders[1].value(named: "Note"))
    }

    @Test("temporary local keys where the back end computes the key")
    func temporaryKeys() throws {
        let model = try StorageFixtures.model("""
            <EntityType Name="Note">
              <Key><PropertyRef Name="ID"/></Key>
              <Property Name="ID" Type="Edm.Int64" Nullable="false">
                <Annotation Term="Org.OData.Core.V1.Computed"/>
              </Property>
              <Property Name="Text" Type="Edm.String" MaxLength="20"/>
            </EntityType>
            <EntityType Name="Tag">
              <Key><PropertyRef Name="ID"/></Key>
              <Property Name="ID" Type="Edm.Guid" Nullable="false">
                <Annotation Term="Org.OData.Core.V1.Computed" Bool="true"/>
              </Property>
            </EntityType>
            <EntityType Name="Plain">
              <Key><PropertyRef Name="ID"/></Key>
              <Property Name="ID" Type="Edm.String" Nullable="false"/>
            </EntityType>
            """, container: """
            <EntitySet Name="Notes" EntityType="T.Note"/><EntitySet Name="Tags" EntityType="T.Tag"/>
            <EntitySet Name="Plains" EntityType="T.Plain"/>
            """)
        let h = try ServiceHarness(model: model)
        let a = try h.run(.post, "Notes", #"{"Text":"a"}"#)
        let b = try h.run(.post, "Notes", #"{"Text":"b"}"#)
        #expect(a.headers["Location"] == "Notes(-1)" && b.headers["Location"] == "Notes(-2)")
        let stored = try #require(try h.entity("Notes", [.int64(-1)]))
        #expect(stored.flags.contains(.local))
        let image = try h.storage.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) -> ServerImage? in
            let tx = try ServiceTransaction(batch: batch, model: h.model, validator: ODataJSONReader(model: h.model), now: { 0 })
            return try tx.image("Notes", try tx.keyBytes("Notes", [.int64(-1)]))
        }
        #expect(image?.kind == ServiceFormat.kindCreated && image?.keyGenerated == true && image?.firstRequestID == 1)
        let tag = try h.run(.post, "Tags", "{}")
        #expect(tag.headers["Location"]?.hasPrefix("Tags(4c4f4341-4c00-0000-") == true)
        // A key given by the client is kept.
        #expect(try h.run(.post, "Notes", #"{"ID":7,"Text":"c"}"#).headers["Location"] == "Notes(7)")
        expectServiceError("missingKeyValue", 3104, h) { try h.run(.post, "Plains", "{}") }
        #expect(try h.queue().map(\.affectedEntityKey) == ["(-1)", "(-2)", "(4c4f4341-4c00-0000-0000-000000000003)", "(7)"])
        let changes = try h.service.localChanges()
        #expect(changes.map(\.entitySet) == ["Notes", "Notes", "Notes", "Tags"])
        #expect(changes.map(\.key) == [[.int64(-2)], [.int64(-1)], [.int64(7)], [.guid(EdmGuid(high: 0x4C4F_4341_4C00_0000, low: 3))]])
        #expect(changes.map(\.keyGenerated) == [true, true, false, true])
        #expect(changes.allSatisfy { $0.createdLocally && $0.serverETag == nil })
    }

    @Test("the queue and counters are durable: after reopening, IDs and ETags continue")
    func durable() throws {
        let h = try ServiceHarness()
        let (key, url, _) = try order(h)
        try h.run(.patch, url, #"{"Note":"1"}"#)
        try h.run(.patch, url, #"{"Note":"2"}"#)
        try h.storage.reopen(model: h.model)
        h.service = try LocalService(storage: h.storage.storage)
        let r = try h.run(.patch, url, #"{"Note":"3"}"#)
        #expect(r.requestID == 3 && r.headers["ETag"] == "W/\"local-3\"")
        #expect(try h.queue().map(\.requestID) == [1, 2, 3])
        try h.service.undoPendingChanges(set: "SalesOrders", key: key)
        #expect(try h.entity("SalesOrders", key)?.flags == [])
        // IDs are never reused.
        #expect(try h.run(.patch, url, #"{"Note":"4"}"#).requestID == 4)
    }

    @Test("built-in sets: model extension, clash, missing sets, EventLog rows")
    func systemSets() throws {
        let base = try StorageFixtures.salesModel()
        let extended = try base.withOfflineSystemSets()
        #expect(extended.hasOfflineSystemSets && !base.hasOfflineSystemSets)
        #expect(try extended.withOfflineSystemSets() == extended)
        #expect(extended.entityType(ofSet: "ErrorArchive")?.qualifiedName == "OfflineOData.ErrorArchiveEntry")
        #expect(extended.entitySets.count == base.entitySets.count + 3)
        let clash = try StorageFixtures.model(#"<EntityType Name="X"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int32" Nullable="false"/></EntityType>"#,
                                              container: #"<EntitySet Name="EventLog" EntityType="T.X"/>"#)
        expectStoreError("systemSetNameClash", 3203) { _ = try clash.withOfflineSystemSets() }
        let plain = try StorageHarness(model: base, label: "plain")
        expectStoreError("systemSetsMissing", 3200) { _ = try LocalService(storage: plain.storage) }
        let h = try ServiceHarness(load: false)
        let id = try h.service.logEvent(type: "Download", details: "Customers")
        #expect(id == 1)
        let events = try h.service.eventLog()
        #expect(events.count == 1 && events.first?.type == "Download" && events.first?.details == "Customers")
        #expect(events.first?.time.utcSeconds == 1_700_000_000)
        expectStoreError("readOnlyEntitySet", 3112) { try h.run(.post, "EventLog", #"{"ID":5,"Type":"x","Time":"2024-01-01T00:00:00Z"}"#) }
        expectStoreError("readOnlyEntitySet", 3112) { try h.run(.patch, "RequestQueue(1)", #"{"Status":"x"}"#) }
    }

    @Test("GET goes to the read handler; without one it is a typed error")
    func reads() throws {
        struct Stub: ReadHandler {
            func read(_ request: ODataRequest, reader: EntityReader) throws(ODataError) -> ODataResponse {
                ODataResponse(status: 200, body: Array("{\"count\":\(try reader.count("SalesOrders"))}".utf8))
            }
        }
        let h = try ServiceHarness()
        expectServiceError("noReadHandler", 3115, h) { try h.run(.get, "SalesOrders") }
        let service = try LocalService(storage: h.storage.storage, readHandler: Stub())
        let response = try service.execute(ODataRequest(.get, "SalesOrders?$top=1"))
        let count = try h.all("SalesOrders").count
        #expect(response.status == 200 && response.bodyText == "{\"count\":\(count)}")
    }
}

@Suite struct LocalServiceStateTests {
    @Test("AffectedEntity of queue and archive rows; local-state instance annotations in JSON")
    func affectedAndAnnotations() throws {
        let h = try ServiceHarness()
        let order = try h.first("SalesOrders")
        let key = try order.key()
        try h.run(.patch, "SalesOrders" + (try keyText(key)), #"{"Note":"x"}"#)
        let reader = try h.reader()
        let row = try #require(try reader.all("RequestQueue").first)
        let affected = try #require(try reader.affectedEntity(of: row))
        #expect(try affected.key() == key && affected.entitySet == "SalesOrders")
        #expect(try reader.affectedEntity(of: order) == nil)
        try h.service.markFailed(requestID: 1, httpStatus: 412)
        let archived = try #require(try h.reader().all("ErrorArchive").first)
        #expect(try h.reader().affectedEntity(of: archived)?.key() == key)
        let stored = try #require(try h.entity("SalesOrders", key))
        let annotated = try stored.toODataEntity().annotatingLocalState(h.service.localState(of: stored), all: true)
        let text = String(decoding: try ODataJSONWriter(model: h.model).writeEntity(annotated, entitySet: "SalesOrders"), as: UTF8.self)
        #expect(text.contains(#""@com.sap.vocabularies.Offline.v1.islocal":true"#))
        #expect(text.contains(#""@com.sap.vocabularies.Offline.v1.inerrorstate":true"#))
        #expect(text.contains(#""@com.sap.vocabularies.Offline.v1.haspendingchanges":false"#))
        let untouched = try #require(try h.all("SalesOrders").last)
        #expect(untouched.localState == LocalEntityState(isLocal: false, hasPendingChanges: false, inErrorState: false))
    }
}

@Suite struct LocalServiceConcurrencyTests {
    @Test("concurrent changes get unique, gap-free RequestIDs and ETags; queue and data agree")
    func concurrent() async throws {
        let h = try ServiceHarness(load: false)
        let service = h.service
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for n in 0..<10 {
                        let id = String(format: "98%02d%06d", worker, n)
                        try service.execute(ODataRequest(.post, "BusinessPartners", body: Array(newPartner(id).utf8)))
                    }
                }
            }
            try await group.waitForAll()
        }
        let queue = try h.queue()
        #expect(queue.map(\.requestID) == Array(1...40))
        let partners = try h.all("BusinessPartners")
        #expect(partners.count == 40)
        #expect(Set(partners.compactMap(\.etag)).count == 40)
        #expect(Set(queue.map(\.affectedEntityKey)) == Set(try partners.map { "('\(try $0.key().first.flatMap { if case .string(let s) = $0 { s } else { nil } } ?? "")')" }))
    }
}
