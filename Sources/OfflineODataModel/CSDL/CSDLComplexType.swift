/// A complex type as declared (own properties; `ServiceModel.allProperties(ofComplex:)` adds
/// inherited ones).
public struct CSDLComplexType: Sendable, Hashable {
    public var name: String
    public var namespace: String
    public var baseType: String?
    public var isAbstract: Bool
    public var isOpen: Bool
    public var properties: [CSDLProperty]
    public var navigationProperties: [CSDLNavigationProperty]
    public var annotations: [CSDLAnnotation]
    public var sapAttributes: [String: String]
    public var position: CSDLSourcePosition

    public init(name: String, namespace: String, baseType: String? = nil,
                isAbstract: Bool = false, isOpen: Bool = false, properties: [CSDLProperty] = [],
                navigationProperties: [CSDLNavigationProperty] = [],
                annotations: [CSDLAnnotation] = [], sapAttributes: [String: String] = [:],
                position: CSDLSourcePosition = CSDLSourcePosition(line: 0, column: 0)) {
        self.name = name
        self.namespace = namespace
        self.baseType = baseType
        self.isAbstract = isAbstract
        self.isOpen = isOpen
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
}
