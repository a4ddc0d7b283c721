import OfflineODataEngine
import OfflineODataModel

/// A locally changed entity as the upload sees it (its server image, docs/LocalService.md §5.2).
public struct LocalChange: Sendable, Hashable {
    public var entitySet: String
    public var key: [ODataValue]
    /// Created locally (the back end does not know it); else it came from the back end.
    public var createdLocally: Bool
    /// A temporary local key was generated (the upload must replace it by the back end's key).
    public var keyGenerated: Bool
    /// The request that first changed or created it.
    public var firstRequestID: Int64
    /// The back end's ETag of its server version (nil for local creations).
    public var serverETag: String?
}

extension LocalService {
    /// Every entity with local changes (queued or failed requests), in set and key order.
    public func localChanges() throws(ODataError) -> [LocalChange] {
        let reader = try storage.reader()
        let tree = try EntityStorage.tree(StoreFormat.systemTree(ServiceFormat.imageTree), engine: storage.engine)
        var cursor = try mapEngine("scanning the server images") { () throws(EngineError) in try reader.snapshot.cursor(in: tree) }
        var out: [LocalChange] = []
        while let (key, value) = try mapEngine("scanning the server images", { () throws(EngineError) in try cursor.next() }) {
            guard let (set, keyBytes) = ServiceFormat.splitImageKey(key) else {
                throw .queueCorrupted("odata.s.image", "a key without its set name")
            }
            let image = try ServerImage.decode(value, what: "server image of \(set)")
            var etag: String?
            if image.kind == ServiceFormat.kindServer {
                var stored = image.stored
                etag = try StoredValue.split(&stored, what: "server image of \(set)").etag
            }
            out.append(LocalChange(entitySet: set, key: try OrderedKeyEncoding.decode(keyBytes),
                                   createdLocally: image.kind == ServiceFormat.kindCreated, keyGenerated: image.keyGenerated,
                                   firstRequestID: image.firstRequestID, serverETag: etag))
        }
        return out
    }
}
