import OfflineODataModel

extension EntityWriteBatch {
    /// Stores an OData entity of `set` (declared properties by the set's layout, other
    /// properties as dynamic ones, the type name when it is a derived type). Expanded navigation
    /// content is stored too: each nested entity in the navigation's target set, then linked
    /// (recorded link, or foreign-key values; a nested entity missing the foreign key that
    /// points back at its parent gets it from the parent). `@odata.bind` references are linked.
    /// Deferred navigations and navigations without a target entity set (containment) are not stored.
    /// Returns the encoded key.
    @discardableResult
    public mutating func put(_ entity: ODataEntity, in set: String, etag: String? = nil,
                             flags: EntityFlags = []) throws(ODataError) -> [UInt8] {
        let info = try catalog.set(set)
        return try put(entity, info: info, etag: etag ?? entity.control.etag, flags: flags, depth: 0)
    }

    mutating func put(_ entity: ODataEntity, info: SetInfo, etag: String?, flags: EntityFlags,
                      depth: Int) throws(ODataError) -> [UInt8] {
        try put(Self.prepare(entity, info: info, etag: etag, flags: flags), entity, info: info, flags: flags, depth: depth)
    }

    /// The entity itself (not its expanded content) checked and encoded for `info`'s set; see
    /// `Prepared`.
    static func prepare(_ entity: ODataEntity, info: SetInfo, etag: String?, flags: EntityFlags) throws(ODataError) -> Prepared {
        let record = EntityConversion.record(from: entity, info: info)
        let typeName = entity.typeName.isEmpty ? nil : entity.typeName
        return try prepare(record: record, info: info, etag: etag, flags: flags, typeName: typeName)
    }

    /// Stages `entity`, prepared as `prepared`, then its expanded content and links.
    mutating func put(_ prepared: Prepared, _ entity: ODataEntity, info: SetInfo, flags: EntityFlags,
                      depth: Int) throws(ODataError) -> [UInt8] {
        let record = prepared.record
        let key = try put(prepared, info: info)
        guard !entity.navigation.isEmpty, depth < 32 else { return key }
        for navigation in entity.navigation {
            guard let plan = catalog.navigation[info.name]?[navigation.name],
                  let target = catalog.sets[plan.target] else { continue }
            switch navigation.content {
            case .entity(let nested?):
                try putNested(nested, record, key, info, navigation.name, plan, target, flags, depth)
            case .entity(nil), .deferred, .count:
                continue
            case .entities(let list, _, _):
                for nested in list { try putNested(nested, record, key, info, navigation.name, plan, target, flags, depth) }
            case .bind(let reference):
                try link(info, key, navigation.name, plan, target, try referenceKey(reference, target, info.name, navigation.name))
            case .bindMany(let references):
                for reference in references {
                    try link(info, key, navigation.name, plan, target, try referenceKey(reference, target, info.name, navigation.name))
                }
            }
        }
        return key
    }

    private mutating func putNested(_ nested: ODataEntity, _ parent: EntityRecord, _ parentKey: [UInt8], _ info: SetInfo,
                                    _ navigation: String, _ plan: NavigationPlan, _ target: SetInfo, _ flags: EntityFlags,
                                    _ depth: Int) throws(ODataError) {
        var child = nested
        // The child holds the foreign key: fill it from the parent when the payload left it out.
        var pairs: [(String, IndexColumn)] = []
        if case .byIndex(_, let sourceColumns, let indexName) = plan, let index = catalog.indexes[indexName] {
            pairs = zip(index.columns, sourceColumns).filter { $0.0.path.count == 1 }.map { ($0.0.name, $0.1) }
        } else if case .keyPrefix(_, let sourceColumns) = plan {
            pairs = zip(target.keyNames, sourceColumns).map { ($0, $1) }
        }
        for (name, sourceColumn) in pairs where child[property: name] == nil {
            child.properties.append(ODataProperty(name, sourceColumn.value(in: parent)))
        }
        let childKey = try put(child, info: target, etag: child.control.etag, flags: flags, depth: depth + 1)
        try link(info, parentKey, navigation, plan, target, childKey)
    }

    /// The key of an entity reference (`Set(key)`, a URL ending in it, or `$id`-like text).
    private func referenceKey(_ reference: String, _ target: SetInfo, _ set: String, _ navigation: String) throws(ODataError) -> [UInt8] {
        let parsed: (entitySet: String, predicate: String?)
        do {
            parsed = try KeyPredicate.parseEntityReference(reference)
        } catch {
            throw .storeInvalidLink(set, navigation, "reference '\(reference)': \(error.message)")
        }
        guard parsed.entitySet == target.name, let predicate = parsed.predicate else {
            throw .storeInvalidLink(set, navigation, "reference '\(reference)' is not an entity of '\(target.name)'")
        }
        var keys: [KeyProperty] = []
        for (name, kind) in zip(target.keyNames, target.keyKinds) { keys.append(KeyProperty(name, kind ?? .string)) }
        let values: [ODataValue]
        do {
            values = try KeyPredicate.parse(predicate, keys: keys, version: storage.model.version == .v2 ? .v2 : .v4)
        } catch {
            throw .storeInvalidLink(set, navigation, "reference '\(reference)': \(error.message)")
        }
        return try EntityStorage.encodeKey(values, info: target)
    }
}
