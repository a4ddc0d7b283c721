/// One declared property: name, shape, nullability.
public struct EntityPropertyDescriptor: Sendable, Hashable {
    public var name: String
    public var shape: EntityValueShape
    public var isNullable: Bool

    public init(name: String, shape: EntityValueShape, isNullable: Bool = true) {
        self.name = name
        self.shape = shape
        self.isNullable = isNullable
    }

    public init(_ name: String, _ kind: EdmPrimitiveKind, isNullable: Bool = true) {
        self.init(name: name, shape: .primitive(kind), isNullable: isNullable)
    }
}

/// The ordered declared properties of an entity type. New properties are only ever appended
/// (additive metadata), so bytes written with an older layout stay readable.
public struct EntityLayout: Sendable, Hashable {
    public var properties: [EntityPropertyDescriptor]

    public init(_ properties: [EntityPropertyDescriptor]) {
        self.properties = properties
    }

    /// Index of the declared property with this name.
    public func index(of name: String) -> Int? { properties.firstIndex { $0.name == name } }
}
