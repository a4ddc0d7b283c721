import OfflineODataModel
import Testing
@testable import OfflineODataStore

/// The local service over a real V2 service (GWSAMPLE_BASIC): `sap:creatable="false"` keys get
/// temporary values, MERGE is queued, undo restores the downloaded data.
@Suite(.enabled(if: StorageCorpora.available, "../shared/corpora not found: corpus service tests skipped"))
struct LocalServiceCorpusTests {
    @Test("GWSAMPLE_BASIC: temporary key for BusinessPartnerSet, MERGE on a product, undo")
    func gwsample() throws {
        let h = try ServiceHarness(model: try StorageCorpora.model("gwsample_basic"))
        let reader = ODataJSONReader(model: h.model, version: .v2)
        var partners: [ODataEntity] = []
        for set in ["BusinessPartnerSet", "ProductSet"] {
            let entities = try reader.readCollection(try StorageCorpora.bytes("gwsample_basic/\(set).json"), entitySet: set).entities
            try h.storage.storage.apply(entities: entities, to: set)
            if set == "BusinessPartnerSet" { partners = entities }
        }
        var template = try #require(partners.first)
        template.properties.removeAll { $0.name == "BusinessPartnerID" }
        template.control = ODataControlInformation()
        let created = try h.service.create(template, in: "BusinessPartnerSet")
        #expect(created.status == 201 && created.headers["Location"] == "BusinessPartnerSet('~1')")
        let stored = try #require(try h.entity("BusinessPartnerSet", [.string("~1")]))
        #expect(stored.flags == [.local, .pending])
        let product = try h.first("ProductSet")
        guard case .string(let productID)? = try product.key().first else { return }
        let merged = try h.run(.merge, "ProductSet('\(productID)')", #"{"Name":"Renamed"}"#)
        #expect(merged.status == 204)
        #expect(try h.queue().map(\.method) == ["POST", "MERGE"])
        #expect(try h.entity("ProductSet", [.string(productID)])?.value(named: "Name") == .string("Renamed"))
        expectServiceError("constraintViolation", 3106, h) {
            try h.run(.merge, "ProductSet('\(productID)')", #"{"Name":"\#(String(repeating: "n", count: 300))"}"#)
        }
        try h.service.undoPendingChanges(set: "ProductSet", key: [.string(productID)])
        try h.service.undoPendingChanges(set: "BusinessPartnerSet", key: [.string("~1")])
        #expect(try h.queue().isEmpty && h.entity("BusinessPartnerSet", [.string("~1")]) == nil)
        expectSameEntity(try #require(try h.entity("ProductSet", [.string(productID)])).toODataEntity(),
                         try product.toODataEntity(), "product restored")
    }

    @Test("keys the back end generates are also recognised from StoreGeneratedPattern=\"Identity\" (Northwind) and Core.Permissions Read (TripPin): a create without the key gets a temporary one")
    func generatedKeyPatterns() throws {
        let northwind = try ServiceHarness(model: try StorageCorpora.model("northwind"))
        let category = try northwind.run(.post, "Categories", #"{"CategoryName":"Offline"}"#)
        #expect(category.status == 201, "\(category.bodyText ?? "")")
        #expect(category.headers["Location"]?.hasPrefix("Categories(") == true)
        let trippin = try ServiceHarness(model: try StorageCorpora.model("trippin"))
        let photo = try trippin.run(.post, "Photos", #"{"Name":"offline.jpg"}"#)
        #expect(photo.status == 201, "\(photo.bodyText ?? "")")
        // A key the client gives is kept.
        let person = try trippin.run(.post, "People", #"{"UserName":"fieldtech","FirstName":"F","LastName":"T"}"#)
        #expect(person.status == 201 && person.headers["Location"] == "People('fieldtech')", "\(person.bodyText ?? "")")
    }

    @Test("a V2 service takes V2 URL literals (guid'…', datetime'…', 2000M) in keys and filters, and reads back the Location it writes")
    func v2Literals() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineStore.open(metadata: try StorageCorpora.bytes("sepmra_prod_man/metadata.xml"),
                                                parameters: OfflineFixtures.parameters(dir))
        defer { try? store.close() }
        try store.addDefiningQuery(DefiningQuery(name: "Addresses", url: "SEPMRA_I_Address"))
        try await store.applyDownload(definingQuery: "Addresses", pages: [try StorageCorpora.bytes("sepmra_prod_man/SEPMRA_I_Address.json")])
        let byKey = try store.execute(.get, "SEPMRA_I_Address(guid'00505691-2ec5-1ee6-afc3-b061c7b489c2')")
        #expect(byKey.status == 200, "\(byKey.bodyText ?? "")")
        let filtered = try store.execute(.get, "SEPMRA_I_Address?$filter=AddressValidityStartDate ge datetime'1999-01-01T00:00:00' and Latitude gt 48M&$select=CityName")
        #expect(filtered.status == 200, "\(filtered.bodyText ?? "")")
        #expect(filtered.bodyText?.contains("Munich") == true)
        let created = try store.execute(.post, "SEPMRA_I_Address", body: """
            {"AddressUUID":"00505691-2ec5-1ee6-afc3-00000000abcd","FormattedAddress":"Offline 1","AddressType":"02","CityName":"Walldorf",
             "PostalCode":"69190","StreetName":"Dietmar-Hopp-Allee","HouseNumber":"16","Country":"DE"}
            """)
        #expect(created.status == 201, "\(created.bodyText ?? "")")
        let location = try #require(created.headers["Location"])
        #expect(location.contains("guid'"), "\(location)")
        #expect(try store.execute(.get, location).status == 200)
        // substringof(needle, text) and $inlinecount, V2's forms of contains and $count.
        let search = try store.execute(.get, "SEPMRA_I_Address?$filter=substringof('Zeppelin',StreetName)&$inlinecount=allpages&$select=CityName")
        #expect(search.status == 200, "\(search.bodyText ?? "")")
        #expect(search.bodyText?.contains("Munich") == true && search.bodyText?.contains("@odata.count") == true)
        #expect(throws: ODataError.self) { try store.execute(.get, "SEPMRA_I_Address?$inlinecount=some") }
        // A V4 service keeps V4's literals only.
        let v4dir = OfflineTempDir()
        defer { v4dir.cleanup() }
        let v4 = try await OfflineStore.open(metadata: try StorageCorpora.bytes("trippin/metadata.xml"), parameters: OfflineFixtures.parameters(v4dir))
        defer { try? v4.close() }
        #expect(throws: ODataError.self) { try v4.execute(.get, "Photos?$filter=Id eq 12L") }
    }

    @Test("TripPin's function import (GET) is notSupported with that category, not a 404; its action import (POST) is queued for upload, a GET of it is notSupported")
    func operationImports() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineStore.open(metadata: try StorageCorpora.bytes("trippin/metadata.xml"), parameters: OfflineFixtures.parameters(dir))
        defer { try? store.close() }
        let function = #expect(throws: ODataError.self) { try store.execute(.get, "GetNearestAirport(lat=33,lon=-118)") }
        #expect(function?.category == .notSupported && function?.message.contains("function import") == true)
        #expect(try store.execute(.post, "ResetDataSource", body: "{}").status == 204)
        #expect(try store.requestQueue().map(\.url) == ["ResetDataSource"])
        #expect(try store.requestQueue().first?.isAction == true)
        let get = #expect(throws: ODataError.self) { try store.execute(.get, "ResetDataSource") }
        #expect(get?.category == .notSupported)
        #expect(throws: ODataError.self) { try store.execute(.get, "NoSuchThing") }
    }
}
