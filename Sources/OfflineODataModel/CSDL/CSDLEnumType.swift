/// One enum member; `value` is the declared value or the implicit one (previous + 1, from 0).
public struct CSDLEnumMember: Sendable, Hashable {
    public var name: String
    public var value: Int64
    public var isValueImplicit: Bool
    public var annotations: [CSDLAnnotation]

    public init(name: String, value: Int64, isValueImplicit: Bool = false,
                annotations: [CSDLAnnotation] = []) {
        self.name = name
        self.value = value
        self.isValueImplicit = isValueImplicit
        self.annotations = annotations
    }
}

/// An enum type.
public struct CSDLEnumType: Sendable, Hashable {
    public var name: String
    public var namespace: String
    /// `UnderlyingType`, default `Edm.Int32`.
    public var underlyingType: EdmPrimitiveKind
    public var isFlags: Bool
    public var members: [CSDLEnumMember]
    public var annotations: [CSDLAnnotation]
    public var position: CSDLSourcePosition

    public init(name: String, namespace: String, underlyingType: EdmPrimitiveKind = .int32,
                isFlags: Bool = false, members: [CSDLEnumMember] = [],
                annotations: [CSDLAnnotation] = [],
                position: CSDLSourcePosition = CSDLSourcePosition(line: 0, column: 0)) {
        self.name = name
        self.namespace = namespace
        self.underlyingType = underlyingType
        self.isFlags = isFlags
        self.members = members
        self.annotations = annotations
        self.position = position
    }

    public var qualifiedName: String { namespace + "." + name }

    public func member(named name: String) -> CSDLEnumMember? {
        members.first { $0.name == name }
    }
}

/// A type definition: a named primitive type with facets.
public struct CSDLTypeDefinition: Sendable, Hashable {
    public var name: String
    public var namespace: String
    public var underlyingType: EdmPrimitiveKind
    public var maxLength: CSDLMaxLength?
    public var precision: Int?
    public var scale: CSDLScale?
    public var srid: String?
    public var isUnicode: Bool?
    public var annotations: [CSDLAnnotation]
    public var position: CSDLSourcePosition

    public init(name: String, namespace: String, underlyingType: EdmPrimitiveKind,
                maxLength: CSDLMaxLength? = nil, precision: Int? = nil, scale: CSDLScale? = nil,
                srid: String? = nil, isUnicode: Bool? = nil, annotations: [CSDLAnnotation] = [],
                position: CSDLSourcePosition = CSDLSourcePosition(line: 0, column: 0)) {
        self.name = name
        self.namespace = namespace
        self.underlyingType = underlyingType
        self.maxLength = maxLength
        self.precision = precision
        self.scale = scale
        self.srid = srid
        self.isUnicode = isUnicode
        self.annotations = annotations
        self.position = position
    }

    public var qualifiedName: String { namespace + "." + name }
}
