/// A V4 `Function` or `Action` (kept for reference; not executed).
public struct CSDLOperation: Sendable, Hashable {
    public var name: String
    public var namespace: String
    public var kind: CSDLOperationImport.Kind
    public var isBound: Bool
    public var isComposable: Bool
    public var entitySetPath: String?
    public var parameters: [CSDLParameter]
    /// Return type as written, nil for actions without one.
    public var returnType: String?
    public var annotations: [CSDLAnnotation]

    public init(name: String, namespace: String, kind: CSDLOperationImport.Kind,
                isBound: Bool = false, isComposable: Bool = false, entitySetPath: String? = nil,
                parameters: [CSDLParameter] = [], returnType: String? = nil,
                annotations: [CSDLAnnotation] = []) {
        self.name = name
        self.namespace = namespace
        self.kind = kind
        self.isBound = isBound
        self.isComposable = isComposable
        self.entitySetPath = entitySetPath
        self.parameters = parameters
        self.returnType = returnType
        self.annotations = annotations
    }

    public var qualifiedName: String { namespace + "." + name }
}

/// V2: one `End` of an `Association`.
public struct CSDLAssociationEnd: Sendable, Hashable {
    public var role: String
    /// Namespace-qualified entity type.
    public var type: String
    /// `1`, `0..1` or `*`.
    public var multiplicity: String
    public var onDelete: CSDLOnDeleteAction?

    public init(role: String, type: String, multiplicity: String,
                onDelete: CSDLOnDeleteAction? = nil) {
        self.role = role
        self.type = type
        self.multiplicity = multiplicity
        self.onDelete = onDelete
    }
}

/// V2: an association's `ReferentialConstraint` (principal and dependent property lists align).
public struct CSDLAssociationConstraint: Sendable, Hashable {
    public var principalRole: String
    public var principalProperties: [String]
    public var dependentRole: String
    public var dependentProperties: [String]

    public init(principalRole: String, principalProperties: [String], dependentRole: String,
                dependentProperties: [String]) {
        self.principalRole = principalRole
        self.principalProperties = principalProperties
        self.dependentRole = dependentRole
        self.dependentProperties = dependentProperties
    }
}

/// V2: an `Association`, kept as read; navigation properties are resolved from it.
public struct CSDLAssociation: Sendable, Hashable {
    public var name: String
    public var namespace: String
    public var ends: [CSDLAssociationEnd]
    public var referentialConstraint: CSDLAssociationConstraint?
    public var sapAttributes: [String: String]

    public init(name: String, namespace: String, ends: [CSDLAssociationEnd],
                referentialConstraint: CSDLAssociationConstraint? = nil,
                sapAttributes: [String: String] = [:]) {
        self.name = name
        self.namespace = namespace
        self.ends = ends
        self.referentialConstraint = referentialConstraint
        self.sapAttributes = sapAttributes
    }

    public var qualifiedName: String { namespace + "." + name }

    public func end(role: String) -> CSDLAssociationEnd? {
        ends.first { $0.role == role }
    }
}

/// A schema: one namespace (and optional alias) and what it declares.
public struct CSDLSchema: Sendable, Hashable {
    public var namespace: String
    public var alias: String?
    public var entityTypes: [CSDLEntityType]
    public var complexTypes: [CSDLComplexType]
    public var enumTypes: [CSDLEnumType]
    public var typeDefinitions: [CSDLTypeDefinition]
    public var operations: [CSDLOperation]
    public var associations: [CSDLAssociation]
    public var entityContainers: [CSDLEntityContainer]
    public var annotations: [CSDLAnnotation]
    public var sapAttributes: [String: String]

    public init(namespace: String, alias: String? = nil, entityTypes: [CSDLEntityType] = [],
                complexTypes: [CSDLComplexType] = [], enumTypes: [CSDLEnumType] = [],
                typeDefinitions: [CSDLTypeDefinition] = [], operations: [CSDLOperation] = [],
                associations: [CSDLAssociation] = [],
                entityContainers: [CSDLEntityContainer] = [],
                annotations: [CSDLAnnotation] = [], sapAttributes: [String: String] = [:]) {
        self.namespace = namespace
        self.alias = alias
        self.entityTypes = entityTypes
        self.complexTypes = complexTypes
        self.enumTypes = enumTypes
        self.typeDefinitions = typeDefinitions
        self.operations = operations
        self.associations = associations
        self.entityContainers = entityContainers
        self.annotations = annotations
        self.sapAttributes = sapAttributes
    }
}
