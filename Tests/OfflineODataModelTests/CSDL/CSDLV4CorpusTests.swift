import Testing
@testable import OfflineODataModel

/// Expected numbers were counted in the corpus files with grep, e.g.
/// `grep -o '<EntityType ' northwind/metadata.xml | wc -l`, and for keys with a regex over the
/// `<Key>…</Key>` blocks (`re.findall(r'<Key>(.*?)</Key>')`, counting `<PropertyRef ` inside).
@Suite(.enabled(if: CSDLCorpus.available, "../shared/corpora not found; corpus tests skipped"))
struct CSDLV4CorpusTests {
    @Test(arguments: CSDLCorpus.metadataFiles)
    func everyCorpusMetadataLoads(file: String) throws {
        let model = try ServiceModel.parse(metadata: CSDLCorpus.bytes(file))
        #expect(!model.entityTypes.isEmpty)
        // every entity set resolves to a type with a non-empty key
        for set in model.entitySets {
            let type = try #require(model.entityType(qualifiedName: set.entityType))
            #expect(!model.key(of: type).isEmpty, "\(file): \(set.name)")
            #expect(model.keyProperties(of: type).count == model.key(of: type).count)
        }
    }

    @Test func northwindCounts() throws {
        let model = try ServiceModel.parse(metadata: CSDLCorpus.bytes("northwind/metadata.xml"))
        #expect(model.version == .v4)
        #expect(model.serviceVersion == "4.0")
        // grep -o '<EntityType ' → 26, '<ComplexType ' → 0, '<EnumType ' → 0, '<EntitySet ' → 26
        #expect(model.entityTypes.count == 26)
        #expect(model.complexTypes.count == 0)
        #expect(model.enumTypes.count == 0)
        #expect(model.entitySets.count == 26)
        // 26 <Key> blocks holding 52 <PropertyRef>; 11 of them composite
        #expect(model.entityTypes.map { model.key(of: $0).count }.reduce(0, +) == 52)
        #expect(model.entityTypes.filter { model.key(of: $0).count > 1 }.count == 11)
        // '<NavigationProperty ' → 22, of which Type="Collection(" → 13; '<NavigationPropertyBinding ' → 22
        let navigations = model.entityTypes.flatMap(\.navigationProperties)
        #expect(navigations.count == 22)
        #expect(navigations.filter(\.isCollection).count == 13)
        #expect(model.entitySets.map(\.navigationPropertyBindings.count).reduce(0, +) == 22)
        // '<ReferentialConstraint ' → 9, 'Partner="' → 22
        #expect(navigations.map(\.referentialConstraints.count).reduce(0, +) == 9)
        #expect(navigations.filter { $0.partner != nil }.count == 22)
    }

    @Test func northwindOrderDetailsHasCompositeKeyAndBindings() throws {
        let model = try ServiceModel.parse(metadata: CSDLCorpus.bytes("northwind/metadata.xml"))
        let type = try #require(model.entityType(ofSet: "Order_Details"))
        #expect(type.qualifiedName == "NorthwindModel.Order_Detail")
        #expect(model.key(of: type).map(\.name) == ["OrderID", "ProductID"])
        #expect(model.keyProperties(of: type).map(\.type.primitiveKind) == [.int32, .int32])
        #expect(model.navigationTarget(set: "Order_Details", navigation: "Order")?.name == "Orders")
        #expect(model.navigationTarget(set: "Order_Details", navigation: "Product")?.name == "Products")
        #expect(model.navigationTarget(set: "Order_Details", navigation: "Nope") == nil)
        let order = try #require(type.navigationProperty(named: "Order"))
        #expect(order.targetType == "NorthwindModel.Order")
        #expect(!order.isCollection)
        #expect(order.isNullable == false)
        #expect(order.partner == "Order_Details")
        #expect(order.referentialConstraints == [
            CSDLReferentialConstraint(property: "OrderID", referencedProperty: "OrderID")])
        // Facets: UnitPrice Edm.Decimal Precision 19 Scale 4; Category.Description MaxLength max
        let price = try #require(type.property(named: "UnitPrice"))
        #expect(price.type.primitiveKind == .decimal)
        #expect(price.precision == 19)
        #expect(price.scale == .digits(4))
        #expect(price.isNullable == false)
        let category = try #require(model.entityType(qualifiedName: "NorthwindModel.Category"))
        #expect(category.property(named: "Description")?.maxLength == .max)
        #expect(category.property(named: "CategoryName")?.maxLength == .length(15))
        #expect(category.property(named: "Description")?.isNullable == true)
    }

    @Test func tripPinCounts() throws {
        let model = try ServiceModel.parse(metadata: CSDLCorpus.bytes("trippin/metadata.xml"))
        // grep: 9 EntityType, 4 ComplexType, 1 EnumType, 4 EntitySet, 1 Singleton,
        // 1 FunctionImport, 1 ActionImport, 4 Function, 2 Action, 8 NavigationProperty
        #expect(model.entityTypes.count == 9)
        #expect(model.complexTypes.count == 4)
        #expect(model.enumTypes.count == 1)
        #expect(model.entitySets.count == 4)
        let container = try #require(model.entityContainer)
        #expect(container.singletons.map(\.name) == ["Me"])
        #expect(container.functionImports.map(\.name) == ["GetNearestAirport"])
        #expect(container.functionImports.first?.operation
            == "Microsoft.OData.SampleService.Models.TripPin.GetNearestAirport")
        #expect(container.actionImports.map(\.name) == ["ResetDataSource"])
        #expect(model.operations.filter { $0.kind == .function }.count == 4)
        #expect(model.operations.filter { $0.kind == .action }.count == 2)
        #expect(model.entityTypes.flatMap(\.navigationProperties).count == 8)
        // 6 <Key> blocks: PublicTransportation, Flight and Event inherit theirs
        #expect(model.entityTypes.filter { $0.key != nil }.count == 6)
        // 12 <NavigationPropertyBinding>: 6 on People, 6 on the singleton Me
        #expect(model.entitySet(named: "People")?.navigationPropertyBindings.count == 6)
        #expect(container.singleton(named: "Me")?.navigationPropertyBindings.count == 6)
        #expect(model.navigationTarget(set: "People", navigation: "Friends")?.name == "People")
        #expect(model.navigationTarget(
            set: "People", navigation: "Microsoft.OData.SampleService.Models.TripPin.Flight/Airline")?
            .name == "Airlines")
    }

    @Test func tripPinInheritanceOpenTypesAndContainment() throws {
        let model = try ServiceModel.parse(metadata: CSDLCorpus.bytes("trippin/metadata.xml"))
        let ns = "Microsoft.OData.SampleService.Models.TripPin"
        let flight = try #require(model.entityType(qualifiedName: "\(ns).Flight"))
        #expect(model.inheritanceChain(of: flight).map(\.name)
            == ["Flight", "PublicTransportation", "PlanItem"])
        #expect(flight.key == nil)
        #expect(model.key(of: flight).map(\.name) == ["PlanItemId"])
        // PlanItem declares 5 properties, PublicTransportation 1, Flight 1 (+3 navigations)
        #expect(model.allProperties(of: flight).map(\.name) == [
            "PlanItemId", "ConfirmationCode", "StartsAt", "EndsAt", "Duration", "SeatNumber",
            "FlightNumber",
        ])
        #expect(model.allNavigationProperties(of: flight).map(\.name) == ["From", "To", "Airline"])
        #expect(model.allProperties(of: "\(ns).Flight").count == 7)
        #expect(model.key(of: "\(ns).Flight").map(\.name) == ["PlanItemId"])
        #expect(model.allProperties(of: "\(ns).EventLocation").map(\.name) == ["Address", "City", "BuildingInfo"])
        #expect(model.allProperties(of: "\(ns).Nope").isEmpty)
        #expect(model.key(of: "\(ns).Nope").isEmpty)
        let planItem = try #require(model.entityType(qualifiedName: "\(ns).PlanItem"))
        #expect(Set(model.derivedTypes(of: planItem).map(\.name))
            == ["PublicTransportation", "Flight", "Event"])
        let event = try #require(model.entityType(qualifiedName: "\(ns).Event"))
        #expect(event.isOpen)
        #expect(event.baseType == "\(ns).PlanItem")
        #expect(!flight.isOpen)
        #expect(model.entityType(qualifiedName: "\(ns).Photo")?.hasStream == true)
        #expect(model.entityType(qualifiedName: "\(ns).Person")?.hasStream == false)

        let person = try #require(model.entityType(qualifiedName: "\(ns).Person"))
        let trips = try #require(person.navigationProperty(named: "Trips"))
        #expect(trips.containsTarget)
        #expect(trips.isCollection)
        #expect(trips.targetType == "\(ns).Trip")
        #expect(person.navigationProperty(named: "Friends")?.containsTarget == false)
        let trip = try #require(model.entityType(qualifiedName: "\(ns).Trip"))
        #expect(trip.navigationProperty(named: "PlanItems")?.containsTarget == true)

        // Property type references
        #expect(person.property(named: "Emails")?.type
            == CSDLTypeReference(kind: .primitive(.string), isCollection: true))
        #expect(person.property(named: "AddressInfo")?.type
            == CSDLTypeReference(kind: .complex("\(ns).Location"), isCollection: true))
        #expect(person.property(named: "Gender")?.type.kind == .enumeration("\(ns).PersonGender"))
        let airportLocation = try #require(model.complexType(qualifiedName: "\(ns).AirportLocation"))
        #expect(airportLocation.baseType == "\(ns).Location")
        #expect(airportLocation.isOpen)
        #expect(model.allProperties(ofComplex: airportLocation).map(\.name) == ["Address", "City", "Loc"])
        #expect(airportLocation.property(named: "Loc")?.srid == "4326")
        #expect(airportLocation.property(named: "Loc")?.type.primitiveKind == .geographyPoint)

        let gender = try #require(model.enumType(qualifiedName: "\(ns).PersonGender"))
        #expect(gender.members.map(\.name) == ["Male", "Female", "Unknown"])
        #expect(gender.members.map(\.value) == [0, 1, 2])
        #expect(gender.underlyingType == .int32)
        #expect(!gender.isFlags)
    }

    @Test func tripPinAnnotationsInlineAndOutOfLine() throws {
        let model = try ServiceModel.parse(metadata: CSDLCorpus.bytes("trippin/metadata.xml"))
        let ns = "Microsoft.OData.SampleService.Models.TripPin"
        let budget = model.annotations(target: "\(ns).Trip/Budget")
        #expect(budget.map(\.term) == ["Org.OData.Measures.V1.ISOCurrency", "Org.OData.Measures.V1.Scale"])
        #expect(budget.first?.value == .constant(kind: "String", text: "USD"))
        #expect(budget.last?.value == .constant(kind: "Int", text: "2"))
        let computed = model.annotation(target: "\(ns).Person/Concurrency", term: "Org.OData.Core.V1.Computed")
        #expect(computed?.value == .constant(kind: "Bool", text: "true"))
        let media = model.annotation(target: "\(ns).Photo", term: "Org.OData.Core.V1.AcceptableMediaTypes")
        #expect(media?.value == .collection([.constant(kind: "String", text: "image/jpeg")]))
        // Container: 1 inline <Annotation> + 7 in <Annotations Target="…DefaultContainer">
        #expect(model.annotations(target: "\(ns).DefaultContainer").count == 8)
        #expect(model.entityContainer?.annotations.count == 8)
        // Entity sets carry 3, 5, 3, 4 inline annotations (Photos, People, Airlines, Airports)
        #expect(model.entitySets.map(\.annotations.count) == [3, 5, 3, 4])
        #expect(model.annotations(target: "\(ns).DefaultContainer/People").count == 5)
        #expect(model.unattachedAnnotations.isEmpty)
    }

    @Test func epmSalesOrderV4() throws {
        let model = try ServiceModel.parse(metadata: CSDLCorpus.bytes("epm_salesorder_v4/metadata.xml"))
        let ns = "com.sap.gateway.default.ze2e001_salesorder.v0001"
        #expect(model.version == .v4)
        #expect(model.aliases["SAP__self"] == ns)
        // grep: 2 EntityType, 1 EntitySet, 1 NavigationProperty with OnDelete Cascade
        #expect(model.entityTypes.count == 2)
        #expect(model.entitySets.map(\.name) == ["SalesOrder"])
        let order = try #require(model.entityType(qualifiedName: "SAP__self.SalesOrderType"))
        #expect(order.qualifiedName == "\(ns).SalesOrderType")
        #expect(model.key(of: order).map(\.name) == ["Salesorder"])
        let items = try #require(order.navigationProperty(named: "_Item"))
        #expect(items.containsTarget)
        #expect(items.isCollection)
        #expect(items.onDelete == .cascade)
        #expect(items.targetType == "\(ns).SalesOrderItemType")
        #expect(order.property(named: "Grossamountintransaccurrency")?.scale == .variable)
        #expect(order.property(named: "Creationdatetime")?.precision == 7)
        // 17 <Annotations> blocks, all naming elements of the model
        #expect(model.unattachedAnnotations.isEmpty)
        let valueList = model.annotation(target: "SAP__self.SalesOrderType/Customer",
                                         term: "SAP__common.ValueListReferences")
        #expect(valueList?.term == "com.sap.vocabularies.Common.v1.ValueListReferences")
        #expect(valueList?.value.items?.count == 1)
        #expect(!model.annotations(target: "SAP__self.Container/SalesOrder").isEmpty)
    }
}
