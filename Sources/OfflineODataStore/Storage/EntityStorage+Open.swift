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
                         into catalog: inout StorageCatalog, batch: inout WriteBatch, memo: LayoutMemo? = nil) throws(ODataError) {
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
            if let memo, let stored, let known = memo.layout(set: set.name, stored: stored) {
                try addSet(set.name, type: type, keyRefs: keyRefs, layout: known, model: model, engine: engine, into: &catalog)
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
            memo?.remember(set: set.name, stored: record, layout: layout)
            try addSet(set.name, type: type, keyRefs: keyRefs, layout: layout, model: model, engine: engine, into: &catalog)
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
                                  into catalog: inout StorageCatalog, batch: inout WriteBatch, memo: LayoutMemo?) throws(ODataError) {
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
                    if let stored, let known = memo?.layout(set: name, stored: stored) {
                        layout = known
                    } else {
                        if let stored {
                            let (_, storedLayout) = try LayoutRecord.decode(stored, set: name)
                            layout = try LayoutRecord.merge(stored: storedLayout, model: layout, set: name)
                        }
                        let record = LayoutRecord.encode(typeName: type.qualifiedName, layout: layout)
                        if record != stored { batch.put(recordKey, record, in: catalogTree) }
                        memo?.remember(set: name, stored: record, layout: layout)
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
                               containment: containment)
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
                       engine: StorageEngine, into catalog: inout StorageCatalog, containment: Containment? = nil) throws(ODataError) {
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
        let derived = model.derivedTypes(of: type)
        let typeNames = Set([type.qualifiedName] + derived.map(\.qualifiedName))
        let hasStreams = ([type] + derived).contains { model.isMediaType($0) || model.allProperties(of: $0).contains { $0.type.primitiveKind == .stream } }
        catalog.sets[name] = SetInfo(
            name: name, typeName: type.qualifiedName, typeNames: typeNames, layout: layout,
            keyIndices: keyIndices, keyKinds: keyKinds,
            keyNames: keyRefs.map(\.name), tree: try tree(StoreFormat.entityTree(name), engine: engine),
            hasStreams: hasStreams, containment: containment)
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
                               into catalog: inout StorageCatalog) throws(ODataError) -> [IndexDefinition] {
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
                guard let targetName = targetSet(model: model, set: setName, navigation: nav),
                      let target = catalog.sets[targetName] else { continue }
                if let plan = constraintPlan(model: model, source: info, target: target, navigation: nav) {
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
/// model (`$metadata`): the same record with the same model merges to the same layout.
final class LayoutMemo: Sendable {
    private let layouts = Mutex<[String: (stored: [UInt8], layout: EntityLayout)]>([:])

    func layout(set: String, stored: [UInt8]) -> EntityLayout? {
        layouts.withLock { entries in
            guard let entry = entries[set], entry.stored == stored else { return nil }
            return entry.layout
        }
    }

    func remember(set: String, stored: [UInt8], layout: EntityLayout) {
        layouts.withLock { $0[set] = (stored, layout) }
    }
}
