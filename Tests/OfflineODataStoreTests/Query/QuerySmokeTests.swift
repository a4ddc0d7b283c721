import OfflineODataEngine
import OfflineODataFixtures
import OfflineODataModel
import OfflineODataQuery
import Testing
@testable import OfflineODataStore

@Suite struct QuerySmokeTests {
    @Test func salesQueries() async throws {
        let model = try StorageFixtures.salesModel()
        let harness = try StorageHarness(model: model, label: "query")
        for set in SalesEntitySet.allCases {
            let entities = try StorageFixtures.salesEntities(set, model: model)
            try harness.storage.apply(entities: entities, to: set.name)
        }
        _ = try await harness.storage.declareIndex(IndexDefinition(name: "SO_Status", entitySet: "SalesOrders", properties: ["LifecycleStatus"]))
        let executor = QueryExecutor(reader: try harness.storage.reader(), model: model, pageSize: 5)
        for url in ["SalesOrders?$filter=LifecycleStatus eq 'N'&$count=true", "SalesOrders?$orderby=GrossAmount desc&$top=3&$select=GrossAmount",
                    "SalesOrders?$top=2&$expand=ToItems($select=Quantity),ToCustomer($select=CompanyName)", "SalesOrders/$count",
                    "SalesOrderItems?$filter=ToSalesOrder/LifecycleStatus eq 'N' and Quantity gt 3&$top=3"] {
            let result = try executor.execute(url)
            print(url, "->", result.entities.count, result.payload)
            print(try executor.explain(url))
        }
    }
}
