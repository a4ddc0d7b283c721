extension ServiceModel {
    /// Reads a `$metadata` document of either version, recognised by the `edmx:Edmx` namespace
    /// (`http://docs.oasis-open.org/odata/ns/edmx` → V4, `http://schemas.microsoft.com/ado/2007/06/edmx`
    /// → V2). Throws `ODataError` (`.invalidInput`, codes 1101–1130) for malformed XML or models.
    public static func parse(metadata: [UInt8]) throws -> ServiceModel {
        let root = try XMLTreeElement.parseDocument(metadata)
        var reader = CSDLDocumentReader(version: try CSDLDocumentReader.sniffVersion(root))
        return try reader.read(root: root)
    }

    /// Reads a CSDL 4.0/4.01 XML document; V2 EDMX is rejected with `csdlNotMetadata`.
    public static func parse(csdlXML: [UInt8]) throws -> ServiceModel {
        try parse(metadata: csdlXML, expecting: .v4)
    }

    /// Reads a V2 EDMX document (EDM namespaces 2006/04, 2007/05, 2008/09), mapping it onto the
    /// V4-shaped model; a V4 document is rejected with `csdlNotMetadata`.
    public static func parse(edmxV2: [UInt8]) throws -> ServiceModel {
        try parse(metadata: edmxV2, expecting: .v2)
    }

    static func parse(metadata: [UInt8], expecting version: CSDLVersion) throws -> ServiceModel {
        let root = try XMLTreeElement.parseDocument(metadata)
        let found = try CSDLDocumentReader.sniffVersion(root)
        guard found == version else {
            throw CSDLErrorCode.csdlNotMetadata.error(
                "expected a \(version == .v4 ? "V4 CSDL" : "V2 EDMX") document, found \(found == .v4 ? "V4" : "V2")",
                at: root)
        }
        var reader = CSDLDocumentReader(version: version)
        return try reader.read(root: root)
    }

    /// Adds the out-of-line `<Annotations Target=…>` of a separate CSDL annotation document
    /// (as SAP Fiori apps ship beside a service). Aliases of that document (its
    /// `edmx:Include`s and schema aliases) are resolved; targets naming elements of this model
    /// are attached to them, others are kept in `unattachedAnnotations`. Inline annotations of
    /// types that the document itself declares are not merged.
    public func mergeAnnotations(fromCSDL document: [UInt8]) throws -> ServiceModel {
        let root = try XMLTreeElement.parseDocument(document)
        var reader = CSDLDocumentReader(version: try CSDLDocumentReader.sniffVersion(root))
        reader.collectReferenceAliases(root)
        guard let dataServices = root.child(named: "DataServices") else {
            throw CSDLErrorCode.csdlNotMetadata.error(
                "<\(root.name.qualified)> has no edmx:DataServices", at: root)
        }
        let schemaElements = dataServices.children(named: "Schema")
        for schema in schemaElements {
            let namespace = try reader.required(schema, "Namespace")
            if let alias = schema.attribute("Alias") { reader.aliases[alias] = namespace }
        }
        var merged = self
        for schema in schemaElements {
            for element in schema.children where element.name.local == "Annotations" {
                let target = reader.normalizeTarget(try reader.required(element, "Target"))
                merged.attach(try reader.outOfLineAnnotations(element), target: target)
            }
        }
        for (alias, namespace) in reader.aliases where merged.aliases[alias] == nil {
            merged.aliases[alias] = namespace
        }
        return merged
    }
}
