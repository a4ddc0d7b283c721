extension ServiceModel {
    /// Base-type chains longer than this are treated as broken (cycles are rejected on read).
    static let maxInheritanceDepth = 64

    public func entityType(qualifiedName: String) -> CSDLEntityType? {
        guard let location = entityTypeIndex[resolveAlias(qualifiedName)] else { return nil }
        return schemas[location.schema].entityTypes[location.index]
    }

    public func complexType(qualifiedName: String) -> CSDLComplexType? {
        guard let location = complexTypeIndex[resolveAlias(qualifiedName)] else { return nil }
        return schemas[location.schema].complexTypes[location.index]
    }

    public func enumType(qualifiedName: String) -> CSDLEnumType? {
        guard let location = enumTypeIndex[resolveAlias(qualifiedName)] else { return nil }
        return schemas[location.schema].enumTypes[location.index]
    }

    public func typeDefinition(qualifiedName: String) -> CSDLTypeDefinition? {
        guard let location = typeDefinitionIndex[resolveAlias(qualifiedName)] else { return nil }
        return schemas[location.schema].typeDefinitions[location.index]
    }

    public func association(qualifiedName: String) -> CSDLAssociation? {
        let name = resolveAlias(qualifiedName)
        for schema in schemas {
            if let found = schema.associations.first(where: { $0.qualifiedName == name }) {
                return found
            }
        }
        return nil
    }

    /// The entity set of the default container with this name (or `Container/Name`).
    public func entitySet(named name: String) -> CSDLEntitySet? {
        guard let location = containerLocation, let index = entitySetIndex[Self.localName(name)] else { return nil }
        return schemas[location.schema].entityContainers[location.index].entitySets[index]
    }

    public func singleton(named name: String) -> CSDLSingleton? {
        guard let location = containerLocation, let index = singletonIndex[Self.localName(name)] else { return nil }
        return schemas[location.schema].entityContainers[location.index].singletons[index]
    }

    /// `Container/Name` → `Name` (the last `/`-separated part; the name itself without `/`).
    static func localName(_ name: String) -> String {
        guard name.utf8.contains(UInt8(ascii: "/")) else { return name }
        return name.split(separator: "/").last.map(String.init) ?? name
    }

    /// The entity type of a set (or of a singleton: the offline store keeps one as a set of
    /// one entity), by name.
    public func entityType(ofSet name: String) -> CSDLEntityType? {
        if let set = entitySet(named: name) { return entityType(qualifiedName: set.entityType) }
        guard let singleton = singleton(named: name) else { return nil }
        return entityType(qualifiedName: singleton.entityType)
    }

    /// The type and its base types, most derived first.
    public func inheritanceChain(of type: CSDLEntityType) -> [CSDLEntityType] {
        var chain = [type]
        var current = type
        while let base = current.baseType, chain.count < Self.maxInheritanceDepth,
              let next = entityType(qualifiedName: base) {
            chain.append(next)
            current = next
        }
        return chain
    }

    /// A media entity type: it or a base type declares `HasStream="true"` (CSDL §8.1.3).
    public func isMediaType(_ type: CSDLEntityType) -> Bool {
        inheritanceChain(of: type).contains(where: \.hasStream)
    }

    /// Structural properties including inherited ones, base type's first.
    public func allProperties(of type: CSDLEntityType) -> [CSDLProperty] {
        inheritanceChain(of: type).reversed().flatMap(\.properties)
    }

    /// Navigation properties including inherited ones, base type's first.
    public func allNavigationProperties(of type: CSDLEntityType) -> [CSDLNavigationProperty] {
        inheritanceChain(of: type).reversed().flatMap(\.navigationProperties)
    }

    /// Complex type properties including inherited ones, base type's first.
    public func allProperties(ofComplex type: CSDLComplexType) -> [CSDLProperty] {
        var chain = [type]
        var current = type
        while let base = current.baseType, chain.count < Self.maxInheritanceDepth,
              let next = complexType(qualifiedName: base) {
            chain.append(next)
            current = next
        }
        return chain.reversed().flatMap(\.properties)
    }

    /// The key: the nearest declared key along the base-type chain (empty if none).
    public func key(of type: CSDLEntityType) -> [CSDLPropertyRef] {
        for candidate in inheritanceChain(of: type) {
            if let key = candidate.key { return key }
        }
        return []
    }

    /// The key's properties (for single-segment property refs), in key order.
    public func keyProperties(of type: CSDLEntityType) -> [CSDLProperty] {
        if type.baseType == nil {
            // No inheritance (most types): no chain to build (this runs for every request URL).
            return (type.key ?? []).compactMap { ref in type.properties.first { $0.name == ref.name } }
        }
        let all = allProperties(of: type)
        return key(of: type).compactMap { ref in all.first { $0.name == ref.name } }
    }

    /// Properties including inherited ones of the entity or complex type with this (alias- or
    /// namespace-) qualified name; empty when no such type exists.
    public func allProperties(of qualifiedName: String) -> [CSDLProperty] {
        if let type = entityType(qualifiedName: qualifiedName) { return allProperties(of: type) }
        if let type = complexType(qualifiedName: qualifiedName) {
            return allProperties(ofComplex: type)
        }
        return []
    }

    /// The key of the entity type with this qualified name; empty when no such type exists.
    public func key(of qualifiedName: String) -> [CSDLPropertyRef] {
        guard let type = entityType(qualifiedName: qualifiedName) else { return [] }
        return key(of: type)
    }

    /// Types whose base-type chain includes `type` (not `type` itself).
    public func derivedTypes(of type: CSDLEntityType) -> [CSDLEntityType] {
        let name = type.qualifiedName
        // A type without a base type derives from nothing: skipping those avoids building the
        // qualified names of every type of the model for each set (the store asks at every open).
        return entityTypes.filter { candidate in
            candidate.baseType != nil
                && candidate.qualifiedName != name
                && inheritanceChain(of: candidate).contains { $0.qualifiedName == name }
        }
    }

    /// A navigation property of the type or one of its base types.
    public func navigationProperty(_ name: String, of type: CSDLEntityType)
        -> CSDLNavigationProperty?
    {
        allNavigationProperties(of: type).first { $0.name == name }
    }

    /// The entity set that a navigation from the set leads to, per the set's
    /// NavigationPropertyBindings (path matched exactly, e.g. `Friends` or `NS.Flight/Airline`).
    /// Nil when unbound or bound to a singleton or containment path.
    public func navigationTarget(set: String, navigation: String) -> CSDLEntitySet? {
        let bindings = entitySet(named: set)?.navigationPropertyBindings ?? singleton(named: set)?.navigationPropertyBindings ?? []
        guard let binding = bindings.first(where: { $0.path == navigation }) else { return nil }
        return entitySet(named: binding.target)
    }

    /// The binding for a navigation path of an entity set or singleton (exact path match),
    /// whatever its target is (set, singleton, `Container/Set` or containment path).
    public func navigationBinding(source: String, navigation: String)
        -> CSDLNavigationPropertyBinding?
    {
        let bindings = entitySet(named: source)?.navigationPropertyBindings
            ?? singleton(named: source)?.navigationPropertyBindings ?? []
        return bindings.first { $0.path == navigation }
    }

    /// Resolves a type name as written in this model's documents (`Edm.String`,
    /// `Alias.Type`, `Collection(NS.Type)`; in V2 models also `Edm.DateTime`/`Edm.Time`).
    public func resolveType(_ name: String) -> CSDLTypeReference? {
        var inner = Substring(name)
        var isCollection = false
        if inner.hasPrefix("Collection("), inner.hasSuffix(")") {
            inner = inner.dropFirst(11).dropLast()
            isCollection = true
        }
        let qualified = resolveAlias(String(inner))
        if qualified.hasPrefix("Edm.") {
            guard let kind = Self.primitiveKind(qualified, version: version) else { return nil }
            return CSDLTypeReference(kind: .primitive(kind.kind), isCollection: isCollection,
                                     v2Origin: kind.origin)
        }
        if entityTypeIndex[qualified] != nil {
            return CSDLTypeReference(kind: .entity(qualified), isCollection: isCollection)
        }
        if complexTypeIndex[qualified] != nil {
            return CSDLTypeReference(kind: .complex(qualified), isCollection: isCollection)
        }
        if enumTypeIndex[qualified] != nil {
            return CSDLTypeReference(kind: .enumeration(qualified), isCollection: isCollection)
        }
        if typeDefinitionIndex[qualified] != nil {
            return CSDLTypeReference(kind: .typeDefinition(qualified), isCollection: isCollection)
        }
        return nil
    }

    /// `Edm.*` names per version: V4 accepts the EDM 4.01 names (and `Edm.PrimitiveType`);
    /// V2 also maps `Edm.DateTime` → dateTimeOffset and `Edm.Time` → timeOfDay.
    static func primitiveKind(_ name: String, version: CSDLVersion)
        -> (kind: EdmPrimitiveKind, origin: CSDLV2TypeOrigin?)?
    {
        if version == .v2 {
            if name == "Edm.DateTime" { return (.dateTimeOffset, .dateTime) }
            if name == "Edm.Time" { return (.timeOfDay, .time) }
        }
        if name == "Edm.PrimitiveType" { return (.untyped, nil) }
        guard let kind = EdmPrimitiveKind(rawValue: name) else { return nil }
        return (kind, nil)
    }
}

extension ServiceModel {
    /// The URL and payload conventions of the service: `.v2` for a V2 model (V2 literals such
    /// as `guid'…'` and `2000M`, V2 JSON), else `.v4`.
    public var urlVersion: ODataVersion { version == .v2 ? .v2 : .v4 }
}

extension ServiceModel {
    /// Whether the default container imports a function (`.function`) or an action (`.action`)
    /// of this name. A V2 function import invoked with POST (`m:HttpMethod="POST"`) has side
    /// effects: an action.
    public func operationImport(named name: String) -> CSDLOperationKind? {
        guard let found = operationImportDeclaration(named: name) else { return nil }
        if found.kind == .action { return .action }
        return found.httpMethod?.uppercased() == "POST" ? .action : .function
    }

    /// The operation import of this name in the service's containers.
    public func operationImportDeclaration(named name: String) -> CSDLOperationImport? {
        let local = Self.localName(name)
        for schema in schemas {
            for container in schema.entityContainers {
                if let found = container.functionImports.first(where: { $0.name == local }) { return found }
                if let found = container.actionImports.first(where: { $0.name == local }) { return found }
            }
        }
        return nil
    }

    /// The parameters of an operation import: a V2 import's own, a V4 import's unbound operation's
    /// (nil when the operation is not found).
    public func operationImportParameters(named name: String) -> [CSDLParameter]? {
        guard let found = operationImportDeclaration(named: name) else { return nil }
        guard let operation = found.operation else { return found.parameters }
        let qualified = resolveAlias(operation)
        for schema in schemas {
            for candidate in schema.operations where !candidate.isBound && candidate.namespace + "." + candidate.name == qualified {
                return candidate.parameters
            }
        }
        return nil
    }
}

/// A function (no side effects, GET) or an action (side effects, POST).
public enum CSDLOperationKind: Sendable, Hashable {
    case function
    case action
}
