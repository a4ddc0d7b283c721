/// `MaxLength`: a number of characters/bytes or `max`.
public enum CSDLMaxLength: Sendable, Hashable {
    case max
    case length(Int)
}

/// `Scale`: a number of digits, `variable`, or `floating` (4.01).
public enum CSDLScale: Sendable, Hashable {
    case digits(Int)
    case variable
    case floating
}

/// A structural property of an entity or complex type, with its facets.
public struct CSDLProperty: Sendable, Hashable {
    public var name: String
    public var type: CSDLTypeReference
    /// The type exactly as written (`Edm.DateTime`, `Collection(NS.Location)`).
    public var typeAsWritten: String
    /// `Nullable`, default true.
    public var isNullable: Bool
    public var maxLength: CSDLMaxLength?
    public var precision: Int?
    public var scale: CSDLScale?
    /// `SRID` as written (a number or `variable`).
    public var srid: String?
    public var isUnicode: Bool?
    /// `DefaultValue` as raw text.
    public var defaultValue: String?
    /// V2 `ConcurrencyMode` (`Fixed`/`None`).
    public var concurrencyMode: String?
    public var annotations: [CSDLAnnotation]
    /// `sap:` attributes by local name (`label`, `creatable`, `display-format`, ...).
    public var sapAttributes: [String: String]
    /// Entity Framework's `StoreGeneratedPattern` (`Identity`, `Computed`), when written: the
    /// back end generates the value.
    public var storeGeneratedPattern: String?
    public var position: CSDLSourcePosition

    public init(name: String, type: CSDLTypeReference, typeAsWritten: String? = nil,
                isNullable: Bool = true, maxLength: CSDLMaxLength? = nil, precision: Int? = nil,
                scale: CSDLScale? = nil, srid: String? = nil, isUnicode: Bool? = nil,
                defaultValue: String? = nil, concurrencyMode: String? = nil,
                annotations: [CSDLAnnotation] = [], sapAttributes: [String: String] = [:],
                storeGeneratedPattern: String? = nil,
                position: CSDLSourcePosition = CSDLSourcePosition(line: 0, column: 0)) {
        self.name = name
        self.type = type
        self.typeAsWritten = typeAsWritten ?? type.description
        self.isNullable = isNullable
        self.maxLength = maxLength
        self.precision = precision
        self.scale = scale
        self.srid = srid
        self.isUnicode = isUnicode
        self.defaultValue = defaultValue
        self.concurrencyMode = concurrencyMode
        self.annotations = annotations
        self.sapAttributes = sapAttributes
        self.storeGeneratedPattern = storeGeneratedPattern
        self.position = position
    }
}
