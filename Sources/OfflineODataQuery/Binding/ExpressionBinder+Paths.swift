import OfflineODataModel

/// Member paths, key predicates, lambdas, `$count` and `$filter(…)` (docs/Query.md §2.2).
extension ExpressionBinder {
    func bindPath(_ path: SyntaxPath, at position: Int, in scope: Scope) throws(ODataError) -> BoundExpr {
        var segments = path.segments[...]
        var root: BoundPathRoot
        var type: BoundType
        var set: String?
        switch path.root {
        case .implicit:
            // URL §5.1.1.13: a lambda variable wins over a property with the same name.
            if case .member(let name, _)? = segments.first, let variable = scope.variable(name) {
                segments = segments.dropFirst()
                root = .variable(name)
                type = variable.type
                set = variable.entitySet
            } else if scope.computedVisible, case .member(let name, let at)? = segments.first, let value = computed[name] {
                // A `$compute` alias: its expression in place of the name.
                guard segments.count == 1 else {
                    throw .bindInvalidPath("computed property '\(name)' is a single value; no path segment may follow it", at: at)
                }
                var inlined = value
                inlined.position = position
                return inlined
            } else {
                root = .current
                type = scope.current
                set = scope.currentSet
            }
        case .it where scope.itIsCurrent:
            root = .current
            type = scope.current
            set = scope.currentSet
        case .it:
            root = .it
            type = .entity(itEntityType)
            set = itEntitySet
        case .this:
            root = .current
            type = scope.current
            set = scope.currentSet
        case .root:
            (root, type, set) = try bindRootStart(&segments, at: position, in: scope)
        }
        var steps: [BoundPathStep] = []
        while let segment = segments.first {
            segments = segments.dropFirst()
            switch segment {
            case .member(let name, let at):
                let step = try bindMember(name, on: type, set: set, at: at)
                steps.append(step.step)
                type = step.type
                set = step.set
            case .typeCast(let name, let at):
                let cast = try bindTypeCast(name, on: type, at: at)
                steps.append(cast.step)
                type = cast.type
            case .key(let values, let at):
                // `Items(2)`, `Items/$filter(…)(2)`: one member of a collection of entities.
                guard case .collection(.entity(let typeName)) = type, let entity = model.entityType(qualifiedName: typeName) else {
                    throw .bindInvalidPath("a key predicate needs a collection of entities, not \(type)", at: at)
                }
                let key = try bindKey(values, of: entity, at: at, in: scope)
                let properties = model.allProperties(of: entity)
                var keySteps: [BoundPropertyStep] = []
                for property in model.keyProperties(of: entity) {
                    guard let index = properties.firstIndex(where: { $0.name == property.name }) else {
                        throw .bindInvalidPath("key property '\(property.name)' of \(typeName) is not a declared property", at: at)
                    }
                    keySteps.append(BoundPropertyStep(name: property.name, access: .declared(index: index), type: boundType(property.type)))
                }
                steps.append(.key(BoundKeyStep(properties: keySteps, values: key)))
                type = .entity(typeName)
            case .filter(let condition, let at):
                guard let element = type.elementType ?? (type.isUntyped ? .untyped : nil) else {
                    throw .bindInvalidPath("$filter(…) needs a collection, not \(type)", at: at)
                }
                steps.append(.filter(try bindMemberCondition(condition, element: element, set: set, scope: scope,
                                                             what: "the condition of /$filter(…)")))
            case .count(let filter, let search, let at):
                guard let element = type.elementType ?? (type.isUntyped ? .untyped : nil) else {
                    throw .bindInvalidPath("$count needs a collection, not \(type)", at: at)
                }
                guard search == nil else { throw .bindNotSupported("$search inside /$count", at: at) }
                var boundFilter: BoundExpr?
                if let filter {
                    boundFilter = try bindMemberCondition(filter, element: element, set: set, scope: scope, what: "$filter of /$count")
                }
                steps.append(.count(filter: boundFilter))
                type = .int64
                guard segments.isEmpty else {
                    throw .bindInvalidPath("nothing may follow /$count", at: at)
                }
            case .any(let variable, let predicate, let at):
                guard segments.isEmpty else { throw .bindInvalidPath("nothing may follow any()", at: at) }
                let collection = BoundPath(root: root, steps: steps)
                guard let element = type.elementType ?? (type.isUntyped ? .untyped : nil) else {
                    throw .bindInvalidPath("any() needs a collection, not \(type)", at: at)
                }
                guard let variable, let predicate else {
                    return BoundExpr(.any(collection: collection, variable: nil, predicate: nil), type: .boolean, at: position)
                }
                let bound = try bindLambda(variable, predicate, element: element, set: set, at: at, in: scope)
                return BoundExpr(.any(collection: collection, variable: variable, predicate: bound), type: .boolean, at: position)
            case .all(let variable, let predicate, let at):
                guard segments.isEmpty else { throw .bindInvalidPath("nothing may follow all()", at: at) }
                let collection = BoundPath(root: root, steps: steps)
                guard let element = type.elementType ?? (type.isUntyped ? .untyped : nil) else {
                    throw .bindInvalidPath("all() needs a collection, not \(type)", at: at)
                }
                let bound = try bindLambda(variable, predicate, element: element, set: set, at: at, in: scope)
                return BoundExpr(.all(collection: collection, variable: variable, predicate: bound), type: .boolean, at: position)
            case .function(let name, let parameters, let at):
                // `sap.islocal()` and its siblings on the current entity (docs/OfflineStore.md §6).
                if let function = LocalStateFunction(name: name), case .current = root, steps.isEmpty, segments.isEmpty {
                    guard parameters.isEmpty else {
                        throw .bindArgumentCount(function.rawValue, got: parameters.count, expected: 0...0, at: at)
                    }
                    guard case .entity = type else {
                        throw .bindTypeMismatch("\(function.rawValue)() needs an entity, not \(type)", at: at)
                    }
                    return BoundExpr(.localState(function), type: .boolean, at: position)
                }
                throw .bindNotSupported("bound function '\(name)' in a path", at: at)
            case .annotation(let term, let at):
                throw .bindNotSupported("annotation value '@\(term)'", at: at)
            }
        }
        return BoundExpr(.path(BoundPath(root: root, steps: steps)), type: type, at: position)
    }

    /// A condition on each member of a collection (`/$filter(…)`, `/$count($filter=…)`): names
    /// and `$this` refer to the member, `$compute` aliases are not visible.
    func bindMemberCondition(_ condition: SyntaxExpr, element: BoundType, set: String?, scope: Scope,
                             what: String) throws(ODataError) -> BoundExpr {
        var inner = scope
        inner.current = element
        inner.currentSet = set
        inner.computedVisible = false
        let bound = try bind(condition, in: inner)
        try requireBoolean(bound, what)
        return bound
    }

    func bindLambda(_ variable: String, _ predicate: SyntaxExpr, element: BoundType, set: String?,
                    at position: Int, in scope: Scope) throws(ODataError) -> BoundExpr {
        guard !variable.hasPrefix("$") else {
            throw .bindLambdaVariable("'\(variable)' cannot be used as a lambda variable", at: position)
        }
        guard scope.variable(variable) == nil else {
            throw .bindLambdaVariable("lambda variable '\(variable)' is already declared by an enclosing lambda", at: position)
        }
        var inner = scope
        inner.variables.append(Variable(name: variable, type: element, entitySet: set))
        let bound = try bind(predicate, in: inner)
        try requireBoolean(bound, "a lambda predicate")
        return bound
    }

    /// `$root/Set(key)`: the set and its key values.
    func bindRootStart(_ segments: inout ArraySlice<SyntaxPathSegment>, at position: Int, in scope: Scope)
        throws(ODataError) -> (BoundPathRoot, BoundType, String?)
    {
        guard case .member(let setName, let setAt)? = segments.first else {
            throw .bindInvalidPath("$root must be followed by an entity set", at: position)
        }
        guard let set = model.entitySet(named: setName), let type = model.entityType(qualifiedName: set.entityType) else {
            throw .bindInvalidPath("'\(setName)' is not an entity set", at: setAt)
        }
        segments = segments.dropFirst()
        guard case .key(let values, let keyAt)? = segments.first else {
            throw .bindNotSupported("$root paths to a whole entity set", at: setAt)
        }
        segments = segments.dropFirst()
        let key = try bindKey(values, of: type, at: keyAt, in: scope)
        return (.root(entitySet: set.name, entityType: type.qualifiedName, key: key), .entity(type.qualifiedName), set.name)
    }

    /// The values of a key predicate on entities of `type`, in key order, converted to the key
    /// properties' types: literals (or aliases of literals), positional for a single-part key.
    func bindKey(_ values: [SyntaxKeyValue], of type: CSDLEntityType, at keyAt: Int, in scope: Scope) throws(ODataError) -> [ODataValue] {
        let keyProperties = model.keyProperties(of: type)
        guard !keyProperties.isEmpty else {
            throw .bindInvalidPath("\(type.qualifiedName) declares no key", at: keyAt)
        }
        guard values.count == keyProperties.count else {
            throw .bindInvalidPath("the key of \(type.qualifiedName) has \(keyProperties.count) part(s), got \(values.count)", at: keyAt)
        }
        for value in values {
            if let name = value.name, !keyProperties.contains(where: { $0.name == name }) {
                throw .bindInvalidPath("'\(name)' is not a key property of \(type.qualifiedName)", at: value.value.position)
            }
        }
        var key: [ODataValue] = []
        for (index, property) in keyProperties.enumerated() {
            let entry = values.first { $0.name == property.name } ?? (values.count == 1 || values.allSatisfy { $0.name == nil } ? values[index] : nil)
            guard let entry else { throw .bindInvalidPath("key property '\(property.name)' is missing", at: keyAt) }
            let bound = try bind(entry.value, in: scope)
            guard var value = bound.literalValue, !value.isNull else {
                throw .bindInvalidPath("key values must be literals", at: entry.value.position)
            }
            let keyType = boundType(property.type)
            if let converted = try convertLiteral(value, to: keyType, promoted: false, at: bound.position) {
                value = converted
            }
            if let kind = keyType.primitiveKind, kind != .untyped, value.kind != kind {
                throw .bindTypeMismatch("key property '\(property.name)' of \(type.qualifiedName) is \(kind.rawValue); "
                                        + "\((try? value.literal()) ?? "the value") does not fit", at: entry.value.position)
            }
            key.append(value)
        }
        return key
    }

    struct MemberStep {
        var step: BoundPathStep
        var type: BoundType
        var set: String?
    }

    func bindMember(_ name: String, on type: BoundType, set: String?, at position: Int) throws(ODataError) -> MemberStep {
        switch type {
        case .entity(let typeName):
            guard let entity = model.entityType(qualifiedName: typeName) else { throw .bindUnknownType(typeName, at: position) }
            let properties = model.allProperties(of: entity)
            if let index = properties.firstIndex(where: { $0.name == name }) {
                let propertyType = boundType(properties[index].type)
                return MemberStep(step: .property(BoundPropertyStep(name: name, access: .declared(index: index), type: propertyType)),
                                  type: propertyType, set: nil)
            }
            if let navigation = model.navigationProperty(name, of: entity) {
                let target = model.resolveAlias(navigation.targetType)
                let targetSet = set.flatMap { model.navigationTarget(set: $0, navigation: name)?.name }
                    ?? set.flatMap { model.navigationTarget(set: $0, navigation: typeName + "/" + name)?.name }
                let step = BoundNavigationStep(name: name, targetEntityType: target, targetSet: targetSet,
                                               isCollection: navigation.isCollection)
                let resultType: BoundType = navigation.isCollection ? .collection(of: .entity(target)) : .entity(target)
                return MemberStep(step: .navigation(step), type: resultType, set: targetSet)
            }
            if model.inheritanceChain(of: entity).contains(where: \.isOpen) {
                return MemberStep(step: .property(BoundPropertyStep(name: name, access: .dynamic, type: .untyped)), type: .untyped, set: nil)
            }
            throw .bindInvalidProperty(name, type: typeName, at: position)
        case .complex(let typeName):
            guard let complex = model.complexType(qualifiedName: typeName) else { throw .bindUnknownType(typeName, at: position) }
            let properties = model.allProperties(ofComplex: complex)
            if let index = properties.firstIndex(where: { $0.name == name }) {
                let propertyType = boundType(properties[index].type)
                return MemberStep(step: .property(BoundPropertyStep(name: name, access: .complex(index: index), type: propertyType)),
                                  type: propertyType, set: nil)
            }
            if complex.navigationProperties.contains(where: { $0.name == name }) {
                throw .bindNotSupported("navigation property '\(name)' of a complex type", at: position)
            }
            if complex.isOpen {
                return MemberStep(step: .property(BoundPropertyStep(name: name, access: .dynamic, type: .untyped)), type: .untyped, set: nil)
            }
            throw .bindInvalidProperty(name, type: typeName, at: position)
        case .primitive(.untyped):
            return MemberStep(step: .property(BoundPropertyStep(name: name, access: .dynamic, type: .untyped)), type: .untyped, set: nil)
        case .collection(let element):
            throw .bindInvalidPath("'\(name)' cannot follow a collection of \(element); use any/all or $count", at: position)
        default:
            throw .bindInvalidPath("'\(name)' cannot follow a value of type \(type)", at: position)
        }
    }

    func bindTypeCast(_ name: String, on type: BoundType, at position: Int) throws(ODataError) -> MemberStep {
        let isCollection = type.isCollection
        let base = type.elementType ?? type
        let qualified = model.resolveAlias(name)
        switch base {
        case .entity(let current):
            guard let target = model.entityType(qualifiedName: qualified) else { throw .bindUnknownType(name, at: position) }
            guard model.inheritanceChain(of: target).contains(where: { $0.qualifiedName == current })
                || (model.entityType(qualifiedName: current).map { model.inheritanceChain(of: $0).contains { $0.qualifiedName == qualified } } ?? false)
            else {
                throw .bindTypeMismatch("\(qualified) is not derived from \(current)", at: position)
            }
            let accepted = Set([qualified] + model.derivedTypes(of: target).map(\.qualifiedName))
            let result: BoundType = .entity(qualified)
            return MemberStep(step: .typeCast(qualified, acceptedTypes: accepted), type: isCollection ? .collection(of: result) : result, set: nil)
        case .complex(let current):
            guard let target = model.complexType(qualifiedName: qualified) else { throw .bindUnknownType(name, at: position) }
            var accepted: Set<String> = [qualified]
            for candidate in model.complexTypes where complexChain(candidate).contains(qualified) {
                accepted.insert(candidate.qualifiedName)
            }
            guard complexChain(target).contains(current) || accepted.contains(current) else {
                throw .bindTypeMismatch("\(qualified) is not derived from \(current)", at: position)
            }
            let result: BoundType = .complex(qualified)
            return MemberStep(step: .typeCast(qualified, acceptedTypes: accepted), type: isCollection ? .collection(of: result) : result, set: nil)
        default:
            throw .bindNotSupported("type cast segment '\(name)' on a value of type \(type)", at: position)
        }
    }

    func complexChain(_ type: CSDLComplexType) -> [String] {
        var chain = [type.qualifiedName]
        var current = type
        while let base = current.baseType, chain.count < 64, let next = model.complexType(qualifiedName: base) {
            chain.append(next.qualifiedName)
            current = next
        }
        return chain
    }

    /// The bound type of a CSDL type reference (type definitions become their underlying type).
    func boundType(_ reference: CSDLTypeReference) -> BoundType {
        let base: BoundType
        switch reference.kind {
        case .primitive(let kind): base = .primitive(kind)
        case .complex(let name): base = .complex(name)
        case .enumeration(let name): base = .enumeration(name)
        case .entity(let name): base = .entity(name)
        case .typeDefinition(let name): base = .primitive(model.typeDefinition(qualifiedName: name)?.underlyingType ?? .untyped)
        }
        return reference.isCollection ? .collection(of: base) : base
    }

    /// Resolves a type name in `cast`/`isof`: `Edm.*`, enum, complex or entity types.
    func resolveTypeName(_ name: String, at position: Int) throws(ODataError) -> BoundType {
        if let kind = EdmPrimitiveKind(qualifiedName: name) { return .primitive(kind) }
        guard let reference = model.resolveType(name) else { throw .bindUnknownType(name, at: position) }
        return boundType(reference)
    }
}
