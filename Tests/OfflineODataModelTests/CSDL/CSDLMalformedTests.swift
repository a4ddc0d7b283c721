import PropertyBased
import Testing
@testable import OfflineODataModel

@Suite struct CSDLMalformedTests {
    static let entity = """
        <EntityType Name="T"><Key><PropertyRef Name="Id"/></Key>
          <Property Name="Id" Type="Edm.Int32" Nullable="false"/>
        </EntityType>
        """

    @Test func wellFormedMinimalDocumentParses() throws {
        let model = try ServiceModel.parse(metadata: CSDLTestDocument.v4(Self.entity))
        #expect(model.entityType(qualifiedName: "NS.T")?.key == [CSDLPropertyRef(name: "Id")])
    }

    @Test func editingSchemasKeepsLookupsConsistent() throws {
        var model = try ServiceModel.parse(metadata: CSDLTestDocument.v4(Self.entity + """
            <EntityType Name="U"><Key><PropertyRef Name="Id"/></Key><Property Name="Id" Type="Edm.Int32"/></EntityType>
            """))
        #expect(model.entityType(qualifiedName: "NS.U") != nil)
        model.schemas[0].entityTypes.removeFirst()
        #expect(model.entityType(qualifiedName: "NS.T") == nil)
        #expect(model.entityType(qualifiedName: "NS.U")?.name == "U")
        #expect(model.annotations(target: "NS.T").isEmpty)
        model.schemas.removeAll()
        #expect(model.entityType(qualifiedName: "NS.U") == nil)
        #expect(model.annotations(target: "NS.U").isEmpty)
    }

    @Test func keyPathIntoComplexPropertyWithAlias() throws {
        let model = try ServiceModel.parse(metadata: CSDLTestDocument.v4("""
            <ComplexType Name="Info"><Property Name="Code" Type="Edm.String" Nullable="false"/></ComplexType>
            <EntityType Name="T"><Key><PropertyRef Name="Info/Code" Alias="Code"/></Key>
              <Property Name="Info" Type="NS.Info" Nullable="false"/>
            </EntityType>
            """))
        let type = try #require(model.entityType(qualifiedName: "NS.T"))
        #expect(model.key(of: type) == [CSDLPropertyRef(name: "Info/Code", alias: "Code")])
        #expect(model.key(of: type).map(\.keyName) == ["Code"])
        let bad = try #require(CSDLTestDocument.parseError(CSDLTestDocument.v4("""
            <ComplexType Name="Info"><Property Name="Code" Type="Edm.String"/></ComplexType>
            <EntityType Name="T"><Key><PropertyRef Name="Info/Nope" Alias="Code"/></Key>
              <Property Name="Info" Type="NS.Info" Nullable="false"/>
            </EntityType>
            """)))
        #expect(bad.name == "csdlInvalidKey")
        #expect(bad.message.contains("Info/Nope"))
    }

    @Test func elementsOfForeignNamespacesAreIgnored() throws {
        let model = try ServiceModel.parse(metadata: CSDLTestDocument.v4("""
            <EntityType Name="T"><Key><PropertyRef Name="Id"/></Key>
              <Property Name="Id" Type="Edm.Int32" Nullable="false"/>
              <x:Property xmlns:x="urn:x" Name="Odd" Type="Edm.Foo"/>
            </EntityType>
            """))
        #expect(model.entityType(qualifiedName: "NS.T")?.properties.map(\.name) == ["Id"])
    }

    @Test func mismatchedTagNamesElementAndLine() throws {
        let error = try #require(CSDLTestDocument.parseError(CSDLTestDocument.v4("""
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
        let error = try #require(CSDLTestDocument.parseError(CSDLTestDocument.v4("""
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
        let error = try #require(CSDLTestDocument.parseError(CSDLTestDocument.v4("""
            <EntityType Name="T"><Key><PropertyRef Name="Id"/></Key>
              <Property Name="Id" Type="Edm.DateTime" Nullable="false"/>
            </EntityType>
            """)))
        #expect(error.name == "csdlUnknownPrimitiveType")
    }

    @Test func unknownStructuredTypeIsTyped() throws {
        let error = try #require(CSDLTestDocument.parseError(CSDLTestDocument.v4("""
            <EntityType Name="T"><Key><PropertyRef Name="Id"/></Key>
              <Property Name="Id" Type="Edm.Int32" Nullable="false"/>
              <Property Name="A" Type="Collection(NS.Missing)"/>
            </EntityType>
            """)))
        #expect(error.name == "csdlUnresolvedType")
        #expect(error.message.contains("NS.Missing"))
    }

    @Test func keyReferringToMissingPropertyIsTyped() throws {
        let error = try #require(CSDLTestDocument.parseError(CSDLTestDocument.v4("""
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
        let error = try #require(CSDLTestDocument.parseError(CSDLTestDocument.v4("""
            <EntityType Name="T"><Property Name="Id" Type="Edm.Int32"/></EntityType>
            """)))
        #expect(error.name == "csdlInvalidKey")
        let model = try ServiceModel.parse(metadata: CSDLTestDocument.v4("""
            <EntityType Name="Base" Abstract="true"><Property Name="Id" Type="Edm.Int32"/></EntityType>
            <EntityType Name="T" BaseType="NS.Base"><Key><PropertyRef Name="Id"/></Key></EntityType>
            """))
        let type = try #require(model.entityType(qualifiedName: "NS.T"))
        #expect(model.keyProperties(of: type).map(\.name) == ["Id"])
    }

    @Test func baseTypeCycleIsTyped() throws {
        let error = try #require(CSDLTestDocument.parseError(CSDLTestDocument.v4("""
            <EntityType Name="A" BaseType="NS.C"><Key><PropertyRef Name="Id"/></Key>
              <Property Name="Id" Type="Edm.Int32" Nullable="false"/></EntityType>
            <EntityType Name="B" BaseType="NS.A"/>
            <EntityType Name="C" BaseType="NS.B"/>
            """)))
        #expect(error.name == "csdlBaseTypeCycle")
        #expect(error.code == 1125)
        #expect(error.location == "line 5, column 1")
        let selfCycle = try #require(CSDLTestDocument.parseError(CSDLTestDocument.v4("""
            <ComplexType Name="X" BaseType="NS.X"/>
            """)))
        #expect(selfCycle.name == "csdlBaseTypeCycle")
    }

    @Test func unknownBaseTypeIsTyped() throws {
        let error = try #require(CSDLTestDocument.parseError(CSDLTestDocument.v4("""
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
        let error = try #require(CSDLTestDocument.parseError(CSDLTestDocument.v4(body)))
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
        let error = try #require(CSDLTestDocument.parseError(CSDLTestDocument.v4(body)))
        #expect(error.name == name, "\(error)")
        #expect(error.category == .invalidInput)
        #expect(error.location?.hasPrefix("line ") == true)
    }

    @Test func wrongDocumentKindsAreRejected() throws {
        #expect(CSDLTestDocument.parseError(Array("<root/>".utf8))?.name == "csdlNotMetadata")
        #expect(CSDLTestDocument.parseError(Array("<edmx:Edmx xmlns:edmx='urn:other'/>".utf8))?.name == "csdlNotMetadata")
        #expect(CSDLTestDocument.parseError(Array("<edmx:Edmx xmlns:edmx='http://docs.oasis-open.org/odata/ns/edmx'/>".utf8))?
            .name == "csdlNotMetadata")
        let v2doc = CSDLTestDocument.v2(Self.entity)
        #expect(throws: ODataError.self) { try ServiceModel.parse(csdlXML: v2doc) }
        #expect(throws: ODataError.self) { try ServiceModel.parse(edmxV2: CSDLTestDocument.v4(Self.entity)) }
        #expect(try ServiceModel.parse(edmxV2: v2doc).version == .v2)
        #expect(try ServiceModel.parse(csdlXML: CSDLTestDocument.v4(Self.entity)).version == .v4)
        // A V2 schema namespace inside a V4 envelope
        let mixed = Array(String(decoding: CSDLTestDocument.v4(Self.entity), as: UTF8.self).replacingOccurrences(
            of: "http://docs.oasis-open.org/odata/ns/edm\"", with: "http://schemas.microsoft.com/ado/2008/09/edm\"").utf8)
        #expect(CSDLTestDocument.parseError(mixed)?.name == "csdlNotMetadata")
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
                #expect(CSDLTestDocument.isTypedInputError(error), "\(error)")
            }
        }
    }
}
