import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import OfflineODataFixtures
import Testing

/// Collects elements (local name + attributes, with their parent chain) from an XML document.
final class ElementCollector: NSObject, XMLParserDelegate {
    struct Element {
        let name: String
        let attributes: [String: String]
        let parents: [String]
    }

    var elements: [Element] = []
    private(set) var stack: [String] = []

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        elements.append(Element(name: elementName, attributes: attributeDict, parents: stack))
        stack.append(elementName)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?) {
        if stack.last == elementName {
            stack.removeLast()
        } else {
            mismatches.append("</\(elementName)> closes <\(stack.last ?? "nothing")> at line \(parser.lineNumber)")
        }
    }

    private(set) var mismatches: [String] = []

    /// The elements of a well-formed document, or why it is not well-formed. Besides
    /// XMLParser's verdict this checks tag balance itself: swift-corelibs' XMLParser accepts
    /// documents that end with open elements or close the wrong element.
    static func check(_ data: Data) -> Result<[Element], XMLCheckFailure> {
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        let collector = ElementCollector()
        parser.delegate = collector
        guard parser.parse() else {
            return .failure(XMLCheckFailure(reason: "XMLParser: \(parser.parserError.map { "\($0)" } ?? "?") at line \(parser.lineNumber)"))
        }
        if let mismatch = collector.mismatches.first { return .failure(XMLCheckFailure(reason: mismatch)) }
        guard collector.stack.isEmpty else {
            return .failure(XMLCheckFailure(reason: "ends with unclosed elements \(collector.stack)"))
        }
        guard !collector.elements.isEmpty else { return .failure(XMLCheckFailure(reason: "no root element")) }
        return .success(collector.elements)
    }

    static func parse(_ data: Data) throws -> [Element] {
        try check(data).get()
    }
}

struct XMLCheckFailure: Error, CustomStringConvertible {
    let reason: String
    var description: String { "XML is not well-formed: \(reason)" }
}

@Suite struct SalesServiceMetadataTests {
    let xml = SalesServiceGenerator(seed: 1, scale: .tiny).metadataXML()

    @Test func metadataIsWellFormedAndDeclaresEverySetAndKey() throws {
        let elements = try ElementCollector.parse(Data(xml.utf8))
        #expect(elements.first?.name == "Edmx" && elements.first?.attributes["Version"] == "4.0")
        let schema = try #require(elements.first { $0.name == "Schema" })
        #expect(schema.attributes["Namespace"] == SalesServiceSchema.namespace)
        let sets = elements.filter { $0.name == "EntitySet" }
        #expect(Set(sets.compactMap { $0.attributes["Name"] }) == Set(SalesEntitySet.allCases.map(\.name)))
        for set in SalesEntitySet.allCases {
            let declared = sets.first { $0.attributes["Name"] == set.name }
            #expect(declared?.attributes["EntityType"] == SalesServiceSchema.namespace + "." + set.entityTypeName)
            // Keys: the PropertyRefs that follow this type's EntityType element, up to the next type.
            guard let start = elements.firstIndex(where: { $0.name == "EntityType" && $0.attributes["Name"] == set.entityTypeName })
            else {
                Issue.record("no EntityType \(set.entityTypeName)")
                continue
            }
            let rest = elements[(start + 1)...]
            let end = rest.firstIndex { $0.name == "EntityType" || $0.name == "EntityContainer" } ?? elements.endIndex
            let body = elements[(start + 1)..<end]
            #expect(body.filter { $0.name == "PropertyRef" }.compactMap { $0.attributes["Name"] } == set.keyProperties)
            let properties = body.filter { $0.name == "Property" }
            #expect(properties.compactMap { $0.attributes["Name"] } == SalesServiceSchema.properties(of: set).map(\.name))
            for key in set.keyProperties {
                #expect(properties.first { $0.attributes["Name"] == key }?.attributes["Nullable"] == "false",
                        "key \(key) must be non-nullable")
            }
            // Every navigation property has a Partner, a binding in the container, and a
            // ReferentialConstraint on the single-valued (foreign key) side.
            let navigations = body.filter { $0.name == "NavigationProperty" }
            #expect(navigations.count == SalesServiceSchema.navigations(of: set).count)
            for position in body.indices where body[position].name == "NavigationProperty" {
                let navigation = body[position]
                #expect(navigation.attributes["Partner"] != nil)
                let name = navigation.attributes["Name"] ?? ""
                let isCollection = navigation.attributes["Type"]?.hasPrefix("Collection(") == true
                let constraints = body[(position + 1)...].prefix { $0.name == "ReferentialConstraint" }
                if isCollection {
                    #expect(constraints.isEmpty, "\(set.entityTypeName).\(name) is a collection with a constraint")
                } else {
                    #expect(!constraints.isEmpty, "\(set.entityTypeName).\(name) has no constraint")
                    #expect(constraints.allSatisfy { $0.parents.last == "NavigationProperty" })
                    let dependent = constraints.compactMap { $0.attributes["Property"] }
                    #expect(dependent.allSatisfy { key in properties.contains { $0.attributes["Name"] == key } })
                }
                let bindings = elements.filter { $0.name == "NavigationPropertyBinding" && $0.attributes["Path"] == name }
                #expect(!bindings.isEmpty, "no binding for \(name)")
            }
        }
        // Facets.
        let decimals = elements.filter { $0.name == "Property" && $0.attributes["Type"] == "Edm.Decimal" }
        #expect(!decimals.isEmpty && decimals.allSatisfy { $0.attributes["Precision"] != nil && $0.attributes["Scale"] == "3" })
        #expect(elements.contains { $0.name == "ComplexType" && $0.attributes["Name"] == "Address" })
        #expect(elements.contains { $0.attributes["Name"] == "Price" && $0.attributes["Precision"] == "16" })
    }

    /// The well-formedness check itself rejects a broken document (so the test above can fail).
    @Test func checkerRejectsTruncatedMetadata() {
        let truncated = Data(xml.utf8.prefix(xml.utf8.count / 2))
        #expect(throws: XMLCheckFailure.self) { try ElementCollector.check(truncated).get() }
        #expect(throws: XMLCheckFailure.self) { try ElementCollector.check(Data("<a><b></a>".utf8)).get() }
        #expect(throws: XMLCheckFailure.self) { try ElementCollector.check(Data("<a x='1></a>".utf8)).get() }
    }

    @Test func partnersArePairedBothWays() {
        for set in SalesEntitySet.allCases {
            for navigation in SalesServiceSchema.navigations(of: set) {
                let back = SalesServiceSchema.navigations(of: navigation.target).first { $0.name == navigation.partner }
                #expect(back?.partner == navigation.name && back?.target == set,
                        "\(set.entityTypeName).\(navigation.name) ↔ \(navigation.partner)")
            }
        }
    }

    @Test func metadataDoesNotDependOnSeedOrScale() {
        #expect(SalesServiceGenerator(seed: 9, scale: .large).metadataXML() == xml)
    }

    /// The generated model follows GWSAMPLE_BASIC: every property it declares exists on the
    /// corresponding GWSAMPLE_BASIC entity type (except SalesOrder.DeliveryDate, an item field there).
    @Test(.enabled(if: FixtureTestSupport.corporaAvailable, "../shared/corpora not found; corpus check skipped"))
    func propertyNamesComeFromGWSampleBasic() throws {
        let url = FixtureTestSupport.corporaURL.appendingPathComponent("gwsample_basic/metadata.xml")
        let elements = try ElementCollector.parse(try Data(contentsOf: url))
        var current = ""
        var gwProperties: [String: Set<String>] = [:]
        for element in elements {
            if element.name == "EntityType" || element.name == "ComplexType" { current = element.attributes["Name"] ?? "" }
            if element.name == "Property" { gwProperties[current, default: []].insert(element.attributes["Name"] ?? "") }
        }
        let typeMap: [SalesEntitySet: String] = [
            .businessPartners: "BusinessPartner", .contacts: "Contact", .products: "Product",
            .salesOrders: "SalesOrder", .salesOrderItems: "SalesOrderLineItem",
        ]
        for set in SalesEntitySet.allCases {
            let known = gwProperties[typeMap[set] ?? ""] ?? []
            for property in SalesServiceSchema.properties(of: set).map(\.name)
            where !(set == .salesOrders && property == "DeliveryDate") {
                #expect(known.contains(property), "\(set.entityTypeName).\(property) is not in GWSAMPLE_BASIC")
            }
        }
        #expect(gwProperties["CT_Address"] == Set(SalesServiceSchema.addressProperties.map(\.name)))
    }
}
