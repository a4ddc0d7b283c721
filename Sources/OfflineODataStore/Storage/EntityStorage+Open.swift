import OfflineODataEngine
import OfflineODataModel
import Synchronization

private extension String {
    /// `People/Trips` as it goes into a container key property's name: `People.Trips`.
    var replacingSlashes: String { String(map { $0 == "/" ? "." : $0 }) }
}

extension EntityStorage {
    static func tree(_ name: String, engine: StorageEngine) throws(ODataError) -> Tree {
        guard name.utf8.count <= StoreFormat.maxTreeNameBytes else {
            throw .storeInvalidSystemTree(name, "tree names are at most \(StoreFormat.maxTreeNameBytes) bytes")
        }
        return try mapEngine("creating tree '\(name)'") { () throws(EngineError) in try engine.tree(name) }
    }

    /// Layouts of every entity set of the model, merged with the persisted ones. A singleton is
    /// kept as a set of (at most) one entity under its own name (docs/StoreFormat.md §2).
    static func loadSets(engine: StorageEngine, model: ServiceModel, catalogTree: Tree, snapshot: Snapshot,
                         into catalog: inout StorageCatalog, batch: inout WriteBatch, memo: LayoutMemo.Session? = nil) throws(ODataError) {
        let named = model.entitySets.map { (name: $0.name, entityType: $0.entityType) }
            + model.singletons.map { (name: $0.name, entityType: $0.entityType) }
        for set in named {
            guard let type = model.entityType(ofSet: set.name) else {
                catalog.unsupported[set.name] = .storeUnknownEntitySet(set.name)
                continue
            }
            let keyRefs = model.key(of: type)
            let recordKey = StoreFormat.setKey(set.name)
            let stored = try mapEngine("reading the layout of '\(set.name)'") { () throws(EngineError) in
                try snapshot.get(recordKey, in: catalogTree)
            }
            // The same model and stored record as at an earlier open of this process: the
            // merged layout then is the same.
            if let memo, let stored, let known = memo.memo.layout(set: set.name, stored: stored) {
                memo.versions[set.name] = known.version
                try addSet(set.name, type: type, keyRefs: keyRefs, layout: known.layout, model: model, engine: engine, into: &catalog,
                           memo: memo)
                continue
            }
            let modelLayout = LayoutRecord.layout(of: type, model: model)
            let keyIndicesInModel = keyRefs.map { ref in modelLayout.index(of: ref.name) }
            guard !keyRefs.isEmpty, keyIndicesInModel.allSatisfy({ $0 != nil }) else {
                catalog.unsupported[set.name] = .storeSetWithoutKey(set.name)
                continue
            }
            var layout = modelLayout
            if let stored {
                let (_, storedLayout) = try LayoutRecord.decode(stored, set: set.name)
                layout = try LayoutRecord.merge(stored: storedLayout, model: modelLayout, set: set.name)
            }
            let record = LayoutRecord.encode(typeName: type.qualifiedName, layout: layout)
            if record != stored { batch.put(recordKey, record, in: catalogTree) }
            if let memo { memo.versions[set.name] = memo.memo.remember(set: set.name, stored: record, layout: layout) }
            try addSet(set.name, type: type, keyRefs: keyRefs, layout: layout, model: model, engine: engine, into: &catalog,
                       memo: memo)
        }
        try loadContainedSets(engine: engine, model: model, catalogTree: catalogTree, snapshot: snapshot,
                              into: &catalog, batch: &batch, memo: memo)
    }

    /// Containment navigations nest at most this deep below their entity set or singleton
    /// (a type that contains itself would otherwise have no end).
    static let maxContainmentDepth = 4

    /// The sets of containment navigations (`People/Trips`, `People/Trips/PlanItems`,
    /// `Me/Trips`), level by level below the entity sets and singletons (docs/StoreFormat.md
    /// §2.1): the contained type's layout with the container's key appended as container key
    /// properties, keyed by the container's key and then the type's own.
    static func loadContainedSets(engine: StorageEngine, model: ServiceModel, catalogTree: Tree, snapshot: Snapshot,
                                  into catalog: inout StorageCatalog, batch: inout WriteBatch, memo: LayoutMemo.Session?) throws(ODataError) {
        var level = (model.entitySets.map(\.name) + model.singletons.map(\.name)).filter { catalog.sets[$0] != nil }
        for _ in 0..<maxContainmentDepth {
            var next: [String] = []
            for parentName in level {
                guard let parent = catalog.sets[parentName], let parentType = model.entityType(qualifiedName: parent.typeName) else { continue }
                for nav in model.allNavigationProperties(of: parentType) where nav.containsTarget {
                    let name = parentName + "/" + nav.name
                    guard catalog.sets[name] == nil, StoreFormat.entityTree(name).utf8.count <= StoreFormat.maxTreeNameBytes,
                          let type = model.entityType(qualifiedName: model.resolveAlias(nav.targetType)) else { continue }
                    let keyRefs = model.key(of: type)
                    let modelLayout = LayoutRecord.layout(of: type, model: model)
                    guard !keyRefs.isEmpty, keyRefs.allSatisfy({ modelLayout.index(of: $0.name) != nil }) else {
                        catalog.unsupported[name] = .storeSetWithoutKey(name)
                        continue
                    }
                    // The container's stored key, as container key properties.
                    var hidden: [EntityPropertyDescriptor] = []
                    for (keyName, index) in zip(parent.keyNames, parent.keyIndices) {
                        let hiddenName = Containment.isContainerKey(keyName)
                            ? keyName : String(Containment.hiddenPrefix) + parentName.replacingSlashes + "." + keyName
                        hidden.append(EntityPropertyDescriptor(name: hiddenName, shape: parent.layout.properties[index].shape, isNullable: false))
                    }
                    let recordKey = StoreFormat.setKey(name)
                    let stored = try mapEngine("reading the layout of '\(name)'") { () throws(EngineError) in
                        try snapshot.get(recordKey, in: catalogTree)
                    }
                    var layout = EntityLayout(modelLayout.properties + hidden)
                    if let memo, let stored, let known = memo.memo.layout(set: name, stored: stored) {
                        layout = known.layout
                        memo.versions[name] = known.version
                    } else {
                        if let stored {
                            let (_, storedLayout) = try LayoutRecord.decode(stored, set: name)
                            layout = try LayoutRecord.merge(stored: storedLayout, model: layout, set: name)
                        }
                        let record = LayoutRecord.encode(typeName: type.qualifiedName, layout: layout)
                        if record != stored { batch.put(recordKey, record, in: catalogTree) }
                        if let memo { memo.versions[name] = memo.memo.remember(set: name, stored: record, layout: layout) }
                    }
                    let ownKeys = keyRefs.map { ref in
                        KeyProperty(ref.name, modelLayout.index(of: ref.name).flatMap { i -> EdmPrimitiveKind? in
                            if case .primitive(let kind) = modelLayout.properties[i].shape { return kind }
                            return nil
                        } ?? .string)
                    }
                    let parentLevels = parent.containment?.levels ?? [Containment.Level(
                        name: parentName, keys: parent.keyProperties, isSingleton: model.singleton(named: parentName) != nil)]
                    let containment = Containment(levels: parentLevels + [Containment.Level(name: nav.name, keys: ownKeys, isSingleton: false)],
                                                  parentSet: parentName, navigation: nav.name)
                    let allKeys = hidden.map { CSDLPropertyRef(name: $0.name) } + keyRefs
                    try addSet(name, type: type, keyRefs: allKeys, layout: layout, model: model, engine: engine, into: &catalog,
                               containment: containment, memo: memo)
                    catalog.containedSets[parentName, default: []].append(name)
                    next.append(name)
                }
            }
            if next.isEmpty { break }
            level = next
        }
    }

    /// The set's entry of the catalog for its (persisted) layout.
    static func addSet(_ name: String, type: CSDLEntityType, keyRefs: [CSDLPropertyRef], layout: EntityLayout, model: ServiceModel,
                       engine: StorageEngine, into catalog: inout StorageCatalog, containment: Containment? = nil,
                       memo: LayoutMemo.Session? = nil) throws(ODataError) {
        var keyIndices: [Int] = []
        var keyKinds: [EdmPrimitiveKind?] = []
        for ref in keyRefs {
            guard let i = layout.index(of: ref.name) else { throw .storeSetWithoutKey(name) }
            keyIndices.append(i)
            if case .primitive(let kind) = layout.properties[i].shape {
                keyKinds.append(kind == .untyped ? nil : kind)
            } else {
                keyKinds.append(nil)
            }
        }
        let facts: LayoutMemo.SetFacts
        if let known = memo?.memo.facts(set: name, typeName: type.qualifiedName) {
            facts = known
        } else {
            let derived = model.derivedTypes(of: type)
            facts = LayoutMemo.SetFacts(
                typeName: type.qualifiedName, typeNames: Set([type.qualifiedName] + derived.map(\.qualifiedName)),
                hasStreams: ([type] + derived).contains {
                    model.isMediaType($0) || model.allProperties(of: $0).contains { $0.type.primitiveKind == .stream }
                })
            memo?.memo.remember(set: name, facts: facts)
        }
        catalog.sets[name] = SetInfo(
            name: name, typeName: type.qualifiedName, typeNames: facts.typeNames, layout: layout,
            keyIndices: keyIndices, keyKinds: keyKinds,
            keyNames: keyRefs.map(\.name), tree: try tree(StoreFormat.entityTree(name), engine: engine),
            hasStreams: facts.hasStreams, containment: containment)
    }

    /// Index definitions persisted in the catalog (docs/StoreFormat.md §5).
    static func loadIndexes(snapshot: Snapshot, catalogTree: Tree, engine: StorageEngine,
                            into catalog: inout StorageCatalog) throws(ODataError) {
        var records: [[UInt8]] = []
        do {
            try snapshot.scan(in: catalogTree, prefix: StoreFormat.indexKeyPrefix) { _, value in
                records.append(value)
                return true
            }
        } catch let error as EngineError {
            throw error.odata("reading index definitions")
        } catch {
            throw .storeCorrupted("catalog", "\(error)")
        }
        for value in records {
            let (definition, isReady, isNavigation) = try IndexRecord.decode(value)
            // An index of a set the model no longer has: its entities cannot change while the
            // set is absent, so the index stays right; it is simply not loaded.
            guard let info = catalog.sets[definition.entitySet] else { continue }
            var columns: [IndexColumn] = []
            for path in definition.properties {
                do {
                    columns.append(try StorageCatalog.column(path, in: info, index: definition.name))
                } catch {
                    throw .storeIncompatibleMetadata(definition.entitySet, "index '\(definition.name)': \(error.message)")
                }
            }
            catalog.add(ResolvedIndex(definition: definition, tree: try tree(StoreFormat.indexTree(definition.name), engine: engine),
                                      columns: columns, isReady: isReady, isNavigation: isNavigation))
        }
    }

    /// Navigation plans of every set; returns the navigation indexes still to declare or to
    /// finish (a crash during their backfill).
    static func planNavigation(engine: StorageEngine, model: ServiceModel,
                               into catalog: inout StorageCatalog, memo: LayoutMemo.Session? = nil) throws(ODataError) -> [IndexDefinition] {
        var missing: [String: IndexDefinition] = [:]
        for (setName, info) in catalog.sets.sorted(by: { $0.key < $1.key }) {
            guard let type = model.entityType(qualifiedName: info.typeName) else { continue }
            // A containment navigation: the contained set's keys start with this set's key.
            for name in catalog.containedSets[setName] ?? [] {
                guard let contained = catalog.sets[name], let navigation = contained.containment?.navigation else { continue }
                let columns = zip(info.keyIndices, info.keyKinds).map { index, kind in
                    IndexColumn(path: [info.layout.properties[index].name], top: index, kind: kind)
                }
                catalog.navigation[setName, default: [:]][navigation] = .keyPrefix(target: name, sourceColumns: columns)
            }
            for nav in model.allNavigationProperties(of: type) where !nav.containsTarget {
                let findTarget = { targetSet(model: model, set: setName, navigation: nav) }
                guard let targetName = memo.map({ $0.memo.target(.init(set: setName, navigation: nav.name), findTarget) }) ?? findTarget(),
                      let target = catalog.sets[targetName] else { continue }
                if let plan = memoizedConstraintPlan(model: model, source: info, target: target, navigation: nav, memo: memo) {
                    catalog.navigation[setName, default: [:]][nav.name] = plan.plan
                    if let definition = plan.index, catalog.indexes[definition.name]?.isReady != true {
                        missing[definition.name] = definition
                    }
                    continue
                }
                let forwardName = StoreFormat.linkTree(setName, nav.name)
                let reverseName = StoreFormat.reverseLinkTree(setName, nav.name)
                guard forwardName.utf8.count <= StoreFormat.maxTreeNameBytes,
                      reverseName.utf8.count <= StoreFormat.maxTreeNameBytes else { continue }
                catalog.navigation[setName, default: [:]][nav.name] = .link(
                    target: targetName, forward: try tree(forwardName, engine: engine),
                    reverse: try tree(reverseName, engine: engine), partner: nav.partner, isCollection: nav.isCollection)
                catalog.incomingLinks[targetName, default: []].append((setName, nav.name))
            }
        }
        return missing.values.sorted { $0.name < $1.name }
    }

    /// `constraintPlan`, remembered in the memo for the layouts of both sets as this open got
    /// them (their versions; a set without one is planned anew).
    static func memoizedConstraintPlan(model: ServiceModel, source: SetInfo, target: SetInfo, navigation: CSDLNavigationProperty,
                                       memo session: LayoutMemo.Session?) -> (plan: NavigationPlan, index: IndexDefinition?)? {
        guard let session, let sourceVersion = session.versions[source.name], let targetVersion = session.versions[target.name] else {
            return constraintPlan(model: model, source: source, target: target, navigation: navigation)
        }
        let memo = session.memo
        let key = LayoutMemo.PlanKey(set: source.name, navigation: navigation.name, sourceVersion: sourceVersion, targetVersion: targetVersion)
        switch memo.plan(key) {
        case .plan(let plan, let index)?: return (plan, index)
        case .none?: return nil
        case nil:
            let made = constraintPlan(model: model, source: source, target: target, navigation: navigation)
            memo.remember(key, plan: made.map { .plan($0.plan, $0.index) } ?? .none)
            return made
        }
    }

    /// The entity set a navigation leads to: its binding, else the only set of the target type.
    static func targetSet(model: ServiceModel, set: String, navigation: CSDLNavigationProperty) -> String? {
        if let bound = model.navigationTarget(set: set, navigation: navigation.name) { return bound.name }
        let target = model.resolveAlias(navigation.targetType)
        let candidates = model.entitySets.filter { model.resolveAlias($0.entityType) == target }
        return candidates.count == 1 ? candidates[0].name : nil
    }

    /// A plan from referential constraints: the navigation's own, or its partner's reversed.
    static func constraintPlan(model: ServiceModel, source: SetInfo, target: SetInfo, navigation: CSDLNavigationProperty)
        -> (plan: NavigationPlan, index: IndexDefinition?)?
    {
        var pairs: [(source: String, target: String)] = navigation.referentialConstraints.map {
            ($0.property, $0.referencedProperty)
        }
        if pairs.isEmpty, let partnerName = navigation.partner,
           let targetType = model.entityType(qualifiedName: target.typeName),
           let partner = model.navigationProperty(partnerName, of: targetType) {
            pairs = partner.referentialConstraints.map { ($0.referencedProperty, $0.property) }
        }
        guard !pairs.isEmpty else { return nil }
        var sourceColumns: [IndexColumn] = []
        var targetPaths: [String] = []
        for pair in pairs {
            guard let column = try? StorageCatalog.column(pair.source, in: source, index: "navigation " + navigation.name),
                  (try? StorageCatalog.column(pair.target, in: target, index: "navigation " + navigation.name)) != nil
            else { return nil }
            sourceColumns.append(column)
            targetPaths.append(pair.target)
        }
        // The target's key: build it from the source's values.
        if Set(targetPaths) == Set(target.keyNames), targetPaths.count == target.keyNames.count {
            let ordered = target.keyNames.compactMap { name in
                targetPaths.firstIndex(of: name).map { sourceColumns[$0] }
            }
            return (.toKey(target: target.name, sourceColumns: ordered), nil)
        }
        // A prefix of the target's key: scan the target's entities by key prefix.
        let prefix = Array(target.keyNames.prefix(targetPaths.count))
        if Set(targetPaths) == Set(prefix), targetPaths.count == prefix.count {
            let ordered = prefix.compactMap { name in targetPaths.firstIndex(of: name).map { sourceColumns[$0] } }
            return (.keyPrefix(target: target.name, sourceColumns: ordered), nil)
        }
        let indexName = "$nav." + target.name + "." + targetPaths.joined(separator: ",")
        guard StoreFormat.indexTree(indexName).utf8.count <= StoreFormat.maxTreeNameBytes else { return nil }
        let definition = IndexDefinition(name: indexName, entitySet: target.name, properties: targetPaths)
        return (.byIndex(target: target.name, sourceColumns: sourceColumns, index: indexName), definition)
    }
}

/// The catalog record of an index (docs/StoreFormat.md §5).
enum IndexRecord {
    static func encode(_ d: IndexDefinition, isReady: Bool, isNavigation: Bool) -> [UInt8] {
        var sink = ByteSink()
        sink.u8(StoreFormat.indexRecordVersion)
        sink.string(d.name)
        sink.string(d.entitySet)
        sink.leb(d.properties.count)
        for p in d.properties { sink.string(p) }
        sink.u8((isReady ? 1 : 0) | (isNavigation ? 2 : 0))
        return sink.bytes
    }

    static func decode(_ bytes: [UInt8]) throws(ODataError) -> (IndexDefinition, isReady: Bool, isNavigation: Bool) {
        var source = ByteSource(bytes, what: "index definition")
        let version = try source.u8()
        guard version == StoreFormat.indexRecordVersion else { throw .storeCorrupted(source.what, "version \(version)") }
        let name = try source.string()
        let set = try source.string()
        let count = try source.leb()
        var properties: [String] = []
        for _ in 0..<count { properties.append(try source.string()) }
        let flags = try source.u8()
        guard source.atEnd, flags <= 3 else { throw .storeCorrupted(source.what, "flags \(flags) or trailing bytes") }
        return (IndexDefinition(name: name, entitySet: set, properties: properties), flags & 1 != 0, flags & 2 != 0)
    }
}

/// Layouts merged at an earlier open of this process, by set and stored layout record, for one
/// model (`$metadata`): the same record with the same model merges to the same layout. Beside
/// them, what a reopen would otherwise work out again from the model alone (a set's type names
/// and whether it has streams) or from the model and layouts it already knows (navigation plans
/// from referential constraints): these were about a third of reopening a 100k-entity store's
/// catalog (perf).
final class LayoutMemo: Sendable {
    private let layouts = Mutex<[String: (stored: [UInt8], layout: EntityLayout, version: Int)]>([:])
    private let versions = Atomic<Int>(0)
    private let facts = Mutex<[String: SetFacts]>([:])
    private let plans = Mutex<[PlanKey: ConstraintPlan]>([:])
    /// The set each navigation of a set leads to (`targetSet`; the model's alone), nil when none.
    private let targets = Mutex<[NavigationName: String?]>([:])

    struct NavigationName: Hashable, Sendable {
        let set: String
        let navigation: String
    }

    func target(_ name: NavigationName, _ make: () -> String?) -> String? {
        if let known = targets.withLock({ $0[name] }) { return known }
        let made = make()
        targets.withLock { $0[name] = .some(made) }
        return made
    }

    struct SetFacts: Sendable {
        let typeName: String
        let typeNames: Set<String>
        let hasStreams: Bool
    }

    /// A navigation's plan, valid for the layouts of its two sets as remembered (their versions).
    struct PlanKey: Hashable, Sendable {
        let set: String
        let navigation: String
        let sourceVersion: Int
        let targetVersion: Int
    }

    /// `constraintPlan`'s answer, none included.
    enum ConstraintPlan: Sendable {
        case none
        case plan(NavigationPlan, IndexDefinition?)
    }

    /// The layout merged from this stored record, and the version it was remembered as.
    func layout(set: String, stored: [UInt8]) -> (layout: EntityLayout, version: Int)? {
        layouts.withLock { entries in
            guard let entry = entries[set], entry.stored == stored else { return nil }
            return (entry.layout, entry.version)
        }
    }

    /// Remembers a merged layout; returns its version (a number no other layout had).
    @discardableResult
    func remember(set: String, stored: [UInt8], layout: EntityLayout) -> Int {
        let version = versions.add(1, ordering: .relaxed).newValue
        layouts.withLock { $0[set] = (stored, layout, version) }
        return version
    }

    /// One open's use of the memo: the version of each set's layout as this open got it (another
    /// open of the same model may remember other layouts meanwhile), which its plans are keyed by.
    final class Session {
        let memo: LayoutMemo
        var versions: [String: Int] = [:]
        init(_ memo: LayoutMemo) { self.memo = memo }
    }

    func facts(set: String, typeName: String) -> SetFacts? {
        facts.withLock { entries in entries[set].flatMap { $0.typeName == typeName ? $0 : nil } }
    }

    func remember(set: String, facts: SetFacts) { self.facts.withLock { $0[set] = facts } }

    func plan(_ key: PlanKey) -> ConstraintPlan? { plans.withLock { $0[key] } }

    /// Plans kept at most (a new layout version of a set makes new keys, and stores of one model
    /// whose layouts differ, opened in turn, would otherwise add plans at every open).
    static let maxPlans = 4096

    func remember(_ key: PlanKey, plan: ConstraintPlan) {
        plans.withLock { plans in
            if plans.count >= Self.maxPlans { plans.removeAll(keepingCapacity: true) }
            plans[key] = plan
        }
    }
}
