/// `NavigationPropertyBinding`: a navigation path of the set's type and the target set
/// (`Target` as written: a set name, `Container/Set`, or a containment path).
public struct CSDLNavigationPropertyBinding: Sendable, Hashable {
    public var path: String
    public var target: String

    public init(path: String, target: String) {
        self.path = path
        self.target = target
    }
}

/// An entity set.
public struct CSDLEntitySet: Sendable, Hashable {
    public var name: String
    /// Namespace-qualified entity type.
    public var entityType: String
    public var navigationPropertyBindings: [CSDLNavigationPropertyBinding]
    public var includeInServiceDocument: Bool
    public var annotations: [CSDLAnnotation]
    public var sapAttributes: [String: String]
    public var position: CSDLSourcePosition

    public init(name: String, entityType: String,
                navigationPropertyBindings: [CSDLNavigationPropertyBinding] = [],
                includeInServiceDocument: Bool = true, annotations: [CSDLAnnotation] = [],
                sapAttributes: [String: String] = [:],
                position: CSDLSourcePosition = CSDLSourcePosition(line: 0, column: 0)) {
        self.name = name
        self.entityType = entityType
        self.navigationPropertyBindings = navigationPropertyBindings
        self.includeInServiceDocument = includeInServiceDocument
        self.annotations = annotations
        self.sapAttributes = sapAttributes
        self.position = position
    }
}

/// A singleton.
public struct CSDLSingleton: Sendable, Hashable {
    public var name: String
    public var entityType: String
    public var navigationPropertyBindings: [CSDLNavigationPropertyBinding]
    public var annotations: [CSDLAnnotation]
    public var position: CSDLSourcePosition

    public init(name: String, entityType: String,
                navigationPropertyBindings: [CSDLNavigationPropertyBinding] = [],
                annotations: [CSDLAnnotation] = [],
                position: CSDLSourcePosition = CSDLSourcePosition(line: 0, column: 0)) {
        self.name = name
        self.entityType = entityType
        self.navigationPropertyBindings = navigationPropertyBindings
        self.annotations = annotations
        self.position = position
    }
}

/// A parameter of a V4 operation or V2 function import (type kept as written).
public struct CSDLParameter: Sendable, Hashable {
    public var name: String
    public var type: String
    public var isNullable: Bool
    /// V2 `Mode` (`In`, `Out`, `InOut`).
    public var mode: String?
    public var sapAttributes: [String: String]

    public init(name: String, type: String, isNullable: Bool = true, mode: String? = nil,
                sapAttributes: [String: String] = [:]) {
        self.name = name
        self.type = type
        self.isNullable = isNullable
        self.mode = mode
        self.sapAttributes = sapAttributes
    }
}

/// A V4 FunctionImport/ActionImport or a V2 FunctionImport (kept, not executed).
public struct CSDLOperationImport: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case function, action
    }

    public var name: String
    public var kind: Kind
    /// V4: the qualified function/action name it imports.
    public var operation: String?
    public var entitySet: String?
    /// V2: the return type as written.
    public var returnType: String?
    /// V2: `m:HttpMethod`.
    public var httpMethod: String?
    /// V2: the parameters (V4 parameters are on the operation).
    public var parameters: [CSDLParameter]
    public var annotations: [CSDLAnnotation]
    public var sapAttributes: [String: String]

    public init(name: String, kind: Kind, operation: String? = nil, entitySet: String? = nil,
                returnType: String? = nil, httpMethod: String? = nil,
                parameters: [CSDLParameter] = [], annotations: [CSDLAnnotation] = [],
                sapAttributes: [String: String] = [:]) {
        self.name = name
        self.kind = kind
        self.operation = operation
        self.entitySet = entitySet
        self.returnType = returnType
        self.httpMethod = httpMethod
        self.parameters = parameters
        self.annotations = annotations
        self.sapAttributes = sapAttributes
    }
}

/// V2: one end of an `AssociationSet`.
public struct CSDLAssociationSetEnd: Sendable, Hashable {
    public var role: String
    public var entitySet: String

    public init(role: String, entitySet: String) {
        self.role = role
        self.entitySet = entitySet
    }
}

/// V2: an `AssociationSet`, kept as read; its effect is in the sets' navigation bindings.
public struct CSDLAssociationSet: Sendable, Hashable {
    public var name: String
    public var association: String
    public var ends: [CSDLAssociationSetEnd]
    public var sapAttributes: [String: String]

    public init(name: String, association: String, ends: [CSDLAssociationSetEnd],
                sapAttributes: [String: String] = [:]) {
        self.name = name
        self.association = association
        self.ends = ends
        self.sapAttributes = sapAttributes
    }
}

/// The entity container.
public struct CSDLEntityContainer: Sendable, Hashable {
    public var name: String
    public var namespace: String
    public var entitySets: [CSDLEntitySet]
    public var singletons: [CSDLSingleton]
    public var functionImports: [CSDLOperationImport]
    public var actionImports: [CSDLOperationImport]
    public var associationSets: [CSDLAssociationSet]
    /// V2 `m:IsDefaultEntityContainer` (always true for V4's single container).
    public var isDefault: Bool
    public var annotations: [CSDLAnnotation]
    public var sapAttributes: [String: String]
    public var position: CSDLSourcePosition

    public init(name: String, namespace: String, entitySets: [CSDLEntitySet] = [],
                singletons: [CSDLSingleton] = [], functionImports: [CSDLOperationImport] = [],
                actionImports: [CSDLOperationImport] = [],
                associationSets: [CSDLAssociationSet] = [], isDefault: Bool = true,
                annotations: [CSDLAnnotation] = [], sapAttributes: [String: String] = [:],
                position: CSDLSourcePosition = CSDLSourcePosition(line: 0, column: 0)) {
        self.name = name
        self.namespace = namespace
        self.entitySets = entitySets
        self.singletons = singletons
        self.functionImports = functionImports
        self.actionImports = actionImports
        self.associationSets = associationSets
        self.isDefault = isDefault
        self.annotations = annotations
        self.sapAttributes = sapAttributes
        self.position = position
    }

    public var qualifiedName: String { namespace + "." + name }

    public func entitySet(named name: String) -> CSDLEntitySet? {
        entitySets.first { $0.name == name }
    }

    public func singleton(named name: String) -> CSDLSingleton? {
        singletons.first { $0.name == name }
    }
}
