import PropertyBased
import Testing
@testable import OfflineODataModel

/// A V4 document with the given schema body in namespace `NS`.
private func v4(_ body: String) -> [UInt8] {
    Array("""
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
          <edmx:DataServices>
            <Schema Namespace="NS" xmlns="http://docs.oasis-open.org/odata/ns/edm">
        \(body)
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """.utf8)
}

/// A V2 document with the given schema body in namespace `NS`.
private func v2(_ body: String) -> [UInt8] {
    Array("""
        <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx" \
        xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
        <edmx:DataServices m:DataServiceVersion="2.0">
        <Schema Namespace="NS" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
        \(body)
        </Schema>
        </edmx:DataServices>
        </edmx:Edmx>
        """.utf8)
}

/// The ODataError parsing raises; records an issue for success or a foreign error.
private func parseError(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation)
    -> ODataError?
{
    do {
        _ = try ServiceModel.parse(metadata: bytes)
        Issue.record("parsed successfully", sourceLocation: sourceLocation)
        return nil
    } catch let error as ODataError {
        return error
    } catch {
        Issue.record("unexpected error type \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// True when an error is one of this area's typed input errors with a location.
private func isTypedInputError(_ error: any Error) -> Bool {
    guard let error = error as? ODataError else { return false }
    return error.category == .invalidInput && (1100...1199).contains(error.code)
        && error.location?.hasPrefix("line ") == true
}

@Suite struct CSDLMalformedTests {
    static let entity = """
        <EntityType Name="T"><Key><PropertyRef Name="Id"/></Key>
          <Property Name="Id" Type="Edm.Int32" Nullable="false"/>
        </EntityType>
        """

    @Test func wellFormedMinimalDocumentParses() throws {
        let model = try ServiceModel.parse(metadata: v4(Self.entity))
        #expect(model.entityType(qualifiedName: "NS.T")?.key == [CSDLPropertyRef(name: "Id")])
    }

    @Test func keyPathIntoComplexPropertyWithAlias() throws {
        let model = try ServiceModel.parse(metadata: v4("""
            <ComplexType Name="Info"><Property Name="Code" Type="Edm.String" Nullable="false"/></ComplexType>
            <EntityType Name="T"><Key><PropertyRef Name="Info/Code" Alias="Code"/></Key>
              <Property Name="Info" Type="NS.Info" Nullable="false"/>
            </EntityType>
            """))
        let type = try #require(model.entityType(qualifiedName: "NS.T"))
        #expect(model.key(of: type) == [CSDLPropertyRef(name: "Info/Code", alias: "Code")])
        #expect(model.key(of: type).map(\.keyName) == ["Code"])
        let bad = try #require(parseError(v4("""
            <ComplexType Name="Info"><Property Name="Code" Type="Edm.String"/></ComplexType>
            <EntityType Name="T"><Key><PropertyRef Name="Info/Nope" Alias="Code"/></Key>
              <Property Name="Info" Type="NS.Info" Nullable="false"/>
            </EntityType>
            """)))
        #expect(bad.name == "csdlInvalidKey")
        #expect(bad.message.contains("Info/Nope"))
    }

    @Test func olderV2EDMNamespacesAndSingletonBindings() throws {
        let doc = String(decoding: v2(Self.entity), as: UTF8.self).replacingOccurrences(
            of: "http://schemas.microsoft.com/ado/2008/09/edm\"",
            with: "http://schemas.microsoft.com/ado/2006/04/edm\"")
        let model = try ServiceModel.parse(metadata: Array(doc.utf8))
        #expect(model.version == .v2)
        #expect(model.serviceVersion == "2.0")
        #expect(model.entityType(qualifiedName: "NS.T") != nil)

        let v4model = try ServiceModel.parse(metadata: v4("""
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

    @Test func elementsOfForeignNamespacesAreIgnored() throws {
        let model = try ServiceModel.parse(metadata: v4("""
            <EntityType Name="T"><Key><PropertyRef Name="Id"/></Key>
              <Property Name="Id" Type="Edm.Int32" Nullable="false"/>
              <x:Property xmlns:x="urn:x" Name="Odd" Type="Edm.Foo"/>
            </EntityType>
            """))
        #expect(model.entityType(qualifiedName: "NS.T")?.properties.map(\.name) == ["Id"])
    }

    @Test func mismatchedTagNamesElementAndLine() throws {
        let error = try #require(parseError(v4("""
            <EntityType Name="T"><Key><PropertyRef Name="Id"/></Key>
              <Property Name="Id" Type="Edm.Int32"></EntityType>
            """)))
        #expect(error.name == "xmlMismatchedTag")
        #expect(error.code == 1103)
        #expect(error.message.contains("</EntityType>"))
        #expect(error.message.contains("<Property>"))
        #expect(error.location == "line 6, column 40")
    }

    @Test func unknownPrimitiveTypeIsTyped() throws {
        let error = try #require(parseError(v4("""
            <EntityType Name="T"><Key><PropertyRef Name="Id"/></Key>
              <Property Name="Id" Type="Edm.Int32" Nullable="false"/>
              <Property Name="Bad" Type="Edm.Foo"/>
            </EntityType>
            """)))
        #expect(error.name == "csdlUnknownPrimitiveType")
        #expect(error.code == 1122)
        #expect(error.message.contains("Edm.Foo"))
        #expect(error.message.contains("Bad"))
        #expect(error.location == "line 7, column 3")
    }

    @Test func v2DateTimeIsNotAV4Type() throws {
        let error = try #require(parseError(v4("""
            <EntityType Name="T"><Key><PropertyRef Name="Id"/></Key>
              <Property Name="Id" Type="Edm.DateTime" Nullable="false"/>
            </EntityType>
            """)))
        #expect(error.name == "csdlUnknownPrimitiveType")
    }

    @Test func unknownStructuredTypeIsTyped() throws {
        let error = try #require(parseError(v4("""
            <EntityType Name="T"><Key><PropertyRef Name="Id"/></Key>
              <Property Name="Id" Type="Edm.Int32" Nullable="false"/>
              <Property Name="A" Type="Collection(NS.Missing)"/>
            </EntityType>
            """)))
        #expect(error.name == "csdlUnresolvedType")
        #expect(error.message.contains("NS.Missing"))
    }

    @Test func keyReferringToMissingPropertyIsTyped() throws {
        let error = try #require(parseError(v4("""
            <EntityType Name="T"><Key><PropertyRef Name="Nope"/></Key>
              <Property Name="Id" Type="Edm.Int32" Nullable="false"/>
            </EntityType>
            """)))
        #expect(error.name == "csdlInvalidKey")
        #expect(error.code == 1124)
        #expect(error.message.contains("'Nope'"))
        #expect(error.message.contains("NS.T"))
        #expect(error.location == "line 5, column 1")
    }

    @Test func entityTypeWithoutKeyIsTypedUnlessAbstract() throws {
        let error = try #require(parseError(v4("""
            <EntityType Name="T"><Property Name="Id" Type="Edm.Int32"/></EntityType>
            """)))
        #expect(error.name == "csdlInvalidKey")
        let model = try ServiceModel.parse(metadata: v4("""
            <EntityType Name="Base" Abstract="true"><Property Name="Id" Type="Edm.Int32"/></EntityType>
            <EntityType Name="T" BaseType="NS.Base"><Key><PropertyRef Name="Id"/></Key></EntityType>
            """))
        let type = try #require(model.entityType(qualifiedName: "NS.T"))
        #expect(model.keyProperties(of: type).map(\.name) == ["Id"])
    }

    @Test func baseTypeCycleIsTyped() throws {
        let error = try #require(parseError(v4("""
            <EntityType Name="A" BaseType="NS.C"><Key><PropertyRef Name="Id"/></Key>
              <Property Name="Id" Type="Edm.Int32" Nullable="false"/></EntityType>
            <EntityType Name="B" BaseType="NS.A"/>
            <EntityType Name="C" BaseType="NS.B"/>
            """)))
        #expect(error.name == "csdlBaseTypeCycle")
        #expect(error.code == 1125)
        #expect(error.location == "line 5, column 1")
        let selfCycle = try #require(parseError(v4("""
            <ComplexType Name="X" BaseType="NS.X"/>
            """)))
        #expect(selfCycle.name == "csdlBaseTypeCycle")
    }

    @Test func unknownBaseTypeIsTyped() throws {
        let error = try #require(parseError(v4("""
            <EntityType Name="B" BaseType="NS.Gone"/>
            """)))
        #expect(error.name == "csdlUnresolvedType")
        #expect(error.message.contains("NS.Gone"))
    }

    @Test(arguments: [
        ("<EntityType><Key><PropertyRef Name=\"Id\"/></Key></EntityType>", "<EntityType>", "'Name'", "line 5, column 1"),
        ("<EntityType Name=\"T\"><Key><PropertyRef Name=\"Id\"/></Key>\n<Property Type=\"Edm.Int32\"/></EntityType>", "<Property>", "'Name'", "line 6, column 1"),
        ("<EntityType Name=\"T\"><Key><PropertyRef Name=\"Id\"/></Key>\n<Property Name=\"Id\"/></EntityType>", "<Property> 'Id'", "'Type'", "line 6, column 1"),
        ("<EntityType Name=\"T\"><Key><PropertyRef/></Key></EntityType>", "<PropertyRef>", "'Name'", "line 5, column 27"),
        ("<EntityContainer Name=\"C\"><EntitySet Name=\"S\"/></EntityContainer>", "<EntitySet> 'S'", "'EntityType'", "line 5, column 27"),
        ("<ComplexType Name=\"C\"><NavigationProperty Name=\"N\"/></ComplexType>", "<NavigationProperty> 'N'", "'Type'", "line 5, column 23"),
        ("<EnumType Name=\"E\"><Member Value=\"1\"/></EnumType>", "<Member>", "'Name'", "line 5, column 20"),
    ] as [(String, String, String, String)])
    func missingRequiredAttributeNamesElementAndLine(body: String, element: String, attribute: String, location: String) throws {
        let error = try #require(parseError(v4(body)))
        #expect(error.name == "csdlMissingAttribute")
        #expect(error.code == 1121)
        #expect(error.message.contains(element), "\(error)")
        #expect(error.message.contains(attribute), "\(error)")
        #expect(error.location == location, "\(error)")
    }

    @Test(arguments: [
        ("<EntityType Name=\"T\" OpenType=\"yes\"><Key><PropertyRef Name=\"Id\"/></Key><Property Name=\"Id\" Type=\"Edm.Int32\"/></EntityType>", "csdlInvalidAttributeValue"),
        ("<EntityType Name=\"T\"><Key><PropertyRef Name=\"Id\"/></Key><Property Name=\"Id\" Type=\"Edm.String\" MaxLength=\"-1\"/></EntityType>", "csdlInvalidAttributeValue"),
        ("<EntityType Name=\"T\"><Key><PropertyRef Name=\"Id\"/></Key><Property Name=\"Id\" Type=\"Edm.Decimal\" Precision=\"99999999999999999999999\"/></EntityType>", "csdlInvalidAttributeValue"),
        ("<EnumType Name=\"E\"><Member Name=\"A\" Value=\"x\"/></EnumType>", "csdlInvalidAttributeValue"),
        ("<EnumType Name=\"E\" UnderlyingType=\"Edm.String\"/>", "csdlInvalidAttributeValue"),
        ("<ComplexType Name=\"C\"/><ComplexType Name=\"C\"/>", "csdlDuplicateName"),
        ("<ComplexType Name=\"C\"><Property Name=\"P\" Type=\"Edm.Int32\"/><Property Name=\"P\" Type=\"Edm.Int32\"/></ComplexType>", "csdlDuplicateName"),
        (CSDLMalformedTests.entity + "<EntityContainer Name=\"C\"><EntitySet Name=\"S\" EntityType=\"NS.T\"><NavigationPropertyBinding Path=\"X\" Target=\"Nowhere\"/></EntitySet></EntityContainer>", "csdlUnresolvedReference"),
        (CSDLMalformedTests.entity + "<EntityContainer Name=\"C\"><EntitySet Name=\"S\" EntityType=\"NS.Gone\"/></EntityContainer>", "csdlUnresolvedType"),
        ("<EntityType Name=\"T\"><Key><PropertyRef Name=\"Id\"/></Key><Property Name=\"Id\" Type=\"Edm.Int32\"/><NavigationProperty Name=\"N\" Type=\"NS.T\" Partner=\"Missing\"/></EntityType>", "csdlUnresolvedReference"),
        ("<EntityType Name=\"T\"><Key><PropertyRef Name=\"Id\"/></Key><Property Name=\"Id\" Type=\"Edm.Int32\"/><NavigationProperty Name=\"N\" Type=\"NS.T\"><ReferentialConstraint Property=\"Zip\" ReferencedProperty=\"Id\"/></NavigationProperty></EntityType>", "csdlInvalidReferentialConstraint"),
        ("<EntityType Name=\"T\"><Key><PropertyRef Name=\"Id\"/></Key><Property Name=\"Id\" Type=\"Edm.Int32\"/><NavigationProperty Name=\"N\" Type=\"NS.T\"><OnDelete Action=\"Explode\"/></NavigationProperty></EntityType>", "csdlInvalidAttributeValue"),
        ("<EntityType Name=\"T\"><Key><PropertyRef Name=\"Id\"/></Key><Property Name=\"Id\" Type=\"Edm.Int32\"/><NavigationProperty Name=\"N\" Type=\"Edm.String\"/></EntityType>", "csdlUnresolvedType"),
    ] as [(String, String)])
    func invalidModelsGiveTypedErrors(body: String, name: String) throws {
        let error = try #require(parseError(v4(body)))
        #expect(error.name == name, "\(error)")
        #expect(error.category == .invalidInput)
        #expect(error.location?.hasPrefix("line ") == true)
    }

    @Test func v2AssociationErrorsAreTyped() throws {
        let types = """
            <EntityType Name="A"><Key><PropertyRef Name="Id"/></Key><Property Name="Id" Type="Edm.Int32" Nullable="false"/>
            <NavigationProperty Name="ToB" Relationship="NS.A_B" FromRole="A" ToRole="B"/></EntityType>
            <EntityType Name="B"><Key><PropertyRef Name="Id"/></Key><Property Name="Id" Type="Edm.Int32" Nullable="false"/></EntityType>
            """
        let association = """
            <Association Name="A_B"><End Type="NS.A" Multiplicity="1" Role="A"/><End Type="NS.B" Multiplicity="*" Role="B"/></Association>
            """
        let ok = try ServiceModel.parse(metadata: v2(types + association))
        #expect(ok.entityType(qualifiedName: "NS.A")?.navigationProperty(named: "ToB")?.isCollection == true)
        #expect(parseError(v2(types))?.name == "csdlUnresolvedAssociation")
        #expect(parseError(v2(types + association.replacingOccurrences(of: "Role=\"B\"", with: "Role=\"C\"")))?
            .name == "csdlUnresolvedAssociation")
        #expect(parseError(v2(types + association.replacingOccurrences(of: "\"*\"", with: "\"many\"")))?
            .name == "csdlInvalidAttributeValue")
        #expect(parseError(v2(types + association + """
            <EntityContainer Name="C" m:IsDefaultEntityContainer="true"><EntitySet Name="As" EntityType="NS.A"/>
            <AssociationSet Name="S" Association="NS.A_B"><End EntitySet="As" Role="A"/><End EntitySet="Bs" Role="B"/></AssociationSet>
            </EntityContainer>
            """))?.name == "csdlUnresolvedReference")
        let missingRole = try #require(parseError(v2("""
            <EntityType Name="A"><Key><PropertyRef Name="Id"/></Key><Property Name="Id" Type="Edm.Int32"/>
            <NavigationProperty Name="ToB" Relationship="NS.A_B" ToRole="B"/></EntityType>
            """)))
        #expect(missingRole.name == "csdlMissingAttribute")
        #expect(missingRole.message.contains("'FromRole'"))
        #expect(missingRole.location == "line 5, column 1")
    }

    @Test func v2MappingDetails() throws {
        let doc = Array(String(decoding: v2("""
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

    @Test func wrongDocumentKindsAreRejected() throws {
        #expect(parseError(Array("<root/>".utf8))?.name == "csdlNotMetadata")
        #expect(parseError(Array("<edmx:Edmx xmlns:edmx='urn:other'/>".utf8))?.name == "csdlNotMetadata")
        #expect(parseError(Array("<edmx:Edmx xmlns:edmx='http://docs.oasis-open.org/odata/ns/edmx'/>".utf8))?
            .name == "csdlNotMetadata")
        let v2doc = v2(Self.entity)
        #expect(throws: ODataError.self) { try ServiceModel.parse(csdlXML: v2doc) }
        #expect(throws: ODataError.self) { try ServiceModel.parse(edmxV2: v4(Self.entity)) }
        #expect(try ServiceModel.parse(edmxV2: v2doc).version == .v2)
        #expect(try ServiceModel.parse(csdlXML: v4(Self.entity)).version == .v4)
        // A V2 schema namespace inside a V4 envelope
        let mixed = Array(String(decoding: v4(Self.entity), as: UTF8.self).replacingOccurrences(
            of: "http://docs.oasis-open.org/odata/ns/edm\"", with: "http://schemas.microsoft.com/ado/2008/09/edm\"").utf8)
        #expect(parseError(mixed)?.name == "csdlNotMetadata")
    }

    /// Every prefix of real metadata files, in steps of 97 bytes, gives a typed XML error.
    @Test(.enabled(if: CSDLCorpus.available, "../shared/corpora not found"),
          arguments: ["northwind/metadata.xml", "trippin/metadata.xml", "gwsample_basic/metadata.xml"])
    func truncatedDocumentsGiveTypedErrors(file: String) throws {
        let bytes = try CSDLCorpus.bytes(file)
        var checked = 0
        for length in stride(from: 0, to: bytes.count, by: 97) {
            do {
                _ = try ServiceModel.parse(metadata: Array(bytes[0..<length]))
                Issue.record("\(file) prefix of \(length) bytes parsed")
            } catch let error as ODataError {
                #expect(error.category == .invalidInput)
                #expect((1101...1109).contains(error.code), "\(length): \(error)")
                #expect(error.location?.hasPrefix("line ") == true)
            }
            checked += 1
        }
        #expect(checked == (bytes.count + 96) / 97)
    }

    /// Random byte replacements, insertions and deletions in real metadata never crash: the
    /// result is a model or a typed input error.
    @Test(.enabled(if: CSDLCorpus.available, "../shared/corpora not found"),
          arguments: ["trippin/metadata.xml", "gwsample_basic/metadata.xml"])
    func randomMutationsNeverCrash(file: String) async throws {
        let original = try CSDLCorpus.bytes(file)
        let structural: [UInt8] = Array("<>/=\"'&;:!?[]- aZ".utf8) + [0x00, 0x0D, 0x80, 0xC3, 0xE2, 0xFF]
        let byte = zip(Gen.bool, Gen.uint8(in: 0...255), Gen.int(in: 0...(structural.count - 1)))
            .map { useStructural, raw, index in useStructural ? structural[index] : raw }
        let mutation = zip(Gen.int(in: 0...2), Gen.int(in: 0...(original.count - 1)), byte)
        await propertyCheck(count: 150, input: mutation.array(of: 1...6)) { mutations in
            var bytes = original
            for (kind, offset, value) in mutations {
                let at = min(offset, bytes.count - 1)
                switch kind {
                case 0: bytes[at] = value
                case 1: bytes.insert(value, at: at)
                default: bytes.remove(at: at)
                }
            }
            do {
                let model = try ServiceModel.parse(metadata: bytes)
                #expect(!model.schemas.isEmpty)
            } catch {
                #expect(isTypedInputError(error), "\(error)")
            }
        }
    }
}
