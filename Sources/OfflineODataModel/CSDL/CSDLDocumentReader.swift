/// Reads a parsed EDMX tree (V4 or V2) into a `ServiceModel`. Internal; use
/// `ServiceModel.parse(metadata:)` and friends.
struct CSDLDocumentReader {
    enum TypeTag: Sendable {
        case entity, complex, enumeration, typeDefinition
    }

    let version: CSDLVersion
    var aliases: [String: String] = [:]
    var typeKinds: [String: TypeTag] = [:]
    /// Out-of-line `Annotations` read so far: normalised target and its annotations.
    var outOfLine: [(target: String, annotations: [CSDLAnnotation], element: XMLTreeElement)] = []

    init(version: CSDLVersion) {
        self.version = version
    }

    /// The version an `edmx:Edmx` root declares through its namespace.
    static func sniffVersion(_ root: XMLTreeElement) throws -> CSDLVersion {
        guard root.name.local == "Edmx" else {
            throw CSDLErrorCode.csdlNotMetadata.error(
                "root element <\(root.name.qualified)> is not edmx:Edmx", at: root)
        }
        switch root.name.namespace {
        case CSDLNamespaces.edmxV4: return .v4
        case CSDLNamespaces.edmxV2, "http://schemas.microsoft.com/ado/2009/11/edmx": return .v2
        default:
            throw CSDLErrorCode.csdlNotMetadata.error(
                "unknown EDMX namespace '\(root.name.namespace)'", at: root)
        }
    }

    /// Reads the whole document.
    mutating func read(root: XMLTreeElement) throws -> ServiceModel {
        collectReferenceAliases(root)
        guard let dataServices = root.children.first(where: {
            $0.name.local == "DataServices" && $0.name.namespace == root.name.namespace
        }) else {
            throw CSDLErrorCode.csdlNotMetadata.error(
                "<\(root.name.qualified)> has no edmx:DataServices", at: root)
        }
        let schemaElements = try schemaElements(of: dataServices).map {
            Self.keepingEDMElements($0, edmNamespace: $0.name.namespace)
        }
        try collectNames(schemaElements)
        var schemas: [CSDLSchema] = []
        for element in schemaElements {
            schemas.append(try readSchema(element))
        }
        var serviceVersion = root.attribute("Version")
        if version == .v2 {
            serviceVersion = dataServices.attribute(
                "DataServiceVersion", namespace: CSDLNamespaces.metadataV2)
            try resolveAssociations(&schemas)
        }
        var model = ServiceModel(version: version, serviceVersion: serviceVersion,
                                 schemas: schemas, aliases: aliases)
        try model.validate()
        for entry in outOfLine {
            model.attach(entry.annotations, target: entry.target)
        }
        return model
    }

    /// The element with every descendant outside the schema's EDM namespace removed
    /// (e.g. `atom:link`), except V4 annotation elements, which V2 documents embed.
    static func keepingEDMElements(_ element: XMLTreeElement, edmNamespace: String) -> XMLTreeElement {
        var result = element
        result.children = element.children.compactMap { child in
            guard child.name.namespace == edmNamespace
                || child.name.namespace == CSDLNamespaces.edmV4 else { return nil }
            return keepingEDMElements(child, edmNamespace: edmNamespace)
        }
        return result
    }

    mutating func collectReferenceAliases(_ root: XMLTreeElement) {
        for reference in root.children where reference.name.local == "Reference" {
            for include in reference.children where include.name.local == "Include" {
                if let alias = include.attribute("Alias"),
                   let namespace = include.attribute("Namespace") {
                    aliases[alias] = namespace
                }
            }
        }
    }

    /// The `Schema` children in the version's EDM namespace(s).
    func schemaElements(of dataServices: XMLTreeElement) throws -> [XMLTreeElement] {
        var result: [XMLTreeElement] = []
        for element in dataServices.children where element.name.local == "Schema" {
            let namespace = element.name.namespace
            let accepted = version == .v4
                ? namespace == CSDLNamespaces.edmV4
                : CSDLNamespaces.edmV2.contains(namespace)
            guard accepted else {
                throw CSDLErrorCode.csdlNotMetadata.error(
                    "<Schema> in namespace '\(namespace)' is not a \(version == .v4 ? "V4" : "V2") EDM schema",
                    at: element)
            }
            result.append(element)
        }
        return result
    }

    /// Pass 1: namespaces, aliases and the kind of every named type, so that pass 2 can
    /// resolve type references in any order.
    mutating func collectNames(_ schemaElements: [XMLTreeElement]) throws {
        for schema in schemaElements {
            let namespace = try required(schema, "Namespace")
            if let alias = schema.attribute("Alias") { aliases[alias] = namespace }
            for child in schema.children {
                let tag: TypeTag
                switch child.name.local {
                case "EntityType": tag = .entity
                case "ComplexType": tag = .complex
                case "EnumType": tag = .enumeration
                case "TypeDefinition": tag = .typeDefinition
                default: continue
                }
                let name = namespace + "." + (try required(child, "Name"))
                if typeKinds[name] != nil {
                    throw CSDLErrorCode.csdlDuplicateName.error(
                        "type '\(name)' is declared twice", at: child)
                }
                typeKinds[name] = tag
            }
        }
    }

    // MARK: - Attribute helpers

    func required(_ element: XMLTreeElement, _ attribute: String) throws -> String {
        guard let value = element.attribute(attribute), !value.isEmpty else {
            let name = element.attribute("Name").map { " '\($0)'" } ?? ""
            throw CSDLErrorCode.csdlMissingAttribute.error(
                "<\(element.name.local)>\(name) is missing required attribute '\(attribute)'",
                at: element)
        }
        return value
    }

    func bool(_ element: XMLTreeElement, _ attribute: String, namespace: String = "",
              default defaultValue: Bool) throws -> Bool {
        guard let value = element.attribute(attribute, namespace: namespace) else {
            return defaultValue
        }
        switch value.lowercased() {
        case "true", "1": return true
        case "false", "0": return false
        default:
            throw CSDLErrorCode.csdlInvalidAttributeValue.error(
                "\(attribute)=\"\(value)\" on <\(element.name.local)> is not a boolean", at: element)
        }
    }

    func optionalBool(_ element: XMLTreeElement, _ attribute: String) throws -> Bool? {
        guard element.attribute(attribute) != nil else { return nil }
        return try bool(element, attribute, default: false)
    }

    func int(_ element: XMLTreeElement, _ attribute: String) throws -> Int? {
        guard let value = element.attribute(attribute) else { return nil }
        guard let number = Int(value), number >= 0 else {
            throw CSDLErrorCode.csdlInvalidAttributeValue.error(
                "\(attribute)=\"\(value)\" on <\(element.name.local)> is not a non-negative integer",
                at: element)
        }
        return number
    }

    /// `sap:` attributes by local name.
    func sapAttributes(_ element: XMLTreeElement) -> [String: String] {
        var result: [String: String] = [:]
        for attribute in element.attributes where attribute.name.namespace == CSDLNamespaces.sap {
            result[attribute.name.local] = attribute.value
        }
        return result
    }

    func qualify(_ name: String) -> String {
        ServiceModel.resolveAlias(name, aliases: aliases)
    }

    /// Resolves a type name against the document's primitive and declared types.
    func typeReference(_ raw: String, at element: XMLTreeElement) throws -> CSDLTypeReference {
        var inner = Substring(raw)
        var isCollection = false
        if inner.hasPrefix("Collection("), inner.hasSuffix(")") {
            inner = inner.dropFirst(11).dropLast()
            isCollection = true
        }
        let qualified = qualify(String(inner))
        // For the errors only (built when one is thrown: every property passes here).
        func context() -> String { "<\(element.name.local)> '\(element.attribute("Name") ?? "")'" }
        if qualified.hasPrefix("Edm.") {
            guard let kind = ServiceModel.primitiveKind(qualified, version: version) else {
                throw CSDLErrorCode.csdlUnknownPrimitiveType.error(
                    "\(context()) has unknown primitive type '\(inner)'", at: element)
            }
            return CSDLTypeReference(kind: .primitive(kind.kind), isCollection: isCollection,
                                     v2Origin: kind.origin)
        }
        switch typeKinds[qualified] {
        case .entity: return CSDLTypeReference(kind: .entity(qualified), isCollection: isCollection)
        case .complex:
            return CSDLTypeReference(kind: .complex(qualified), isCollection: isCollection)
        case .enumeration:
            return CSDLTypeReference(kind: .enumeration(qualified), isCollection: isCollection)
        case .typeDefinition:
            return CSDLTypeReference(kind: .typeDefinition(qualified), isCollection: isCollection)
        case nil:
            throw CSDLErrorCode.csdlUnresolvedType.error(
                "\(context()) refers to unknown type '\(inner)'", at: element)
        }
    }
}
