import OfflineODataModel

/// Resolves a parsed resource path against the model (docs/Query.md §2.1): entity sets,
/// singletons, key predicates (positional, named, composite, aliases, key-as-segment),
/// navigation hops (single and collection, several, contained), casts, properties, `$count`,
/// `$ref`, `$value`, `$metadata`, `$batch`.
public struct ResourcePathBinder: Sendable {
    public let model: ServiceModel
    /// Parameter aliases of the request (`Orders(@k)?@k=5`).
    public var aliases: [String: SyntaxExpr]

    public init(model: ServiceModel, aliases: [String: SyntaxExpr] = [:]) {
        self.model = model
        self.aliases = aliases
    }

    enum State {
        case start
        case collection(set: String?, type: CSDLEntityType)
        case entity(set: String?, type: CSDLEntityType)
        case property(name: String, type: CSDLTypeReference)
        case finished
    }

    public func bind(_ path: SyntaxResourcePath) throws(ODataError) -> BoundResourcePath {
        if path.segments.isEmpty { return BoundResourcePath(steps: [], target: .serviceDocument) }
        var steps: [BoundResourcePath.Step] = []
        var state = State.start
        var suffix = BoundResourcePath.Suffix.none
        var target: BoundResourcePath.Target?
        // `/$filter(…)` conditions of the collection so far: they become `.filter` steps when a
        // key picks one member of that collection, else they restrict the addressed collection.
        var filters: [BoundExpr] = []
        for segment in path.segments {
            if case .finished = state {
                throw .invalidResourcePath("nothing may follow $count, $ref, $value, $metadata or $batch",
                                           segment: Self.text(segment), position: Self.position(segment))
            }
            switch (segment, state) {
            case (.system(let name, let position), .start):
                switch name.lowercased() {
                case "metadata": target = .metadata
                case "batch": target = .batch
                default: throw .requestNotSupported("'$\(name)' is not supported by the offline store", location: "path, position \(position)")
                }
                state = .finished
            case (.identifier(let name, let position), .start):
                if let set = model.entitySet(named: name) {
                    let type = try entityType(set.entityType, segment: name, position: position)
                    steps.append(.entitySet(name))
                    state = .collection(set: name, type: type)
                } else if let singleton = model.singleton(named: name) {
                    let type = try entityType(singleton.entityType, segment: name, position: position)
                    steps.append(.singleton(name))
                    // The store keeps a singleton as a set of one under its name: its
                    // navigation bindings are the singleton's.
                    state = .entity(set: name, type: type)
                } else if let kind = model.operationImport(named: name) {
                    // As SAP's offline store: a function of the back end does not run offline.
                    throw .requestNotSupported(kind == .function
                        ? "'\(name)' is a function import of the back end, which the offline store does not evaluate"
                        : "'\(name)' is an action import of the back end: POST it alone (the offline store queues it for upload); it has no other use offline",
                        location: "path, position \(position)")
                } else {
                    throw .resourceNotFound("the service has no entity set or singleton '\(name)'", segment: name, position: position)
                }
            case (.filter(let expression, let position), .collection(let set, let type)):
                filters.append(try filterSegment(expression, set: set, type: type, position: position))
            case (.filter(_, let position), _):
                throw .invalidFilterSegment("$filter(…) must follow a collection of entities, not \(Self.describe(state))", position: position)
            case (.key(let values, let position), .collection(let set, let type)):
                let key = try keyValues(values, type: type, position: position)
                // `Set/$filter(…)(key)`: the member addressed only if it passes the filters.
                steps += filters.map(BoundResourcePath.Step.filter)
                filters = []
                steps.append(.key(key))
                state = .entity(set: set, type: type)
            case (.identifier(let text, let position), .collection(let set, let type)):
                // Key-as-segment: `Orders/10248`.
                let keys = try keyProperties(of: type, position: position)
                guard keys.count == 1 else {
                    throw .requestInvalidKey("'\(text)' cannot be a key segment: \(type.qualifiedName) has a key of \(keys.count) properties", position: position)
                }
                let value: ODataValue
                do {
                    value = try KeyPredicate.parseKeyAsSegment(text, key: keys[0])
                } catch {
                    throw .requestInvalidKey("'\(text)' is not a key of \(type.qualifiedName): \(error.message)", position: position)
                }
                steps += filters.map(BoundResourcePath.Step.filter)
                filters = []
                steps.append(.key([value]))
                state = .entity(set: set, type: type)
            case (.identifier(let name, let position), .entity(let set, let type)):
                if let navigation = model.navigationProperty(name, of: type) {
                    let targetType = try entityType(navigation.targetType, segment: name, position: position)
                    let targetSet = set.flatMap { model.navigationTarget(set: $0, navigation: name)?.name }
                    steps.append(.navigation(name: name, targetType: targetType.qualifiedName, targetSet: targetSet,
                                             isCollection: navigation.isCollection))
                    state = navigation.isCollection ? .collection(set: targetSet, type: targetType) : .entity(set: targetSet, type: targetType)
                } else if let property = model.allProperties(of: type).first(where: { $0.name == name }) {
                    steps.append(.property(name: name, type: property.type))
                    state = .property(name: name, type: property.type)
                } else {
                    throw .resourceNotFound("\(type.qualifiedName) has no property or navigation property '\(name)'", segment: name, position: position)
                }
            case (.typeCast(let name, let position), .collection(let set, let type)),
                 (.typeCast(let name, let position), .entity(let set, let type)):
                let derived = try entityType(name, segment: name, position: position)
                guard model.inheritanceChain(of: derived).contains(where: { $0.qualifiedName == type.qualifiedName }) else {
                    throw .invalidResourcePath("\(name) does not derive from \(type.qualifiedName)", segment: name, position: position)
                }
                steps.append(.typeCast(derived.qualifiedName))
                if case .collection = state { state = .collection(set: set, type: derived) } else { state = .entity(set: set, type: derived) }
            case (.count, .collection(let set, let type)):
                target = .entityCollection(set: set, type: type.qualifiedName)
                suffix = .count
                state = .finished
            case (.ref, .collection(let set, let type)):
                target = .entityCollection(set: set, type: type.qualifiedName)
                suffix = .ref
                state = .finished
            case (.ref, .entity(let set, let type)):
                target = .entity(set: set, type: type.qualifiedName)
                suffix = .ref
                state = .finished
            case (.identifier(let name, let position), .property(let owner, let type)):
                // A member of a single complex value (URL §4.6: `Airports('KSFO')/Location/City`).
                guard !type.isCollection, case .complex(let complexName) = type.kind,
                      let complex = model.complexType(qualifiedName: complexName) else {
                    throw .invalidResourcePath("this segment cannot follow property \(owner) of type \(type) (only a member of a single complex value can)",
                                               segment: name, position: position)
                }
                guard let member = model.allProperties(ofComplex: complex).first(where: { $0.name == name }) else {
                    throw .resourceNotFound("\(complex.qualifiedName) has no property '\(name)'", segment: name, position: position)
                }
                steps.append(.property(name: name, type: member.type))
                state = .property(name: name, type: member.type)
            case (.count, .property(let name, let type)) where type.isCollection:
                // The number of elements of a collection-valued property (URL §4.8).
                target = .property(name: name, type: type)
                suffix = .count
                state = .finished
            case (.value, .property(let name, let type)):
                target = .property(name: name, type: type)
                suffix = .value
                state = .finished
            case (.value, .entity(let set, let type)) where model.isMediaType(type):
                target = .entity(set: set, type: type.qualifiedName)
                suffix = .value
                state = .finished
            case (.function(let name, _, let position), _):
                throw .requestNotSupported("function '\(name)' is not supported by the offline store", location: "path, position \(position)")
            default:
                throw .invalidResourcePath("this segment cannot follow \(Self.describe(state))",
                                           segment: Self.text(segment), position: Self.position(segment))
            }
        }
        if let target { return BoundResourcePath(steps: steps, target: target, suffix: suffix, filters: filters) }
        switch state {
        case .collection(let set, let type):
            return BoundResourcePath(steps: steps, target: .entityCollection(set: set, type: type.qualifiedName), filters: filters)
        case .entity(let set, let type):
            return BoundResourcePath(steps: steps, target: .entity(set: set, type: type.qualifiedName))
        case .property(let name, let type):
            return BoundResourcePath(steps: steps, target: .property(name: name, type: type))
        case .start, .finished:
            return BoundResourcePath(steps: steps, target: .serviceDocument)
        }
    }

    /// A `$filter(…)` segment's condition, bound against the collection before it (parameter
    /// aliases of the request apply). Binding errors point into the path.
    func filterSegment(_ expression: SyntaxExpr, set: String?, type: CSDLEntityType, position: Int) throws(ODataError) -> BoundExpr {
        do {
            // The set names the binder's set only when its type is the one filtered (not after a cast).
            let setFits = set.flatMap { model.entitySet(named: $0) }.map { model.resolveAlias($0.entityType) == type.qualifiedName } ?? false
            let binder = try ExpressionBinder(model: model, entityType: setFits ? (set ?? type.qualifiedName) : type.qualifiedName, aliases: aliases)
            return try binder.bindFilter(expression)
        } catch {
            throw error.relocated("path", base: position)
        }
    }

    // MARK: keys

    func keyProperties(of type: CSDLEntityType, position: Int) throws(ODataError) -> [KeyProperty] {
        let keys = model.keyProperties(of: type)
        guard !keys.isEmpty else {
            throw .requestInvalidKey("\(type.qualifiedName) declares no key", position: position)
        }
        var out: [KeyProperty] = []
        for key in keys {
            guard let kind = key.type.primitiveKind ?? enumKeyKind(key.type) else {
                throw .requestInvalidKey("key property \(key.name) of \(type.qualifiedName) has type \(key.type), which cannot be a key", position: position)
            }
            out.append(KeyProperty(key.name, kind))
        }
        return out
    }

    func enumKeyKind(_ type: CSDLTypeReference) -> EdmPrimitiveKind? {
        if case .enumeration = type.kind { return .untyped }
        if case .typeDefinition(let name) = type.kind {
            return model.typeDefinition(qualifiedName: name)?.underlyingType
        }
        return nil
    }

    /// The key values of a `(…)` predicate, converted to the key properties' kinds, in key order.
    func keyValues(_ items: [SyntaxKeyValue], type: CSDLEntityType, position: Int) throws(ODataError) -> [ODataValue] {
        let keys = try keyProperties(of: type, position: position)
        if items.count == 1, items[0].name == nil {
            guard keys.count == 1 else {
                throw .requestInvalidKey("\(type.qualifiedName) has a key of \(keys.count) properties; name each: (\(keys.map { $0.name + "=…" }.joined(separator: ",")))", position: position)
            }
            return [try keyValue(items[0].value, key: keys[0], type: type)]
        }
        var values = [ODataValue?](repeating: nil, count: keys.count)
        for item in items {
            guard let name = item.name else {
                throw .requestInvalidKey("a composite key needs name=value pairs", position: item.value.position)
            }
            guard let index = keys.firstIndex(where: { $0.name == name }) else {
                throw .requestInvalidKey("'\(name)' is not a key property of \(type.qualifiedName)", position: item.value.position)
            }
            guard values[index] == nil else {
                throw .requestInvalidKey("key property '\(name)' is given twice", position: item.value.position)
            }
            values[index] = try keyValue(item.value, key: keys[index], type: type)
        }
        var out: [ODataValue] = []
        for (index, value) in values.enumerated() {
            guard let value else {
                throw .requestInvalidKey("key property '\(keys[index].name)' of \(type.qualifiedName) is missing", position: position)
            }
            out.append(value)
        }
        return out
    }

    func keyValue(_ expr: SyntaxExpr, key: KeyProperty, type: CSDLEntityType) throws(ODataError) -> ODataValue {
        var resolved = expr
        var seen = Set<String>()
        while case .alias(let name) = resolved.kind {
            guard seen.insert(name).inserted, let value = aliases[name] else {
                throw .requestInvalidKey("key alias @\(name) has no value", position: expr.position)
            }
            resolved = value
        }
        switch resolved.kind {
        case .literal(let value, let text):
            if key.kind == .untyped, case .enumValue = value { return value }
            if value.kind == key.kind { return value }
            do {
                let converted = try ODataValue.parseLiteral(text, as: key.kind, version: model.version == .v2 ? .v2 : .v4)
                guard !converted.isNull else { break }
                return converted
            } catch {
                throw .requestInvalidKey("'\(text)' is not a valid \(key.kind.rawValue) for key property \(key.name) of \(type.qualifiedName): \(error.message)", position: resolved.position)
            }
        case .null:
            throw .requestInvalidKey("key property \(key.name) cannot be null", position: resolved.position)
        default:
            break
        }
        throw .requestInvalidKey("key property \(key.name) needs a literal value", position: resolved.position)
    }

    // MARK: helpers

    func entityType(_ name: String, segment: String, position: Int) throws(ODataError) -> CSDLEntityType {
        guard let type = model.entityType(qualifiedName: model.resolveAlias(name)) else {
            throw .invalidResourcePath("unknown entity type \(name)", segment: segment, position: position)
        }
        return type
    }

    static func describe(_ state: State) -> String {
        switch state {
        case .start: return "the service root"
        case .collection(_, let type): return "a collection of \(type.qualifiedName)"
        case .entity(_, let type): return "a single \(type.qualifiedName)"
        case .property(let name, _): return "property \(name)"
        case .finished: return "the end of the path"
        }
    }

    static func text(_ segment: SyntaxResourceSegment) -> String {
        switch segment {
        case .identifier(let name, _), .typeCast(let name, _), .function(let name, _, _): return name
        case .key: return "(…)"
        case .filter: return "$filter(…)"
        case .count: return "$count"
        case .ref: return "$ref"
        case .value: return "$value"
        case .system(let name, _): return "$" + name
        }
    }

    static func position(_ segment: SyntaxResourceSegment) -> Int {
        switch segment {
        case .identifier(_, let p), .typeCast(_, let p), .key(_, let p), .function(_, _, let p), .filter(_, let p),
             .count(let p), .ref(let p), .value(let p), .system(_, let p): return p
        }
    }
}
