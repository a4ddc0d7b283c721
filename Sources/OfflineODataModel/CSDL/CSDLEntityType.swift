/// One `PropertyRef` of a key: a property path and, for paths into complex properties, an alias.
public struct CSDLPropertyRef: Sendable, Hashable {
    public var name: String
    public var alias: String?

    public init(name: String, alias: String? = nil) {
        self.name = name
        self.alias = alias
    }

    /// The name a key value goes by in URLs and payloads: the alias, else the path.
    public var keyName: String { alias ?? name }
}

/// An entity type as declared (own properties only; see `ServiceModel.allProperties(of:)`
/// and `ServiceModel.key(of:)` for inherited ones).
public struct CSDLEntityType: Sendable, Hashable {
    public var name: String
    public var namespace: String
    /// Declared key, nil when the type inherits its key or is abstract without one.
    public var key: [CSDLPropertyRef]?
    /// Namespace-qualified base type.
    public var baseType: String?
    public var isAbstract: Bool
    public var isOpen: Bool
    /// `HasStream` (V4) or `m:HasStream` (V2).
    public var hasStream: Bool
    public var properties: [CSDLProperty]
    public var navigationProperties: [CSDLNavigationProperty]
    public var annotations: [CSDLAnnotation]
    public var sapAttributes: [String: String]
    public var position: CSDLSourcePosition

    public init(name: String, namespace: String, key: [CSDLPropertyRef]? = nil,
                baseType: String? = nil, isAbstract: Bool = false, isOpen: Bool = false,
                hasStream: Bool = false, properties: [CSDLProperty] = [],
                navigationProperties: [CSDLNavigationProperty] = [],
                annotations: [CSDLAnnotation] = [], sapAttributes: [String: String] = [:],
                position: CSDLSourcePosition = CSDLSourcePosition(line: 0, column: 0)) {
        self.name = name
        self.namespace = namespace
        self.key = key
        self.baseType = baseType
        self.isAbstract = isAbstract
        self.isOpen = isOpen
        self.hasStream = hasStream
        self.properties = properties
        self.navigationProperties = navigationProperties
        self.annotations = annotations
        self.sapAttributes = sapAttributes
        self.position = position
    }

    public var qualifiedName: String { namespace + "." + name }

    public func property(named name: String) -> CSDLProperty? {
        properties.first { $0.name == name }
    }

    public func navigationProperty(named name: String) -> CSDLNavigationProperty? {
        navigationProperties.first { $0.name == name }
    }
}
