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
}
