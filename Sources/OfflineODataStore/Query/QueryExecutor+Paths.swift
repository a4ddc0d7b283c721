import OfflineODataModel
import OfflineODataQuery

/// Resolving resource paths to stored entities: `Set(key)`, navigation hops, singletons.
extension QueryExecutor {
    enum CandidateSource {
        /// The whole entity set (planned with its indexes).
        case wholeSet
        /// The targets of a navigation path, as encoded keys of the target set.
        case keys([[UInt8]])

        var isKeyOrdered: Bool { true }
    }

    /// The candidates of a collection path: the set itself, or what the hops lead to.
    func candidateSource(_ path: BoundResourcePath, set: String) throws(ODataError) -> CandidateSource {
        let steps = path.steps.filter { if case .typeCast = $0 { return false } else { return true } }
        if steps.count == 1, case .entitySet = steps[0] { return .wholeSet }
        let current = try resolve(Array(steps.dropLast()))
        guard case .navigation(let name, _, _, _)? = steps.last else {
            throw ODataError.queryNotSupported("this collection path is not supported")
        }
        // The entity the navigation starts from does not exist: the path addresses nothing
        // (404), which an empty collection would hide (`Customers('NOPE')/Orders`).
        if current.isEmpty {
            throw ODataError.queryEntityNotFound(pathText(BoundResourcePath(steps: Array(path.steps.dropLast()), target: path.target, suffix: .none)))
        }
        var keys: [[UInt8]] = []
        var seen = Set<ByteKey>()
        for entity in current {
            var cursor = try reader.navigationTargets(from: entity.entitySet, key: try entity.key(), navigation: name)
            while let key = try cursor.next() {
                if seen.insert(ByteKey(key)).inserted { keys.append(key) }
            }
        }
        _ = (current, set)
        return .keys(keys)
    }

    /// The single entity a path addresses (a 404-style `notFound` when there is none).
    func singleEntity(_ path: BoundResourcePath) throws(ODataError) -> StoredEntity {
        var steps = path.steps
        while case .property? = steps.last { steps.removeLast() }
        let found = try resolve(steps)
        guard let entity = found.first else {
            throw ODataError.queryEntityNotFound(pathText(path))
        }
        return entity
    }

    /// Follows the steps from the start; collections of more than one entity only occur
    /// before a key step. `/$filter(…)` conditions before a key keep the keyed entity only
    /// when it passes them (URL §4.12: the key addresses a member of the filtered collection).
    func resolve(_ steps: [BoundResourcePath.Step]) throws(ODataError) -> [StoredEntity] {
        var set: String?
        var current: [StoredEntity] = []
        var pendingCollection: (from: [StoredEntity], navigation: String)?
        var pendingFilters: [BoundExpr] = []
        // A cast between a collection and its key (`Set/Ns.Derived(key)`) applies to the keyed
        // entity: it is addressed only when it is of that type (URL §4.11).
        var pendingCasts: [String] = []
        var inCollection = false
        for step in steps {
            switch step {
            case .filter(let condition):
                pendingFilters.append(condition)
            case .entitySet(let name):
                set = name
                inCollection = true
            case .singleton(let name):
                // Kept as a set of (at most) one entity.
                var cursor = try reader.scan(name)
                current = try cursor.next().map { [$0] } ?? []
                set = nil
                inCollection = false
            case .key(let key):
                if let pending = pendingCollection {
                    // `A(1)/Items(2)`: the key must be among the navigation targets.
                    var matches: [StoredEntity] = []
                    for source in pending.from {
                        // A contained entity (`People('x')/Trips(0)`): stored under the
                        // container's key followed by its own.
                        if case .keyPrefix(let target, _)? = reader.catalog.navigation[source.entitySet]?[pending.navigation],
                           let contained = reader.catalog.sets[target]?.containment, contained.parentSet == source.entitySet {
                            if let entity = try reader.entity(in: target, key: try source.key() + key) { matches.append(entity) }
                            continue
                        }
                        var cursor = try reader.navigationTargets(from: source.entitySet, key: try source.key(), navigation: pending.navigation)
                        let wanted = try reader.encodeKey(key, in: cursor.targetSet)
                        while let target = try cursor.next() {
                            if target == wanted, let entity = try reader.entity(in: cursor.targetSet, keyBytes: target) { matches.append(entity) }
                        }
                    }
                    current = matches
                    pendingCollection = nil
                } else if let name = set {
                    current = try reader.entity(in: name, key: key).map { [$0] } ?? []
                }
                current = try passing(current, pendingFilters)
                pendingFilters = []
                for type in pendingCasts { current = current.filter { isOf($0, type) } }
                pendingCasts = []
                inCollection = false
            case .navigation(let name, _, _, let isCollection):
                if isCollection {
                    pendingCollection = (current, name)
                    inCollection = true
                } else {
                    var next: [StoredEntity] = []
                    for source in current {
                        var cursor = try reader.navigationTargets(from: source.entitySet, key: try source.key(), navigation: name)
                        if let key = try cursor.next(), let entity = try reader.entity(in: cursor.targetSet, keyBytes: key) { next.append(entity) }
                    }
                    current = next
                }
            case .typeCast(let type):
                if inCollection {
                    pendingCasts.append(type)
                } else {
                    current = current.filter { isOf($0, type) }
                }
            case .property:
                break
            }
        }
        return try passing(current, pendingFilters)
    }

    /// The stored set a path's entities are in: its entity set or singleton, then the target
    /// of each navigation (a containment navigation's own set: `People/Trips`). Nil when a hop
    /// leads nowhere the store keeps.
    func storedSet(of path: BoundResourcePath) -> String? {
        var current: String?
        for step in path.steps {
            switch step {
            case .entitySet(let name), .singleton(let name): current = name
            case .navigation(let name, _, _, _): current = current.flatMap { reader.catalog.navigation[$0]?[name]?.target }
            default: continue
            }
        }
        return current
    }

    /// Whether the entity's type is `type` or derives from it.
    func isOf(_ entity: StoredEntity, _ type: String) -> Bool {
        model.entityType(qualifiedName: entity.typeName).map { model.inheritanceChain(of: $0).contains { $0.qualifiedName == type } } ?? false
    }

    /// The entities for which every condition is true.
    func passing(_ entities: [StoredEntity], _ conditions: [BoundExpr]) throws(ODataError) -> [StoredEntity] {
        guard !conditions.isEmpty else { return entities }
        let context = EvaluationContext(reader: reader, model: model)
        var kept: [StoredEntity] = []
        for entity in entities {
            let instance = StoredInstance(entity, context: context)
            var passes = true
            for condition in conditions where try !evaluator.matches(condition, on: instance) {
                passes = false
                break
            }
            if passes { kept.append(entity) }
        }
        return kept
    }

    /// `Set(key)`: the canonical id of an entity (relative to the service root).
    func entityID(_ entity: StoredEntity) throws(ODataError) -> String {
        // A singleton's one entity is addressed by the singleton's name (`Me`).
        if model.singleton(named: entity.entitySet) != nil { return entity.entitySet }
        let values = try entity.key()
        if let containment = entity.info.containment { return try containment.path(values, set: entity.entitySet, version: .v4) }
        guard let type = model.entityType(qualifiedName: entity.typeName) ?? model.entityType(ofSet: entity.entitySet) else {
            return entity.entitySet
        }
        let keys = model.keyProperties(of: type).map { KeyProperty($0.name, $0.type.primitiveKind ?? .untyped) }
        return entity.entitySet + URLPercentEncoding.pathSegment(try KeyPredicate.format(values, keys: keys))
    }

    func pathText(_ path: BoundResourcePath) -> String {
        var text = ""
        for step in path.steps {
            switch step {
            case .entitySet(let name), .singleton(let name): text += name
            case .key(let values): text += "(" + values.map { (try? $0.literal()) ?? "?" }.joined(separator: ",") + ")"
            case .navigation(let name, _, _, _): text += "/" + name
            case .typeCast(let name): text += "/" + name
            case .property(let name, _): text += "/" + name
            case .filter(let condition): text += "/$filter(" + BoundPrinter.print(condition) + ")"
            }
        }
        switch path.suffix {
        case .count: text += "/$count"
        case .ref: text += "/$ref"
        case .value: text += "/$value"
        case .none: break
        }
        return text
    }
}
