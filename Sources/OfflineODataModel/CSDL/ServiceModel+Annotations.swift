extension ServiceModel {
    /// A model element an annotation target names.
    enum AnnotationTarget {
        case schema(Int)
        case entityType(Location)
        case entityProperty(Location, Int)
        case entityNavigation(Location, Int)
        case complexType(Location)
        case complexProperty(Location, Int)
        case complexNavigation(Location, Int)
        case enumType(Location)
        case enumMember(Location, Int)
        case typeDefinition(Location)
        case operation(Location)
        case container(Location)
        case entitySet(Location, Int)
        case singleton(Location, Int)
        case functionImport(Location, Int)
        case actionImport(Location, Int)
    }

    /// Resolves a namespace-qualified target path (`NS.Type`, `NS.Type/Property`,
    /// `NS.Container/Set`, `NS.Enum/Member`, `NS.Function(...)`) to a model element.
    func locate(_ target: String) -> AnnotationTarget? {
        let segments = target.split(separator: "/").map(String.init)
        guard let head = segments.first, segments.count <= 2 else { return nil }
        let member = segments.count == 2 ? segments[1] : nil
        if let open = head.firstIndex(of: "(") {
            guard member == nil else { return nil }
            return locateOperation(String(head[..<open]))
        }
        if member == nil, let s = schemas.firstIndex(where: { $0.namespace == head }) {
            return .schema(s)
        }
        if let location = entityTypeIndex[head] {
            let type = schemas[location.schema].entityTypes[location.index]
            guard let member else { return .entityType(location) }
            if let p = type.properties.firstIndex(where: { $0.name == member }) {
                return .entityProperty(location, p)
            }
            if let n = type.navigationProperties.firstIndex(where: { $0.name == member }) {
                return .entityNavigation(location, n)
            }
            return nil
        }
        if let location = complexTypeIndex[head] {
            let type = schemas[location.schema].complexTypes[location.index]
            guard let member else { return .complexType(location) }
            if let p = type.properties.firstIndex(where: { $0.name == member }) {
                return .complexProperty(location, p)
            }
            if let n = type.navigationProperties.firstIndex(where: { $0.name == member }) {
                return .complexNavigation(location, n)
            }
            return nil
        }
        if let location = enumTypeIndex[head] {
            guard let member else { return .enumType(location) }
            let type = schemas[location.schema].enumTypes[location.index]
            return type.members.firstIndex { $0.name == member }.map { .enumMember(location, $0) }
        }
        if let location = typeDefinitionIndex[head] {
            return member == nil ? .typeDefinition(location) : nil
        }
        for (s, schema) in schemas.enumerated() {
            guard let c = schema.entityContainers.firstIndex(where: { $0.qualifiedName == head })
            else { continue }
            let location = Location(schema: s, index: c)
            guard let member else { return .container(location) }
            let container = schema.entityContainers[c]
            if let e = container.entitySets.firstIndex(where: { $0.name == member }) {
                return .entitySet(location, e)
            }
            if let e = container.singletons.firstIndex(where: { $0.name == member }) {
                return .singleton(location, e)
            }
            if let e = container.functionImports.firstIndex(where: { $0.name == member }) {
                return .functionImport(location, e)
            }
            if let e = container.actionImports.firstIndex(where: { $0.name == member }) {
                return .actionImport(location, e)
            }
            return nil
        }
        return member == nil ? locateOperation(head) : nil
    }

    func locateOperation(_ name: String) -> AnnotationTarget? {
        for (s, schema) in schemas.enumerated() {
            if let o = schema.operations.firstIndex(where: { $0.qualifiedName == name }) {
                return .operation(Location(schema: s, index: o))
            }
        }
        return nil
    }

    /// Adds annotations to the element the (normalised) target names, or keeps them in
    /// `unattachedAnnotations` when it names nothing this model holds.
    mutating func attach(_ annotations: [CSDLAnnotation], target: String) {
        guard !annotations.isEmpty else { return }
        guard let located = locate(target) else {
            unattachedAnnotations[target, default: []] += annotations
            return
        }
        switch located {
        case let .schema(s): schemas[s].annotations += annotations
        case let .entityType(l): schemas[l.schema].entityTypes[l.index].annotations += annotations
        case let .entityProperty(l, p):
            schemas[l.schema].entityTypes[l.index].properties[p].annotations += annotations
        case let .entityNavigation(l, n):
            schemas[l.schema].entityTypes[l.index].navigationProperties[n].annotations +=
                annotations
        case let .complexType(l):
            schemas[l.schema].complexTypes[l.index].annotations += annotations
        case let .complexProperty(l, p):
            schemas[l.schema].complexTypes[l.index].properties[p].annotations += annotations
        case let .complexNavigation(l, n):
            schemas[l.schema].complexTypes[l.index].navigationProperties[n].annotations +=
                annotations
        case let .enumType(l): schemas[l.schema].enumTypes[l.index].annotations += annotations
        case let .enumMember(l, m):
            schemas[l.schema].enumTypes[l.index].members[m].annotations += annotations
        case let .typeDefinition(l):
            schemas[l.schema].typeDefinitions[l.index].annotations += annotations
        case let .operation(l): schemas[l.schema].operations[l.index].annotations += annotations
        case let .container(l):
            schemas[l.schema].entityContainers[l.index].annotations += annotations
        case let .entitySet(l, e):
            schemas[l.schema].entityContainers[l.index].entitySets[e].annotations += annotations
        case let .singleton(l, e):
            schemas[l.schema].entityContainers[l.index].singletons[e].annotations += annotations
        case let .functionImport(l, e):
            schemas[l.schema].entityContainers[l.index].functionImports[e].annotations +=
                annotations
        case let .actionImport(l, e):
            schemas[l.schema].entityContainers[l.index].actionImports[e].annotations +=
                annotations
        }
    }

    /// All annotations of the element a target path names, inline and out-of-line, in the
    /// order read. The target may use this model's aliases (`SAP__self.Type/Property`).
    public func annotations(target: String) -> [CSDLAnnotation] {
        let normalized = Self.normalizeTarget(target, aliases: aliases)
        guard let located = locate(normalized) else {
            return unattachedAnnotations[normalized] ?? []
        }
        switch located {
        case let .schema(s): return schemas[s].annotations
        case let .entityType(l): return schemas[l.schema].entityTypes[l.index].annotations
        case let .entityProperty(l, p):
            return schemas[l.schema].entityTypes[l.index].properties[p].annotations
        case let .entityNavigation(l, n):
            return schemas[l.schema].entityTypes[l.index].navigationProperties[n].annotations
        case let .complexType(l): return schemas[l.schema].complexTypes[l.index].annotations
        case let .complexProperty(l, p):
            return schemas[l.schema].complexTypes[l.index].properties[p].annotations
        case let .complexNavigation(l, n):
            return schemas[l.schema].complexTypes[l.index].navigationProperties[n].annotations
        case let .enumType(l): return schemas[l.schema].enumTypes[l.index].annotations
        case let .enumMember(l, m):
            return schemas[l.schema].enumTypes[l.index].members[m].annotations
        case let .typeDefinition(l): return schemas[l.schema].typeDefinitions[l.index].annotations
        case let .operation(l): return schemas[l.schema].operations[l.index].annotations
        case let .container(l): return schemas[l.schema].entityContainers[l.index].annotations
        case let .entitySet(l, e):
            return schemas[l.schema].entityContainers[l.index].entitySets[e].annotations
        case let .singleton(l, e):
            return schemas[l.schema].entityContainers[l.index].singletons[e].annotations
        case let .functionImport(l, e):
            return schemas[l.schema].entityContainers[l.index].functionImports[e].annotations
        case let .actionImport(l, e):
            return schemas[l.schema].entityContainers[l.index].actionImports[e].annotations
        }
    }

    /// The annotation with this term (namespace- or alias-qualified) and qualifier on a target.
    public func annotation(target: String, term: String, qualifier: String? = nil)
        -> CSDLAnnotation?
    {
        let qualifiedTerm = resolveAlias(term)
        return annotations(target: target).first {
            ($0.term == qualifiedTerm || $0.termAsWritten == term) && $0.qualifier == qualifier
        }
    }
}
