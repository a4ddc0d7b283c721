import Testing
@testable import OfflineODataModel

/// Expected numbers were counted in the corpus files with grep (`grep -o '<Association ' f | wc -l`
/// and the like) and, for association-derived facts, with a regex pass over each
/// `<Association>…</Association>` block (ends' Multiplicity, Principal/Dependent PropertyRefs).
@Suite(.enabled(if: CSDLCorpus.available, "../shared/corpora not found; corpus tests skipped"))
struct CSDLV2CorpusTests {
    func gwsample() throws -> ServiceModel {
        try ServiceModel.parse(metadata: CSDLCorpus.bytes("gwsample_basic/metadata.xml"))
    }

    @Test func gwsampleBasicCounts() throws {
        let model = try gwsample()
        #expect(model.version == .v2)
        #expect(model.serviceVersion == "2.0")
        // grep: 16 EntityType, 2 ComplexType, 16 EntitySet, 20 Association, 20 AssociationSet,
        // 5 FunctionImport, 10 NavigationProperty
        #expect(model.entityTypes.count == 16)
        #expect(model.complexTypes.count == 2)
        #expect(model.enumTypes.isEmpty)
        #expect(model.entitySets.count == 16)
        #expect(model.associations.count == 20)
        let container = try #require(model.entityContainer)
        #expect(container.name == "GWSAMPLE_BASIC_Entities")
        #expect(container.isDefault)
        #expect(container.associationSets.count == 20)
        #expect(container.functionImports.map(\.name) == [
            "RegenerateAllData", "SalesOrder_Confirm", "SalesOrder_Cancel",
            "SalesOrder_InvoiceCreated", "SalesOrder_GoodsIssueCreated",
        ])
        let confirm = try #require(container.functionImports.dropFirst().first)
        #expect(confirm.httpMethod == "POST")
        #expect(confirm.entitySet == "SalesOrderSet")
        #expect(confirm.returnType == "GWSAMPLE_BASIC.SalesOrder")
        #expect(confirm.sapAttributes["action-for"] == "GWSAMPLE_BASIC.SalesOrder")
        #expect(confirm.parameters.map(\.name) == ["SalesOrderID"])
        // 16 <Key> blocks with 17 PropertyRefs: SalesOrderLineItem's key is composite
        #expect(model.entityTypes.map { model.key(of: $0).count }.reduce(0, +) == 17)
        let lineItem = try #require(model.entityType(qualifiedName: "GWSAMPLE_BASIC.SalesOrderLineItem"))
        #expect(model.key(of: lineItem).map(\.name) == ["SalesOrderID", "ItemPosition"])
        // 10 navigation properties; 5 lead to a Multiplicity="*" end; all 10 associations used by
        // navigations carry a one-property ReferentialConstraint, and every one is used from both sides
        let navigations = model.entityTypes.flatMap(\.navigationProperties)
        #expect(navigations.count == 10)
        #expect(navigations.filter(\.isCollection).count == 5)
        #expect(navigations.map(\.referentialConstraints.count).reduce(0, +) == 10)
        #expect(navigations.filter { $0.partner != nil }.count == 10)
        // each navigation gets one binding from its association set
        #expect(model.entitySets.map(\.navigationPropertyBindings.count).reduce(0, +) == 10)
    }

    @Test func gwsampleSalesOrderNavigationsResolveThroughAssociations() throws {
        let model = try gwsample()
        let order = try #require(model.entityType(ofSet: "SalesOrderSet"))
        let items = try #require(order.navigationProperty(named: "ToLineItems"))
        #expect(items.targetType == "GWSAMPLE_BASIC.SalesOrderLineItem")
        #expect(items.isCollection)
        #expect(items.isNullable == nil)
        #expect(items.partner == "ToHeader")
        #expect(items.referentialConstraints == [
            CSDLReferentialConstraint(property: "SalesOrderID", referencedProperty: "SalesOrderID")])
        #expect(items.v2Relationship == CSDLV2Relationship(
            association: "GWSAMPLE_BASIC.Assoc_SalesOrder_SalesOrderLineItems",
            fromRole: "FromRole_Assoc_SalesOrder_SalesOrderLineItems",
            toRole: "ToRole_Assoc_SalesOrder_SalesOrderLineItems"))
        #expect(model.navigationTarget(set: "SalesOrderSet", navigation: "ToLineItems")?.name
            == "SalesOrderLineItemSet")

        // Dependent → principal: SalesOrder.CustomerID references BusinessPartner.BusinessPartnerID
        let partner = try #require(order.navigationProperty(named: "ToBusinessPartner"))
        #expect(partner.targetType == "GWSAMPLE_BASIC.BusinessPartner")
        #expect(!partner.isCollection)
        #expect(partner.isNullable == false)  // End Multiplicity="1"
        #expect(partner.partner == "ToSalesOrders")
        #expect(partner.referentialConstraints == [
            CSDLReferentialConstraint(property: "CustomerID", referencedProperty: "BusinessPartnerID")])
        #expect(model.navigationTarget(set: "SalesOrderSet", navigation: "ToBusinessPartner")?.name
            == "BusinessPartnerSet")
        #expect(model.navigationTarget(set: "BusinessPartnerSet", navigation: "ToSalesOrders")?.name
            == "SalesOrderSet")

        let header = try #require(model.entityType(qualifiedName: "GWSAMPLE_BASIC.SalesOrderLineItem")?
            .navigationProperty(named: "ToHeader"))
        #expect(header.targetType == "GWSAMPLE_BASIC.SalesOrder")
        #expect(header.partner == "ToLineItems")
        #expect(header.referentialConstraints == [
            CSDLReferentialConstraint(property: "SalesOrderID", referencedProperty: "SalesOrderID")])
    }

    @Test func gwsampleV2TypesAndSapAttributes() throws {
        let model = try gwsample()
        let order = try #require(model.entityType(qualifiedName: "GWSAMPLE_BASIC.SalesOrder"))
        let created = try #require(order.property(named: "CreatedAt"))
        #expect(created.type.primitiveKind == .dateTimeOffset)
        #expect(created.type.isV2DateTime)
        #expect(created.typeAsWritten == "Edm.DateTime")
        #expect(created.precision == 7)
        #expect(created.sapAttributes["label"] == "Time Stamp")
        #expect(created.sapAttributes["creatable"] == "false")
        #expect(created.sapAttributes["updatable"] == "false")
        let gross = try #require(order.property(named: "GrossAmount"))
        #expect(gross.type.primitiveKind == .decimal)
        #expect(!gross.type.isV2DateTime)
        #expect(gross.precision == 16)
        #expect(gross.scale == .digits(3))
        #expect(gross.sapAttributes["unit"] == "CurrencyCode")
        #expect(order.property(named: "CurrencyCode")?.sapAttributes["semantics"] == "currency-code")
        #expect(order.property(named: "Note")?.sapAttributes["filterable"] == "false")
        #expect(order.sapAttributes["content-version"] == "1")
        #expect(model.entitySet(named: "SalesOrderSet")?.sapAttributes["updatable"] == "false")
        #expect(model.entitySet(named: "VH_SexSet")?.sapAttributes["pageable"] == "false")
        #expect(model.entityContainer?.sapAttributes["supported-formats"] == "atom json xlsx")
        // Edm.DateTime appears 8 times in the file (grep -o 'Type="Edm.DateTime"')
        let allProperties = model.entityTypes.flatMap(\.properties) + model.complexTypes.flatMap(\.properties)
        #expect(allProperties.filter(\.type.isV2DateTime).count == 8)
        // sap:label appears 103 times in the file, on properties, types, sets and parameters
        let container = try #require(model.entityContainer)
        let labelled = allProperties.filter { $0.sapAttributes["label"] != nil }.count
            + model.entityTypes.filter { $0.sapAttributes["label"] != nil }.count
            + model.entitySets.filter { $0.sapAttributes["label"] != nil }.count
        let labelledParameters = container.functionImports.flatMap(\.parameters)
            .filter { $0.sapAttributes["label"] != nil }.count
        #expect(labelled + labelledParameters == 103)
        // Complex-typed property
        let contact = try #require(model.entityType(qualifiedName: "GWSAMPLE_BASIC.Contact"))
        #expect(contact.property(named: "Address")?.type.kind == .complex("GWSAMPLE_BASIC.CT_Address"))
        #expect(model.resolveType("Edm.DateTime")?.v2Origin == .dateTime)
        #expect(model.resolveType("Edm.Time")?.primitiveKind == .timeOfDay)
        #expect(model.resolveType("Edm.Time")?.v2Origin == .time)
        #expect(model.resolveType("Collection(GWSAMPLE_BASIC.CT_Address)")
            == CSDLTypeReference(kind: .complex("GWSAMPLE_BASIC.CT_Address"), isCollection: true))
        #expect(model.resolveType("GWSAMPLE_BASIC.Nope") == nil)
    }

    @Test func storeOverviewVariantLoadsDespiteMisplacedNavigation() throws {
        let model = try ServiceModel.parse(
            metadata: CSDLCorpus.bytes("gwsample_basic/store-overview/metadata.xml"))
        // grep: 14 EntityType, 14 EntitySet, 10 Association, 6 NavigationProperty; grep finds 11
        // <AssociationSet but one of them (line 411) is inside an XML comment, so 10 are real
        #expect(model.entityTypes.count == 14)
        #expect(model.entitySets.count == 14)
        #expect(model.associations.count == 10)
        #expect(model.entityContainer?.associationSets.count == 10)
        #expect(model.entityTypes.flatMap(\.navigationProperties).count == 6)
        // GlobalParameters carries sap:semantics="parameters" and sap:label
        let parameters = try #require(model.entityType(qualifiedName: "GWSAMPLE_BASIC.GlobalParameters"))
        #expect(parameters.sapAttributes["semantics"] == "parameters")
        #expect(parameters.sapAttributes["label"] == "Global Parameters")
        // BusinessPartner.ToContacts is declared on its FromRole type: constraint carried over
        let partner = try #require(model.entityType(qualifiedName: "GWSAMPLE_BASIC.BusinessPartner"))
        #expect(partner.navigationProperty(named: "ToContacts")?.referentialConstraints.count == 1)
        #expect(model.navigationTarget(set: "BusinessPartnerSet", navigation: "ToContacts")?.name
            == "ContactSet")
    }

    @Test func sepmraProdManCounts() throws {
        let model = try ServiceModel.parse(metadata: CSDLCorpus.bytes("sepmra_prod_man/metadata.xml"))
        // grep: 25 EntityType, 1 ComplexType, 25 EntitySet, 42 Association, 42 AssociationSet,
        // 42 NavigationProperty, 17 FunctionImport
        #expect(model.entityTypes.count == 25)
        #expect(model.complexTypes.count == 1)
        #expect(model.entitySets.count == 25)
        #expect(model.associations.count == 42)
        #expect(model.entityContainer?.associationSets.count == 42)
        #expect(model.entityContainer?.functionImports.count == 17)
        let navigations = model.entityTypes.flatMap(\.navigationProperties)
        #expect(navigations.count == 42)
        // 8 navigations end at Multiplicity="*"; 19 associations with one-property constraints
        #expect(navigations.filter(\.isCollection).count == 8)
        #expect(navigations.map(\.referentialConstraints.count).reduce(0, +) == 19)
        #expect(navigations.allSatisfy { $0.partner == nil })
        #expect(model.entitySets.map(\.navigationPropertyBindings.count).reduce(0, +) == 42)
        // 25 <Key> blocks, 35 PropertyRefs, 5 composite
        #expect(model.entityTypes.map { model.key(of: $0).count }.reduce(0, +) == 35)
        #expect(model.entityTypes.filter { model.key(of: $0).count > 1 }.count == 5)
        // m:HasStream="true" once
        let image = try #require(model.entityType(ofSet: "SEPMRA_C_PD_ProductImage"))
        #expect(image.hasStream)
        #expect(model.entityTypes.filter(\.hasStream).count == 1)
        #expect(model.key(of: image).map(\.name) == ["Product", "ProductImage"])
        #expect(image.property(named: "Product")?.sapAttributes["display-format"] == "UpperCase")
        // 4 Edm.DateTime properties, all sap:display-format="Date"
        let dateTimes = model.entityTypes.flatMap(\.properties).filter(\.type.isV2DateTime)
        #expect(dateTimes.count == 4)
        #expect(dateTimes.allSatisfy { $0.sapAttributes["display-format"] == "Date" })
        // V4 annotations embedded in the V2 document use edmx:Include aliases
        #expect(model.aliases["UI"] == "com.sap.vocabularies.UI.v1")
        let text = model.annotation(target: "SEPMRA_PROD_MAN.SEPMRA_C_PD_ProductStockType/StockAvailability",
                                    term: "Common.Text")
        #expect(text?.term == "com.sap.vocabularies.Common.v1.Text")
        #expect(text?.value == .constant(kind: "Path", text: "to_StockAvailability/StockAvailability_Text"))
        // 55 <Annotations>; one names a property SupplierType does not have and stays unattached
        #expect(Array(model.unattachedAnnotations.keys) == ["SEPMRA_PROD_MAN.SEPMRA_C_PD_SupplierType/AddressUUID"])
    }
}
