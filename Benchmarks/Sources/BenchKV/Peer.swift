/// One store under test behind the four operations the workload uses. Each store type
/// (`OursStore`, `SQLiteStore`, SQLCipher's build of `SQLiteStore`) offers a `peer`.
public struct Peer {
    /// One commit / transaction holding every pair.
    public let insert: ([([UInt8], [UInt8])]) throws -> Void
    public let get: ([UInt8]) throws -> [UInt8]?
    /// Every pair in key order, owned copies; the body returns false to stop.
    public let scan: (([UInt8], [UInt8]) -> Bool) throws -> Void
    public let close: () throws -> Void

    public init(
        insert: @escaping ([([UInt8], [UInt8])]) throws -> Void,
        get: @escaping ([UInt8]) throws -> [UInt8]?,
        scan: @escaping (([UInt8], [UInt8]) -> Bool) throws -> Void,
        close: @escaping () throws -> Void
    ) {
        self.insert = insert
        self.get = get
        self.scan = scan
        self.close = close
    }
}
