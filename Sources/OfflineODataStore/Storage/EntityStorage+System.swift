import OfflineODataEngine
import OfflineODataModel

extension EntityReader {
    /// A raw record of the system tree `odata.s.<tree>` (nil when the tree or key does not exist).
    public func systemValue(tree name: String, key: [UInt8]) throws(ODataError) -> [UInt8]? {
        guard let tree = try existingSystemTree(name) else { return nil }
        return try mapEngine("reading system tree '\(name)'") { () throws(EngineError) in try snapshot.get(key, in: tree) }
    }

    /// Records of a system tree from `from` (inclusive) to `to` (exclusive), in key order or reverse.
    /// `fillCache: false` for one pass over many records (the engine's block cache is left as it is).
    public func systemScan(tree name: String, from: [UInt8]? = nil, to: [UInt8]? = nil,
                           reverse: Bool = false, fillCache: Bool = true) throws(ODataError) -> SystemCursor {
        guard let tree = try existingSystemTree(name) else { return SystemCursor(cursor: nil, tree: name) }
        let cursor = try mapEngine("scanning system tree '\(name)'") { () throws(EngineError) in
            try snapshot.cursor(in: tree, from: from, to: to, reverse: reverse, fillCache: fillCache)
        }
        return SystemCursor(cursor: cursor, tree: name)
    }

    private func existingSystemTree(_ name: String) throws(ODataError) -> Tree? {
        guard !name.isEmpty else { throw .storeInvalidSystemTree(name, "the name is empty") }
        return try mapEngine("opening system tree '\(name)'") { () throws(EngineError) in
            try engine.existingTree(StoreFormat.systemTree(name))
        }
    }
}

/// Raw records of a system tree, streamed.
public struct SystemCursor {
    var cursor: KeyValueCursor?
    let tree: String

    public mutating func next() throws(ODataError) -> (key: [UInt8], value: [UInt8])? {
        guard cursor != nil else { return nil }
        return try mapEngine("scanning system tree '\(tree)'") { () throws(EngineError) in try cursor?.next() }
    }
}

extension EntityWriteBatch {
    /// A system record as this batch sees it (its own `putSystem`/`deleteSystem` included).
    public func systemValue(tree name: String, key: [UInt8]) throws(ODataError) -> [UInt8]? {
        guard !name.isEmpty else { throw .storeInvalidSystemTree(name, "the name is empty") }
        guard let tree = try mapEngine("opening system tree '\(name)'", { () throws(EngineError) in
            try storage.engine.existingTree(StoreFormat.systemTree(name))
        }) else { return nil }
        return try current(key, in: tree)
    }

    /// The entity as this batch sees it (its own puts and deletes included).
    public func entity(in set: String, key: [ODataValue]) throws(ODataError) -> StoredEntity? {
        let info = try catalog.set(set)
        let keyBytes = try EntityStorage.encodeKey(key, info: info)
        guard let value = try current(keyBytes, in: info.tree) else { return nil }
        return try StoredEntity(keyBytes: keyBytes, value: value, info: info)
    }
}
