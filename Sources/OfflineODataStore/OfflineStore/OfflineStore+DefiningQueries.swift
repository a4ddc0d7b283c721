import OfflineODataEngine
import OfflineODataModel
import OfflineODataQuery

extension OfflineStore {
    /// The registered defining queries, by name.
    public func definingQueries() throws(ODataError) -> [DefiningQuery] {
        try ensureOpen()
        var cursor = try storage.reader().systemScan(tree: OfflineStoreFormat.registryTree)
        var out: [DefiningQuery] = []
        while let (key, value) = try cursor.next() { out.append(try OfflineStoreFormat.decodeQuery(name: key, value: value)) }
        return out
    }

    func definingQuery(named name: String) throws(ODataError) -> DefiningQuery? {
        guard let value = try storage.reader().systemValue(tree: OfflineStoreFormat.registryTree, key: Array(name.utf8)) else {
            return nil
        }
        return try OfflineStoreFormat.decodeQuery(name: Array(name.utf8), value: value)
    }

    /// Registers a defining query after checking it: a valid name, and a URL that parses and
    /// binds against the model as a GET of an entity set or a navigation path to a collection
    /// (not a built-in set, `$count`, `$ref`, a property or a single entity). Throws
    /// `invalidDefiningQuery` (3259) or `definingQueryExists` (3260).
    public func addDefiningQuery(_ query: DefiningQuery) throws(ODataError) {
        try ensureOpen()
        _ = try validate(query)
        try downloadLock.withLock { _ throws(ODataError) in
            guard try definingQuery(named: query.name) == nil else { throw .offlineDefiningQueryExists(query.name) }
            try storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
                try batch.putSystem(tree: OfflineStoreFormat.registryTree, key: Array(query.name.utf8),
                                    value: OfflineStoreFormat.encode(query))
            }
        }
    }

    /// Removes a defining query and the entities only it covered (SAP's rule): refused with
    /// `definingQueryHasPendingChanges` (3262) while any of its entities has pending local
    /// changes (requests in the RequestQueue or ErrorArchive). One atomic commit.
    public func removeDefiningQuery(named name: String) throws(ODataError) {
        try ensureOpen()
        try downloadLock.withLock { _ throws(ODataError) in
            guard try definingQuery(named: name) != nil else { throw .offlineDefiningQueryNotFound(name) }
            try storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
                let members = try Self.members(of: name, batch: batch)
                let others = try Self.queryNames(batch: batch).filter { $0 != name }
                for member in members {
                    if try batch.systemValue(tree: ServiceFormat.imageTree, key: ServiceFormat.imageKey(member.set, member.keyBytes)) != nil {
                        throw .offlineDefiningQueryInUse(name, "an entity of '\(member.set)' it covers has pending changes")
                    }
                }
                for member in members {
                    try batch.deleteSystem(tree: OfflineStoreFormat.membershipTree,
                                           key: OfflineStoreFormat.membershipKey(name, set: member.set, keyBytes: member.keyBytes))
                    if try Self.isCovered(member, byAnyOf: others, batch: batch) { continue }
                    try batch.delete(keyBytes: member.keyBytes, in: member.set)
                }
                try batch.deleteSystem(tree: OfflineStoreFormat.registryTree, key: Array(name.utf8))
                try batch.deleteSystem(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.generationKey(name))
            }
        }
    }

    /// Checks a defining query; returns the entity set its results are stored in.
    func validate(_ query: DefiningQuery) throws(ODataError) -> String {
        let name = query.name
        guard !name.isEmpty, name.utf8.count <= 200 else {
            throw .offlineInvalidDefiningQuery(name, "needs a name of 1 to 200 bytes")
        }
        guard !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw .offlineInvalidDefiningQuery(name, "has a control character in its name")
        }
        guard !query.url.isEmpty else { throw .offlineInvalidDefiningQuery(name, "has an empty URL") }
        let request: BoundRequest
        do {
            request = try RequestBinder(model: model).bind(try ODataURLParser.parse(query.url))
        } catch {
            throw .offlineInvalidDefiningQuery(name, "URL '\(query.url)' is not a valid request: \(error.name) (\(error.code)): \(error.message)")
        }
        guard request.path.suffix == .none, case .entityCollection(let set?, _) = request.path.target else {
            throw .offlineInvalidDefiningQuery(name, "URL '\(query.url)' must read an entity set or a navigation path to a collection of entities")
        }
        // Computed properties are not part of the entity type: the store could not keep them.
        guard !Self.usesCompute(request.options) else {
            throw .offlineInvalidDefiningQuery(name, "URL '\(query.url)' uses $compute, whose computed properties cannot be stored")
        }
        guard !OfflineSystemSets.all.contains(set) else {
            throw .offlineInvalidDefiningQuery(name, "URL '\(query.url)' reads the built-in set '\(set)'")
        }
        return set
    }

    static func usesCompute(_ options: BoundQueryOptions) -> Bool {
        !options.compute.isEmpty || options.expand.contains { usesCompute($0.options) }
    }

    // MARK: membership (docs/OfflineStore.md §8.3)

    /// Every entity the query's last download stored, as this batch sees it.
    static func members(of name: String, batch: EntityWriteBatch) throws(ODataError) -> [EntityMember] {
        let prefix = OfflineStoreFormat.membershipPrefix(name)
        guard let tree = try mapEngine("opening the membership tree", { () throws(EngineError) in
            try batch.storage.engine.existingTree(StoreFormat.systemTree(OfflineStoreFormat.membershipTree))
        }) else { return [] }
        var cursor = try mapEngine("scanning the membership tree") { () throws(EngineError) in
            try batch.snapshot.cursor(in: tree, from: prefix, to: OfflineStoreFormat.end(of: prefix))
        }
        var out: [EntityMember] = []
        while let (key, _) = try mapEngine("scanning the membership tree", { () throws(EngineError) in try cursor.next() }) {
            out.append(try OfflineStoreFormat.splitMember(key, prefixLength: prefix.count))
        }
        return out
    }

    /// Names of the registered defining queries (committed state).
    static func queryNames(batch: EntityWriteBatch) throws(ODataError) -> [String] {
        guard let tree = try mapEngine("opening the registry", { () throws(EngineError) in
            try batch.storage.engine.existingTree(StoreFormat.systemTree(OfflineStoreFormat.registryTree))
        }) else { return [] }
        var cursor = try mapEngine("scanning the registry") { () throws(EngineError) in try batch.snapshot.cursor(in: tree) }
        var out: [String] = []
        while let (key, value) = try mapEngine("scanning the registry", { () throws(EngineError) in try cursor.next() }) {
            out.append(try OfflineStoreFormat.decodeQuery(name: key, value: value).name)
        }
        return out
    }

    static func isCovered(_ member: EntityMember, byAnyOf queries: [String], batch: EntityWriteBatch) throws(ODataError) -> Bool {
        for other in queries {
            let key = OfflineStoreFormat.membershipKey(other, set: member.set, keyBytes: member.keyBytes)
            if try batch.systemValue(tree: OfflineStoreFormat.membershipTree, key: key) != nil { return true }
        }
        return false
    }
}
