/// Control information of an entity (OData JSON Format 4.01 §4.5; V2 `__metadata`).
/// Every field is nil when the payload did not carry it; the writer emits what is set.
///
/// Stored compactly: the ETag (set on nearly every stored entity) inline, every other field in
/// one shared box that exists only when one of them is set (copy-on-write). An entity read from
/// a store then carries 24 bytes of control information instead of nine optional strings
/// (144 bytes), which every copy of an entity would retain one by one.
public struct ODataControlInformation: Sendable, Hashable {
    /// `@odata.etag`; V2: `__metadata.etag`.
    public var etag: String?
    /// Every field but the ETag, boxed; nil when all of them are nil.
    private var box: Box?

    /// The fields other than the ETag.
    private struct Links: Sendable, Hashable {
        var context, id, editLink, readLink, mediaReadLink, mediaEditLink, mediaContentType, mediaETag: String?

        /// A nil check per field: the decoder makes an empty `ODataControlInformation()` for
        /// every entity, and building an empty Links to compare with was about 1 % of reading
        /// a page.
        var isEmpty: Bool {
            context == nil && id == nil && editLink == nil && readLink == nil && mediaReadLink == nil
                && mediaEditLink == nil && mediaContentType == nil && mediaETag == nil
        }
    }

    /// Immutable, so copies share it; a change stores a new box.
    private final class Box: Sendable {
        let links: Links
        init(_ links: Links) { self.links = links }
    }

    private var links: Links {
        get { box?.links ?? Links() }
        set { box = newValue.isEmpty ? nil : Box(newValue) }
    }

    public init(context: String? = nil, id: String? = nil, etag: String? = nil,
                editLink: String? = nil, readLink: String? = nil, mediaReadLink: String? = nil,
                mediaEditLink: String? = nil, mediaContentType: String? = nil,
                mediaETag: String? = nil) {
        self.etag = etag
        self.links = Links(context: context, id: id, editLink: editLink, readLink: readLink, mediaReadLink: mediaReadLink,
                           mediaEditLink: mediaEditLink, mediaContentType: mediaContentType, mediaETag: mediaETag)
    }

    /// `@odata.context` (top-level entity payloads).
    public var context: String? { get { links.context } set { links.context = newValue } }
    /// `@odata.id`; V2: `__metadata.id`, else `__metadata.uri`.
    public var id: String? { get { links.id } set { links.id = newValue } }
    /// `@odata.editLink`; V2: `__metadata.uri` when it differs from `__metadata.id`.
    public var editLink: String? { get { links.editLink } set { links.editLink = newValue } }
    /// `@odata.readLink`.
    public var readLink: String? { get { links.readLink } set { links.readLink = newValue } }
    /// `@odata.mediaReadLink`; V2: `__metadata.media_src`.
    public var mediaReadLink: String? { get { links.mediaReadLink } set { links.mediaReadLink = newValue } }
    /// `@odata.mediaEditLink`; V2: `__metadata.edit_media`.
    public var mediaEditLink: String? { get { links.mediaEditLink } set { links.mediaEditLink = newValue } }
    /// `@odata.mediaContentType`; V2: `__metadata.content_type`.
    public var mediaContentType: String? { get { links.mediaContentType } set { links.mediaContentType = newValue } }
    /// `@odata.mediaEtag`; V2: `__metadata.media_etag`.
    public var mediaETag: String? { get { links.mediaETag } set { links.mediaETag = newValue } }

    /// True when nothing is set.
    public var isEmpty: Bool { etag == nil && box == nil }

    public static func == (lhs: ODataControlInformation, rhs: ODataControlInformation) -> Bool {
        lhs.etag == rhs.etag && (lhs.box === rhs.box || lhs.links == rhs.links)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(etag)
        hasher.combine(links)
    }
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
