import OfflineODataModel

/// Path evaluation: properties, complex members, navigation, casts, `$count`, `$filter(…)`,
/// key predicates (docs/Query.md §3.2).
extension Evaluator {
    func item(_ path: BoundPath, _ ctx: Context, at position: Int) throws(ODataError) -> Item {
        var item: Item
        switch path.root {
        case .current: item = ctx.current
        case .it: item = .instance(ctx.it)
        case .variable(let name):
            guard let bound = ctx.variable(name) else {
                throw .evalTypeMismatch("lambda variable '\(name)' is not in scope", at: position)
            }
            item = bound
        case .root(let set, let type, let key):
            guard let rootResolver else { throw .evalNotSupported("$root/\(set)", at: position) }
            item = try rootResolver.entity(set: set, entityType: type, key: key).map(Item.instance) ?? .null
        }
        var index = 0
        let steps = path.steps
        while index < steps.count {
            let step = steps[index]
            index += 1
            switch step {
            case .property(let property):
                item = try read(property, from: item, at: position)
            case .navigation(let navigation):
                guard case .instance(let instance) = item else {
                    if item.isNull { item = navigation.isCollection ? .instances([]) : .null; continue }
                    throw .evalTypeMismatch("navigation '\(navigation.name)' needs an entity", at: position)
                }
                // Nav/$count without a filter: let the instance count cheaply.
                if index < steps.count, case .count(nil) = steps[index],
                   let count = try instance.navigationCount(navigation) {
                    index += 1
                    item = .value(.int64(Int64(count)))
                    continue
                }
                switch try instance.navigate(navigation) {
                case .single(let target): item = target.map(Item.instance) ?? .null
                case .many(let targets): item = .instances(targets)
                }
            case .typeCast(let name, let accepted):
                item = cast(item, accepted: accepted, name: name)
            case .count(let filter):
                let elements = try self.elements(item, at: position)
                guard let filter else { item = .value(.int64(Int64(elements.count))); continue }
                var count: Int64 = 0
                for element in elements where try value(filter, ctx.withCurrent(element)) == .boolean(true) {
                    count += 1
                }
                item = .value(.int64(count))
            case .filter(let condition):
                // Members for which the condition is true; a null collection stays null (which
                // `$count`, lambdas and keys read as empty).
                if item.isNull { continue }
                let elements = try self.elements(item, at: position)
                var instances: [any EvaluationInstance] = []
                var values: [ODataValue] = []
                for element in elements where try value(condition, ctx.withCurrent(element)) == .boolean(true) {
                    switch element {
                    case .instance(let instance): instances.append(instance)
                    case .value(let value): values.append(value)
                    case .instances: throw .evalTypeMismatch("$filter(…) on a collection of collections", at: position)
                    }
                }
                if case .instances = item { item = .instances(instances) } else { item = .value(.collection(values)) }
            case .key(let key):
                item = try member(of: item, key: key, at: position)
            }
        }
        return item
    }

    /// The member of a collection of entities with the given key, or null.
    func member(of item: Item, key: BoundKeyStep, at position: Int) throws(ODataError) -> Item {
        guard case .instances(let instances) = item else {
            if item.isNull { return .null }
            throw .evalTypeMismatch("a key predicate needs a collection of entities", at: position)
        }
        search: for instance in instances {
            for (property, wanted) in zip(key.properties, key.values) {
                guard let actual = try instance.value(of: property), try valuesEqual(actual, wanted) else { continue search }
            }
            return .instance(instance)
        }
        return .null
    }

    func read(_ property: BoundPropertyStep, from item: Item, at position: Int) throws(ODataError) -> Item {
        switch item {
        case .instance(let instance):
            return .value(try instance.value(of: property) ?? .null)
        case .value(.complex(let complex)):
            return .value(complex[property.name] ?? .null)
        case .value(.null):
            return .null
        case .value:
            if property.access == .dynamic { return .null }
            throw .evalTypeMismatch("property '\(property.name)' read from a value that is not structured", at: position)
        case .instances:
            throw .evalTypeMismatch("property '\(property.name)' read from a collection", at: position)
        }
    }

    /// A type-cast segment: non-matching instances become null (or drop out of collections).
    func cast(_ item: Item, accepted: Set<String>, name: String) -> Item {
        switch item {
        case .instance(let instance):
            return accepted.contains(instance.typeName) ? item : .null
        case .instances(let instances):
            return .instances(instances.filter { accepted.contains($0.typeName) })
        case .value(.complex(let complex)):
            return accepted.contains(complex.typeName ?? name) ? item : .null
        case .value(.collection(let values)):
            return .value(.collection(values.filter {
                if case .complex(let complex) = $0 { return accepted.contains(complex.typeName ?? name) }
                return false
            }))
        case .value:
            return .null
        }
    }
}
