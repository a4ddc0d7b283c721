import Foundation
import Testing
@testable import OfflineODataModel

/// Every data file of the shared corpora read with its service's model, written back as V4
/// JSON, read again: identical entities. Counts derived from the files with
/// `python3 -c 'import json; print(len(json.load(open(f))["value"]))'` (bare arrays: `len(d)`,
/// V2 `{"d":{"results":…}}`: `len(d["d"]["results"])`).
@Suite(.enabled(if: ODataJSONCorpora.available, "../shared/corpora not found: corpus round trip skipped"))
struct ODataJSONCorpusTests {
    struct CorpusFile: Sendable, CustomStringConvertible {
        let path: String
        let folder: String
        let entitySet: String
        let version: ODataVersion
        let count: Int
        var description: String { path }
    }

    static let files: [CorpusFile] = {
        var files: [CorpusFile] = []
        func add(_ folder: String, _ version: ODataVersion, _ sets: [(String, Int)], sub: String = "") {
            for (set, count) in sets {
                files.append(CorpusFile(path: "\(folder)/\(sub)\(set).json", folder: folder, entitySet: set,
                                        version: version, count: count))
            }
        }
        add("northwind", .v4, [("Categories", 8), ("CustomerDemographics", 0), ("Customers", 91),
                               ("Employees", 9), ("Order_Details", 2155), ("Orders", 830), ("Products", 77),
                               ("Regions", 4), ("Shippers", 3), ("Suppliers", 29), ("Territories", 53)])
        add("trippin", .v4, [("Airlines", 15), ("Airports", 15), ("People", 20), ("Photos", 15)])
        files.append(CorpusFile(path: "trippin/People-deep.json", folder: "trippin", entitySet: "People",
                                version: .v4, count: 20))
        add("epm_salesorder_v4", .v4, [("SalesOrder", 100)])
        add("gwsample_basic", .v2, [("BusinessPartnerSet", 7), ("ProductSet", 125)])
        files.append(CorpusFile(path: "gwsample_basic/raw/evertdutoit__sapui5-ManageProducts__BusinessPartnerSet.json",
                                folder: "gwsample_basic", entitySet: "BusinessPartnerSet", version: .v2, count: 8))
        files.append(CorpusFile(path: "gwsample_basic/raw/machvenky__ZCLDEMO-MD__ProductSet.json",
                                folder: "gwsample_basic", entitySet: "ProductSet", version: .v2, count: 126))
        add("gwsample_basic/store-overview", .v2, [
            ("BusinessPartnerSet", 9), ("ContactSet", 10), ("CustomerServiceSet", 4), ("GlobalFilters", 10),
            ("GlobalParameters", 10), ("Inventory", 15), ("ProductSet", 8), ("Runners", 6), ("SalesOrderSet", 9),
            ("SalesShare", 16), ("ShoeSales", 17), ("VH_CountrySet", 9), ("VH_CurrencySet", 209),
        ])
        add("sepmra_prod_man", .v2, [
            ("I_Currency", 226), ("I_DraftAdministrativeData", 0), ("I_Language", 41),
            ("SEPMRA_C_CurrencyValueHelp", 223), ("SEPMRA_C_PD_ContactPerson", 89), ("SEPMRA_C_PD_PoItmCube", 26),
            ("SEPMRA_C_PD_Product", 123), ("SEPMRA_C_PD_ProductImage", 144), ("SEPMRA_C_PD_ProductPriceRange", 123),
            ("SEPMRA_C_PD_ProductSalesData", 9416), ("SEPMRA_C_PD_ProductStock", 123),
            ("SEPMRA_C_PD_ProductText", 312), ("SEPMRA_C_PD_Review", 123), ("SEPMRA_C_PD_ReviewPost", 971),
            ("SEPMRA_C_PD_StorageBinTP", 1599), ("SEPMRA_C_PD_Supplier", 45), ("SEPMRA_I_Address", 588),
            ("SEPMRA_I_DimensionUnit", 6), ("SEPMRA_I_OrganizationalUnit", 13),
            ("SEPMRA_I_PriceClassification", 4), ("SEPMRA_I_ProductCategory", 26),
            ("SEPMRA_I_ProductMainCategory", 6), ("SEPMRA_I_QuantityUnit", 32), ("SEPMRA_I_StockAvailability", 3),
            ("SEPMRA_I_WeightUnit", 4),
        ])
        return files
    }()

    @Test("every corpus file reads, writes as V4 and reads back identical", arguments: files)
    func roundTrip(_ file: CorpusFile) throws {
        let model = try ODataJSONCorpora.model(file.folder)
        let reader = ODataJSONReader(model: model, version: file.version)
        let original = try reader.readCollection(try ODataJSONCorpora.bytes(file.path), entitySet: file.entitySet)
        #expect(original.entities.count == file.count)
        for metadata in [ODataMetadataLevel.minimal, .full] {
            for ieee754 in [false, true] {
                let writer = ODataJSONWriter(model: model, metadata: metadata, ieee754Compatible: ieee754)
                let written = try writer.writeCollection(original, entitySet: file.entitySet)
                let again = try ODataJSONReader(model: model, version: .v4).readCollection(written, entitySet: file.entitySet)
                ODataJSONTesting.expectIdentical(original.entities, again.entities, "\(file.path) \(metadata) ieee754=\(ieee754)")
            }
        }
        // The streaming reader gives the same entities, fed in small chunks.
        var stream = try reader.collectionReader(entitySet: file.entitySet)
        var streamed: [ODataEntity] = []
        let bytes = try ODataJSONCorpora.bytes(file.path)
        var offset = 0
        while offset < bytes.count {
            try stream.feed(Array(bytes[offset..<min(bytes.count, offset + 4093)]))
            offset += 4093
            while let entity = try stream.next() { streamed.append(entity) }
        }
        try stream.finish()
        while let entity = try stream.next() { streamed.append(entity) }
        ODataJSONTesting.expectIdentical(original.entities, streamed, "\(file.path) streamed")
    }

    @Test("TripPin singleton Me (deep, with derived plan items and dynamic properties) round-trips")
    func singletonMe() throws {
        let model = try ODataJSONCorpora.model("trippin")
        let reader = ODataJSONReader(model: model)
        let me = try reader.readEntity(try ODataJSONCorpora.bytes("trippin/Me.json"), entitySet: "Me")
        #expect(me.typeName == "Microsoft.OData.SampleService.Models.TripPin.Person")
        #expect(me[property: "UserName"] == .string("aprilcline"))
        let written = try ODataJSONWriter(model: model).writeEntity(me, entitySet: "Me")
        let again = try reader.readEntity(written, entitySet: "Me")
        #expect(me.isIdentical(to: again))
        // Dynamic properties with a space in their name on an open derived type (Event).
        let trips = try #require(me.navigation("Trips"))
        guard case .entities(let tripList, _, _) = trips.content else {
            Issue.record("Trips not expanded: \(trips.content)")
            return
        }
        let planItems = tripList.flatMap { trip -> [ODataEntity] in
            if case .entities(let items, _, _)? = trip.navigation("PlanItems")?.content { return items }
            return []
        }
        let event = try #require(planItems.first { $0[property: "Phone Number"] == .string("718-802-0603") })
        #expect(event.typeName == "Microsoft.OData.SampleService.Models.TripPin.Event")
        #expect(event[property: "Transport Information"] == .string("Subway: A, C to High St; F to York St"))
    }

    @Test("spot checks: decimal scale, V2 /Date()/, derived PlanItem, binds, Int64, geo")
    func spotChecks() throws {
        let northwind = try ODataJSONCorpora.model("northwind")
        let details = try ODataJSONReader(model: northwind)
            .readCollection(try ODataJSONCorpora.bytes("northwind/Order_Details.json"), entitySet: "Order_Details")
        // {"OrderID":10248,"ProductID":11,"UnitPrice":14.0000,"Quantity":12,"Discount":0}
        let first = try #require(details.entities.first)
        #expect(first[property: "OrderID"] == .int32(10248))
        guard case .decimal(let price)? = first[property: "UnitPrice"] else {
            Issue.record("UnitPrice is not a decimal")
            return
        }
        #expect(price.description == "14.0000")
        #expect(price.scale == 4)
        #expect(first[property: "Quantity"] == .int16(12))
        #expect(first[property: "Discount"] == .single(0))

        // V2: {"DeliveryDate":"/Date(1130475697000)/", …} = 2005-10-28T05:01:37Z.
        let overview = try ODataJSONCorpora.model("gwsample_basic/store-overview")
        let filters = try ODataJSONReader(model: overview, version: .v2)
            .readCollection(try ODataJSONCorpora.bytes("gwsample_basic/store-overview/GlobalFilters.json"),
                            entitySet: "GlobalFilters")
        let expected = try EdmDateTimeOffset(parsing: "2005-10-28T05:01:37Z")
        guard case .dateTimeOffset(let delivery)? = filters.entities.first?[property: "DeliveryDate"] else {
            Issue.record("DeliveryDate is not a DateTimeOffset")
            return
        }
        #expect(delivery.isIdentical(to: expected))

        // TripPin: derived plan items, binds, Int64 concurrency tokens.
        let trippin = try ODataJSONCorpora.model("trippin")
        let people = try ODataJSONReader(model: trippin)
            .readCollection(try ODataJSONCorpora.bytes("trippin/People-deep.json"), entitySet: "People")
        let russell = try #require(people.entities.first)
        #expect(russell[property: "Concurrency"] == .int64(635_844_832_868_336_535))
        #expect(russell.navigation("Photo")?.content == .bind("Photos(2)"))
        #expect(russell.navigation("Friends")?.content == .bindMany([
            "People('scottketchum')", "People('ronaldmundy')", "People('javieralfred')", "People('angelhuffman')",
        ]))
        guard case .entities(let trips, _, _)? = russell.navigation("Trips")?.content,
              case .entities(let items, _, _)? = trips.first?.navigation("PlanItems")?.content else {
            Issue.record("Trips/PlanItems not expanded")
            return
        }
        #expect(items.map(\.typeName).map { $0.split(separator: ".").last.map(String.init) ?? "" }
                == ["Flight", "Flight", "Event", "Event", "Event", "Event", "Event"])
        #expect(items[0].navigation("Airline")?.content == .bind("Airlines('AA')"))
        #expect(items[0][property: "FlightNumber"] == .string("AA26"))
        #expect(items[2][property: "Duration"] == .duration(try EdmDuration(parsing: "PT3H")))
        guard case .complex(let occursAt)? = items[2][property: "OccursAt"] else {
            Issue.record("OccursAt is not complex")
            return
        }
        #expect(occursAt.typeName == "Microsoft.OData.SampleService.Models.TripPin.EventLocation")
        #expect(occursAt["BuildingInfo"] == .string("Regus Business Center"))

        let airports = try ODataJSONReader(model: trippin)
            .readCollection(try ODataJSONCorpora.bytes("trippin/Airports.json"), entitySet: "Airports")
        guard case .complex(let location)? = airports.entities.first?[property: "Location"],
              case .geo(let point)? = location["Loc"] else {
            Issue.record("Airport Location/Loc is not a geography point")
            return
        }
        #expect(point.kind == .geographyPoint)
    }
}

extension ODataJSONCorpusTests {
    /// `northwind/links/Employees-Territories.json` holds `{EmployeeID, TerritoryID}` pairs, the
    /// link table behind `Employee.Territories`: read against a link type whose two properties
    /// copy the Northwind declarations (type and facets) of `Employee.EmployeeID` and
    /// `Territory.TerritoryID`. 49 pairs.
    @Test("Northwind link table reads with the Northwind key types and round-trips")
    func northwindLinks() throws {
        let northwind = try ODataJSONCorpora.model("northwind")
        let employee = try #require(northwind.entityTypes.first { $0.name == "Employee" })
        let territory = try #require(northwind.entityTypes.first { $0.name == "Territory" })
        let employeeID = try #require(employee.property(named: "EmployeeID"))
        let territoryID = try #require(territory.property(named: "TerritoryID"))
        func declaration(_ property: CSDLProperty) -> String {
            var text = "<Property Name=\"\(property.name)\" Type=\"\(property.typeAsWritten)\" Nullable=\"false\""
            if case .length(let length)? = property.maxLength { text += " MaxLength=\"\(length)\"" }
            return text + "/>"
        }
        let model = try ODataJSONTesting.v4Model("""
            <EntityType Name="EmployeeTerritory">
              <Key><PropertyRef Name="EmployeeID"/><PropertyRef Name="TerritoryID"/></Key>
              \(declaration(employeeID))
              \(declaration(territoryID))
            </EntityType>
            """, container: "<EntitySet Name=\"EmployeeTerritories\" EntityType=\"T.EmployeeTerritory\"/>")
        let links = try ODataJSONReader(model: model)
            .readCollection(try ODataJSONCorpora.bytes("northwind/links/Employees-Territories.json"),
                            entitySet: "EmployeeTerritories")
        #expect(links.entities.count == 49)
        #expect(links.entities.first?.properties == [ODataProperty("EmployeeID", .int32(1)),
                                                     ODataProperty("TerritoryID", .string("06897"))])
        let written = try ODataJSONWriter(model: model).writeCollection(links, entitySet: "EmployeeTerritories")
        let again = try ODataJSONReader(model: model).readCollection(written, entitySet: "EmployeeTerritories")
        ODataJSONTesting.expectIdentical(links.entities, again.entities, "links")
    }

    @Test("V2 raw payloads: __metadata, __deferred and the d/results envelope are understood")
    func v2Raw() throws {
        let model = try ODataJSONCorpora.model("gwsample_basic")
        let reader = ODataJSONReader(model: model, version: .v2)
        let products = try reader.readCollection(
            try ODataJSONCorpora.bytes("gwsample_basic/raw/machvenky__ZCLDEMO-MD__ProductSet.json"), entitySet: "ProductSet")
        let first = try #require(products.entities.first)
        #expect(first.control.id == "https://sapes5.sapdevcenter.com/sap/opu/odata/IWBEP/GWSAMPLE_BASIC/ProductSet('312887986')")
        #expect(first.typeName == "GWSAMPLE_BASIC.Product")
        let deferred = first.navigation.filter { if case .deferred = $0.content { return true } else { return false } }
        #expect(!deferred.isEmpty)
        // Deferred links survive V4 writing as Nav@odata.navigationLink.
        let written = try ODataJSONWriter(model: model).writeCollection(products, entitySet: "ProductSet")
        let text = String(decoding: written, as: UTF8.self)
        #expect(text.contains("@odata.navigationLink"))
        #expect(text.contains("\"@odata.id\":"))
    }
}
