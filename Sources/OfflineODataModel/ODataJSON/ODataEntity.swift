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
    /// Every field but the ETag; nil when all of them are nil.
    private var links: Links?

    /// The fields other than the ETag, shared between copies until one changes.
    private final class Links: Sendable {
        let context: String?, id: String?, editLink: String?, readLink: String?
        let mediaReadLink: String?, mediaEditLink: String?, mediaContentType: String?, mediaETag: String?

        init(context: String?, id: String?, editLink: String?, readLink: String?, mediaReadLink: String?,
             mediaEditLink: String?, mediaContentType: String?, mediaETag: String?) {
            self.context = context
            self.id = id
            self.editLink = editLink
            self.readLink = readLink
            self.mediaReadLink = mediaReadLink
            self.mediaEditLink = mediaEditLink
            self.mediaContentType = mediaContentType
            self.mediaETag = mediaETag
        }

        var fields: [String?] { [context, id, editLink, readLink, mediaReadLink, mediaEditLink, mediaContentType, mediaETag] }
    }

    public init(context: String? = nil, id: String? = nil, etag: String? = nil,
                editLink: String? = nil, readLink: String? = nil, mediaReadLink: String? = nil,
                mediaEditLink: String? = nil, mediaContentType: String? = nil,
                mediaETag: String? = nil) {
        self.etag = etag
        self.links = Self.links(context: context, id: id, editLink: editLink, readLink: readLink,
                                mediaReadLink: mediaReadLink, mediaEditLink: mediaEditLink,
                                mediaContentType: mediaContentType, mediaETag: mediaETag)
    }

    private static func links(context: String?, id: String?, editLink: String?, readLink: String?, mediaReadLink: String?,
                              mediaEditLink: String?, mediaContentType: String?, mediaETag: String?) -> Links? {
        let all = [context, id, editLink, readLink, mediaReadLink, mediaEditLink, mediaContentType, mediaETag]
        guard all.contains(where: { $0 != nil }) else { return nil }
        return Links(context: context, id: id, editLink: editLink, readLink: readLink, mediaReadLink: mediaReadLink,
                     mediaEditLink: mediaEditLink, mediaContentType: mediaContentType, mediaETag: mediaETag)
    }

    /// Replaces one field of the box (a new box: copies made before keep the old one).
    private mutating func update(_ change: (inout [String?]) -> Void) {
        var fields = links?.fields ?? [String?](repeating: nil, count: 8)
        change(&fields)
        links = Self.links(context: fields[0], id: fields[1], editLink: fields[2], readLink: fields[3],
                           mediaReadLink: fields[4], mediaEditLink: fields[5], mediaContentType: fields[6],
                           mediaETag: fields[7])
    }

    /// `@odata.context` (top-level entity payloads).
    public var context: String? {
        get { links?.context }
        set { update { $0[0] = newValue } }
    }
    /// `@odata.id`; V2: `__metadata.id`, else `__metadata.uri`.
    public var id: String? {
        get { links?.id }
        set { update { $0[1] = newValue } }
    }
    /// `@odata.editLink`; V2: `__metadata.uri` when it differs from `__metadata.id`.
    public var editLink: String? {
        get { links?.editLink }
        set { update { $0[2] = newValue } }
    }
    /// `@odata.readLink`.
    public var readLink: String? {
        get { links?.readLink }
        set { update { $0[3] = newValue } }
    }
    /// `@odata.mediaReadLink`; V2: `__metadata.media_src`.
    public var mediaReadLink: String? {
        get { links?.mediaReadLink }
        set { update { $0[4] = newValue } }
    }
    /// `@odata.mediaEditLink`; V2: `__metadata.edit_media`.
    public var mediaEditLink: String? {
        get { links?.mediaEditLink }
        set { update { $0[5] = newValue } }
    }
    /// `@odata.mediaContentType`; V2: `__metadata.content_type`.
    public var mediaContentType: String? {
        get { links?.mediaContentType }
        set { update { $0[6] = newValue } }
    }
    /// `@odata.mediaEtag`; V2: `__metadata.media_etag`.
    public var mediaETag: String? {
        get { links?.mediaETag }
        set { update { $0[7] = newValue } }
    }

    /// True when nothing is set.
    public var isEmpty: Bool { etag == nil && links == nil }

    public static func == (lhs: ODataControlInformation, rhs: ODataControlInformation) -> Bool {
        guard lhs.etag == rhs.etag else { return false }
        if lhs.links === rhs.links { return true }
        return (lhs.links?.fields ?? [String?](repeating: nil, count: 8)) == (rhs.links?.fields ?? [String?](repeating: nil, count: 8))
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(etag)
        for field in links?.fields ?? [] { hasher.combine(field) }
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
