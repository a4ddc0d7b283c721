/// The declared shape of a property value.
public indirect enum EntityValueShape: Sendable, Hashable {
    /// A primitive kind (`.untyped` accepts any value).
    case primitive(EdmPrimitiveKind)
    /// An enumeration type, by qualified name.
    case enumType(String)
    /// A complex type: its qualified name and declared properties (values may add dynamic ones).
    case complex(typeName: String, properties: [EntityPropertyDescriptor])
    /// A collection of the element shape.
    case collection(EntityValueShape)

    /// Whether `value` (non-null) has this shape; nested complex values are checked by name.
    func accepts(_ value: ODataValue) -> Bool {
        switch (self, value) {
        case (.primitive(.untyped), _): return true
        case let (.primitive(kind), _): return value.kind == kind
        case (.enumType, .enumValue): return true
        case (.complex, .complex): return true
        case (.collection, .collection): return true
        default: return false
        }
    }
}

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

/// The values of one entity, laid out by an `EntityLayout`.
public struct EntityRecord: Sendable, Hashable {
    /// One slot per declared property: nil = absent (not known, e.g. not selected),
    /// `.null` = known to be null.
    public var values: [ODataValue?]
    /// Properties not in the layout (dynamic properties of open types), in order.
    public var dynamicProperties: [ODataProperty]

    public init(values: [ODataValue?], dynamicProperties: [ODataProperty] = []) {
        self.values = values
        self.dynamicProperties = dynamicProperties
    }

    /// Representation equality (see `ODataValue.isIdentical`).
    public func isIdentical(to other: EntityRecord) -> Bool {
        values.count == other.values.count
            && zip(values, other.values).allSatisfy { left, right in
                switch (left, right) {
                case (nil, nil): return true
                case let (l?, r?): return l.isIdentical(to: r)
                default: return false
                }
            }
            && dynamicProperties.count == other.dynamicProperties.count
            && zip(dynamicProperties, other.dynamicProperties).allSatisfy {
                $0.name == $1.name && $0.value.isIdentical(to: $1.value)
            }
    }
}
