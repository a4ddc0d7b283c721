/// Error names and codes of the CSDL readers (range 1100–1199, XML codes are 1101–1109;
/// listed in docs/CSDL.md). All are `.invalidInput`; the location is "line L, column C" of the
/// offending element.
public enum CSDLErrorCode: Int, Sendable, Hashable, CaseIterable {
    /// The root is not `edmx:Edmx` in a known namespace, or the version is unsupported.
    case csdlNotMetadata = 1120
    /// A required attribute (Name, Type, Namespace, EntityType, ...) is missing or empty.
    case csdlMissingAttribute = 1121
    /// `Edm.X` that is not an EDM primitive type of the document's version.
    case csdlUnknownPrimitiveType = 1122
    /// A qualified type name that names no type of the model.
    case csdlUnresolvedType = 1123
    /// A key property reference that names no property, or a non-abstract entity type with no key.
    case csdlInvalidKey = 1124
    /// A base type chain that loops.
    case csdlBaseTypeCycle = 1125
    /// An attribute value that is not allowed (bad boolean, number, multiplicity, OnDelete).
    case csdlInvalidAttributeValue = 1126
    /// V2: a NavigationProperty or AssociationSet naming an unknown Association or role.
    case csdlUnresolvedAssociation = 1127
    /// Two elements of the same kind with the same name in one scope.
    case csdlDuplicateName = 1128
    /// An entity set, binding target or partner that names nothing.
    case csdlUnresolvedReference = 1129
    /// A ReferentialConstraint naming a property that does not exist.
    case csdlInvalidReferentialConstraint = 1130

    public var name: String {
        switch self {
        case .csdlNotMetadata: "csdlNotMetadata"
        case .csdlMissingAttribute: "csdlMissingAttribute"
        case .csdlUnknownPrimitiveType: "csdlUnknownPrimitiveType"
        case .csdlUnresolvedType: "csdlUnresolvedType"
        case .csdlInvalidKey: "csdlInvalidKey"
        case .csdlBaseTypeCycle: "csdlBaseTypeCycle"
        case .csdlInvalidAttributeValue: "csdlInvalidAttributeValue"
        case .csdlUnresolvedAssociation: "csdlUnresolvedAssociation"
        case .csdlDuplicateName: "csdlDuplicateName"
        case .csdlUnresolvedReference: "csdlUnresolvedReference"
        case .csdlInvalidReferentialConstraint: "csdlInvalidReferentialConstraint"
        }
    }

    func error(_ message: String, line: Int, column: Int) -> ODataError {
        ODataError(.invalidInput, name: name, code: rawValue, message: message,
                   location: "line \(line), column \(column)")
    }

    func error(_ message: String, at element: XMLTreeElement) -> ODataError {
        error(message, line: element.position.line, column: element.position.column)
    }

    func error(_ message: String, at position: CSDLSourcePosition) -> ODataError {
        error(message, line: position.line, column: position.column)
    }
}

/// Where a model element was declared in its metadata document (1-based).
public struct CSDLSourcePosition: Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    init(_ element: XMLTreeElement) {
        self.init(line: element.position.line, column: element.position.column)
    }

    public var description: String { "line \(line), column \(column)" }
}
