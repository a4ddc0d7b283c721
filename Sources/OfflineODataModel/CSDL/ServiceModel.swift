/// The OData service model read from a `$metadata` document (CSDL XML, V2 EDMX or V4),
/// as a plain `Sendable` value. Build one with `ServiceModel.parse(metadata:)`.
///
/// Qualified names in the model are always namespace-qualified: aliases used in the document
/// are resolved while reading. Lookups accept alias-qualified names too.
public struct ServiceModel: Sendable, Hashable {
    struct Location: Sendable, Hashable {
        var schema: Int
        var index: Int
    }

    public var version: CSDLVersion
    /// V4: `edmx:Edmx/@Version` (`4.0`, `4.01`). V2: `m:DataServiceVersion` (`1.0`…`3.0`).
    public var serviceVersion: String?
    /// The schemas; changing them rebuilds the lookup indexes.
    public var schemas: [CSDLSchema] {
        didSet { rebuildIndex() }
    }
    /// Alias → namespace, from `Schema/@Alias` and `edmx:Include/@Alias`.
    public var aliases: [String: String]
    /// Out-of-line annotations whose target is not an element this model keeps
    /// (e.g. operation parameters, paths into complex properties), by normalised target.
    public var unattachedAnnotations: [String: [CSDLAnnotation]]

    var entityTypeIndex: [String: Location] = [:]
    var complexTypeIndex: [String: Location] = [:]
    var enumTypeIndex: [String: Location] = [:]
    var typeDefinitionIndex: [String: Location] = [:]
    /// The default container (`entityContainer`) and its sets and singletons by name (the
    /// first of a name wins, as a scan would find it): binding looks them up many times per
    /// request, and `entityContainer` used to collect every schema's containers each time.
    var containerLocation: Location?
    var entitySetIndex: [String: Int] = [:]
    var singletonIndex: [String: Int] = [:]

    public init(version: CSDLVersion, serviceVersion: String? = nil, schemas: [CSDLSchema],
                aliases: [String: String] = [:],
                unattachedAnnotations: [String: [CSDLAnnotation]] = [:]) {
        self.version = version
        self.serviceVersion = serviceVersion
        self.schemas = schemas
        self.aliases = aliases
        self.unattachedAnnotations = unattachedAnnotations
        rebuildIndex()
    }

    mutating func rebuildIndex() {
        entityTypeIndex = [:]
        complexTypeIndex = [:]
        enumTypeIndex = [:]
        typeDefinitionIndex = [:]
        containerLocation = nil
        entitySetIndex = [:]
        singletonIndex = [:]
        var firstContainer: Location?
        for (s, schema) in schemas.enumerated() {
            for (i, container) in schema.entityContainers.enumerated() {
                if firstContainer == nil { firstContainer = Location(schema: s, index: i) }
                if containerLocation == nil, container.isDefault { containerLocation = Location(schema: s, index: i) }
            }
            for (i, type) in schema.entityTypes.enumerated() {
                entityTypeIndex[type.qualifiedName] = Location(schema: s, index: i)
            }
            for (i, type) in schema.complexTypes.enumerated() {
                complexTypeIndex[type.qualifiedName] = Location(schema: s, index: i)
            }
            for (i, type) in schema.enumTypes.enumerated() {
                enumTypeIndex[type.qualifiedName] = Location(schema: s, index: i)
            }
            for (i, type) in schema.typeDefinitions.enumerated() {
                typeDefinitionIndex[type.qualifiedName] = Location(schema: s, index: i)
            }
        }
        if containerLocation == nil { containerLocation = firstContainer }
        if let location = containerLocation {
            let container = schemas[location.schema].entityContainers[location.index]
            for (i, set) in container.entitySets.enumerated() where entitySetIndex[set.name] == nil { entitySetIndex[set.name] = i }
            for (i, singleton) in container.singletons.enumerated() where singletonIndex[singleton.name] == nil {
                singletonIndex[singleton.name] = i
            }
        }
    }

    // MARK: - Collections over all schemas

    public var entityTypes: [CSDLEntityType] { schemas.flatMap(\.entityTypes) }
    public var complexTypes: [CSDLComplexType] { schemas.flatMap(\.complexTypes) }
    public var enumTypes: [CSDLEnumType] { schemas.flatMap(\.enumTypes) }
    public var typeDefinitions: [CSDLTypeDefinition] { schemas.flatMap(\.typeDefinitions) }
    public var associations: [CSDLAssociation] { schemas.flatMap(\.associations) }
    public var operations: [CSDLOperation] { schemas.flatMap(\.operations) }

    /// The default entity container (V2 `m:IsDefaultEntityContainer`), else the first one.
    public var entityContainer: CSDLEntityContainer? {
        guard let location = containerLocation else { return nil }
        return schemas[location.schema].entityContainers[location.index]
    }

    /// Entity sets of the default container.
    public var entitySets: [CSDLEntitySet] { entityContainer?.entitySets ?? [] }
    public var singletons: [CSDLSingleton] { entityContainer?.singletons ?? [] }

    // MARK: - Names

    /// Replaces a leading alias (`Alias.Name`) by its namespace; other names are returned as is.
    public func resolveAlias(_ qualifiedName: String) -> String {
        Self.resolveAlias(qualifiedName, aliases: aliases)
    }

    static func resolveAlias(_ qualifiedName: String, aliases: [String: String]) -> String {
        // Byte-wise: '.' is ASCII, so its UTF-8 index is a valid String index (a Character-wise
        // search was most of the alias resolution done for every type reference of a model).
        guard !aliases.isEmpty, let dot = qualifiedName.utf8.lastIndex(of: UInt8(ascii: ".")) else { return qualifiedName }
        let prefix = String(qualifiedName[..<dot])
        guard let namespace = aliases[prefix] else { return qualifiedName }
        return namespace + qualifiedName[dot...]
    }
}
