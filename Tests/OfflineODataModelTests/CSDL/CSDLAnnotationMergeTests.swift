import Testing
@testable import OfflineODataModel

/// Every annotation a model holds, wherever it is attached.
private func annotationCount(_ model: ServiceModel) -> Int {
    var count = model.unattachedAnnotations.values.map(\.count).reduce(0, +)
    for schema in model.schemas {
        count += schema.annotations.count
        for type in schema.entityTypes {
            count += type.annotations.count + type.properties.map(\.annotations.count).reduce(0, +)
                + type.navigationProperties.map(\.annotations.count).reduce(0, +)
        }
        for type in schema.complexTypes {
            count += type.annotations.count + type.properties.map(\.annotations.count).reduce(0, +)
        }
        for type in schema.enumTypes {
            count += type.annotations.count + type.members.map(\.annotations.count).reduce(0, +)
        }
        count += schema.operations.map(\.annotations.count).reduce(0, +)
        for container in schema.entityContainers {
            count += container.annotations.count
                + container.entitySets.map(\.annotations.count).reduce(0, +)
                + container.singletons.map(\.annotations.count).reduce(0, +)
                + container.functionImports.map(\.annotations.count).reduce(0, +)
                + container.actionImports.map(\.annotations.count).reduce(0, +)
        }
    }
    return count
}

/// Annotation counts were taken from the annotation files with
/// `python3 -c` over ElementTree: the `<Annotation>` children of each `<Annotations Target>`.
@Suite(.enabled(if: CSDLCorpus.available, "../shared/corpora not found; corpus tests skipped"))
struct CSDLAnnotationMergeTests {
    @Test func epmSalesOrderAnnotationsMergeThroughSelfAlias() throws {
        let model = try ServiceModel.parse(metadata: CSDLCorpus.bytes("epm_salesorder_v4/metadata.xml"))
        let merged = try model.mergeAnnotations(fromCSDL: CSDLCorpus.bytes("epm_salesorder_v4/annotations.xml"))
        // one <Annotations Target="SAP__self.SalesOrderType"> with UI.LineItem, UI.FieldGroup#GeneratedGroup1, UI.Facets
        #expect(annotationCount(merged) == annotationCount(model) + 3)
        #expect(merged.unattachedAnnotations.isEmpty)
        let type = try #require(merged.entityType(qualifiedName: "SAP__self.SalesOrderType"))
        #expect(type.annotations.map(\.termWithQualifier) == [
            "com.sap.vocabularies.UI.v1.LineItem",
            "com.sap.vocabularies.UI.v1.FieldGroup#GeneratedGroup1",
            "com.sap.vocabularies.UI.v1.Facets",
        ])
        let lineItem = try #require(merged.annotation(
            target: "com.sap.gateway.default.ze2e001_salesorder.v0001.SalesOrderType",
            term: "com.sap.vocabularies.UI.v1.LineItem"))
        #expect(lineItem.termAsWritten == "UI.LineItem")
        let records = try #require(lineItem.value.items)
        #expect(records.count == 5)
        #expect(records.first == .record(type: "com.sap.vocabularies.UI.v1.DataField", properties: [
            CSDLPropertyValue(property: "Label", value: .constant(kind: "String", text: "Salesorder")),
            CSDLPropertyValue(property: "Value", value: .constant(kind: "Path", text: "Salesorder")),
        ]))
        #expect(records.last?.property("Value")?.text == "Lastchangeddatetime")
        let group = merged.annotation(target: "SAP__self.SalesOrderType", term: "UI.FieldGroup",
                                      qualifier: "GeneratedGroup1")
        #expect(group?.value.property("Data")?.items?.isEmpty == false)
        // The original model is a value and is unchanged
        #expect(model.annotation(target: "SAP__self.SalesOrderType", term: "UI.LineItem") == nil)
    }

    @Test func storeOverviewAnnotationsAttachToTypesAndProperties() throws {
        let model = try ServiceModel.parse(
            metadata: CSDLCorpus.bytes("gwsample_basic/store-overview/metadata.xml"))
        #expect(annotationCount(model) == 0)
        let merged = try model.mergeAnnotations(
            fromCSDL: CSDLCorpus.bytes("gwsample_basic/store-overview/annotations.xml"))
        // 7 targets holding 1+1+1+2+5+3+3 = 16 annotations (grep finds 17 '<Annotation ': the
        // 17th annotates the Common.Text annotation of VH_Country/CountryCode)
        let perTarget: [(String, Int)] = [
            ("GWSAMPLE_BASIC.GlobalFilters", 1),
            ("GWSAMPLE_BASIC.GlobalFilters/CountryCode", 1),
            ("GWSAMPLE_BASIC.VH_Country/CountryCode", 1),
            ("GWSAMPLE_BASIC.CustomerService", 2),
            ("Metadata.RunnersType", 5),  // alias of the annotation document
            ("GWSAMPLE_BASIC.ShoeSalesType", 3),
            ("GWSAMPLE_BASIC.InventoryType", 3),
        ]
        for (target, count) in perTarget {
            #expect(merged.annotations(target: target).count == count, "\(target)")
        }
        #expect(annotationCount(merged) == 16)
        #expect(merged.unattachedAnnotations.isEmpty)
        let dataPoint = merged.annotation(target: "GWSAMPLE_BASIC.CustomerService",
                                          term: "UI.DataPoint", qualifier: "Priority")
        #expect(dataPoint != nil)
        let valueList = try #require(merged.annotation(
            target: "GWSAMPLE_BASIC.GlobalFilters/CountryCode",
            term: "com.sap.vocabularies.Common.v1.ValueList"))
        guard case let .record(_, properties) = valueList.value else {
            Issue.record("ValueList is not a record: \(valueList.value)")
            return
        }
        #expect(!properties.isEmpty)
        let text = try #require(merged.annotation(target: "GWSAMPLE_BASIC.VH_Country/CountryCode",
                                                  term: "Common.Text"))
        #expect(text.annotations.map(\.term) == ["com.sap.vocabularies.UI.v1.TextArrangement"])
        let filters = try #require(merged.entityType(qualifiedName: "GWSAMPLE_BASIC.GlobalFilters"))
        #expect(filters.property(named: "CountryCode")?.annotations.count == 1)
    }

    @Test func sepmraAnnotationsMergeOntoV2Model() throws {
        let model = try ServiceModel.parse(metadata: CSDLCorpus.bytes("sepmra_prod_man/metadata.xml"))
        let merged = try model.mergeAnnotations(fromCSDL: CSDLCorpus.bytes("sepmra_prod_man/annotations.xml"))
        // 6 targets with 6+1+1+2+1+3 = 14 annotations
        #expect(annotationCount(merged) == annotationCount(model) + 14)
        #expect(merged.unattachedAnnotations.count == model.unattachedAnnotations.count)
        let product = "SEPMRA_PROD_MAN.SEPMRA_C_PD_ProductType"
        let terms = merged.annotations(target: product).map(\.termWithQualifier)
        #expect(terms.contains("com.sap.vocabularies.UI.v1.FieldGroup#TechData"))
        #expect(terms.contains("com.sap.vocabularies.UI.v1.HeaderInfo"))
        let address = merged.annotations(target: "SEPMRA_PROD_MAN.SEPMRA_I_AddressType").map(\.term)
        #expect(address == ["com.sap.vocabularies.Communication.v1.Contact",
                            "com.sap.vocabularies.Communication.v1.Address"])
    }

    @Test func inlineAndOutOfLineAnnotationsFromASmallDocument() throws {
        let doc = """
            <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.01">
              <edmx:Reference Uri="x"><edmx:Include Namespace="Org.OData.Core.V1" Alias="Core"/></edmx:Reference>
              <edmx:DataServices>
                <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="Shop" Alias="S">
                  <EnumType Name="Color" IsFlags="true" UnderlyingType="Edm.Byte">
                    <Member Name="Red" Value="1"/><Member Name="Green" Value="2"/><Member Name="Blue" Value="4">
                      <Annotation Term="Core.Description" String="blue"/>
                    </Member>
                  </EnumType>
                  <EnumType Name="Size"><Member Name="S"/><Member Name="M"/><Member Name="L" Value="10"/><Member Name="XL"/></EnumType>
                  <TypeDefinition Name="Sku" UnderlyingType="Edm.String" MaxLength="12" Unicode="false"/>
                  <EntityType Name="Item">
                    <Key><PropertyRef Name="Id"/></Key>
                    <Property Name="Id" Type="S.Sku" Nullable="false"/>
                    <Property Name="Tint" Type="S.Color" DefaultValue="Red"/>
                    <Property Name="Weight" Type="Edm.Decimal" Precision="10" Scale="floating"/>
                    <Annotation Term="Core.Description"><String>An &quot;item&quot;</String></Annotation>
                  </EntityType>
                  <EntityContainer Name="C"><EntitySet Name="Items" EntityType="S.Item"/></EntityContainer>
                  <Annotations Target="S.Item/Weight" Qualifier="q">
                    <Annotation Term="Core.Immutable"/>
                    <Annotation Term="Core.Computed" Qualifier="own" Bool="false"/>
                    <Annotation Term="Core.Example"><Apply Function="odata.concat"><String>a</String><Path>Id</Path></Apply></Annotation>
                  </Annotations>
                  <Annotations Target="S.C/Items"><Annotation Term="Core.Description" Qualifier="short" String="items"/></Annotations>
                  <Annotations Target="S.Color/Blue"><Annotation Term="Core.LongDescription" String="b"/></Annotations>
                </Schema>
              </edmx:DataServices>
            </edmx:Edmx>
            """
        let model = try ServiceModel.parse(csdlXML: Array(doc.utf8))
        #expect(model.serviceVersion == "4.01")
        let color = try #require(model.enumType(qualifiedName: "S.Color"))
        #expect(color.isFlags)
        #expect(color.underlyingType == .byte)
        #expect(color.members.map(\.value) == [1, 2, 4])
        let size = try #require(model.enumType(qualifiedName: "Shop.Size"))
        #expect(size.members.map(\.value) == [0, 1, 10, 11])
        #expect(size.members.map(\.isValueImplicit) == [true, true, false, true])
        let sku = try #require(model.typeDefinition(qualifiedName: "S.Sku"))
        #expect(sku.underlyingType == .string)
        #expect(sku.maxLength == .length(12))
        #expect(sku.isUnicode == false)
        let item = try #require(model.entityType(qualifiedName: "S.Item"))
        #expect(item.property(named: "Id")?.type.kind == .typeDefinition("Shop.Sku"))
        #expect(item.property(named: "Tint")?.defaultValue == "Red")
        #expect(item.property(named: "Tint")?.type.kind == .enumeration("Shop.Color"))
        #expect(item.property(named: "Weight")?.scale == .floating)
        #expect(model.annotation(target: "S.Item", term: "Core.Description")?.value
            == .constant(kind: "String", text: "An \"item\""))
        let weight = model.annotations(target: "Shop.Item/Weight")
        #expect(weight.map(\.term) == ["Org.OData.Core.V1.Immutable", "Org.OData.Core.V1.Computed",
                                        "Org.OData.Core.V1.Example"])
        #expect(weight.map(\.qualifier) == ["q", "own", "q"])
        #expect(weight.first?.value == .empty)
        #expect(weight.last?.value == .expression(
            kind: "Apply", attributes: ["Function": "odata.concat"], text: "",
            children: [.constant(kind: "String", text: "a"), .constant(kind: "Path", text: "Id")]))
        #expect(model.annotation(target: "S.C/Items", term: "Core.Description", qualifier: "short")?
            .value.text == "items")
        #expect(model.annotations(target: "Shop.Color/Blue").map(\.term)
            == ["Org.OData.Core.V1.Description", "Org.OData.Core.V1.LongDescription"])
        #expect(model.annotations(target: "Shop.Nothing").isEmpty)
    }
}
