extension CSDLDocumentReader {
    mutating func readContainer(_ element: XMLTreeElement, namespace: String) throws
        -> CSDLEntityContainer
    {
        let isDefault = try bool(element, "IsDefaultEntityContainer",
                                 namespace: CSDLNamespaces.metadataV2, default: false)
        var container = CSDLEntityContainer(
            name: try required(element, "Name"), namespace: namespace,
            isDefault: version == .v4 || isDefault,
            annotations: try annotations(of: element), sapAttributes: sapAttributes(element),
            position: CSDLSourcePosition(element))
        for child in element.children {
            switch child.name.local {
            case "EntitySet":
                container.entitySets.append(CSDLEntitySet(
                    name: try required(child, "Name"),
                    entityType: qualify(try required(child, "EntityType")),
                    navigationPropertyBindings: try bindings(of: child),
                    includeInServiceDocument: try bool(child, "IncludeInServiceDocument",
                                                       default: true),
                    annotations: try annotations(of: child), sapAttributes: sapAttributes(child),
                    position: CSDLSourcePosition(child)))
            case "Singleton":
                container.singletons.append(CSDLSingleton(
                    name: try required(child, "Name"),
                    entityType: qualify(try required(child, "Type")),
                    navigationPropertyBindings: try bindings(of: child),
                    annotations: try annotations(of: child), position: CSDLSourcePosition(child)))
            case "FunctionImport":
                container.functionImports.append(try readFunctionImport(child))
            case "ActionImport":
                container.actionImports.append(CSDLOperationImport(
                    name: try required(child, "Name"), kind: .action,
                    operation: qualify(try required(child, "Action")),
                    entitySet: child.attribute("EntitySet"),
                    annotations: try annotations(of: child), sapAttributes: sapAttributes(child)))
            case "AssociationSet" where version == .v2:
                var ends: [CSDLAssociationSetEnd] = []
                for end in child.children where end.name.local == "End" {
                    ends.append(CSDLAssociationSetEnd(role: try required(end, "Role"),
                                                      entitySet: try required(end, "EntitySet")))
                }
                container.associationSets.append(CSDLAssociationSet(
                    name: try required(child, "Name"),
                    association: qualify(try required(child, "Association")), ends: ends,
                    sapAttributes: sapAttributes(child)))
            default:
                continue
            }
        }
        try checkUnique(container.entitySets.map(\.name) + container.singletons.map(\.name),
                        kind: "entity set or singleton", at: element)
        return container
    }

    func bindings(of element: XMLTreeElement) throws -> [CSDLNavigationPropertyBinding] {
        try element.children.filter { $0.name.local == "NavigationPropertyBinding" }.map {
            CSDLNavigationPropertyBinding(path: try required($0, "Path"),
                                          target: try required($0, "Target"))
        }
    }

    func readFunctionImport(_ element: XMLTreeElement) throws -> CSDLOperationImport {
        let name = try required(element, "Name")
        if version == .v4 {
            return CSDLOperationImport(
                name: name, kind: .function,
                operation: qualify(try required(element, "Function")),
                entitySet: element.attribute("EntitySet"),
                annotations: try annotations(of: element), sapAttributes: sapAttributes(element))
        }
        return CSDLOperationImport(
            name: name, kind: .function, entitySet: element.attribute("EntitySet"),
            returnType: element.attribute("ReturnType"),
            httpMethod: element.attribute("HttpMethod", namespace: CSDLNamespaces.metadataV2),
            parameters: try parameters(of: element),
            annotations: try annotations(of: element), sapAttributes: sapAttributes(element))
    }

    func parameters(of element: XMLTreeElement) throws -> [CSDLParameter] {
        try element.children.filter { $0.name.local == "Parameter" }.map {
            CSDLParameter(name: try required($0, "Name"), type: try required($0, "Type"),
                          isNullable: try bool($0, "Nullable", default: true),
                          mode: $0.attribute("Mode"), sapAttributes: sapAttributes($0))
        }
    }

    func readOperation(_ element: XMLTreeElement, namespace: String) throws -> CSDLOperation {
        let kind: CSDLOperationImport.Kind = element.name.local == "Action" ? .action : .function
        return CSDLOperation(
            name: try required(element, "Name"), namespace: namespace, kind: kind,
            isBound: try bool(element, "IsBound", default: false),
            isComposable: try bool(element, "IsComposable", default: false),
            entitySetPath: element.attribute("EntitySetPath"),
            parameters: try parameters(of: element),
            returnType: try element.child(named: "ReturnType").map { try required($0, "Type") },
            annotations: try annotations(of: element))
    }

    func readAssociation(_ element: XMLTreeElement, namespace: String) throws -> CSDLAssociation {
        let name = try required(element, "Name")
        var ends: [CSDLAssociationEnd] = []
        for end in element.children where end.name.local == "End" {
            let multiplicity = try required(end, "Multiplicity")
            guard ["1", "0..1", "*"].contains(multiplicity) else {
                throw CSDLErrorCode.csdlInvalidAttributeValue.error(
                    "association '\(name)' end has invalid Multiplicity '\(multiplicity)'",
                    at: end)
            }
            ends.append(CSDLAssociationEnd(
                role: try required(end, "Role"), type: qualify(try required(end, "Type")),
                multiplicity: multiplicity,
                onDelete: try end.child(named: "OnDelete").map(onDeleteAction)))
        }
        guard ends.count == 2, ends[0].role != ends[1].role else {
            throw CSDLErrorCode.csdlInvalidAttributeValue.error(
                "association '\(name)' must have two ends with distinct roles", at: element)
        }
        var constraint: CSDLAssociationConstraint?
        if let rc = element.child(named: "ReferentialConstraint") {
            guard let principal = rc.child(named: "Principal"),
                  let dependent = rc.child(named: "Dependent") else {
                throw CSDLErrorCode.csdlMissingAttribute.error(
                    "ReferentialConstraint of association '\(name)' needs Principal and Dependent",
                    at: rc)
            }
            let principalProperties = try principal.children(named: "PropertyRef").map {
                try required($0, "Name")
            }
            let dependentProperties = try dependent.children(named: "PropertyRef").map {
                try required($0, "Name")
            }
            guard principalProperties.count == dependentProperties.count,
                  !principalProperties.isEmpty else {
                throw CSDLErrorCode.csdlInvalidReferentialConstraint.error(
                    "ReferentialConstraint of association '\(name)' has \(principalProperties.count) principal and \(dependentProperties.count) dependent properties",
                    at: rc)
            }
            constraint = CSDLAssociationConstraint(
                principalRole: try required(principal, "Role"),
                principalProperties: principalProperties,
                dependentRole: try required(dependent, "Role"),
                dependentProperties: dependentProperties)
        }
        return CSDLAssociation(name: name, namespace: namespace, ends: ends,
                               referentialConstraint: constraint,
                               sapAttributes: sapAttributes(element))
    }
}
