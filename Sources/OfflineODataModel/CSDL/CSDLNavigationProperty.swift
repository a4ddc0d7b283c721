/// One `ReferentialConstraint`: `property` is on the declaring type, `referencedProperty` on
/// the navigation target (V4 semantics; V2 constraints are mapped onto both directions).
public struct CSDLReferentialConstraint: Sendable, Hashable {
    public var property: String
    public var referencedProperty: String

    public init(property: String, referencedProperty: String) {
        self.property = property
        self.referencedProperty = referencedProperty
    }
}

/// `OnDelete Action`.
public enum CSDLOnDeleteAction: String, Sendable, Hashable, CaseIterable {
    case cascade = "Cascade"
    case none = "None"
    case setNull = "SetNull"
    case setDefault = "SetDefault"
}

/// The V2 association a navigation property was derived from.
public struct CSDLV2Relationship: Sendable, Hashable {
    /// Namespace-qualified association name.
    public var association: String
    public var fromRole: String
    public var toRole: String

    public init(association: String, fromRole: String, toRole: String) {
        self.association = association
        self.fromRole = fromRole
        self.toRole = toRole
    }
}

/// A navigation property in V4 shape (V2 ones are resolved through their association).
public struct CSDLNavigationProperty: Sendable, Hashable {
    public var name: String
    /// Namespace-qualified target entity type.
    public var targetType: String
    public var isCollection: Bool
    /// `Nullable` for single-valued navigation (nil when not given; V4 default true).
    public var isNullable: Bool?
    public var partner: String?
    public var containsTarget: Bool
    public var referentialConstraints: [CSDLReferentialConstraint]
    public var onDelete: CSDLOnDeleteAction?
    public var v2Relationship: CSDLV2Relationship?
    public var annotations: [CSDLAnnotation]
    public var sapAttributes: [String: String]
    public var position: CSDLSourcePosition

    public init(name: String, targetType: String, isCollection: Bool, isNullable: Bool? = nil,
                partner: String? = nil, containsTarget: Bool = false,
                referentialConstraints: [CSDLReferentialConstraint] = [],
                onDelete: CSDLOnDeleteAction? = nil, v2Relationship: CSDLV2Relationship? = nil,
                annotations: [CSDLAnnotation] = [], sapAttributes: [String: String] = [:],
                position: CSDLSourcePosition = CSDLSourcePosition(line: 0, column: 0)) {
        self.name = name
        self.targetType = targetType
        self.isCollection = isCollection
        self.isNullable = isNullable
        self.partner = partner
        self.containsTarget = containsTarget
        self.referentialConstraints = referentialConstraints
        self.onDelete = onDelete
        self.v2Relationship = v2Relationship
        self.annotations = annotations
        self.sapAttributes = sapAttributes
        self.position = position
    }
}
