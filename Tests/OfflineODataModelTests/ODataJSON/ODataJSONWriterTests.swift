import Testing
@testable import OfflineODataModel

@Suite struct ODataJSONWriterTests {
    let model: ServiceModel

    init() throws {
        model = try ODataJSONTestModel.model()
    }

    var sample: ODataEntity {
        get throws {
            ODataEntity(
                typeName: "T.SpecialItem",
                properties: [ODataProperty("ID", .int32(1)), ODataProperty("Name", .string("a\"b")),
                             ODataProperty("Price", .decimal(try EdmDecimal(parsing: "10.50"))),
                             ODataProperty("Home", .complex(ODataComplexValue(typeName: "T.Address", [("City", .string("X"))]))),
                             ODataProperty("Tags", .collection([]))],
                control: ODataControlInformation(id: "Items(1)", etag: "W/\"7\""),
                navigation: [ODataNavigationValue("Parent", .deferred(uri: "Items(1)/Parent")),
                             ODataNavigationValue("Children", .bindMany(["Items(2)"]))],
                annotations: [ODataAnnotation(target: "Name", term: "Core.Description", value: "n")])
        }
    }

    func text(_ metadata: ODataMetadataLevel, ieee754: Bool = false, context: String? = nil) throws -> String {
        String(decoding: try ODataJSONWriter(model: model, metadata: metadata, ieee754Compatible: ieee754)
            .writeEntity(try sample, entitySet: "Items", context: context), as: UTF8.self)
    }

    @Test("minimal metadata: control information the entity carries, derived type, links, binds, annotations")
    func minimal() throws {
        #expect(try text(.minimal) == #"""
            {"@odata.type":"#T.SpecialItem","@odata.id":"Items(1)","@odata.etag":"W/\"7\"","Name@Core.Description":"n","ID":1,"Name":"a\"b","Price":10.50,"Home":{"City":"X"},"Tags":[],"Parent@odata.navigationLink":"Items(1)/Parent","Children@odata.bind":["Items(2)"]}
            """#)
    }

    @Test("full metadata types every structured value; none drops control information but keeps binds")
    func levels() throws {
        let full = try text(.full, ieee754: true, context: "$metadata#Items/$entity")
        #expect(full.hasPrefix(##"{"@odata.context":"$metadata#Items/$entity","@odata.type":"#T.SpecialItem""##))
        #expect(full.contains(##""Home":{"@odata.type":"#T.Address","City":"X"}"##))
        #expect(full.contains(#""Price":"10.50""#))
        #expect(try text(.none) == #"""
            {"Name@Core.Description":"n","ID":1,"Name":"a\"b","Price":10.50,"Home":{"City":"X"},"Tags":[],"Children@odata.bind":["Items(2)"]}
            """#)
    }

    @Test("collections: count first, next and delta links last, deleted entries after entities")
    func collection() throws {
        let collection = ODataEntityCollection(
            entities: [ODataEntity(typeName: "T.Item", properties: [ODataProperty("ID", .int32(1))])],
            deleted: [ODataDeletedEntity(id: "Items(2)", reason: "deleted")],
            count: 10, nextLink: "Items?$skip=1", deltaLink: nil, context: "$metadata#Items")
        let bytes = try ODataJSONWriter(model: model).writeCollection(collection, entitySet: "Items")
        #expect(String(decoding: bytes, as: UTF8.self) == #"""
            {"@odata.context":"$metadata#Items","@odata.count":10,"value":[{"ID":1},{"@removed":{"reason":"deleted"},"@id":"Items(2)"}],"@odata.nextLink":"Items?$skip=1"}
            """#)
    }

    @Test("writer errors: unknown set or type, GeoJSON text that is not JSON")
    func errors() throws {
        let writer = ODataJSONWriter(model: model)
        ODataJSONTesting.expectError("unknownModelElement", code: 1255) {
            _ = try writer.writeEntity(ODataEntity(typeName: "T.Item"), entitySet: "Nope")
        }
        ODataJSONTesting.expectError("unknownModelElement", code: 1255) {
            _ = try writer.writeCollection(ODataEntityCollection(), entityType: "T.Address")
        }
        let broken = ODataEntity(typeName: "T.Item", properties: [
            ODataProperty("Spot", .geo(try EdmGeo(kind: .geographyPoint, geoJSON: "{not json"))),
        ])
        ODataJSONTesting.expectError("unwritableValue", code: 1259) {
            _ = try writer.writeEntity(broken, entitySet: "Items")
        }
    }
}
