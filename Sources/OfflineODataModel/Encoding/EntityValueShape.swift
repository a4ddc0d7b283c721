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
