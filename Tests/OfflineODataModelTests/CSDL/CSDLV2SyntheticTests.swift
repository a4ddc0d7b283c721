import Testing
@testable import OfflineODataModel

/// V2 EDMX documents written for the test: association mapping and V2-only errors.
@Suite struct CSDLV2SyntheticTests {
    static let entity = CSDLMalformedTests.entity

    @Test func v2AssociationErrorsAreTyped() throws {
        let types = """
            <EntityType Name="A"><Key><PropertyRef Name="Id"/></Key><Property Name="Id" Type="Edm.Int32" Nullable="false"/>
            <NavigationProperty Name="ToB" Relationship="NS.A_B" FromRole="A" ToRole="B"/></EntityType>
            <EntityType Name="B"><Key><PropertyRef Name="Id"/></Key><Property Name="Id" Type="Edm.Int32" Nullable="false"/></EntityType>
            """
        let association = """
            <Association Name="A_B"><End Type="NS.A" Multiplicity="1" Role="A"/><End Type="NS.B" Multiplicity="*" Role="B"/></Association>
            """
        let ok = try ServiceModel.parse(metadata: CSDLTestDocument.v2(types + association))
        #expect(ok.entityType(qualifiedName: "NS.A")?.navigationProperty(named: "ToB")?.isCollection == true)
        #expect(CSDLTestDocument.parseError(CSDLTestDocument.v2(types))?.name == "csdlUnresolvedAssociation")
        #expect(CSDLTestDocument.parseError(CSDLTestDocument.v2(types + association.replacingOccurrences(of: "Role=\"B\"", with: "Role=\"C\"")))?
            .name == "csdlUnresolvedAssociation")
        #expect(CSDLTestDocument.parseError(CSDLTestDocument.v2(types + association.replacingOccurrences(of: "\"*\"", with: "\"many\"")))?
            .name == "csdlInvalidAttributeValue")
        #expect(CSDLTestDocument.parseError(CSDLTestDocument.v2(types + association + """
            <EntityContainer Name="C" m:IsDefaultEntityContainer="true"><EntitySet Name="As" EntityType="NS.A"/>
            <AssociationSet Name="S" Association="NS.A_B"><End EntitySet="As" Role="A"/><End EntitySet="Bs" Role="B"/></AssociationSet>
            </EntityContainer>
            """))?.name == "csdlUnresolvedReference")
        let missingRole = try #require(CSDLTestDocument.parseError(CSDLTestDocument.v2("""
            <EntityType Name="A"><Key><PropertyRef Name="Id"/></Key><Property Name="Id" Type="Edm.Int32"/>
            <NavigationProperty Name="ToB" Relationship="NS.A_B" ToRole="B"/></EntityType>
            """)))
        #expect(missingRole.name == "csdlMissingAttribute")
        #expect(missingRole.message.contains("'FromRole'"))
        #expect(missingRole.location == "line 5, column 1")
    }

    @Test func v2MappingDetails() throws {
        let doc = Array(String(decoding: CSDLTestDocument.v2("""
            <EntityType Name="Order" m:HasStream="true" sap:label="Order">
              <Key><PropertyRef Name="Id"/></Key>
              <Property Name="Id" Type="Edm.Int32" Nullable="false"/>
              <Property Name="At" Type="Edm.Time" sap:display-format="Time"/>
              <Property Name="When" Type="Edm.DateTime" Nullable="false"/>
              <Property Name="Offset" Type="Edm.DateTimeOffset"/>
              <NavigationProperty Name="Items" Relationship="NS.Order_Item" FromRole="O" ToRole="I"/>
              <NavigationProperty Name="Note" Relationship="NS.Order_Note" FromRole="O" ToRole="N"/>
            </EntityType>
            <EntityType Name="Item"><Key><PropertyRef Name="OrderId"/><PropertyRef Name="Pos"/></Key>
              <Property Name="OrderId" Type="Edm.Int32" Nullable="false"/><Property Name="Pos" Type="Edm.Int32" Nullable="false"/>
              <NavigationProperty Name="Order" Relationship="NS.Order_Item" FromRole="I" ToRole="O"/>
            </EntityType>
            <EntityType Name="Memo"><Key><PropertyRef Name="Id"/></Key><Property Name="Id" Type="Edm.Int32" Nullable="false"/></EntityType>
            <Association Name="Order_Item">
              <End Type="NS.Order" Multiplicity="1" Role="O"><OnDelete Action="Cascade"/></End>
              <End Type="NS.Item" Multiplicity="*" Role="I"/>
              <ReferentialConstraint><Principal Role="O"><PropertyRef Name="Id"/></Principal>
                <Dependent Role="I"><PropertyRef Name="OrderId"/></Dependent></ReferentialConstraint>
            </Association>
            <Association Name="Order_Note"><End Type="NS.Order" Multiplicity="1" Role="O"/><End Type="NS.Memo" Multiplicity="0..1" Role="N"/></Association>
            <EntityContainer Name="Other"><EntitySet Name="Xs" EntityType="NS.Memo"/></EntityContainer>
            <EntityContainer Name="Main" m:IsDefaultEntityContainer="true">
              <EntitySet Name="Orders" EntityType="NS.Order" sap:creatable="false"/>
              <EntitySet Name="Items" EntityType="NS.Item"/>
              <AssociationSet Name="OI" Association="NS.Order_Item" sap:deletable="false">
                <End EntitySet="Orders" Role="O"/><End EntitySet="Items" Role="I"/></AssociationSet>
              <FunctionImport Name="Close" ReturnType="Collection(NS.Order)" EntitySet="Orders" m:HttpMethod="POST">
                <Parameter Name="Id" Type="Edm.Int32" Mode="In" sap:label="Order"/>
              </FunctionImport>
            </EntityContainer>
            """), as: UTF8.self).replacingOccurrences(
                of: "xmlns:m=", with: "xmlns:sap=\"http://www.sap.com/Protocols/SAPData\" xmlns:m=").utf8)
        let model = try ServiceModel.parse(edmxV2: doc)
        let order = try #require(model.entityType(qualifiedName: "NS.Order"))
        #expect(order.hasStream)
        #expect(order.sapAttributes == ["label": "Order"])
        #expect(order.property(named: "At")?.type == CSDLTypeReference(kind: .primitive(.timeOfDay), v2Origin: .time))
        #expect(order.property(named: "At")?.sapAttributes["display-format"] == "Time")
        #expect(order.property(named: "When")?.type.isV2DateTime == true)
        #expect(order.property(named: "Offset")?.type == CSDLTypeReference(kind: .primitive(.dateTimeOffset)))
        let items = try #require(order.navigationProperty(named: "Items"))
        #expect(items.isCollection)
        #expect(items.onDelete == .cascade)
        #expect(items.partner == "Order")
        #expect(items.referentialConstraints == [CSDLReferentialConstraint(property: "Id", referencedProperty: "OrderId")])
        let note = try #require(order.navigationProperty(named: "Note"))
        #expect(!note.isCollection)
        #expect(note.isNullable == true)
        #expect(note.partner == nil)
        #expect(note.referentialConstraints.isEmpty)
        let back = try #require(model.entityType(qualifiedName: "NS.Item")?.navigationProperty(named: "Order"))
        #expect(back.isNullable == false)
        #expect(back.onDelete == nil)
        #expect(back.referentialConstraints == [CSDLReferentialConstraint(property: "OrderId", referencedProperty: "Id")])
        // The default container is the one marked m:IsDefaultEntityContainer, not the first
        let main = try #require(model.entityContainer)
        #expect(main.name == "Main")
        #expect(model.entitySets.map(\.name) == ["Orders", "Items"])
        #expect(model.entitySet(named: "Orders")?.sapAttributes["creatable"] == "false")
        #expect(main.associationSets.first?.sapAttributes["deletable"] == "false")
        #expect(model.navigationTarget(set: "Orders", navigation: "Items")?.name == "Items")
        #expect(model.navigationTarget(set: "Items", navigation: "Order")?.name == "Orders")
        #expect(model.navigationTarget(set: "Orders", navigation: "Note") == nil)  // no association set
        let close = try #require(main.functionImports.first)
        #expect(close.returnType == "Collection(NS.Order)")
        #expect(close.httpMethod == "POST")
        #expect(close.parameters == [CSDLParameter(name: "Id", type: "Edm.Int32", mode: "In", sapAttributes: ["label": "Order"])])
    }

    @Test func olderV2EDMNamespacesAndSingletonBindings() throws {
        let doc = String(decoding: CSDLTestDocument.v2(Self.entity), as: UTF8.self).replacingOccurrences(
            of: "http://schemas.microsoft.com/ado/2008/09/edm\"",
            with: "http://schemas.microsoft.com/ado/2006/04/edm\"")
        let model = try ServiceModel.parse(metadata: Array(doc.utf8))
        #expect(model.version == .v2)
        #expect(model.serviceVersion == "2.0")
        #expect(model.entityType(qualifiedName: "NS.T") != nil)

        let v4model = try ServiceModel.parse(metadata: CSDLTestDocument.v4("""
            <EntityType Name="T"><Key><PropertyRef Name="Id"/></Key>
              <Property Name="Id" Type="Edm.Int32" Nullable="false"/>
              <NavigationProperty Name="Next" Type="NS.T"/>
            </EntityType>
            <EntityContainer Name="C">
              <EntitySet Name="Ts" EntityType="NS.T"><NavigationPropertyBinding Path="Next" Target="Me"/></EntitySet>
              <Singleton Name="Me" Type="NS.T"><NavigationPropertyBinding Path="Next" Target="Ts"/></Singleton>
            </EntityContainer>
            """))
        #expect(v4model.navigationTarget(set: "Ts", navigation: "Next") == nil)  // a singleton
        #expect(v4model.navigationBinding(source: "Ts", navigation: "Next")?.target == "Me")
        #expect(v4model.navigationBinding(source: "Me", navigation: "Next")?.target == "Ts")
        #expect(v4model.navigationBinding(source: "Me", navigation: "Other") == nil)
    }
}
