/// The CSDL XML (OData 4.0) document of the generated service.
extension SalesServiceGenerator {
    /// A complete `$metadata` document: the `Address` complex type, the five entity types with
    /// keys, facets (`MaxLength`, `Precision`, `Scale`, `Nullable`), navigation properties with
    /// `Partner` and `ReferentialConstraint`, and the entity container with
    /// `NavigationPropertyBinding`s. It does not depend on seed or scale.
    public func metadataXML() -> String {
        Self.metadataXML
    }

    static let metadataXML: String = renderMetadata()

    static func renderMetadata() -> String {
        let ns = SalesServiceSchema.namespace
        var xml = """
            <?xml version="1.0" encoding="utf-8"?>
            <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">
              <edmx:DataServices>
                <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="\(ns)">

            """
        xml += "      <ComplexType Name=\"Address\">\n"
        for property in SalesServiceSchema.addressProperties {
            xml += "        " + propertyElement(property) + "\n"
        }
        xml += "      </ComplexType>\n"
        for set in SalesEntitySet.allCases {
            xml += "      <EntityType Name=\"\(set.entityTypeName)\">\n        <Key>\n"
            for key in set.keyProperties {
                xml += "          <PropertyRef Name=\"\(key)\"/>\n"
            }
            xml += "        </Key>\n"
            for property in SalesServiceSchema.properties(of: set) {
                xml += "        " + propertyElement(property) + "\n"
            }
            for navigation in SalesServiceSchema.navigations(of: set) {
                let target = ns + "." + navigation.target.entityTypeName
                let type = navigation.isCollection ? "Collection(\(target))" : target
                xml += "        <NavigationProperty Name=\"\(navigation.name)\" Type=\"\(type)\""
                if !navigation.isCollection { xml += " Nullable=\"false\"" }
                xml += " Partner=\"\(navigation.partner)\""
                if navigation.constraints.isEmpty {
                    xml += "/>\n"
                } else {
                    xml += ">\n"
                    for constraint in navigation.constraints {
                        xml += "          <ReferentialConstraint Property=\"\(constraint.property)\""
                        xml += " ReferencedProperty=\"\(constraint.referencedProperty)\"/>\n"
                    }
                    xml += "        </NavigationProperty>\n"
                }
            }
            xml += "      </EntityType>\n"
        }
        xml += "      <EntityContainer Name=\"\(SalesServiceSchema.containerName)\">\n"
        for set in SalesEntitySet.allCases {
            xml += "        <EntitySet Name=\"\(set.name)\" EntityType=\"\(ns).\(set.entityTypeName)\">\n"
            for navigation in SalesServiceSchema.navigations(of: set) {
                xml += "          <NavigationPropertyBinding Path=\"\(navigation.name)\" Target=\"\(navigation.target.name)\"/>\n"
            }
            xml += "        </EntitySet>\n"
        }
        xml += """
                  </EntityContainer>
                </Schema>
              </edmx:DataServices>
            </edmx:Edmx>

            """
        return xml
    }

    static func propertyElement(_ property: SalesServiceSchema.Property) -> String {
        var element = "<Property Name=\"\(property.name)\" Type=\"\(property.type)\""
        element += property.nullable ? "" : " Nullable=\"false\""
        if let maxLength = property.maxLength { element += " MaxLength=\"\(maxLength)\"" }
        if let precision = property.precision { element += " Precision=\"\(precision)\"" }
        if let scale = property.scale { element += " Scale=\"\(scale)\"" }
        return element + "/>"
    }
}
