/// The resolved shape of a value, computed once per model (no lookups while reading).
enum ODataValueType: Sendable, Hashable {
    case primitive(EdmPrimitiveKind)
    case enumeration(String)
    case complex(String)
    /// Edm.Untyped / Edm.PrimitiveType and dynamic properties without a type annotation.
    case untyped
}

/// One structural property of a plan.
///
/// A class: the decoder takes a member's plan out of its type's plan for every member of every
/// entity it reads, and a struct holding the whole declaration cost a retain and release per
/// string and array in it each time (about 6 % of reading a downloaded page); one reference is
/// one retain.
final class ODataPropertyPlan: Sendable {
    let name: String
    let type: ODataValueType
    let isCollection: Bool
    let isNullable: Bool
    /// The declaration, with MaxLength/Precision/Scale taken from the type definition when the
    /// property does not set them.
    let declaration: CSDLProperty

    init(name: String, type: ODataValueType, isCollection: Bool, isNullable: Bool, declaration: CSDLProperty) {
        self.name = name
        self.type = type
        self.isCollection = isCollection
        self.isNullable = isNullable
        self.declaration = declaration
    }
}

/// One member a structured type declares: a structural or a navigation property.
enum ODataMemberPlan: Sendable {
    case property(ODataPropertyPlan)
    case navigation(name: String, targetType: String, isCollection: Bool)

    var name: String {
        switch self {
        case .property(let plan): plan.name
        case .navigation(let name, _, _): name
        }
    }
}

/// An entity or complex type with its inherited members resolved, base type's first.
///
/// A class for the same reason as `ODataPropertyPlan`: the decoder takes the plan of every
/// entity it reads, and copying a struct of six arrays, strings and collections cost six
/// retains and releases each time (about 4 % of reading a page of entities).
final class ODataStructuredPlan: Sendable {
    let qualifiedName: String
    let isEntity: Bool
    let isOpen: Bool
    let isAbstract: Bool
    let members: [ODataMemberPlan]
    let memberNames: [String]
    let index: [String: Int]
    /// Key property names (single-segment refs) of an entity type.
    let keyNames: [String]
    /// This type and its base types (qualified names).
    let lineage: Set<String>

    init(qualifiedName: String, isEntity: Bool, isOpen: Bool, isAbstract: Bool, members: [ODataMemberPlan],
         memberNames: [String], index: [String: Int], keyNames: [String], lineage: Set<String>) {
        self.qualifiedName = qualifiedName
        self.isEntity = isEntity
        self.isOpen = isOpen
        self.isAbstract = isAbstract
        self.members = members
        self.memberNames = memberNames
        self.index = index
        self.keyNames = keyNames
        self.lineage = lineage
    }

    /// The member named `name`. `cursor` remembers where the previous match was, so members in
    /// declaration order (the usual case) cost one string comparison and no hashing.
    @inline(__always)
    func member(named name: String, cursor: inout Int) -> Int? {
        if cursor < memberNames.count, memberNames[cursor] == name {
            cursor += 1
            return cursor - 1
        }
        guard let found = index[name] else { return nil }
        cursor = found + 1
        return found
    }
}

/// An enum type's members for name/number conversion.
struct ODataEnumPlan: Sendable {
    let qualifiedName: String
    let isFlags: Bool
    let names: [String]
    let values: [Int64]
}

/// Every structured and enum type of a model, resolved.
struct ODataModelPlans: Sendable {
    let model: ServiceModel
    private(set) var structured: [String: ODataStructuredPlan] = [:]
    private(set) var enums: [String: ODataEnumPlan] = [:]

    init(model: ServiceModel) {
        self.model = model
        for type in model.entityTypes {
            let chain = model.inheritanceChain(of: type)
            let members = chain.reversed().flatMap { t in
                t.properties.map { ODataMemberPlan.property(Self.propertyPlan($0, model: model)) }
                    + t.navigationProperties.map {
                        ODataMemberPlan.navigation(name: $0.name, targetType: $0.targetType,
                                                   isCollection: $0.isCollection)
                    }
            }
            structured[type.qualifiedName] = Self.plan(
                type.qualifiedName, isEntity: true, isOpen: chain.contains { $0.isOpen },
                isAbstract: type.isAbstract, members: members,
                keyNames: model.key(of: type).filter { !$0.name.contains("/") }.map(\.name),
                lineage: Set(chain.map(\.qualifiedName)))
        }
        for type in model.complexTypes {
            var chain = [type]
            while let base = chain.last?.baseType, chain.count < 64,
                  let next = model.complexType(qualifiedName: base) {
                chain.append(next)
            }
            let members = chain.reversed().flatMap { t in
                t.properties.map { ODataMemberPlan.property(Self.propertyPlan($0, model: model)) }
                    + t.navigationProperties.map {
                        ODataMemberPlan.navigation(name: $0.name, targetType: $0.targetType,
                                                   isCollection: $0.isCollection)
                    }
            }
            structured[type.qualifiedName] = Self.plan(
                type.qualifiedName, isEntity: false, isOpen: chain.contains { $0.isOpen },
                isAbstract: type.isAbstract, members: members, keyNames: [],
                lineage: Set(chain.map(\.qualifiedName)))
        }
        for type in model.enumTypes {
            enums[type.qualifiedName] = ODataEnumPlan(
                qualifiedName: type.qualifiedName, isFlags: type.isFlags,
                names: type.members.map(\.name), values: type.members.map(\.value))
        }
    }

    private static func plan(_ name: String, isEntity: Bool, isOpen: Bool, isAbstract: Bool,
                             members: [ODataMemberPlan], keyNames: [String],
                             lineage: Set<String>) -> ODataStructuredPlan {
        var index: [String: Int] = [:]
        for (i, member) in members.enumerated() where index[member.name] == nil {
            index[member.name] = i
        }
        return ODataStructuredPlan(qualifiedName: name, isEntity: isEntity, isOpen: isOpen,
                                   isAbstract: isAbstract, members: members,
                                   memberNames: members.map(\.name), index: index,
                                   keyNames: keyNames, lineage: lineage)
    }

    static func propertyPlan(_ property: CSDLProperty, model: ServiceModel) -> ODataPropertyPlan {
        var declaration = property
        if case .typeDefinition(let name) = property.type.kind,
           let definition = model.typeDefinition(qualifiedName: name) {
            declaration.maxLength = declaration.maxLength ?? definition.maxLength
            declaration.precision = declaration.precision ?? definition.precision
            declaration.scale = declaration.scale ?? definition.scale
        }
        return ODataPropertyPlan(name: property.name, type: valueType(property.type, model: model),
                                 isCollection: property.type.isCollection,
                                 isNullable: property.isNullable, declaration: declaration)
    }

    static func valueType(_ type: CSDLTypeReference, model: ServiceModel) -> ODataValueType {
        switch type.kind {
        case .primitive(let kind): return kind == .untyped ? .untyped : .primitive(kind)
        case .complex(let name): return .complex(name)
        case .enumeration(let name): return .enumeration(name)
        case .entity: return .untyped
        case .typeDefinition(let name):
            guard let definition = model.typeDefinition(qualifiedName: name) else { return .untyped }
            return definition.underlyingType == .untyped ? .untyped : .primitive(definition.underlyingType)
        }
    }

    func plan(_ qualifiedName: String) -> ODataStructuredPlan? {
        if let found = structured[qualifiedName] { return found }
        return structured[model.resolveAlias(qualifiedName)]
    }

    /// Resolves an `@odata.type` value (`#NS.Type`, `#Alias.Type`, `#Edm.Int32`, `#Int32`,
    /// `#Collection(NS.Type)`, V2 `NS.Type`) to a value type and collection flag.
    func resolveTypeAnnotation(_ text: String) -> (ODataValueType, Bool)? {
        var name = Substring(text)
        if name.hasPrefix("#") { name = name.dropFirst() }
        var isCollection = false
        if name.hasPrefix("Collection("), name.hasSuffix(")") {
            name = name.dropFirst(11).dropLast()
            isCollection = true
        }
        var qualified = String(name)
        if !qualified.contains(".") { qualified = "Edm." + qualified }
        if qualified == "Edm.Untyped" { return (.untyped, isCollection) }
        guard let resolved = model.resolveType(qualified) else { return nil }
        if case .entity = resolved.kind { return nil }
        return (Self.valueType(resolved, model: model), isCollection)
    }
}
