import OfflineODataFixtures

/// A secondary index every peer declares before loading (ours through its model options, SQLite
/// as `CREATE INDEX`): the same set of indexes on every side.
public struct SecondaryIndex: Sendable, Hashable {
    public let set: SalesEntitySet
    public let property: String

    public var name: String { "\(set.name)_\(property)" }

    /// The indexes of the benchmark: the 1 % equality / `$count` property, the range and
    /// `$orderby` property, and the items' foreign key for `$expand=ToItems`.
    ///
    /// SQLite typed: `SalesOrderItems_SalesOrderID` is the leading column of the items' primary
    /// key (`SalesOrderID, ItemPosition` in a WITHOUT ROWID table), which already is that index,
    /// so no separate index is created there (`needsTypedIndex`).
    public static let all: [SecondaryIndex] = [
        SecondaryIndex(set: .salesOrders, property: QueryWorkload.equalityProperty),
        SecondaryIndex(set: .salesOrders, property: "GrossAmount"),
        SecondaryIndex(set: .salesOrderItems, property: "SalesOrderID"),
    ]

    /// False when the property leads the set's primary key (the key is that index already).
    public var needsTypedIndex: Bool { self.set.keyProperties.first != property }
}
