import OfflineODataFixtures

/// The data every peer loads: `SalesServiceGenerator(seed:scale: .entities(salesOrders: orders))`,
/// all five entity sets in dependency order (BusinessPartners = orders/10, Contacts = 2 per
/// partner, Products = orders/5, SalesOrders = orders, SalesOrderItems = 4 per order on average).
public struct QueryDataSet: Sendable {
    public static let seed: UInt64 = 0x0D47A_2026
    public static let batchSize = 1000

    public let orders: Int
    public let generator: SalesServiceGenerator

    public init(orders: Int) {
        self.orders = orders
        generator = SalesServiceGenerator(seed: Self.seed, scale: Scale.entities(salesOrders: orders))
    }

    public func count(of set: SalesEntitySet) -> Int { generator.count(of: set) }

    public var totalEntities: Int { SalesEntitySet.allCases.reduce(0) { $0 + count(of: $1) } }

    /// A stamp naming the data a loaded store holds (a store is reused only when it matches).
    public var stamp: String {
        "seed=\(Self.seed) orders=\(orders) total=\(totalEntities) indexes=\(SecondaryIndex.all.map(\.name).joined(separator: ",")) v1"
    }

    /// Every entity in batches of `batchSize` (one set per batch), generated on demand: the
    /// caller times only its own work on each batch.
    public func forEachBatch(_ body: (EntityBatch) throws -> Void) throws {
        for set in SalesEntitySet.allCases {
            let n = count(of: set)
            var start = 0
            while start < n {
                let end = min(n, start + Self.batchSize)
                var entities: [[UInt8]] = []
                entities.reserveCapacity(end - start)
                for i in start..<end {
                    if let json = generator.entityProperties(set: set, index: i) { entities.append(json) }
                }
                try body(EntityBatch(set: set, entities: entities))
                start = end
            }
        }
    }
}
