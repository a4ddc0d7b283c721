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

/// A failure while converting a payload, with the JSON path collected on the way out
/// (innermost component first), so the success path pays nothing for path tracking.
struct ODataJSONFailure: Error {
    var kind: ODataJSONErrorKind
    var message: String
    var reversedPath: [JSONPathComponent] = []

    init(_ kind: ODataJSONErrorKind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// Path components still to be dropped (the member an annotation error is reported on
    /// replaces the member being read, which the caller adds next).
    var skipNext = 0

    func adding(_ component: JSONPathComponent) -> ODataJSONFailure {
        var copy = self
        if copy.skipNext > 0 {
            copy.skipNext -= 1
        } else {
            copy.reversedPath.append(component)
        }
        return copy
    }

    /// Located at a sibling member (`Name@odata.type`) instead of the member being read.
    func atSibling(_ key: String) -> ODataJSONFailure {
        var copy = adding(.key(key))
        copy.skipNext += 1
        return copy
    }

    /// The public error; `prefix` are the path components above the converted value.
    func error(prefix: [JSONPathComponent]) -> ODataError {
        kind.error(message, location: JSONPath.render(prefix + reversedPath.reversed()))
    }
}

enum ODataJSONText {
    /// A short rendering of a JSON value for messages (`"abc"`, `12.5`, `an object`).
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return clip(n.text)
        case .string(let s): return "\"" + clip(JSONScanner.escapedForMessage(s)) + "\""
        case .array: return "an array " + clip(String(decoding: value.serialized(), as: UTF8.self))
        case .object: return "an object " + clip(String(decoding: value.serialized(), as: UTF8.self))
        }
    }

    static func clip(_ text: String, limit: Int = 80) -> String {
        text.count <= limit ? text : String(text.prefix(limit)) + "…"
    }
}
