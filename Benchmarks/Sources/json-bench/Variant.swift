import BenchCommon
import Foundation
import OfflineODataModel

/// One way of reading the payload. Each returns (orders, items) found in the result so the run
/// can check every parser saw the whole payload; the counting for the DOM parsers happens after
/// the clock stops (the streaming reader counts as it goes: it must look at each element anyway).
enum Variant: String, CaseIterable {
    case oursDOM = "ours-dom"
    case oursStream = "ours-stream"
    case jsonSerialization = "foundation-jsonserialization"
    case jsonDecoder = "foundation-jsondecoder"

    var label: String {
        switch self {
        case .oursDOM: "ours: `JSONReader.parse` → `JSONValue` (whole document)"
        case .oursStream: "ours: `JSONCollectionStream`, 64 KiB chunks, entity by entity"
        case .jsonSerialization: "Foundation `JSONSerialization.jsonObject(with:)`"
        case .jsonDecoder: "Foundation `JSONDecoder` → Codable structs"
        }
    }

    /// Parses, returning the result kept alive until `inspect` has run.
    /// `time` receives the parse's wall-clock and CPU seconds (the stream's include its
    /// per-element counting).
    func run(bytes: [UInt8], data: Data, time: (_ wall: Double, _ cpu: Double) -> Void) throws -> (orders: Int, items: Int) {
        let c0 = cpuTime()
        switch self {
        case .oursDOM:
            let t0 = now()
            let value = try JSONReader.parse(bytes)
            time(now() - t0, cpuTime() - c0)
            let orders = value["value"]?.arrayValue ?? []
            return (orders.count, orders.reduce(0) { $0 + ($1["ToItems"]?.arrayValue?.count ?? 0) })
        case .oursStream:
            let t0 = now()
            var stream = JSONCollectionStream()
            var orders = 0, items = 0
            try bytes.withUnsafeBytes { raw in
                var offset = 0
                repeat {
                    let end = min(offset + 65_536, raw.count)
                    try stream.feed(UnsafeRawBufferPointer(rebasing: raw[offset..<end]))
                    offset = end
                    if offset == raw.count { try stream.finish() }
                    while let item = try stream.next() {
                        if case .element(let order) = item {
                            orders += 1
                            items += order["ToItems"]?.arrayValue?.count ?? 0
                        }
                    }
                } while offset < raw.count
            }
            time(now() - t0, cpuTime() - c0)
            guard stream.isComplete else { throw BenchError("stream did not complete") }
            return (orders, items)
        case .jsonSerialization:
            let t0 = now()
            let object = try JSONSerialization.jsonObject(with: data)
            time(now() - t0, cpuTime() - c0)
            let orders = ((object as? [String: Any])?["value"] as? [[String: Any]]) ?? []
            return (orders.count, orders.reduce(0) { $0 + (($1["ToItems"] as? [Any])?.count ?? 0) })
        case .jsonDecoder:
            let t0 = now()
            let page = try JSONDecoder().decode(SalesOrderPage.self, from: data)
            time(now() - t0, cpuTime() - c0)
            return (page.value.count, page.value.reduce(0) { $0 + $1.ToItems.count })
        }
    }
}

// Codable mirror of the payload: every property the generator writes. Edm.Decimal amounts and
// quantities (JSON numbers such as 1234.500) decode as `Decimal` (exact, as an OData client
// needs); Edm.DateTimeOffset and Edm.Date stay `String` (JSONDecoder's date strategies do not
// read "2024-03-05T10:15:30.123+05:30" or a bare date; our DOM keeps them as text too).

struct SalesOrderPage: Decodable {
    var context: String
    var count: Int?
    var value: [SalesOrder]
    var nextLink: String?

    enum CodingKeys: String, CodingKey {
        case context = "@odata.context", count = "@odata.count", value, nextLink = "@odata.nextLink"
    }
}

struct SalesOrder: Decodable {
    var SalesOrderID: String
    var Note: String?
    var CustomerID: String
    var CustomerName: String
    var CurrencyCode: String
    var GrossAmount: Decimal
    var NetAmount: Decimal
    var TaxAmount: Decimal
    var LifecycleStatus: String
    var BillingStatus: String
    var DeliveryStatus: String
    var CreatedAt: String
    var ChangedAt: String
    var DeliveryDate: String
    var ToItems: [SalesOrderItem]
}

struct SalesOrderItem: Decodable {
    var SalesOrderID: String
    var ItemPosition: String
    var ProductID: String
    var Note: String?
    var CurrencyCode: String
    var GrossAmount: Decimal
    var NetAmount: Decimal
    var TaxAmount: Decimal
    var Quantity: Decimal
    var QuantityUnit: String
    var DeliveryDate: String
}
