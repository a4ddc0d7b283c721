import OfflineODataModel
import OfflineODataQuery

/// Runs bound read requests against one consistent snapshot of the store
/// (docs/QueryExecution.md). A coordinator: resolve the path, plan, fetch candidates, filter,
/// order and page, project, expand.
public struct QueryExecutor {
    public let reader: EntityReader
    public let model: ServiceModel
    /// Server-driven page size (nil: no paging).
    public var pageSize: Int?
    /// Ignore indexes and scan the whole set (tests compare both plans; never faster).
    public var forceFullScan = false
    let evaluator: Evaluator
    /// Navigation cursors that `$expand` has finished reading, by source set and navigation
    /// property, for the next parent's targets (`EntityReader.navigationTargets(from:navigation:reusing:)`).
    let spentCursors = SpentNavigationCursors()

    public init(reader: EntityReader, model: ServiceModel, pageSize: Int? = nil) {
        self.reader = reader
        self.model = model
        self.pageSize = pageSize.map(RowCount.clamp)
        self.evaluator = Evaluator()
    }

    /// Parses, binds and runs `url` (relative to the service root, e.g. `SalesOrders?$top=3`).
    public func execute(_ url: String) throws(ODataError) -> QueryResult {
        let syntax = try ODataURLParser.parse(url, version: model.urlVersion)
        let request = try RequestBinder(model: model).bind(syntax)
        return try execute(request)
    }

    public func execute(_ request: BoundRequest) throws(ODataError) -> QueryResult {
        let path = request.path
        // 1. Where the path leads.
        switch path.target {
        case .serviceDocument, .metadata, .batch:
            throw ODataError.queryNotSupported("the service document, $metadata and $batch are not answered by the query executor")
        case .property(let name, _):
            // The property steps after the entity: one, or a path into complex values (URL §4.6).
            var names: [String] = []
            for step in path.steps.reversed() {
                guard case .property(let member, _) = step else { break }
                names.insert(member, at: 0)
            }
            let entity = try singleEntity(path)
            var value = try entity.value(named: names.first ?? name) ?? .null
            for member in names.dropFirst() {
                guard case .complex(let complex) = value else {
                    value = .null
                    break
                }
                value = complex[member] ?? .null
            }
            var count: Int?
            if case .collection(let elements) = value {
                // URL §4.8: `/$count`, and $count, $skip and $top of a collection-valued property.
                if path.suffix == .count {
                    return QueryResult(payload: .count(elements.count), entitySet: entity.entitySet, entityType: entity.typeName)
                }
                var kept = elements
                let options = request.options
                if options.filter != nil || !options.orderBy.isEmpty {
                    let evaluator = Evaluator()
                    let owner = StoredInstance(entity, context: EvaluationContext(reader: reader, model: model))
                    if let filter = options.filter {
                        var passed: [ODataValue] = []
                        for element in kept where try evaluator.evaluate(filter, onElement: element, of: owner) == .boolean(true) {
                            passed.append(element)
                        }
                        kept = passed
                    }
                    if !options.orderBy.isEmpty {
                        // Stable: equal keys keep the collection's order.
                        var keyed: [(key: [ODataValue], index: Int, element: ODataValue)] = []
                        for (index, element) in kept.enumerated() {
                            var key: [ODataValue] = []
                            for item in options.orderBy { key.append(try evaluator.evaluate(item.expression, onElement: element, of: owner)) }
                            keyed.append((key, index, element))
                        }
                        let descending = options.orderBy.map(\.descending)
                        keyed.sort { a, b in
                            let order = ODataOrdering.compare(a.key, b.key, descending: descending)
                            return order != 0 ? order < 0 : a.index < b.index
                        }
                        kept = keyed.map(\.element)
                    }
                }
                if options.count { count = kept.count }
                let start = min(kept.count, options.skip ?? 0)
                let end = min(kept.count, RowCount.sum(start, options.top ?? kept.count))
                value = .collection(Array(kept[start..<end]))
                if let paths = options.elementSelect { value = Self.prune(value, to: paths) }
            } else if path.suffix == .count {
                // A collection-valued property that is null or absent has no element.
                return QueryResult(payload: .count(0), entitySet: entity.entitySet, entityType: entity.typeName)
            }
            var result = QueryResult(payload: .property(name: name, value: value), entitySet: entity.entitySet, entityType: entity.typeName)
            result.rawValue = path.suffix == .value
            result.propertyPath = names.isEmpty ? [name] : names
            result.propertyOf = try? entityID(entity)
            result.propertyCount = count
            return result
        case .entity(_, let type):
            let stored = try singleEntity(path)
            let projected = try project(stored, options: request.options, depth: 0)
            if path.suffix == .ref {
                var result = QueryResult(payload: .references([try entityID(stored)], count: nil, nextLink: nil), entitySet: stored.entitySet,
                                         entityType: type)
                result.singleReference = true
                return result
            }
            var result = QueryResult(payload: .entity(projected), entitySet: stored.entitySet, entityType: type)
            if let containment = stored.info.containment {
                result.containerPath = try containment.containerPath(try stored.key(), set: stored.entitySet, version: .v4)
            }
            return result
        case .entityCollection(let set, let type):
            // Contained entities (`People('x')/Trips`) live in the set of their containment path.
            guard let set = set ?? storedSet(of: path) else {
                throw ODataError.queryNotSupported("the collection of \(type) is not bound to an entity set the store keeps")
            }
            var result = try collection(request, set: set, type: type)
            if reader.catalog.sets[set]?.containment != nil { result.containerPath = try containerPath(of: path) }
            return result
        }
    }

    /// The types a cast at the end of a collection path admits (the cast type and those derived
    /// from it); nil when there is no such cast or it admits every type of the set.
    func castTypes(_ path: BoundResourcePath, set: String) -> Set<String>? {
        guard case .typeCast(let name)? = path.steps.last, let type = model.entityType(qualifiedName: name),
              let info = reader.catalog.sets[set] else { return nil }
        let accepted = Set([type.qualifiedName] + model.derivedTypes(of: type).map(\.qualifiedName))
        return info.typeNames.isSubset(of: accepted) ? nil : accepted
    }

    /// `People('russell')/Trips` for a path to a contained collection: the canonical URL of the
    /// one container it starts from, then the navigation (nil when not one container).
    func containerPath(of path: BoundResourcePath) throws(ODataError) -> String? {
        let steps = path.steps.filter { if case .typeCast = $0 { return false } else { return true } }
        guard case .navigation(let name, _, _, _)? = steps.last else { return nil }
        let containers = try resolve(Array(steps.dropLast()))
        guard containers.count == 1 else { return nil }
        return try entityID(containers[0]) + "/" + name
    }

    // MARK: collections

    func collection(_ request: BoundRequest, set: String, type: String) throws(ODataError) -> QueryResult {
        let options = request.options
        let context = EvaluationContext(reader: reader, model: model)
        // 2. Candidates: the whole set (planned), or the targets of a navigation path.
        let source = try candidateSource(request.path, set: set)
        var page = Paging(options: options, pageSize: pageSize,
                          fingerprint: { SkipToken.fingerprint(of: [pathText(request.path)] + options.shapeText) })
        let primaryKey = try reader.keyProperties(of: set)
        try page.readToken(reader: reader, set: set, keyCount: primaryKey.count)
        let searcher = try options.search.map { _ throws(ODataError) in try SearchMatcher(model: model, entityType: type) }
        var plan: QueryPlan?
        var stream: CandidateStream
        /// A whole-set scan runs on borrowed bytes (`EntityReader.forEachEntity`) instead.
        var borrowedScan: (reverse: Bool, after: [UInt8]?)?
        switch source {
        case .keys(let keys):
            stream = CandidateStream(reader: reader, set: set, keys: keys, reverse: false)
        case .wholeSet:
            let request = PlanRequest(
                entitySet: set, conditions: ConditionExtractor.conditions(of: options.filter),
                hasFilter: options.filter != nil || options.search != nil,
                orderBy: options.orderBy.map { PlanOrderKey(property: ConditionExtractor.propertyPath($0.expression), descending: $0.descending) },
                skip: 0, top: page.limit.map { RowCount.sum($0, 1) },
                primaryKey: .primaryKey(primaryKey),
                indexes: try reader.plannerIndexes(of: set))
            var chosen = reader.catalog.plans.plan(request)
            if forceFullScan {
                chosen = QueryPlan(entitySet: set, access: .scan, order: options.orderBy.isEmpty ? .primaryKey : (page.limit.map { .topK(RowCount.sum($0, 1)) } ?? .fullSort),
                                   needsFilter: true, estimatedFraction: 1, notes: ["forced full scan"])
            }
            if options.search != nil { chosen.needsFilter = true }
            plan = chosen
            var reverse = false
            if case .accessOrder(let backward) = chosen.order { reverse = backward }
            if case .scan = chosen.access {
                borrowedScan = (reverse, page.resumeKeyForScan(chosen))
                stream = CandidateStream(reader: reader, set: set, keys: [], reverse: false)
            } else {
                stream = try CandidateStream(reader: reader, set: set, access: chosen.access, reverse: reverse, primaryKey: primaryKey,
                                             resumeAfterKey: page.resumeKeyForScan(chosen))
            }
        }
        // 3. Filter, order, page.
        // A cast at the end of the path (`PlanItems/NS.Flight`, URL §4.11) keeps the entities
        // of that type or one derived from it.
        let accepted = castTypes(request.path, set: set)
        let needsFilter = (plan?.needsFilter ?? true) || accepted != nil
        if request.path.suffix == .count, !needsFilter {
            // The access path answers the filter exactly: count index entries, read no entity.
            var count = 0
            if let scan = borrowedScan {
                try reader.forEachEntity(set, reverse: scan.reverse, after: scan.after) { (_: BorrowedEntity) throws(ODataError) -> Bool in
                    count += 1
                    return true
                }
            } else {
                count = try stream.countRemaining()
            }
            return QueryResult(payload: .count(count), entitySet: set, entityType: type, plan: plan)
        }
        var streamsInOrder: Bool
        switch plan?.order {
        case .accessOrder?: streamsInOrder = true
        case .primaryKey?:
            if case .scan? = plan?.access { streamsInOrder = true } else if case .index(let index, let ranges)? = plan?.access {
                // The primary key's ranges come in key order; so do the entries of one
                // secondary range that fixes every indexed value (entries are the values, then
                // the primary key: docs/StoreFormat.md §5.2), which then need no sort.
                streamsInOrder = index.kind == .primaryKey
                    || (ranges.count == 1 && ranges[0].equal.count == index.properties.count
                        && ranges[0].lower == nil && ranges[0].upper == nil && ranges[0].prefix == nil
                        && hasOneEncodingPerValue(index.name))
            } else { streamsInOrder = false }
        default: streamsInOrder = options.orderBy.isEmpty && source.isKeyOrdered
        }
        if !streamsInOrder, case .primaryKey? = plan?.order, page.limit == nil, stream.readsIndexRanges {
            // Every row is needed in key order, and index ranges yield them in index order: the
            // primary keys are read first (the index entries only), sorted, and the entities
            // fetched in key order. The rows then stream in order (no sort of the rows at the
            // end), and neighbouring reads share blocks. The keys take less memory than the
            // rows the sort would hold.
            var keys: [[UInt8]] = []
            while let key = try stream.nextKey() { keys.append(key) }
            stream = CandidateStream(reader: reader, set: set, keys: keys, reverse: false)
            streamsInOrder = true
        }
        var collector = ResultCollector(orderBy: options.orderBy, evaluator: evaluator, context: context,
                                        limit: page.limit.map { RowCount.sum($0, 1) }, streams: streamsInOrder, after: page.position,
                                        countAll: options.count, countOnly: request.path.suffix == .count)
        let compiled = options.filter.map { CompiledFilter($0, evaluator: evaluator) }
        if let scan = borrowedScan {
            // Filter and `$orderby` keys are read in place; only kept rows are copied.
            var reused: StoredInstance?
            let info = try reader.catalog.set(set)
            let encoded = needsFilter ? options.filter.flatMap { EncodedFilter($0, info: info) } : nil
            collector.prepareBorrowedScan(info)
            try reader.forEachEntity(set, reverse: scan.reverse, after: scan.after) { (row: BorrowedEntity) throws(ODataError) -> Bool in
                if let accepted, !accepted.contains(row.typeName) { return true }
                var decided = false
                if let encoded, case .decided(let truth) = encoded.evaluate(row.codec) {
                    if truth != true { return true }
                    decided = true
                }
                // A matching row that a full top-k heap would drop is counted without an instance.
                let matches = !needsFilter || (options.search == nil && (decided || options.filter == nil))
                if matches, collector.offerDropping(row.codec) { return true }
                let instance: StoredInstance
                if let existing = reused {
                    existing.reset(borrowing: row)
                    instance = existing
                } else {
                    instance = StoredInstance(borrowing: row, context: context)
                    reused = instance
                }
                if needsFilter {
                    if !decided, let compiled, try !compiled.matches(instance) { return true }
                    if let search = options.search, let searcher, try !searcher.matches(search, on: instance) { return true }
                }
                return try collector.offer(instance) == .more
            }
        }
        // Rows kept in the order they come, with nothing to evaluate to keep them, are projected
        // as they come: the entity's bytes are decoded while still in the processor's cache,
        // and freed before the next lookup, instead of all being held until the end.
        let projectsEarly = borrowedScan == nil && request.path.suffix == .none && collector.keepsRowsAsOffered
        var projected: [ODataEntity] = []
        // Room for the rows at once when their number is known: a page size, or the count of
        // index ranges or explicit keys. Doubling from empty copied a `$top=20` page five times,
        // and the 16,543 rows of an index equality at 1M fifteen times, through arrays of up to
        // 2 MB that the allocator maps and unmaps (about half of the query's page faults).
        if projectsEarly {
            if let take = page.take {
                projected.reserveCapacity(min(take, 1_024))
            } else if let count = try stream.knownCount() {
                projected.reserveCapacity(max(0, count - page.skip))
            }
        }
        var lastProjected: StoredEntity?
        var streamedPage = AdmittedPage(skip: page.skip, take: page.take)
        var reusable: StoredInstance?
        let projectsFromBytes = projectsEarly && !needsFilter && !page.pageSizeLimits && Self.projectsFromBytes(options, depth: 0)
        if projectsFromBytes {
            // Nothing to evaluate, no next link, nothing beyond the entity's own bytes to
            // project: each row is decoded from the bytes the engine lends (a cached leaf), with
            // no copy of its value and no StoredEntity.
            let keep = Self.kept(options)
            while let stop = try stream.nextBorrowed({ (row) throws(ODataError) -> Bool in
                let (inPage, stop) = collector.admit(into: &streamedPage)
                if inPage { projected.append(try Self.project(borrowed: row, keeping: keep)) }
                return stop
            }), !stop {}
        }
        while !projectsFromBytes, let candidate = try stream.next() {
            if needsFilter {
                // One instance for the whole scan: the evaluator keeps no reference after a call.
                let instance: StoredInstance
                if let existing = reusable {
                    existing.reset(candidate)
                    instance = existing
                } else {
                    instance = StoredInstance(candidate, context: context)
                    reusable = instance
                }
                if let accepted, !accepted.contains(candidate.typeName) { continue }
                if let compiled, try !compiled.matches(instance) { continue }
                if let search = options.search, let searcher, try !searcher.matches(search, on: instance) { continue }
            }
            if projectsEarly {
                let (inPage, stop) = collector.admit(into: &streamedPage)
                if inPage {
                    projected.append(try project(candidate, options: options, depth: 0))
                    // Only a next link needs the last row (a copy per row otherwise).
                    if page.pageSizeLimits { lastProjected = candidate }
                }
                if stop { break }
                continue
            }
            if try collector.offer(candidate) == .stop { break }
        }
        if projectsEarly {
            let nextLink = streamedPage.more && page.pageSizeLimits
                ? try page.nextLink(after: lastProjected.map { entity throws(ODataError) in try collector.completed(ResultRow(entity: entity, sortValues: [])) },
                                    returned: projected.count, request: request) : nil
            return QueryResult(payload: .collection(entities: projected, count: options.count ? collector.matched : nil, nextLink: nextLink),
                               entitySet: set, entityType: type, plan: plan)
        }
        // 4. Page, project, expand.
        let (rows, more) = collector.finish(skip: page.skip, take: page.take)
        if request.path.suffix == .count {
            return QueryResult(payload: .count(collector.matched), entitySet: set, entityType: type, plan: plan)
        }
        let nextLink = more && page.pageSizeLimits
            ? try page.nextLink(after: rows.last.map { row throws(ODataError) in try collector.completed(row) }, returned: rows.count, request: request) : nil
        let count = options.count ? collector.matched : nil
        if request.path.suffix == .ref {
            var ids: [String] = []
            for index in rows.indices { ids.append(try entityID(rows[index].entity)) }
            return QueryResult(payload: .references(ids, count: count, nextLink: nextLink), entitySet: set, entityType: type, plan: plan)
        }
        // By index: iterating the rows copies each (a retain and release of every reference
        // in its entity).
        var entities: [ODataEntity] = []
        entities.reserveCapacity(rows.count)
        for index in rows.indices { entities.append(try project(rows[index].entity, options: options, depth: 0)) }
        return QueryResult(payload: .collection(entities: entities, count: count, nextLink: nextLink), entitySet: set, entityType: type, plan: plan)
    }

    /// Whether every column of secondary index `name` encodes equal values to identical bytes.
    /// Numbers other than integers keep their representation after the value (a decimal's scale,
    /// a double's sign of zero: docs/EntityEncoding.md §1.3) and date/time offsets theirs, so one
    /// value's entries there are ordered by representation before the primary key.
    func hasOneEncodingPerValue(_ name: String) -> Bool {
        guard let columns = reader.catalog.indexes[name]?.columns else { return false }
        return columns.allSatisfy { column in
            switch column.kind {
            case .string?, .boolean?, .guid?, .byte?, .sbyte?, .int16?, .int32?, .int64?, .date?: return true
            default: return false
            }
        }
    }

    /// The plan `url` would run with, as text (`explain`).
    public func explain(_ url: String) throws(ODataError) -> String {
        let request = try RequestBinder(model: model).bind(try ODataURLParser.parse(url, version: model.urlVersion))
        guard case .entityCollection(let set?, _) = request.path.target, request.path.steps.count == 1 else {
            return "key lookup or navigation path: no plan (entities are read by key)"
        }
        let options = request.options
        let page = Paging(options: options, pageSize: pageSize, fingerprint: { 0 })
        let plan = Planner.plan(PlanRequest(
            entitySet: set, conditions: ConditionExtractor.conditions(of: options.filter),
            hasFilter: options.filter != nil || options.search != nil,
            orderBy: options.orderBy.map { PlanOrderKey(property: ConditionExtractor.propertyPath($0.expression), descending: $0.descending) },
            skip: options.skip ?? 0, top: page.limit,
            primaryKey: .primaryKey(try reader.keyProperties(of: set)),
            indexes: try reader.plannerIndexes(of: set)))
        var text = plan.explain()
        for (item, written) in zip(options.compute, request.syntax.options.compute ?? []) {
            text += "\n  compute: \(item.alias) = \(SyntaxPrinter.print(written.expression)) (\(item.type)), evaluated for each returned row"
        }
        return text
    }
}

/// Finished navigation cursors kept for reuse within one executor: `$expand` reads one
/// parent's targets after another, and a key-prefix cursor moved on to the next parent's range
/// costs a leaf search where a new cursor costs its sources and a descent from each run's root.
/// An executor is used by one task at a time (it is not `Sendable`).
final class SpentNavigationCursors {
    /// One entry per navigation expanded so far (a handful): found by comparing the two names,
    /// which come from the same model strings each time, so no key is built or hashed per parent
    /// (a `Dictionary` keyed by "Set/Navigation" cost a concatenation and two hashes per parent).
    private var cursors: [(set: String, navigation: String, cursor: NavigationCursor?)] = []

    /// The kept cursor for `navigation` of `set` (removed, so a nested expand of the same
    /// navigation gets a fresh one); a finished empty cursor when there is none.
    func take(_ set: String, _ navigation: String) -> NavigationCursor {
        for i in cursors.indices where cursors[i].navigation == navigation && cursors[i].set == set {
            if let cursor = cursors[i].cursor {
                cursors[i].cursor = nil
                return cursor
            }
        }
        return NavigationCursor(targetSet: "", mode: .done)
    }

    func put(_ set: String, _ navigation: String, _ cursor: NavigationCursor) {
        for i in cursors.indices where cursors[i].navigation == navigation && cursors[i].set == set {
            cursors[i].cursor = cursor
            return
        }
        cursors.append((set, navigation, cursor))
    }
}
