import OfflineODataModel
import OfflineODataQuery

/// `$select` and `$expand` on result entities (docs/QueryExecution.md §5).
extension QueryExecutor {
    /// `$levels=max` and nested `$expand` stop at this depth.
    static let maxExpandDepth = 16

    /// `root`: the entity of the resource the URL addresses, which `$it` names in nested
    /// `$expand` filters (nil at the top level: `stored` is the root).
    func project(_ stored: StoredEntity, options: BoundQueryOptions, depth: Int, root: StoredEntity? = nil) throws(ODataError) -> ODataEntity {
        var entity = try stored.toODataEntity()
        Self.select(options, in: &entity)
        if !options.compute.isEmpty { try appendComputed(options, of: stored, to: &entity) }
        guard !options.expand.isEmpty, depth < Self.maxExpandDepth else { return entity }
        for item in options.expand {
            entity.navigation.append(ODataNavigationValue(item.navigation.name, try expand(item, of: stored, depth: depth + 1, root: root ?? stored)))
        }
        return entity
    }

    /// Keeps the `$select`ed properties.
    static func select(_ options: BoundQueryOptions, in entity: inout ODataEntity) {
        select(keeping: kept(options), in: &entity)
    }

    /// What `$select` keeps: the property names, and the member paths of properties selected in
    /// part. Made once per query or expand, not per row.
    struct Kept {
        let names: Set<String>
        let members: [String: [[String]]]
    }

    /// What `$select` keeps; nil for everything.
    static func kept(_ options: BoundQueryOptions) -> Kept? {
        options.select.all ? nil : Kept(names: Set(options.select.properties), members: options.select.members)
    }

    static func select(keeping keep: Kept?, in entity: inout ODataEntity) {
        guard let keep else { return }
        entity.properties.removeAll { !keep.names.contains($0.name) }
        guard !keep.members.isEmpty else { return }
        for i in entity.properties.indices {
            guard let paths = keep.members[entity.properties[i].name] else { continue }
            entity.properties[i].value = prune(entity.properties[i].value, to: paths)
        }
    }

    /// A complex value (or each complex element of a collection) with only the members on
    /// `paths` (URL §5.1.3).
    static func prune(_ value: ODataValue, to paths: [[String]]) -> ODataValue {
        switch value {
        case .complex(var complex):
            var whole = Set<String>()
            var inner: [String: [[String]]] = [:]
            for path in paths {
                guard let first = path.first else { continue }
                if path.count == 1 { whole.insert(first) } else { inner[first, default: []].append(Array(path.dropFirst())) }
            }
            complex.properties = complex.properties.compactMap { property in
                if whole.contains(property.name) { return property }
                guard let below = inner[property.name] else { return nil }
                return ODataProperty(property.name, prune(property.value, to: below))
            }
            return .complex(complex)
        case .collection(let elements):
            return .collection(elements.map { prune($0, to: paths) })
        default:
            return value
        }
    }

    /// `project` of an entity whose bytes a cursor lends, for options that `projectsFromBytes`
    /// accepts: decoded in place, then the `$select` (`kept(options)`, made once by the row loop
    /// rather than a set of names built for every row).
    static func project(borrowed row: BorrowedEntity, keeping keep: Kept?) throws(ODataError) -> ODataEntity {
        var entity = try row.toODataEntity()
        select(keeping: keep, in: &entity)
        return entity
    }

    /// True when `project` needs nothing but the entity's own bytes: no `$compute` and nothing
    /// (more) to expand. Such entities can be projected from bytes a cursor lends.
    static func projectsFromBytes(_ options: BoundQueryOptions, depth: Int) -> Bool {
        options.compute.isEmpty && (options.expand.isEmpty || depth >= maxExpandDepth)
    }

    /// The `$compute` properties the selection returns, after the declared ones, in `$compute`
    /// order (docs/Query.md §5.2).
    func appendComputed(_ options: BoundQueryOptions, of stored: StoredEntity, to entity: inout ODataEntity) throws(ODataError) {
        var instance: StoredInstance?
        for item in options.compute where options.select.includes(computed: item.alias) {
            let current = instance ?? StoredInstance(stored, context: EvaluationContext(reader: reader, model: model))
            instance = current
            entity.properties.append(ODataProperty(item.alias, try evaluator.evaluate(item.expression, on: current)))
        }
    }

    /// The expanded content of one navigation property of one entity: its targets through the
    /// navigation index or links (never a scan of the target set), then the nested options.
    func expand(_ item: BoundExpandItem, of source: StoredEntity, depth: Int, root: StoredEntity) throws(ODataError) -> ODataNavigationContent {
        var spent = spentCursors.take(source.entitySet, item.navigation.name)
        var cursor = try reader.navigationTargets(from: source, navigation: item.navigation.name, reusing: &spent)
        let context = EvaluationContext(reader: reader, model: model)
        var collector = ResultCollector(orderBy: item.options.orderBy, evaluator: evaluator, context: context,
                                        limit: item.options.top.map { RowCount.sum(item.options.skip ?? 0, $0) }, streams: item.options.orderBy.isEmpty,
                                        after: nil, countAll: true)
        let searcher = try item.options.search.map { _ throws(ODataError) in try SearchMatcher(model: model, entityType: item.navigation.targetEntityType) }
        if cursor.readsEntities, item.suffix == .none, item.options.filter == nil, item.options.search == nil,
           collector.keepsRowsAsOffered, Self.projectsFromBytes(item.options, depth: depth) {
            // A key-prefix range with nothing to evaluate per target: each target of the page is
            // projected from the bytes the cursor lends (no copy of its key and value, no
            // StoredEntity), as it comes.
            var page = AdmittedPage(skip: item.options.skip ?? 0, take: item.options.top)
            let keep = Self.kept(item.options)
            var entities: [ODataEntity] = []
            var stopped = false
            while !stopped, let stop = try cursor.nextBorrowedEntity({ (target) throws(ODataError) -> Bool in
                let (inPage, stop) = collector.admit(into: &page)
                if inPage { entities.append(try Self.project(borrowed: target, keeping: keep)) }
                return stop
            }) {
                stopped = stop
            }
            spentCursors.put(source.entitySet, item.navigation.name, cursor)
            let count = item.options.count ? Int64(collector.matched) : nil
            return item.navigation.isCollection ? .entities(entities, count: count, nextLink: nil) : .entity(entities.first)
        }
        // Targets in key order: read straight from a key-prefix range, else looked up by key.
        var targets: [StoredEntity] = []
        targets.reserveCapacity(16)
        if cursor.readsEntities {
            while let target = try cursor.nextEntity() { targets.append(target) }
        } else {
            var keys: [[UInt8]] = []
            while let key = try cursor.next() { keys.append(key) }
            keys.sort { $0.lexicographicallyPrecedes($1) }
            for key in keys {
                if let target = try reader.entity(in: cursor.targetSet, keyBytes: key) { targets.append(target) }
            }
        }
        spentCursors.put(source.entitySet, item.navigation.name, cursor)
        if item.suffix == .none, item.options.filter == nil, item.options.search == nil, collector.keepsRowsAsOffered {
            // Nothing to evaluate per target and the targets come in result order: each target
            // of the page is projected at once (no instance, no row, no copy).
            var page = AdmittedPage(skip: item.options.skip ?? 0, take: item.options.top)
            var entities: [ODataEntity] = []
            entities.reserveCapacity(targets.count)
            for index in targets.indices {
                let (inPage, stop) = collector.admit(into: &page)
                if inPage { entities.append(try project(targets[index], options: item.options, depth: depth, root: root)) }
                if stop { break }
            }
            let count = item.options.count ? Int64(collector.matched) : nil
            return item.navigation.isCollection ? .entities(entities, count: count, nextLink: nil) : .entity(entities.first)
        }
        let filtered = item.options.filter != nil || item.options.search != nil
        // `$it` in a nested filter is the URL's resource (the root row), not the target.
        let it = filtered ? StoredInstance(root, context: context) : nil
        for index in targets.indices {
            if filtered {
                let instance = StoredInstance(targets[index], context: context)
                if let filter = item.options.filter, let it, try !evaluator.matches(filter, on: instance, it: it) { continue }
                if let search = item.options.search, let searcher, try !searcher.matches(search, on: instance) { continue }
            }
            _ = try collector.offer(targets[index])
        }
        let (rows, _) = collector.finish(skip: item.options.skip ?? 0, take: item.options.top)
        let count = item.options.count ? Int64(collector.matched) : nil
        switch item.suffix {
        case .count:
            return .count(Int64(collector.matched))
        case .ref:
            var refs: [ODataEntity] = []
            for index in rows.indices {
                refs.append(ODataEntity(typeName: rows[index].entity.typeName, control: ODataControlInformation(id: try entityID(rows[index].entity))))
            }
            return item.navigation.isCollection ? .entities(refs, count: count, nextLink: nil) : .entity(refs.first)
        case .none:
            var entities: [ODataEntity] = []
            entities.reserveCapacity(rows.count)
            for index in rows.indices { entities.append(try project(rows[index].entity, options: item.options, depth: depth, root: root)) }
            return item.navigation.isCollection ? .entities(entities, count: count, nextLink: nil) : .entity(entities.first)
        }
    }
}
