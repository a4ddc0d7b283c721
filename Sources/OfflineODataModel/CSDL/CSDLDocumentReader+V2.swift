/// V2 → V4 mapping of associations:
/// - a NavigationProperty(Relationship, FromRole, ToRole) gets the ToRole end's type as target,
///   is a collection when that end's Multiplicity is `*`, non-nullable when it is `1`;
/// - Partner is the navigation property of the target type over the same association with
///   the roles swapped;
/// - the association's ReferentialConstraint becomes constraints on both directions (when the
///   declaring type is the FromRole end's type), with `property` on the declaring side and `referencedProperty` on the target side;
/// - OnDelete of the FromRole end becomes the navigation property's OnDelete;
/// - each AssociationSet adds a NavigationPropertyBinding to the entity sets of both ends.
extension CSDLDocumentReader {
    func resolveAssociations(_ schemas: inout [CSDLSchema]) throws {
        var associations: [String: CSDLAssociation] = [:]
        for schema in schemas {
            for association in schema.associations {
                associations[association.qualifiedName] = association
            }
        }
        // Entity types by qualified name (as declared) for partner lookup.
        var navigationsByType: [String: [CSDLNavigationProperty]] = [:]
        for schema in schemas {
            for type in schema.entityTypes {
                navigationsByType[type.qualifiedName] = type.navigationProperties
            }
        }
        for s in schemas.indices {
            for t in schemas[s].entityTypes.indices {
                for n in schemas[s].entityTypes[t].navigationProperties.indices {
                    let navigation = schemas[s].entityTypes[t].navigationProperties[n]
                    schemas[s].entityTypes[t].navigationProperties[n] = try resolve(
                        navigation, declaredOn: schemas[s].entityTypes[t].qualifiedName,
                        associations: associations,
                        navigationsByType: navigationsByType)
                }
            }
        }
        try bindAssociationSets(&schemas, associations: associations)
    }

    func resolve(_ navigation: CSDLNavigationProperty, declaredOn declaringType: String,
                 associations: [String: CSDLAssociation],
                 navigationsByType: [String: [CSDLNavigationProperty]]) throws
        -> CSDLNavigationProperty
    {
        guard let relationship = navigation.v2Relationship else { return navigation }
        let position = navigation.position
        guard let association = associations[relationship.association] else {
            throw CSDLErrorCode.csdlUnresolvedAssociation.error(
                "navigation property '\(navigation.name)' refers to unknown association '\(relationship.association)'",
                at: position)
        }
        guard let from = association.end(role: relationship.fromRole),
              let to = association.end(role: relationship.toRole),
              relationship.fromRole != relationship.toRole else {
            throw CSDLErrorCode.csdlUnresolvedAssociation.error(
                "navigation property '\(navigation.name)' uses roles '\(relationship.fromRole)'/'\(relationship.toRole)' that association '\(association.name)' does not define",
                at: position)
        }
        guard typeKinds[to.type] == .entity, typeKinds[from.type] == .entity else {
            throw CSDLErrorCode.csdlUnresolvedType.error(
                "association '\(association.name)' ends must be entity types ('\(from.type)', '\(to.type)')",
                at: position)
        }
        var resolved = navigation
        resolved.targetType = to.type
        resolved.isCollection = to.multiplicity == "*"
        resolved.isNullable = resolved.isCollection ? nil : to.multiplicity != "1"
        resolved.onDelete = from.onDelete
        resolved.partner = navigationsByType[to.type]?.first { candidate in
            guard let other = candidate.v2Relationship else { return false }
            return other.association == relationship.association
                && other.fromRole == relationship.toRole && other.toRole == relationship.fromRole
        }?.name
        // Some published documents (e.g. SAP's store-overview GWSAMPLE_BASIC variant) declare a
        // navigation property on a type that is not its FromRole end's type; the association's
        // constraint does not describe that type, so it is not carried over.
        if let constraint = association.referentialConstraint, from.type == declaringType {
            let pairs: [(String, String)]
            if constraint.principalRole == relationship.fromRole {
                pairs = Array(zip(constraint.principalProperties, constraint.dependentProperties))
            } else {
                pairs = Array(zip(constraint.dependentProperties, constraint.principalProperties))
            }
            resolved.referentialConstraints = pairs.map {
                CSDLReferentialConstraint(property: $0.0, referencedProperty: $0.1)
            }
        }
        return resolved
    }

    func bindAssociationSets(_ schemas: inout [CSDLSchema],
                             associations: [String: CSDLAssociation]) throws {
        var typesByName: [String: CSDLEntityType] = [:]
        for schema in schemas {
            for type in schema.entityTypes { typesByName[type.qualifiedName] = type }
        }
        for s in schemas.indices {
            for c in schemas[s].entityContainers.indices {
                let container = schemas[s].entityContainers[c]
                for set in container.associationSets {
                    let position = container.position
                    guard associations[set.association] != nil else {
                        throw CSDLErrorCode.csdlUnresolvedAssociation.error(
                            "association set '\(set.name)' refers to unknown association '\(set.association)'",
                            at: position)
                    }
                    guard set.ends.count == 2 else {
                        throw CSDLErrorCode.csdlUnresolvedAssociation.error(
                            "association set '\(set.name)' must have two ends", at: position)
                    }
                    for (i, end) in set.ends.enumerated() {
                        let other = set.ends[1 - i]
                        guard let e = container.entitySets.firstIndex(where: {
                            $0.name == end.entitySet
                        }) else {
                            throw CSDLErrorCode.csdlUnresolvedReference.error(
                                "association set '\(set.name)' refers to unknown entity set '\(end.entitySet)'",
                                at: position)
                        }
                        let typeName = schemas[s].entityContainers[c].entitySets[e].entityType
                        var navigations: [CSDLNavigationProperty] = []
                        var current = typesByName[typeName]
                        var depth = 0
                        while let type = current, depth < ServiceModel.maxInheritanceDepth {
                            navigations += type.navigationProperties
                            current = type.baseType.flatMap { typesByName[$0] }
                            depth += 1
                        }
                        for navigation in navigations {
                            guard let relationship = navigation.v2Relationship,
                                  relationship.association == set.association,
                                  relationship.fromRole == end.role else { continue }
                            let binding = CSDLNavigationPropertyBinding(
                                path: navigation.name, target: other.entitySet)
                            if !schemas[s].entityContainers[c].entitySets[e]
                                .navigationPropertyBindings.contains(binding) {
                                schemas[s].entityContainers[c].entitySets[e]
                                    .navigationPropertyBindings.append(binding)
                            }
                        }
                    }
                }
            }
        }
    }
}
