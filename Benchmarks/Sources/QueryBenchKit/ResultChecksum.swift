/// The checksum of a result's keys that every peer computes the same way.
///
/// - The key text of an entity is its key property values joined by `,` in `<Key>` order:
///   `0500000042` (SalesOrders), `0500000042,0000000010` (SalesOrderItems: SalesOrderID,ItemPosition).
/// - `h(key)` is 64-bit FNV-1a over the key text's UTF-8.
/// - Unordered results (no `$orderby`; any row order is accepted): the wrapping sum of `h(key)`
///   over the rows.
/// - Ordered results (`$orderby`): the wrapping sum of `(position + 1) * h(key)`, position 0-based.
/// - `$expand`: parents and their expanded children all add `h(key)` (unordered); rows = parents + children.
/// - `$count`: rows = the count, checksum = the count.
public struct ResultChecksum: Sendable {
    public private(set) var rows = 0
    public private(set) var value: UInt64 = 0
    let ordered: Bool

    public init(ordered: Bool) { self.ordered = ordered }

    public static func fnv1a<C: Collection<UInt8>>(_ bytes: C) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01b3
        }
        return h
    }

    /// Adds one row by its key text.
    public mutating func add(key: String) {
        var key = key
        let h = key.withUTF8 { Self.fnv1a($0) }
        add(hash: h)
    }

    /// Adds one row by its key text's UTF-8 bytes.
    public mutating func add<C: Collection<UInt8>>(keyBytes: C) {
        add(hash: Self.fnv1a(keyBytes))
    }

    mutating func add(hash h: UInt64) {
        rows += 1
        value = value &+ (ordered ? UInt64(rows) &* h : h)
    }

    public var outcome: QueryOutcome { QueryOutcome(rows: rows, checksum: value) }
}
