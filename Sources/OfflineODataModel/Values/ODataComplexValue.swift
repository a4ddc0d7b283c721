/// One named property of a complex value (or a dynamic property of an open type).
public struct ODataProperty: Sendable, Hashable {
    public var name: String
    public var value: ODataValue

    public init(_ name: String, _ value: ODataValue) {
        self.name = name
        self.value = value
    }
}

/// A complex (structured) value: an optional type name and ordered properties. Properties not
/// declared by the type (dynamic properties of open types) are allowed; order is kept.
public struct ODataComplexValue: Sendable, Hashable {
    public var typeName: String?
    public var properties: [ODataProperty]

    public init(typeName: String? = nil, properties: [ODataProperty] = []) {
        self.typeName = typeName
        self.properties = properties
    }

    public init(typeName: String? = nil, _ pairs: [(String, ODataValue)]) {
        self.init(typeName: typeName, properties: pairs.map { ODataProperty($0.0, $0.1) })
    }

    /// The first property with this name.
    public subscript(name: String) -> ODataValue? {
        properties.first(where: { $0.name == name })?.value
    }
}
