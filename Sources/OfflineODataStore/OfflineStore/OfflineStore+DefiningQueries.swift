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
    /// changes (requests in the RequestQueue or ErrorArchive), and then nothing changes.
    ///
    /// Memory does not grow with the query's size (docs/OfflineStore.md §5.1): one commit checks
    /// the rule over a cursor, unregisters the query and leaves a removal marker (§8.6); then its
    /// members go in commits of at most `removalBatchSize` (default 4,096), the last one
    /// deleting the marker. Readers of this store see the state before the removal until it is
    /// complete; after a crash, `open` finishes it before anything sees the store.
    public func removeDefiningQuery(named name: String) throws(ODataError) {
        try removeDefiningQuery(named: name, membersPerCommit: removalBatchSize, stopAfterCommits: nil)
    }

    /// `stopAfterCommits`: stop after that many member commits, leaving the marker as a crash
    /// would (tests; `open` then finishes).
    func removeDefiningQuery(named name: String, membersPerCommit: Int, stopAfterCommits: Int?) throws(ODataError) {
        try ensureOpen()
        try downloadLock.withLock { _ throws(ODataError) in
            guard try definingQuery(named: name) != nil else { throw .offlineDefiningQueryNotFound(name) }
            try storage.exclusive(pinningReaders: true) { writer throws(ODataError) in
                try writer.write { (batch: inout EntityWriteBatch) throws(ODataError) in
                    try Self.forEachMember(of: name, batch: batch, limit: nil) { member throws(ODataError) in
                        if try Self.hasPendingChanges(member, batch: batch) {
                            throw .offlineDefiningQueryInUse(name, "an entity of '\(member.set)' it covers has pending changes")
                        }
                    }
                    try batch.deleteSystem(tree: OfflineStoreFormat.registryTree, key: Array(name.utf8))
                    try batch.deleteSystem(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.generationKey(name))
                    try batch.deleteSystem(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.syncStateKey(name))
                    try batch.putSystem(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.removalKey,
                                        value: OfflineStoreFormat.encodeRemoval(name))
                }
                try Self.removeMembers(of: name, writer: writer, perCommit: membersPerCommit, stopAfterCommits: stopAfterCommits)
            }
        }
    }

    /// Finishes a defining query's removal that a crash interrupted (§8.6), in commits of
    /// `removalBatchSize` members (those of this open: the commit size does not change what is
    /// removed). Called by `open`.
    func resumeInterruptedRemoval() throws(ODataError) {
        guard let bytes = try storage.reader().systemValue(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.removalKey) else {
            return
        }
        let name = try OfflineStoreFormat.decodeRemoval(bytes)
        try downloadLock.withLock { _ throws(ODataError) in
            try storage.exclusive(pinningReaders: true) { writer throws(ODataError) in
                try Self.removeMembers(of: name, writer: writer, perCommit: removalBatchSize, stopAfterCommits: nil)
            }
        }
    }

    /// The removal's member commits: each drops up to `perCommit` membership rows of the
    /// (already unregistered) query and the entities no other query covers; the commit that
    /// finds fewer deletes the marker. An entity with pending changes keeps its data (there are
    /// none when the removal started, but a crash can leave time for changes before `open`
    /// resumes it: a queued change never loses its entity).
    static func removeMembers(of name: String, writer: ExclusiveWriter, perCommit: Int, stopAfterCommits: Int?) throws(ODataError) {
        var commits = 0
        var finished = false
        while !finished {
            if let stop = stopAfterCommits, commits >= stop { return }
            finished = try writer.write { (batch: inout EntityWriteBatch) throws(ODataError) -> Bool in
                var members: [EntityMember] = []
                try forEachMember(of: name, batch: batch, limit: perCommit) { members.append($0) }
                let others = try queryNames(batch: batch).filter { $0 != name }
                for member in members {
                    try batch.deleteSystem(tree: OfflineStoreFormat.membershipTree,
                                           key: OfflineStoreFormat.membershipKey(name, set: member.set, keyBytes: member.keyBytes))
                    if try hasPendingChanges(member, batch: batch) { continue }
                    if try isCovered(member, byAnyOf: others, batch: batch) { continue }
                    try batch.delete(keyBytes: member.keyBytes, in: member.set)
                }
                guard members.count < perCommit else { return false }
                try batch.deleteSystem(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.removalKey)
                return true
            }
            commits += 1
        }
    }

    static func hasPendingChanges(_ member: EntityMember, batch: EntityWriteBatch) throws(ODataError) -> Bool {
        try batch.systemValue(tree: ServiceFormat.imageTree, key: ServiceFormat.imageKey(member.set, member.keyBytes)) != nil
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
            request = try RequestBinder(model: model).bind(try ODataURLParser.parse(query.url, version: model.urlVersion))
        } catch {
            throw .offlineInvalidDefiningQuery(name, "URL '\(query.url)' is not a valid request: \(error.name) (\(error.code)): \(error.message)")
        }
        // A singleton (`Me`, `Me?$select=…`): its one entity, kept as a set of one.
        if request.path.suffix == .none, request.path.steps.count == 1, case .singleton(let singleton) = request.path.steps[0] {
            guard !Self.usesCompute(request.options) else {
                throw .offlineInvalidDefiningQuery(name, "URL '\(query.url)' uses $compute, whose computed properties cannot be stored")
            }
            return singleton
        }
        // One entity by its key (`Photos(7)`, SAP's type-3 query for one media entity): a
        // collection of at most one.
        if request.path.suffix == .none, let (set, _) = request.path.directKey, !OfflineSystemSets.all.contains(set) {
            guard !Self.usesCompute(request.options) else {
                throw .offlineInvalidDefiningQuery(name, "URL '\(query.url)' uses $compute, whose computed properties cannot be stored")
            }
            return set
        }
        if case .entityCollection(nil, _) = request.path.target,
           let last = request.path.steps.last(where: { if case .navigation = $0 { return true } else { return false } }),
           case .navigation(let navigation, _, _, _) = last {
            // Contained entities are stored under their container, whose key the page lacks.
            throw .offlineInvalidDefiningQuery(name, "URL '\(query.url)' reads the contained collection '\(navigation)' on its own; download it inside its container instead (for example 'People?$expand=\(navigation)')")
        }
        guard request.path.suffix == .none, case .entityCollection(let set?, _) = request.path.target else {
            throw .offlineInvalidDefiningQuery(name, "URL '\(query.url)' must read an entity set, one entity by its key, a singleton or a navigation path to a collection of entities")
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

    /// Every entity the query's last download stored, as this batch sees it (the first `limit`
    /// when given), in key order, through a cursor.
    static func forEachMember(of name: String, batch: EntityWriteBatch, limit: Int?,
                              _ body: (EntityMember) throws(ODataError) -> Void) throws(ODataError) {
        let prefix = OfflineStoreFormat.membershipPrefix(name)
        guard let tree = try mapEngine("opening the membership tree", { () throws(EngineError) in
            try batch.storage.engine.existingTree(StoreFormat.systemTree(OfflineStoreFormat.membershipTree))
        }) else { return }
        var cursor = try mapEngine("scanning the membership tree") { () throws(EngineError) in
            try batch.snapshot.cursor(in: tree, from: prefix, to: OfflineStoreFormat.end(of: prefix))
        }
        var seen = 0
        while limit.map({ seen < $0 }) ?? true,
              let (key, _) = try mapEngine("scanning the membership tree", { () throws(EngineError) in try cursor.next() }) {
            try body(try OfflineStoreFormat.splitMember(key, prefixLength: prefix.count))
            seen += 1
        }
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
