/// What a property, parameter or return type refers to.
public enum CSDLTypeKind: Sendable, Hashable {
    case primitive(EdmPrimitiveKind)
    /// A complex type, by namespace-qualified name.
    case complex(String)
    /// An enum type, by namespace-qualified name.
    case enumeration(String)
    /// An entity type, by namespace-qualified name.
    case entity(String)
    /// A type definition, by namespace-qualified name (its underlying type is on the definition).
    case typeDefinition(String)
}

/// Which V2 primitive a V4 kind was mapped from.
public enum CSDLV2TypeOrigin: String, Sendable, Hashable {
    /// `Edm.DateTime` (read as `dateTimeOffset`; values carry no offset in V2 payloads).
    case dateTime = "Edm.DateTime"
    /// `Edm.Time` (read as `timeOfDay`).
    case time = "Edm.Time"
}

/// A resolved type reference: the kind, whether it is `Collection(...)`, and for V2 documents
/// whether the kind was mapped from `Edm.DateTime`/`Edm.Time`.
public struct CSDLTypeReference: Sendable, Hashable, CustomStringConvertible {
    public var kind: CSDLTypeKind
    public var isCollection: Bool
    public var v2Origin: CSDLV2TypeOrigin?

    public init(kind: CSDLTypeKind, isCollection: Bool = false, v2Origin: CSDLV2TypeOrigin? = nil) {
        self.kind = kind
        self.isCollection = isCollection
        self.v2Origin = v2Origin
    }

    /// True when the type was written `Edm.DateTime` in a V2 document.
    public var isV2DateTime: Bool { v2Origin == .dateTime }

    /// The primitive kind, nil for structured, enum and type-definition references.
    public var primitiveKind: EdmPrimitiveKind? {
        if case let .primitive(kind) = kind { return kind }
        return nil
    }

    /// The qualified name of the referenced type (`Edm.String`, `NS.Address`), without
    /// `Collection(...)`.
    public var qualifiedName: String {
        switch kind {
        case let .primitive(kind): kind.rawValue
        case let .complex(name), let .enumeration(name), let .entity(name),
             let .typeDefinition(name): name
        }
    }

    public var description: String {
        isCollection ? "Collection(\(qualifiedName))" : qualifiedName
    }
}
