import OfflineODataEngine
import OfflineODataModel
import OfflineODataQuery
import Synchronization

/// One indexed column: a declared property or a path into complex values.
struct IndexColumn: Sendable, Hashable {
    let path: [String]
    /// Index of the path's first segment in the set's layout.
    let top: Int
    /// The declared kind of the leaf (nil for enums and untyped values).
    let kind: EdmPrimitiveKind?

    var name: String { path.joined(separator: "/") }

    /// The column's value in a record (absent values index as null), normalized to its kind.
    func value(in record: EntityRecord) -> ODataValue {
        guard top < record.values.count, let value = record.values[top] else { return .null }
        return leaf(of: value)
    }

    /// The column's value read from stored codec bytes (one property decoded, not the record).
    func value(from bytes: [UInt8], codec: EntityCodec) throws(ODataError) -> ODataValue {
        guard let value = try codec.readProperty(at: top, from: bytes) else { return .null }
        return leaf(of: value)
    }

    private func leaf(of topValue: ODataValue) -> ODataValue {
        var value = topValue
        for segment in path.dropFirst() {
            guard case .complex(let complex) = value, let inner = complex[segment] else { return .null }
            value = inner
        }
        return KeyValues.normalize(value, to: kind) ?? KeyValues.canonical(value)
    }
}

/// A declared index, resolved against its set's layout.
struct ResolvedIndex: Sendable {
    var definition: IndexDefinition
    var tree: Tree
    var columns: [IndexColumn]
    var isReady: Bool
    var isNavigation: Bool

    var status: IndexStatus {
        IndexStatus(definition: definition, isReady: isReady, isNavigationIndex: isNavigation)
    }
}

/// An entity set as stored: its persisted layout, key and tree. A class: every `StoredEntity`
/// refers to it (one reference instead of copying the fields).
final class SetInfo: Sendable {
    let name: String
    let typeName: String
    /// The set's type and every type derived from it.
    let typeNames: Set<String>
    let layout: EntityLayout
    /// Layout index by property name.
    let propertyIndex: [String: Int]
    let codec: EntityCodec
    let keyIndices: [Int]
    let keyKinds: [EdmPrimitiveKind?]
    let keyNames: [String]
    let tree: Tree
    /// Entities of the set can have streams (a media type, or `Edm.Stream` properties): their
    /// deletion and re-keying look for stored streams (docs/StoreFormat.md §11).
    let hasStreams: Bool
    /// For the entities of a containment navigation (`People/Trips`): the path from the entity
    /// set or singleton that contains them (docs/StoreFormat.md §2.1). Nil for entity sets and
    /// singletons.
    let containment: Containment?

    /// The key properties, names and kinds, for parsing and formatting key predicates. A
    /// container key property goes by its name without the `$` (`People.UserName`), so that a
    /// contained entity's predicate reads `(People.UserName='x',TripId=0)`.
    var keyProperties: [KeyProperty] {
        zip(keyNames, keyKinds).map { name, kind in
            KeyProperty(Containment.isContainerKey(name) ? String(name.dropFirst()) : name, kind ?? .string)
        }
    }

    init(name: String, typeName: String, typeNames: Set<String>, layout: EntityLayout, keyIndices: [Int],
         keyKinds: [EdmPrimitiveKind?], keyNames: [String], tree: Tree, hasStreams: Bool = false,
         containment: Containment? = nil) {
        self.hasStreams = hasStreams
        self.containment = containment
        self.name = name
        self.typeName = typeName
        self.typeNames = typeNames
        self.layout = layout
        self.propertyIndex = Dictionary(layout.properties.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        self.codec = EntityCodec(layout: layout)
        self.keyIndices = keyIndices
        self.keyKinds = keyKinds
        self.keyNames = keyNames
        self.tree = tree
    }
}

/// Where the entities of a contained set live: the entity set or singleton at the root, then
/// each containment navigation (`People/Trips/PlanItems`: `People`, `Trips`, `PlanItems`).
///
/// A contained entity's key is unique only inside its container, so the stored key is the
/// container's whole stored key followed by the entity's own key. The container's key values
/// are kept in the record as *container key* properties, appended to the type's layout under
/// names no OData identifier can take (`$People.UserName`); they are never shown
/// (`StoredEntity.toODataEntity`). The canonical URL (URL Conventions §4.3.2) names every
/// level: `People('russellwhyte')/Trips(0)/PlanItems(11)`; a singleton root has no key
/// predicate (`Me/Trips(0)`), though its key is still part of the stored key.
struct Containment: Sendable {
    struct Level: Sendable {
        /// The entity set or singleton (first level), else the navigation property.
        let name: String
        /// The level's own key properties (the type's key, with real names).
        let keys: [KeyProperty]
        /// A singleton: its key is stored but not written in URLs.
        let isSingleton: Bool
    }

    let levels: [Level]
    /// The set (or contained set) that holds the containers, and the navigation property.
    let parentSet: String
    let navigation: String

    /// Properties of the container's key kept in each record (the first `count` key values).
    var containerKeyCount: Int { levels.dropLast().reduce(0) { $0 + $1.keys.count } }

    /// Prefix of the layout names of container key properties: never an OData identifier.
    static let hiddenPrefix: Character = "$"

    static func isContainerKey(_ name: String) -> Bool { name.first == hiddenPrefix }

    /// The canonical path of the entity's container followed by the navigation
    /// (`People('russell')/Trips`), for context URLs.
    func containerPath(_ values: [ODataValue], set: String, version: ODataVersion) throws(ODataError) -> String {
        let own = levels.last?.keys.count ?? 0
        guard values.count >= own else { throw .storeWrongKeyCount(set, got: values.count, expected: own) }
        let outer = Containment(levels: Array(levels.dropLast()), parentSet: parentSet, navigation: navigation)
        return try outer.path(Array(values.dropLast(own)), set: set, version: version) + "/" + navigation
    }

    /// The canonical path of the entity with these (stored) key values, percent-encoded for a
    /// URL: `People('a%2Fb')/Trips(0)`.
    func path(_ values: [ODataValue], set: String, version: ODataVersion) throws(ODataError) -> String {
        var text = ""
        var next = 0
        for level in levels {
            let end = next + level.keys.count
            guard end <= values.count else { throw .storeWrongKeyCount(set, got: values.count, expected: end) }
            if !text.isEmpty { text += "/" }
            text += level.name
            if !level.isSingleton {
                text += URLPercentEncoding.pathSegment(try KeyPredicate.format(Array(values[next..<end]), keys: level.keys, version: version))
            }
            next = end
        }
        return text
    }
}

/// How the targets of a navigation property are found.
enum NavigationPlan: Sendable {
    /// The source holds the target's key (to-one from the dependent): `sourceColumns` in the
    /// target's key order.
    case toKey(target: String, sourceColumns: [IndexColumn])
    /// The target's key starts with the source's values (`sourceColumns` in the target's key
    /// order): a prefix scan of the target's entity tree.
    case keyPrefix(target: String, sourceColumns: [IndexColumn])
    /// The target holds the source's values: `sourceColumns[i]` equals the i-th column of the
    /// navigation index on the target set.
    case byIndex(target: String, sourceColumns: [IndexColumn], index: String)
    /// Recorded links (no referential constraint): forward tree sourceKey+targetKey, reverse
    /// tree targetKey+sourceKey (docs/StoreFormat.md §7).
    case link(target: String, forward: Tree, reverse: Tree, partner: String?, isCollection: Bool)

    var target: String {
        switch self {
        case .toKey(let t, _), .keyPrefix(let t, _), .byIndex(let t, _, _), .link(let t, _, _, _, _): return t
        }
    }
}

/// Everything the store knows about the model and its persisted state; replaced as a whole
/// when an index is declared or dropped (readers keep the copy of their point in time).
struct StorageCatalog: Sendable {
    var sets: [String: SetInfo] = [:]
    /// Sets of the model that cannot be stored (no key), with the reason.
    var unsupported: [String: ODataError] = [:]
    var indexes: [String: ResolvedIndex] = [:]
    /// Index names per entity set, sorted by name (maintained on every write; queries list a
    /// set's indexes in this order without sorting them each time).
    var indexesBySet: [String: [String]] = [:]
    /// Per entity set, its ready indexes as the planner takes them, in the order of
    /// `indexesBySet` (kept with it: a query no longer looks each index up and copies its
    /// definition).
    var plannerIndexes: [String: [AccessIndex]] = [:]
    /// The plans chosen for this catalog's queries, shared by every reader of it.
    let plans = PlanCache()
    var navigation: [String: [String: NavigationPlan]] = [:]
    /// For each set: the sets of its containment navigations (`People` → `People/Trips`), whose
    /// entities go with it when it is deleted.
    var containedSets: [String: [String]] = [:]
    /// For each set: the (source set, navigation) link plans whose targets are in it.
    var incomingLinks: [String: [(set: String, navigation: String)]] = [:]

    /// The contained sets below a set, at every level (`People` → `People/Trips`,
    /// `People/Trips/PlanItems`); their keys start with the set's key.
    func setsContained(below set: String) -> [String] {
        var found: [String] = []
        var next = containedSets[set] ?? []
        while let name = next.first {
            next.removeFirst()
            found.append(name)
            next += containedSets[name] ?? []
        }
        return found
    }

    func set(_ name: String) throws(ODataError) -> SetInfo {
        if let info = sets[name] { return info }
        if let error = unsupported[name] { throw error }
        throw .storeUnknownEntitySet(name)
    }

    func index(_ name: String) throws(ODataError) -> ResolvedIndex {
        guard let index = indexes[name] else { throw .storeUnknownIndex(name) }
        return index
    }

    func plan(_ set: String, _ navigation: String) throws(ODataError) -> NavigationPlan {
        _ = try self.set(set)
        guard let plan = self.navigation[set]?[navigation] else {
            throw .storeUnknownNavigation(set, navigation, "not a navigation property with a target entity set")
        }
        return plan
    }

    mutating func add(_ index: ResolvedIndex) {
        let name = index.definition.name
        if indexes[name] == nil {
            let set = index.definition.entitySet
            let at = indexesBySet[set]?.firstIndex { $0 > name } ?? indexesBySet[set]?.count ?? 0
            indexesBySet[set, default: []].insert(name, at: at)
        }
        indexes[name] = index
        refreshPlannerIndexes(of: index.definition.entitySet)
    }

    mutating func remove(index name: String) {
        guard let index = indexes.removeValue(forKey: name) else { return }
        indexesBySet[index.definition.entitySet]?.removeAll { $0 == name }
        refreshPlannerIndexes(of: index.definition.entitySet)
    }

    private mutating func refreshPlannerIndexes(of set: String) {
        plannerIndexes[set] = (indexesBySet[set] ?? []).compactMap { name in
            guard let index = indexes[name], index.isReady else { return nil }
            return AccessIndex(name: name, kind: .secondary, properties: index.definition.properties)
        }
    }

    /// Resolves a property path of a set's layout to an index column.
    static func column(_ path: String, in info: SetInfo, index: String) throws(ODataError) -> IndexColumn {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard let first = segments.first, !first.isEmpty, let top = info.layout.index(of: first) else {
            throw .storeInvalidIndexProperty(index, info.name, path, "is not a declared property")
        }
        var shape = info.layout.properties[top].shape
        for segment in segments.dropFirst() {
            guard case .complex(_, let properties) = shape else {
                throw .storeInvalidIndexProperty(index, info.name, path, "goes into a value that is not complex")
            }
            guard let next = properties.first(where: { $0.name == segment }) else {
                throw .storeInvalidIndexProperty(index, info.name, path, "names no property '\(segment)'")
            }
            shape = next.shape
        }
        switch shape {
        case .primitive(let kind):
            guard kind != .stream else { throw .storeInvalidIndexProperty(index, info.name, path, "is a stream") }
            return IndexColumn(path: segments, top: top, kind: kind == .untyped ? nil : kind)
        case .enumType: return IndexColumn(path: segments, top: top, kind: nil)
        case .complex: throw .storeInvalidIndexProperty(index, info.name, path, "is complex (index one of its properties)")
        case .collection: throw .storeInvalidIndexProperty(index, info.name, path, "is a collection")
        }
    }
}

/// Plans by the request they answer (docs/Query.md §4). A plan depends only on its
/// `PlanRequest`, which names the indexes it may use, so a cached plan is never stale; planning
/// (and the text of its notes) was about 5 % of a 20-row indexed query. Bounded: emptied when
/// full.
final class PlanCache: Sendable {
    static let capacity = 256
    private let plans = Mutex<[PlanRequest: QueryPlan]>([:])

    func plan(_ request: PlanRequest) -> QueryPlan {
        if let known = plans.withLock({ $0[request] }) { return known }
        let plan = Planner.plan(request)
        plans.withLock { plans in
            if plans.count >= Self.capacity { plans.removeAll(keepingCapacity: true) }
            plans[request] = plan
        }
        return plan
    }

    var count: Int { plans.withLock { $0.count } }
}
