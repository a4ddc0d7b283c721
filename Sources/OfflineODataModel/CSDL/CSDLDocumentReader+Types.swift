extension CSDLDocumentReader {
    mutating func readSchema(_ element: XMLTreeElement) throws -> CSDLSchema {
        let namespace = try required(element, "Namespace")
        var schema = CSDLSchema(namespace: namespace, alias: element.attribute("Alias"),
                                sapAttributes: sapAttributes(element))
        for child in element.children {
            switch child.name.local {
            case "EntityType":
                schema.entityTypes.append(try readEntityType(child, namespace: namespace))
            case "ComplexType":
                schema.complexTypes.append(try readComplexType(child, namespace: namespace))
            case "EnumType":
                schema.enumTypes.append(try readEnumType(child, namespace: namespace))
            case "TypeDefinition":
                schema.typeDefinitions.append(try readTypeDefinition(child, namespace: namespace))
            case "Function", "Action":
                schema.operations.append(try readOperation(child, namespace: namespace))
            case "Association" where version == .v2:
                schema.associations.append(try readAssociation(child, namespace: namespace))
            case "EntityContainer":
                schema.entityContainers.append(try readContainer(child, namespace: namespace))
            case "Annotation":
                schema.annotations.append(try annotation(child))
            case "Annotations":
                let target = try required(child, "Target")
                outOfLine.append((normalizeTarget(target), try outOfLineAnnotations(child), child))
            default:
                continue
            }
        }
        return schema
    }

    func checkUnique(_ names: [String], kind: String, at element: XMLTreeElement) throws {
        var seen = Set<String>()
        for name in names where !seen.insert(name).inserted {
            throw CSDLErrorCode.csdlDuplicateName.error(
                "\(kind) '\(name)' is declared twice in <\(element.name.local)>", at: element)
        }
    }

    mutating func readEntityType(_ element: XMLTreeElement, namespace: String) throws
        -> CSDLEntityType
    {
        let name = try required(element, "Name")
        let hasStream = try bool(element, "HasStream", default: false)
        let hasStreamV2 = try bool(element, "HasStream", namespace: CSDLNamespaces.metadataV2,
                                   default: false)
        var type = CSDLEntityType(
            name: name, namespace: namespace,
            baseType: element.attribute("BaseType").map(qualify),
            isAbstract: try bool(element, "Abstract", default: false),
            isOpen: try bool(element, "OpenType", default: false),
            hasStream: hasStream || hasStreamV2,
            annotations: try annotations(of: element),
            sapAttributes: sapAttributes(element), position: CSDLSourcePosition(element))
        for child in element.children {
            switch child.name.local {
            case "Key":
                var refs: [CSDLPropertyRef] = []
                for ref in child.children where ref.name.local == "PropertyRef" {
                    refs.append(CSDLPropertyRef(name: try required(ref, "Name"),
                                                alias: ref.attribute("Alias")))
                }
                if refs.isEmpty {
                    throw CSDLErrorCode.csdlInvalidKey.error(
                        "<Key> of entity type '\(name)' has no PropertyRef", at: child)
                }
                type.key = refs
            case "Property":
                type.properties.append(try readProperty(child))
            case "NavigationProperty":
                type.navigationProperties.append(try readNavigationProperty(child))
            default:
                continue
            }
        }
        try checkUnique(type.properties.map(\.name) + type.navigationProperties.map(\.name),
                        kind: "property", at: element)
        return type
    }

    mutating func readComplexType(_ element: XMLTreeElement, namespace: String) throws
        -> CSDLComplexType
    {
        var type = CSDLComplexType(
            name: try required(element, "Name"), namespace: namespace,
            baseType: element.attribute("BaseType").map(qualify),
            isAbstract: try bool(element, "Abstract", default: false),
            isOpen: try bool(element, "OpenType", default: false),
            annotations: try annotations(of: element),
            sapAttributes: sapAttributes(element), position: CSDLSourcePosition(element))
        for child in element.children {
            switch child.name.local {
            case "Property": type.properties.append(try readProperty(child))
            case "NavigationProperty":
                type.navigationProperties.append(try readNavigationProperty(child))
            default: continue
            }
        }
        try checkUnique(type.properties.map(\.name) + type.navigationProperties.map(\.name),
                        kind: "property", at: element)
        return type
    }

    func readEnumType(_ element: XMLTreeElement, namespace: String) throws -> CSDLEnumType {
        let name = try required(element, "Name")
        var underlying = EdmPrimitiveKind.int32
        if let raw = element.attribute("UnderlyingType") {
            let kind = EdmPrimitiveKind(rawValue: qualify(raw))
            guard let kind, [.byte, .sbyte, .int16, .int32, .int64].contains(kind) else {
                throw CSDLErrorCode.csdlInvalidAttributeValue.error(
                    "enum type '\(name)' has invalid UnderlyingType '\(raw)'", at: element)
            }
            underlying = kind
        }
        var type = CSDLEnumType(name: name, namespace: namespace, underlyingType: underlying,
                                isFlags: try bool(element, "IsFlags", default: false),
                                annotations: try annotations(of: element),
                                position: CSDLSourcePosition(element))
        var next: Int64 = 0
        for member in element.children where member.name.local == "Member" {
            let memberName = try required(member, "Name")
            var value = next
            var implicit = true
            if let raw = member.attribute("Value") {
                guard let parsed = Int64(raw) else {
                    throw CSDLErrorCode.csdlInvalidAttributeValue.error(
                        "member '\(memberName)' of enum type '\(name)' has invalid Value '\(raw)'",
                        at: member)
                }
                value = parsed
                implicit = false
            }
            type.members.append(CSDLEnumMember(name: memberName, value: value,
                                               isValueImplicit: implicit,
                                               annotations: try annotations(of: member)))
            next = value == Int64.max ? value : value + 1
        }
        try checkUnique(type.members.map(\.name), kind: "member", at: element)
        return type
    }

    func readTypeDefinition(_ element: XMLTreeElement, namespace: String) throws
        -> CSDLTypeDefinition
    {
        let name = try required(element, "Name")
        let raw = try required(element, "UnderlyingType")
        guard let kind = ServiceModel.primitiveKind(qualify(raw), version: version)?.kind else {
            throw CSDLErrorCode.csdlUnknownPrimitiveType.error(
                "type definition '\(name)' has unknown primitive UnderlyingType '\(raw)'",
                at: element)
        }
        return CSDLTypeDefinition(
            name: name, namespace: namespace, underlyingType: kind,
            maxLength: try maxLength(element), precision: try int(element, "Precision"),
            scale: try scale(element), srid: element.attribute("SRID"),
            isUnicode: try optionalBool(element, "Unicode"),
            annotations: try annotations(of: element), position: CSDLSourcePosition(element))
    }

    func maxLength(_ element: XMLTreeElement) throws -> CSDLMaxLength? {
        guard let raw = element.attribute("MaxLength") else { return nil }
        if raw.lowercased() == "max" { return .max }
        guard let value = try int(element, "MaxLength") else { return nil }
        return .length(value)
    }

    func scale(_ element: XMLTreeElement) throws -> CSDLScale? {
        guard let raw = element.attribute("Scale") else { return nil }
        switch raw.lowercased() {
        case "variable": return .variable
        case "floating": return .floating
        default:
            guard let value = try int(element, "Scale") else { return nil }
            return .digits(value)
        }
    }

    func readProperty(_ element: XMLTreeElement) throws -> CSDLProperty {
        let name = try required(element, "Name")
        let rawType = try required(element, "Type")
        return CSDLProperty(
            name: name, type: try typeReference(rawType, at: element), typeAsWritten: rawType,
            isNullable: try bool(element, "Nullable", default: true),
            maxLength: try maxLength(element), precision: try int(element, "Precision"),
            scale: try scale(element), srid: element.attribute("SRID"),
            isUnicode: try optionalBool(element, "Unicode"),
            defaultValue: element.attribute("DefaultValue"),
            concurrencyMode: element.attribute("ConcurrencyMode"),
            annotations: try annotations(of: element), sapAttributes: sapAttributes(element),
            storeGeneratedPattern: element.attributes.first {
                $0.name.namespace == CSDLNamespaces.entityFrameworkAnnotation && $0.name.local == "StoreGeneratedPattern"
            }?.value,
            position: CSDLSourcePosition(element))
    }

    func readNavigationProperty(_ element: XMLTreeElement) throws -> CSDLNavigationProperty {
        let name = try required(element, "Name")
        let position = CSDLSourcePosition(element)
        if version == .v2 {
            // Target, cardinality, partner and constraints come from the association later.
            let relationship = CSDLV2Relationship(
                association: qualify(try required(element, "Relationship")),
                fromRole: try required(element, "FromRole"),
                toRole: try required(element, "ToRole"))
            return CSDLNavigationProperty(
                name: name, targetType: "", isCollection: false, v2Relationship: relationship,
                annotations: try annotations(of: element), sapAttributes: sapAttributes(element),
                position: position)
        }
        let rawType = try required(element, "Type")
        let type = try typeReference(rawType, at: element)
        guard case let .entity(target) = type.kind else {
            throw CSDLErrorCode.csdlUnresolvedType.error(
                "navigation property '\(name)' has type '\(rawType)', which is not an entity type",
                at: element)
        }
        var navigation = CSDLNavigationProperty(
            name: name, targetType: target, isCollection: type.isCollection,
            isNullable: try optionalBool(element, "Nullable"),
            partner: element.attribute("Partner"),
            containsTarget: try bool(element, "ContainsTarget", default: false),
            annotations: try annotations(of: element), sapAttributes: sapAttributes(element),
            position: position)
        for child in element.children {
            switch child.name.local {
            case "ReferentialConstraint":
                navigation.referentialConstraints.append(CSDLReferentialConstraint(
                    property: try required(child, "Property"),
                    referencedProperty: try required(child, "ReferencedProperty")))
            case "OnDelete":
                navigation.onDelete = try onDeleteAction(child)
            default:
                continue
            }
        }
        return navigation
    }

    func onDeleteAction(_ element: XMLTreeElement) throws -> CSDLOnDeleteAction {
        let raw = try required(element, "Action")
        guard let action = CSDLOnDeleteAction(rawValue: raw) else {
            throw CSDLErrorCode.csdlInvalidAttributeValue.error(
                "OnDelete Action '\(raw)' is not Cascade, None, SetNull or SetDefault", at: element)
        }
        return action
    }
}
