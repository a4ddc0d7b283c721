import OfflineODataEngine
import OfflineODataModel

extension EntityWriteBatch {
    /// Links the entity `key` of `set` to `targetKey` over `navigation`.
    ///
    /// - Recorded links (no referential constraint): writes the link, its reverse and, when the
    ///   model declares a partner, the partner's link. A single-valued navigation first drops
    ///   its previous target.
    /// - Constraint navigations: sets the foreign-key properties (of the source when it is the
    ///   dependent, else of the target) to the other side's values; both entities must exist.
    public mutating func link(from set: String, key: [ODataValue], navigation: String,
                              to targetKey: [ODataValue]) throws(ODataError) {
        let info = try catalog.set(set)
        let plan = try catalog.plan(set, navigation)
        let target = try catalog.set(plan.target)
        try link(info, try EntityStorage.encodeKey(key, info: info), navigation, plan, target,
                 try EntityStorage.encodeKey(targetKey, info: target))
    }

    /// Removes the link (recorded links), or sets the foreign key to null (constraint
    /// navigations, when it currently refers to `targetKey`).
    public mutating func unlink(from set: String, key: [ODataValue], navigation: String,
                                to targetKey: [ODataValue]) throws(ODataError) {
        let info = try catalog.set(set)
        let plan = try catalog.plan(set, navigation)
        let target = try catalog.set(plan.target)
        let source = try EntityStorage.encodeKey(key, info: info)
        let targetBytes = try EntityStorage.encodeKey(targetKey, info: target)
        switch plan {
        case .link:
            try unlinkRecorded(set, navigation, source, targetBytes)
        case .toKey(_, let columns):
            guard let (record, _) = try stored(source, info: info) else { return }
            let current = columns.map { $0.value(in: record) }
            guard (try? EntityStorage.encodeKey(current, info: target)) == targetBytes else { return }
            try setColumns(columns, to: columns.map { _ in .null }, of: source, info: info, set, navigation)
        case .keyPrefix:
            throw .storeInvalidLink(set, navigation, "the foreign key is part of the key of '\(target.name)'; delete the target instead")
        case .byIndex(_, let sourceColumns, let indexName):
            let index = try catalog.index(indexName)
            guard let (sourceRecord, _) = try stored(source, info: info),
                  let (targetRecord, _) = try stored(targetBytes, info: target) else { return }
            let expected = sourceColumns.map { $0.value(in: sourceRecord) }
            guard index.columns.map({ $0.value(in: targetRecord) }) == expected else { return }
            try setColumns(index.columns, to: index.columns.map { _ in .null }, of: targetBytes, info: target, set, navigation)
        }
    }

    mutating func link(_ info: SetInfo, _ source: [UInt8], _ navigation: String, _ plan: NavigationPlan,
                       _ target: SetInfo, _ targetBytes: [UInt8]) throws(ODataError) {
        switch plan {
        case let .link(_, forward, reverse, partner, isCollection):
            if !isCollection {
                for old in try suffixes(in: forward, prefix: source) where old != targetBytes {
                    try unlinkRecorded(info.name, navigation, source, old)
                }
            }
            try checkLinkKey(source.count + targetBytes.count, info.name, navigation)
            stage(source + targetBytes, [], in: forward)
            stage(targetBytes + source, [], in: reverse)
            if let partner, case let .link(back, pForward, pReverse, _, pIsCollection)? = catalog.navigation[target.name]?[partner],
               back == info.name {
                if !pIsCollection {
                    for old in try suffixes(in: pForward, prefix: targetBytes) where old != source {
                        try unlinkRecorded(target.name, partner, targetBytes, old)
                    }
                }
                stage(targetBytes + source, [], in: pForward)
                stage(source + targetBytes, [], in: pReverse)
            }
        case .toKey(_, let columns):
            guard try stored(targetBytes, info: target) != nil else {
                throw .storeInvalidLink(info.name, navigation, "the target entity does not exist in '\(target.name)'")
            }
            let values = try OrderedKeyEncoding.decode(targetBytes)
            try setColumns(columns, to: values, of: source, info: info, info.name, navigation)
        case .keyPrefix(_, let columns):
            guard let (sourceRecord, _) = try stored(source, info: info) else {
                throw .storeInvalidLink(info.name, navigation, "the source entity does not exist")
            }
            let prefix = try EntityStorage.encodeKeyPrefix(columns.map { $0.value(in: sourceRecord) }, info: target)
            guard targetBytes.starts(with: prefix) else {
                throw .storeInvalidLink(info.name, navigation, "the target's key does not start with the source's values (a key cannot be changed)")
            }
        case .byIndex(_, let sourceColumns, let indexName):
            let index = try catalog.index(indexName)
            guard let (sourceRecord, _) = try stored(source, info: info) else {
                throw .storeInvalidLink(info.name, navigation, "the source entity does not exist")
            }
            try setColumns(index.columns, to: sourceColumns.map { $0.value(in: sourceRecord) }, of: targetBytes,
                           info: target, info.name, navigation)
        }
    }

    /// Sets top-level foreign-key properties of a stored entity (re-put with its ETag and flags).
    private mutating func setColumns(_ columns: [IndexColumn], to values: [ODataValue], of key: [UInt8], info: SetInfo,
                                     _ set: String, _ navigation: String) throws(ODataError) {
        guard let (storedRecord, meta) = try stored(key, info: info) else {
            throw .storeInvalidLink(set, navigation, "the entity holding the foreign key does not exist in '\(info.name)'")
        }
        var record = storedRecord
        var changed = false
        for (column, value) in zip(columns, values) {
            guard column.path.count == 1 else {
                throw .storeInvalidLink(set, navigation, "foreign key '\(column.name)' is inside a complex value")
            }
            while record.values.count <= column.top { record.values.append(nil) }
            let typed = KeyValues.normalize(value, to: column.kind) ?? value
            if let existing = record.values[column.top], existing.isIdentical(to: typed) { continue }
            if typed.isNull, !info.layout.properties[column.top].isNullable {
                throw .storeInvalidLink(set, navigation, "foreign key '\(column.name)' is not nullable")
            }
            record.values[column.top] = typed
            changed = true
        }
        guard changed else { return }
        _ = try put(record: record, info: info, etag: meta.etag, flags: meta.flags, typeName: meta.typeName)
    }

    /// Removes a recorded link, its reverse and the partner's mirror.
    mutating func unlinkRecorded(_ set: String, _ navigation: String, _ source: [UInt8], _ target: [UInt8]) throws(ODataError) {
        guard case let .link(targetSet, forward, reverse, partner, _)? = catalog.navigation[set]?[navigation] else { return }
        erase(source + target, in: forward)
        erase(target + source, in: reverse)
        if let partner, case let .link(back, pForward, pReverse, _, _)? = catalog.navigation[targetSet]?[partner], back == set {
            erase(target + source, in: pForward)
            erase(source + target, in: pReverse)
        }
    }

    /// Drops every recorded link from and to a deleted entity.
    mutating func removeLinks(of key: [UInt8], info: SetInfo) throws(ODataError) {
        for (navigation, plan) in catalog.navigation[info.name] ?? [:] {
            guard case .link(_, let forward, _, _, _) = plan else { continue }
            for target in try suffixes(in: forward, prefix: key) {
                try unlinkRecorded(info.name, navigation, key, target)
            }
        }
        for (source, navigation) in catalog.incomingLinks[info.name] ?? [] {
            guard case .link(_, _, let reverse, _, _)? = catalog.navigation[source]?[navigation] else { continue }
            for from in try suffixes(in: reverse, prefix: key) {
                try unlinkRecorded(source, navigation, from, key)
            }
        }
    }

    private func checkLinkKey(_ length: Int, _ set: String, _ navigation: String) throws(ODataError) {
        guard length <= StoreFormat.maxTreeKeyBytes else {
            throw .storeInvalidLink(set, navigation, "link key of \(length) bytes exceeds \(StoreFormat.maxTreeKeyBytes)")
        }
    }

    /// The rest of every key starting with `prefix` in `tree`, as this batch sees the tree
    /// (snapshot plus own writes; the own writes of the tree are filtered linearly).
    func suffixes(in tree: Tree, prefix: [UInt8]) throws(ODataError) -> [[UInt8]] {
        var found = Set<[UInt8]>()
        do {
            try snapshot.scan(in: tree, prefix: prefix) { key, _ in
                found.insert(Array(key[prefix.count...]))
                return true
            }
        } catch let error as EngineError {
            throw error.odata("scanning \(tree.name)")
        } catch {
            throw .storeCorrupted(tree.name, "\(error)")
        }
        for (entry, pending) in overlay[tree] ?? [:] where entry.bytes.count >= prefix.count && entry.bytes.starts(with: prefix) {
            let key = entry.bytes
            switch pending {
            case .put: found.insert(Array(key[prefix.count...]))
            case .deleted: found.remove(Array(key[prefix.count...]))
            }
        }
        return found.sorted { $0.lexicographicallyPrecedes($1) }
    }
}
