extension ServiceModel {
    /// Checks cross-references after reading: base types exist and do not loop, keys name
    /// existing properties, navigation partners and constraints resolve, sets name entity types,
    /// bindings name sets. Throws the first problem found.
    func validate() throws {
        for type in entityTypes { try checkBaseChain(of: type) }
        for type in complexTypes { try checkBaseChain(of: type) }
        for type in entityTypes {
            try checkKey(of: type)
            for navigation in type.navigationProperties {
                try check(navigation, declaredOn: allProperties(of: type))
            }
        }
        for type in complexTypes {
            for navigation in type.navigationProperties {
                try check(navigation, declaredOn: allProperties(ofComplex: type))
            }
        }
        for schema in schemas {
            for container in schema.entityContainers { try check(container) }
        }
    }

    /// The facts of a structured type that its base-type chain check needs.
    private struct ChainLink {
        var qualifiedName: String
        var baseType: String?
        var position: CSDLSourcePosition
    }

    func checkBaseChain(of type: CSDLEntityType) throws {
        try checkBaseChain(
            start: ChainLink(qualifiedName: type.qualifiedName, baseType: type.baseType, position: type.position),
            kind: "entity type"
        ) { name in
            entityType(qualifiedName: name).map { ChainLink(qualifiedName: $0.qualifiedName, baseType: $0.baseType, position: $0.position) }
        }
    }

    func checkBaseChain(of type: CSDLComplexType) throws {
        try checkBaseChain(
            start: ChainLink(qualifiedName: type.qualifiedName, baseType: type.baseType, position: type.position),
            kind: "complex type"
        ) { name in
            complexType(qualifiedName: name).map { ChainLink(qualifiedName: $0.qualifiedName, baseType: $0.baseType, position: $0.position) }
        }
    }

    /// Every base type resolves, and the chain neither loops nor exceeds the depth limit.
    private func checkBaseChain(start: ChainLink, kind: String, resolve: (String) -> ChainLink?) throws {
        var seen: Set<String> = [start.qualifiedName]
        var current = start
        while let base = current.baseType {
            guard let next = resolve(base) else {
                throw CSDLErrorCode.csdlUnresolvedType.error(
                    "\(kind) '\(current.qualifiedName)' has unknown base type '\(base)'",
                    at: current.position)
            }
            guard seen.insert(next.qualifiedName).inserted,
                  seen.count <= Self.maxInheritanceDepth else {
                throw CSDLErrorCode.csdlBaseTypeCycle.error(
                    "base type chain of \(kind) '\(start.qualifiedName)' loops through '\(next.qualifiedName)'",
                    at: start.position)
            }
            current = next
        }
    }

    func checkKey(of type: CSDLEntityType) throws {
        let chain = inheritanceChain(of: type)
        guard chain.contains(where: { $0.key != nil }) else {
            if type.isAbstract { return }
            throw CSDLErrorCode.csdlInvalidKey.error(
                "entity type '\(type.qualifiedName)' has no key and is not abstract",
                at: type.position)
        }
        guard let key = type.key else { return }
        let properties = allProperties(of: type)
        for ref in key {
            let segments = ref.name.split(separator: "/").map(String.init)
            var candidates = properties
            var found: CSDLProperty?
            for (i, segment) in segments.enumerated() {
                found = candidates.first { $0.name == segment }
                guard let property = found else { break }
                if i < segments.count - 1 {
                    guard case let .complex(name) = property.type.kind,
                          let complex = complexType(qualifiedName: name) else {
                        found = nil
                        break
                    }
                    candidates = allProperties(ofComplex: complex)
                }
            }
            guard let property = found else {
                throw CSDLErrorCode.csdlInvalidKey.error(
                    "key of entity type '\(type.qualifiedName)' refers to missing property '\(ref.name)'",
                    at: type.position)
            }
            if property.type.isCollection {
                throw CSDLErrorCode.csdlInvalidKey.error(
                    "key property '\(ref.name)' of entity type '\(type.qualifiedName)' is a collection",
                    at: property.position)
            }
        }
    }

    func check(_ navigation: CSDLNavigationProperty, declaredOn properties: [CSDLProperty])
        throws
    {
        guard let target = entityType(qualifiedName: navigation.targetType) else {
            throw CSDLErrorCode.csdlUnresolvedType.error(
                "navigation property '\(navigation.name)' targets unknown entity type '\(navigation.targetType)'",
                at: navigation.position)
        }
        if let partner = navigation.partner,
           self.navigationProperty(partner, of: target) == nil {
            throw CSDLErrorCode.csdlUnresolvedReference.error(
                "partner '\(partner)' of navigation property '\(navigation.name)' is not a navigation property of '\(target.qualifiedName)'",
                at: navigation.position)
        }
        let targetProperties = allProperties(of: target)
        for constraint in navigation.referentialConstraints {
            let own = constraint.property.split(separator: "/").first.map(String.init) ?? ""
            let referenced = constraint.referencedProperty.split(separator: "/").first
                .map(String.init) ?? ""
            guard properties.contains(where: { $0.name == own }) else {
                throw CSDLErrorCode.csdlInvalidReferentialConstraint.error(
                    "referential constraint of navigation property '\(navigation.name)' names missing property '\(constraint.property)'",
                    at: navigation.position)
            }
            guard targetProperties.contains(where: { $0.name == referenced }) else {
                throw CSDLErrorCode.csdlInvalidReferentialConstraint.error(
                    "referential constraint of navigation property '\(navigation.name)' names property '\(constraint.referencedProperty)' missing on '\(target.qualifiedName)'",
                    at: navigation.position)
            }
        }
    }

    func check(_ container: CSDLEntityContainer) throws {
        let names = Set(container.entitySets.map(\.name) + container.singletons.map(\.name))
        func checkBindings(_ bindings: [CSDLNavigationPropertyBinding], of source: String,
                           at position: CSDLSourcePosition) throws {
            for binding in bindings where !binding.target.contains("/") {
                guard names.contains(binding.target) else {
                    throw CSDLErrorCode.csdlUnresolvedReference.error(
                        "binding '\(binding.path)' of '\(source)' targets unknown entity set '\(binding.target)'",
                        at: position)
                }
            }
        }
        for set in container.entitySets {
            guard entityType(qualifiedName: set.entityType) != nil else {
                throw CSDLErrorCode.csdlUnresolvedType.error(
                    "entity set '\(set.name)' has unknown entity type '\(set.entityType)'",
                    at: set.position)
            }
            try checkBindings(set.navigationPropertyBindings, of: set.name, at: set.position)
        }
        for singleton in container.singletons {
            guard entityType(qualifiedName: singleton.entityType) != nil else {
                throw CSDLErrorCode.csdlUnresolvedType.error(
                    "singleton '\(singleton.name)' has unknown entity type '\(singleton.entityType)'",
                    at: singleton.position)
            }
            try checkBindings(singleton.navigationPropertyBindings, of: singleton.name,
                              at: singleton.position)
        }
    }
}
