/// Control information of an entity (OData JSON Format 4.01 §4.5; V2 `__metadata`).
/// Every field is nil when the payload did not carry it; the writer emits what is set.
public struct ODataControlInformation: Sendable, Hashable {
    /// `@odata.context` (top-level entity payloads).
    public var context: String?
    /// `@odata.id`; V2: `__metadata.id`, else `__metadata.uri`.
    public var id: String?
    /// `@odata.etag`; V2: `__metadata.etag`.
    public var etag: String?
    /// `@odata.editLink`; V2: `__metadata.uri` when it differs from `__metadata.id`.
    public var editLink: String?
    /// `@odata.readLink`.
    public var readLink: String?
    /// `@odata.mediaReadLink`; V2: `__metadata.media_src`.
    public var mediaReadLink: String?
    /// `@odata.mediaEditLink`; V2: `__metadata.edit_media`.
    public var mediaEditLink: String?
    /// `@odata.mediaContentType`; V2: `__metadata.content_type`.
    public var mediaContentType: String?
    /// `@odata.mediaEtag`; V2: `__metadata.media_etag`.
    public var mediaETag: String?

    public init(context: String? = nil, id: String? = nil, etag: String? = nil,
                editLink: String? = nil, readLink: String? = nil, mediaReadLink: String? = nil,
                mediaEditLink: String? = nil, mediaContentType: String? = nil,
                mediaETag: String? = nil) {
        self.context = context
        self.id = id
        self.etag = etag
        self.editLink = editLink
        self.readLink = readLink
        self.mediaReadLink = mediaReadLink
        self.mediaEditLink = mediaEditLink
        self.mediaContentType = mediaContentType
        self.mediaETag = mediaETag
    }

    /// True when nothing is set.
    public var isEmpty: Bool { self == ODataControlInformation() }
}

/// An instance annotation kept verbatim: `@Namespace.term` on the entity (`target` nil) or
/// `Property@Namespace.term` on a property or navigation property (`target` = its name).
/// `term` is written without the leading `@` (`Core.Messages`, `odata.navigationLink` is not
/// an annotation: it is read as a deferred navigation).
public struct ODataAnnotation: Sendable, Hashable {
    public var target: String?
    public var term: String
    public var value: JSONValue

    public init(target: String? = nil, term: String, value: JSONValue) {
        self.target = target
        self.term = term
        self.value = value
    }
}

/// One entity read from or written to OData JSON.
///
/// `properties` holds the structural properties in payload order: declared ones converted to
/// their EDM type, and dynamic properties of open types. Navigation properties (expanded,
/// bound or deferred) are in `navigation`, in payload order.
public struct ODataEntity: Sendable, Hashable {
    /// Namespace-qualified name of the entity's type (the derived type when `@odata.type` named one).
    public var typeName: String
    public var properties: [ODataProperty]
    public var control: ODataControlInformation
    public var navigation: [ODataNavigationValue]
    public var annotations: [ODataAnnotation]

    public init(typeName: String, properties: [ODataProperty] = [],
                control: ODataControlInformation = ODataControlInformation(),
                navigation: [ODataNavigationValue] = [], annotations: [ODataAnnotation] = []) {
        self.typeName = typeName
        self.properties = properties
        self.control = control
        self.navigation = navigation
        self.annotations = annotations
    }

    /// The value of the first property with this name (declared or dynamic).
    public subscript(property name: String) -> ODataValue? {
        for property in properties where property.name == name { return property.value }
        return nil
    }

    /// The first navigation entry with this name.
    public func navigation(_ name: String) -> ODataNavigationValue? {
        navigation.first { $0.name == name }
    }

    /// Deep representation equality: like `==`, but values are compared with
    /// `ODataValue.isIdentical(to:)` (decimal scale, offsets, -0.0 kept apart).
    public func isIdentical(to other: ODataEntity) -> Bool {
        guard typeName == other.typeName, control == other.control,
              annotations == other.annotations, properties.count == other.properties.count,
              navigation.count == other.navigation.count else { return false }
        for (a, b) in zip(properties, other.properties) {
            guard a.name == b.name, a.value.isIdentical(to: b.value) else { return false }
        }
        for (a, b) in zip(navigation, other.navigation) {
            guard a.isIdentical(to: b) else { return false }
        }
        return true
    }
}
