import Testing
@testable import OfflineODataModel

@Suite struct ODataJSONReaderTests {
    let model: ServiceModel
    let reader: ODataJSONReader

    init() throws {
        model = try ODataJSONTestModel.model()
        reader = ODataJSONReader(model: model)
    }

    func read(_ text: String, set: String = "Items") throws -> ODataEntity {
        try reader.readEntity(Array(text.utf8), entitySet: set)
    }

    @Test("every primitive kind converts to its EDM value exactly")
    func primitives() throws {
        let entity = try read("""
            {"@odata.context":"$metadata#Items/$entity","@odata.id":"Items(1)","@odata.etag":"W/\\"1\\"",
             "ID":1,"Name":"a","Big":9223372036854775807,"Small":-32768,"Tiny":255,"Signed":-128,
             "Price":"1234.50","Ratio":1e300,"Weight":1.5,"Flag":true,"Stamp":"2024-03-05T10:15:30.1234567+05:30",
             "Day":"2024-02-29","Time":"23:59:59.999","Span":"-P1DT2H","Uid":"01234567-89ab-cdef-0123-456789abcdef",
             "Blob":"AQID","Color":"Green","Rights":"Read, Write","Code":"abc","Tags":["x","y"],
             "Spot":{"type":"Point","coordinates":[1.5,2.5]},"Any":{"a":[1,"b"]}}
            """)
        #expect(entity.control.id == "Items(1)")
        #expect(entity.control.etag == "W/\"1\"")
        #expect(entity.control.context == "$metadata#Items/$entity")
        #expect(entity[property: "Big"] == .int64(.max))
        #expect(entity[property: "Small"] == .int16(-32768))
        #expect(entity[property: "Tiny"] == .byte(255))
        #expect(entity[property: "Signed"] == .sbyte(-128))
        guard case .decimal(let price)? = entity[property: "Price"] else { Issue.record("Price"); return }
        #expect(price.description == "1234.50")
        #expect(entity[property: "Ratio"] == .double(1e300))
        #expect(entity[property: "Weight"] == .single(1.5))
        #expect(entity[property: "Flag"] == .boolean(true))
        guard case .dateTimeOffset(let stamp)? = entity[property: "Stamp"] else { Issue.record("Stamp"); return }
        #expect(stamp.offsetMinutes == 330)
        #expect(stamp.isIdentical(to: try EdmDateTimeOffset(parsing: "2024-03-05T10:15:30.1234567+05:30")))
        #expect(entity[property: "Day"] == .date(try EdmDate(parsing: "2024-02-29")))
        #expect(entity[property: "Time"] == .timeOfDay(try EdmTimeOfDay(parsing: "23:59:59.999")))
        #expect(entity[property: "Span"] == .duration(try EdmDuration(parsing: "-P1DT2H")))
        #expect(entity[property: "Uid"] == .guid(try EdmGuid(parsing: "01234567-89ab-cdef-0123-456789abcdef")))
        #expect(entity[property: "Blob"] == .binary([1, 2, 3]))
        #expect(entity[property: "Color"] == .enumValue(try EdmEnumValue(typeName: "T.Color", members: ["Green"], numericValue: 2)))
        guard case .enumValue(let rights)? = entity[property: "Rights"] else { Issue.record("Rights"); return }
        #expect(rights.members == ["Read", "Write"])
        #expect(rights.numericValue == 3)
        #expect(entity[property: "Code"] == .string("abc"))
        #expect(entity[property: "Tags"] == .collection([.string("x"), .string("y")]))
        guard case .geo(let spot)? = entity[property: "Spot"] else { Issue.record("Spot"); return }
        #expect(spot.kind == .geographyPoint)
        #expect(spot.geoJSON == ##"{"type":"Point","coordinates":[1.5,2.5]}"##)
        #expect(entity[property: "Any"] == .complex(ODataComplexValue(typeName: nil, [
            ("a", .collection([.decimal(EdmDecimal(1)), .string("b")])),
        ])))
        // Written back (minimal and full metadata) and read again: identical.
        for metadata in ODataMetadataLevel.allCases where metadata != .none {
            let written = try ODataJSONWriter(model: model, metadata: metadata).writeEntity(entity, entitySet: "Items")
            #expect(try reader.readEntity(written, entitySet: "Items").isIdentical(to: entity))
        }
    }

    @Test("enum values given by number map to their member; flags accept combined names")
    func enums() throws {
        let entity = try read(##"{"ID":1,"Name":"n","Tags":[],"Color":4,"Rights":3}"##)
        #expect(entity[property: "Color"] == .enumValue(try EdmEnumValue(typeName: "T.Color", members: ["Blue"], numericValue: 4)))
        guard case .enumValue(let rights)? = entity[property: "Rights"] else { Issue.record("Rights"); return }
        #expect(rights.numericValue == 3)
        ODataJSONTesting.expectError("invalidPropertyValue", code: 1251, path: "$.Color") {
            _ = try read(##"{"ID":1,"Name":"n","Tags":[],"Color":"Red,Blue"}"##)
        }
        ODataJSONTesting.expectError("invalidPropertyValue", code: 1251, path: "$.Color") {
            _ = try read(##"{"ID":1,"Name":"n","Tags":[],"Color":"Purple"}"##)
        }
    }

    @Test("IEEE754Compatible strings and exact big numbers")
    func ieee754() throws {
        let entity = try read(##"{"ID":1,"Name":"n","Tags":[],"Big":"-9223372036854775808","Price":0.10,"Ratio":"INF"}"##)
        #expect(entity[property: "Big"] == .int64(.min))
        guard case .decimal(let price)? = entity[property: "Price"] else { Issue.record("Price"); return }
        #expect(price.scale == 2)
        #expect(entity[property: "Ratio"] == .double(.infinity))
        let written = try ODataJSONWriter(model: model, ieee754Compatible: true).writeEntity(entity, entitySet: "Items")
        let text = String(decoding: written, as: UTF8.self)
        #expect(text.contains(##""Big":"-9223372036854775808""##))
        #expect(text.contains(##""Price":"0.10""##))
        #expect(try reader.readEntity(written, entitySet: "Items").isIdentical(to: entity))
    }

    @Test("derived entity and complex types via @odata.type, namespace or alias qualified")
    func derivedTypes() throws {
        let entity = try read("""
            {"@odata.type":"#Alias.SpecialItem","ID":2,"Name":"s","Tags":[],"Extra2":"x",
             "Home":{"@odata.type":"#T.GeoAddress","Street":"Main","Where":{"type":"Point","coordinates":[0,0]}}}
            """)
        #expect(entity.typeName == "T.SpecialItem")
        #expect(entity[property: "Extra2"] == .string("x"))
        guard case .complex(let home)? = entity[property: "Home"] else { Issue.record("Home"); return }
        #expect(home.typeName == "T.GeoAddress")
        let written = try ODataJSONWriter(model: model).writeEntity(entity, entitySet: "Items")
        let text = String(decoding: written, as: UTF8.self)
        #expect(text.hasPrefix(##"{"@odata.type":"#T.SpecialItem""##))
        #expect(text.contains(##""Home":{"@odata.type":"#T.GeoAddress""##))
        #expect(try reader.readEntity(written, entitySet: "Items").isIdentical(to: entity))
        // The type may also follow the properties.
        let late = try read(##"{"ID":2,"Name":"s","Tags":[],"Extra2":"x","@odata.type":"#T.SpecialItem"}"##)
        #expect(late.typeName == "T.SpecialItem")
    }

    @Test("open types: dynamic properties typed by annotation or inferred, written back with annotations")
    func openTypes() throws {
        let entity = try read("""
            {"Key":"k","Phone Number":"555","Count@odata.type":"#Int32","Count":5,"Amount":12.50,
             "When@odata.type":"#DateTimeOffset","When":"2020-01-01T00:00:00Z","Flags":[true,false],
             "Ints@odata.type":"#Collection(Edm.Int64)","Ints":[1,2],"Nested":{"a":1.0,"b":null},
             "Addr":{"@odata.type":"#T.Address","Street":"S"},"Col@odata.type":"#T.Color","Col":"Red"}
            """, set: "Things")
        #expect(entity[property: "Phone Number"] == .string("555"))
        #expect(entity[property: "Count"] == .int32(5))
        guard case .decimal(let amount)? = entity[property: "Amount"] else { Issue.record("Amount"); return }
        #expect(amount.description == "12.50")
        #expect(entity[property: "Ints"] == .collection([.int64(1), .int64(2)]))
        guard case .complex(let address)? = entity[property: "Addr"] else { Issue.record("Addr"); return }
        #expect(address.typeName == "T.Address")
        #expect(entity[property: "Col"] == .enumValue(try EdmEnumValue(typeName: "T.Color", members: ["Red"], numericValue: 1)))
        let written = try ODataJSONWriter(model: model).writeEntity(entity, entitySet: "Things")
        let text = String(decoding: written, as: UTF8.self)
        #expect(text.contains(##""Count@odata.type":"#Int32","Count":5"##))
        #expect(text.contains(##""Ints@odata.type":"#Collection(Edm.Int64)""##))
        #expect(!text.contains("Amount@odata.type"))
        #expect(try reader.readEntity(written, entitySet: "Things").isIdentical(to: entity))
    }

    @Test("open complex types keep dynamic members; closed ones reject them")
    func openComplex() throws {
        let entity = try read(##"{"ID":1,"Name":"n","Tags":[],"Extra":{"Label":"l","More":true}}"##)
        guard case .complex(let bag)? = entity[property: "Extra"] else { Issue.record("Extra"); return }
        #expect(bag["More"] == .boolean(true))
        ODataJSONTesting.expectError("unknownProperty", code: 1250, path: "$.Home.Zip") {
            _ = try read(##"{"ID":1,"Name":"n","Tags":[],"Home":{"Street":"s","Zip":"1"}}"##)
        }
    }

    @Test("navigation: expanded single and collection with count/nextLink, binds, links, annotations")
    func navigation() throws {
        let entity = try read("""
            {"ID":1,"Name":"n","Tags":[],"Name@Core.Description":"the name","@Org.Custom":{"x":1},
             "Parent":{"ID":0,"Name":"root","Tags":[]},
             "Children@odata.count":5,"Children":[{"ID":2,"Name":"c","Tags":[]}],"Children@odata.nextLink":"Items(1)/Children?$skip=1",
             "Parent@odata.navigationLink":"Items(1)/Parent"}
            """)
        guard case .entity(let parent?)? = entity.navigation.first?.content else { Issue.record("Parent"); return }
        #expect(parent[property: "Name"] == .string("root"))
        guard case .entities(let children, let count, let next)? = entity.navigation("Children")?.content else {
            Issue.record("Children"); return
        }
        #expect(children.count == 1)
        #expect(count == 5)
        #expect(next == "Items(1)/Children?$skip=1")
        #expect(entity.navigation.last == ODataNavigationValue("Parent", .deferred(uri: "Items(1)/Parent")))
        #expect(entity.annotations == [
            ODataAnnotation(target: "Name", term: "Core.Description", value: "the name"),
            ODataAnnotation(term: "Org.Custom", value: ["x": 1]),
        ])
        let written = try ODataJSONWriter(model: model).writeEntity(entity, entitySet: "Items")
        #expect(try reader.readEntity(written, entitySet: "Items").isIdentical(to: entity))

        let bound = try read(##"{"ID":1,"Name":"n","Tags":[],"Parent@odata.bind":"Items(0)","Children@odata.bind":["Items(2)","Items(3)"]}"##)
        #expect(bound.navigation == [ODataNavigationValue("Parent", .bind("Items(0)")),
                                     ODataNavigationValue("Children", .bindMany(["Items(2)", "Items(3)"]))])
        let boundText = String(decoding: try ODataJSONWriter(model: model, metadata: .none).writeEntity(bound, entitySet: "Items"), as: UTF8.self)
        #expect(boundText.contains(##""Children@odata.bind":["Items(2)","Items(3)"]"##))
    }

    @Test("collections: count, nextLink, deltaLink, context and deleted entries")
    func collections() throws {
        let payload = """
            {"@odata.context":"$metadata#Items/$delta","@odata.count":3,"value":[
              {"ID":1,"Name":"a","Tags":[]},
              {"@removed":{"reason":"deleted"},"@id":"Items(2)"},
              {"@odata.removed":{"reason":"changed"},"ID":3}
            ],"@odata.deltaLink":"Items?$deltatoken=9","@Org.Note":"x"}
            """
        let collection = try reader.readCollection(Array(payload.utf8), entitySet: "Items")
        #expect(collection.entities.count == 1)
        #expect(collection.count == 3)
        #expect(collection.context == "$metadata#Items/$delta")
        #expect(collection.deltaLink == "Items?$deltatoken=9")
        #expect(collection.annotations == [ODataAnnotation(term: "Org.Note", value: "x")])
        #expect(collection.deleted == [
            ODataDeletedEntity(id: "Items(2)", reason: "deleted"),
            ODataDeletedEntity(reason: "changed", properties: [ODataProperty("ID", .int32(3))]),
        ])
        let written = try ODataJSONWriter(model: model).writeCollection(collection, entitySet: "Items")
        #expect(try reader.readCollection(written, entitySet: "Items") == collection)
    }

    @Test("singletons read by name; ignoreUnknownProperties skips undeclared members")
    func singletonAndIgnore() throws {
        let entity = try read(##"{"ID":7,"Name":"m","Tags":[]}"##, set: "Main")
        #expect(entity[property: "ID"] == .int32(7))
        let lenient = ODataJSONReader(model: model, options: ODataJSONReaderOptions(ignoreUnknownProperties: true))
        let skipped = try lenient.readEntity(Array(#"{"ID":7,"Name":"m","Tags":[],"Bogus":1,"Bogus@odata.bind":"X"}"#.utf8), entitySet: "Items")
        #expect(skipped.properties.map(\.name) == ["ID", "Name", "Tags"])
    }

    @Test("validate(entity:) reports facet violations that reading accepts")
    func validation() throws {
        let entity = try read("""
            {"ID":1,"Name":"far too long a name","Tags":[],"Price":12345.678,"Blob":"AQIDBAU=",
             "Home":{"Street":"a street name that is too long"},"Code":"abcd"}
            """)
        let issues = reader.validate(entity: entity)
        #expect(issues.allSatisfy { $0.code == 1270 && $0.name == "facetViolation" })
        #expect(Set(issues.compactMap(\.location)) == ["$.Name", "$.Price", "$.Blob", "$.Home.Street", "$.Code"])
        var built = entity
        built.properties = [ODataProperty("Name", .null), ODataProperty("Tags", .collection([]))]
        let missing = reader.validate(entity: built)
        #expect(missing.contains { $0.message.contains("key property \"ID\"") })
        #expect(missing.contains { $0.location == "$.Name" && $0.message.contains("non-nullable") })
        let good = try read(##"{"ID":1,"Name":"ok","Tags":["t"],"Price":1234.5}"##)
        #expect(reader.validate(entity: good).isEmpty)
    }
}
