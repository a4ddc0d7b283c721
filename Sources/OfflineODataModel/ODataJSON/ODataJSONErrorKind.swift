/// Errors of the OData JSON format layer: codes 1250–1299 (the upper half of the JSON range;
/// 1201–1215 belong to the plain JSON layer). Listed in docs/ODataJSON.md.
public enum ODataJSONErrorKind: Int, Sendable, Hashable, CaseIterable {
    /// A member that is neither a declared property, a navigation property nor an annotation,
    /// on a type that is not open (unless `ignoreUnknownProperties`).
    case unknownProperty = 1250
    /// A property value of the wrong JSON type or with text its EDM type does not accept.
    case invalidPropertyValue = 1251
    /// An entity without one of its key properties.
    case missingKeyProperty = 1252
    /// `null` for a property declared `Nullable="false"`.
    case nullNotAllowed = 1253
    /// `@odata.type` (or V2 `__metadata.type`) naming no type, a type of the wrong kind, or a
    /// type that does not derive from the expected one.
    case invalidTypeAnnotation = 1254
    /// An entity set or type name given by the caller that the model does not have.
    case unknownModelElement = 1255
    /// The payload does not have the shape of an entity / collection (an array where an entity
    /// is expected, a navigation property that is a number, `results` that is not an array, …).
    case invalidPayloadShape = 1256
    /// Entities and complex values nested deeper than `ODataJSONReaderOptions.maxNesting`.
    case nestingTooDeep = 1257
    /// Control information of the wrong JSON type (`@odata.count` not an integer, `@odata.bind`
    /// not a string, an `@odata.etag` that is a number, …).
    case invalidControlInformation = 1258
    /// The writer was given a value its declared type cannot carry (invalid GeoJSON text,
    /// a value with no JSON form).
    case unwritableValue = 1259
    /// Reported by `validate(entity:)`: a value that violates a facet (MaxLength, Precision,
    /// Scale, Nullable) or has a kind other than the declared type. Not raised when reading.
    case facetViolation = 1270

    public var name: String {
        switch self {
        case .unknownProperty: "unknownProperty"
        case .invalidPropertyValue: "invalidPropertyValue"
        case .missingKeyProperty: "missingKeyProperty"
        case .nullNotAllowed: "nullNotAllowed"
        case .invalidTypeAnnotation: "invalidTypeAnnotation"
        case .unknownModelElement: "unknownModelElement"
        case .invalidPayloadShape: "invalidPayloadShape"
        case .nestingTooDeep: "nestingTooDeep"
        case .invalidControlInformation: "invalidControlInformation"
        case .unwritableValue: "unwritableValue"
        case .facetViolation: "facetViolation"
        }
    }

    public var code: Int { rawValue }

    public var category: ODataErrorCategory {
        switch self {
        case .unknownModelElement: .notFound
        default: .invalidInput
        }
    }

    public func error(_ message: String, location: String? = nil) -> ODataError {
        ODataError(category, name: name, code: code, message: message, location: location)
    }
}
