import OfflineODataModel

/// A secondary index of one entity set over declared properties or complex paths
/// (`Address/City`), in column order. Entries are kept in the tree `odata.i.<name>`
/// (docs/StoreFormat.md §5).
public struct IndexDefinition: Sendable, Hashable {
    public var name: String
    public var entitySet: String
    public var properties: [String]

    public init(name: String, entitySet: String, properties: [String]) {
        self.name = name
        self.entitySet = entitySet
        self.properties = properties
    }
}

/// A declared index and whether it can be read.
public struct IndexStatus: Sendable, Hashable {
    public var definition: IndexDefinition
    /// False while the backfill has not completed (after a cancel or a crash): writes keep the
    /// index current, `indexScan` refuses it with `indexNotReady`.
    public var isReady: Bool
    /// Declared by the store itself for a navigation with referential constraints.
    public var isNavigationIndex: Bool
}

/// One end of an index range over a prefix of the index's columns.
///
/// `values` are equality values of the first columns; the bound covers every entry whose first
/// `values.count` columns equal them (inclusive) or none of them (exclusive). With
/// `stringPrefix`, one more (string) column is bounded to the strings that start with it:
/// use the same inclusive prefix bound as lower and upper for `startswith`.
/// Nulls sort before every other value; the kinds of numbers do not matter for order.
public struct IndexBound: Sendable, Hashable {
    public var values: [ODataValue]
    public var isInclusive: Bool
    public var stringPrefix: String?

    public init(_ values: [ODataValue], inclusive: Bool = true, stringPrefix: String? = nil) {
        self.values = values
        self.isInclusive = inclusive
        self.stringPrefix = stringPrefix
    }

    /// Lower and upper bound of "the first columns equal `values`".
    public static func equal(_ values: [ODataValue]) -> (lower: IndexBound, upper: IndexBound) {
        (IndexBound(values), IndexBound(values))
    }

    /// Lower and upper bound of "the first columns equal `values` and the next one starts with `prefix`".
    public static func startsWith(_ values: [ODataValue] = [], prefix: String) -> (lower: IndexBound, upper: IndexBound) {
        (IndexBound(values, stringPrefix: prefix), IndexBound(values, stringPrefix: prefix))
    }
}

/// One index entry: the index key (indexed values, then the primary key).
public struct IndexEntry: Sendable, Hashable {
    /// The whole index key (docs/StoreFormat.md §5).
    public let keyBytes: [UInt8]
    /// Where the primary key starts in `keyBytes`.
    public let primaryKeyOffset: Int

    /// The encoded primary key (what `EntityReader.entity(in:keyBytes:)` takes).
    public var primaryKeyBytes: [UInt8] { Array(keyBytes[primaryKeyOffset...]) }

    /// The indexed values (normalized to the columns' kinds).
    public func indexValues() throws(ODataError) -> [ODataValue] {
        try OrderedKeyEncoding.decode(Array(keyBytes[..<primaryKeyOffset]))
    }

    /// The primary key values.
    public func primaryKey() throws(ODataError) -> [ODataValue] {
        try OrderedKeyEncoding.decode(primaryKeyBytes)
    }
}
