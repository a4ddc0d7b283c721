import BenchCommon
import OfflineODataFixtures

/// The measured payload: one OData JSON 4.01 collection response of `SalesOrders` with their
/// line items expanded (`$expand=ToItems`), built from `SalesServiceGenerator` (seed fixed, scale
/// `.large`). Orders are taken in key order until the payload reaches the target size, so the
/// bytes are deterministic for a given target. Generation is never timed.
struct Payload {
    var bytes: [UInt8]
    var orders: Int
    var items: Int

    static let seed: UInt64 = 0x0D47A_2026
    static let orderIDBase = 500_000_000  // SalesOrderID = "0500000000" + index

    /// `{"@odata.context":"$metadata#SalesOrders(ToItems())","@odata.count":181818,"value":[
    ///   {…SalesOrder properties…,"ToItems":[{…item…},…]},…],"@odata.nextLink":"…"}`
    static func build(targetBytes: Int) throws -> Payload {
        let generator = SalesServiceGenerator(seed: seed, scale: .large)
        let totalOrders = generator.count(of: .salesOrders)
        let totalItems = generator.count(of: .salesOrderItems)
        var out: [UInt8] = []
        out.reserveCapacity(targetBytes + (1 << 16))
        out.append(contentsOf: Array(#"{"@odata.context":"$metadata#SalesOrders(ToItems())","@odata.count":"#.utf8))
        out.append(contentsOf: Array(String(totalOrders).utf8))
        out.append(contentsOf: Array(#","value":["#.utf8))

        var orders = 0, items = 0
        var group: [[UInt8]] = []
        var groupOrder = -1
        var lastOrder = -1

        func flush() throws {
            guard groupOrder >= 0 else { return }
            guard groupOrder > lastOrder else {
                throw BenchError("items of order \(groupOrder) are not consecutive in key order")
            }
            guard var order = generator.entityProperties(set: .salesOrders, index: groupOrder),
                  order.last == UInt8(ascii: "}") else {
                throw BenchError("no sales order \(groupOrder)")
            }
            order.removeLast()
            if orders > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: order)
            out.append(contentsOf: Array(#","ToItems":["#.utf8))
            for (k, item) in group.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: item)
            }
            out.append(contentsOf: Array("]}".utf8))
            orders += 1
            items += group.count
            lastOrder = groupOrder
            group.removeAll(keepingCapacity: true)
        }

        var index = 0
        while index < totalItems {
            guard let item = generator.entityProperties(set: .salesOrderItems, index: index) else {
                throw BenchError("no sales order item \(index)")
            }
            let order = try orderIndex(ofItem: item)
            if order != groupOrder {
                try flush()
                if out.count >= targetBytes { break }
                groupOrder = order
            }
            group.append(item)
            index += 1
        }
        if index == totalItems { try flush() }
        out.append(contentsOf: Array("]".utf8))
        if lastOrder + 1 < totalOrders {
            out.append(contentsOf: Array(#","@odata.nextLink":"SalesOrders?$expand=ToItems&$skiptoken="#.utf8))
            out.append(contentsOf: Array(String(lastOrder + 1).utf8))
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: "}"))
        return Payload(bytes: out, orders: orders, items: items)
    }

    /// The order index from an item's leading `{"SalesOrderID":"0500000123"`.
    static func orderIndex(ofItem item: [UInt8]) throws -> Int {
        let prefix = Array(#"{"SalesOrderID":""#.utf8)
        guard item.count > prefix.count + 10, item.starts(with: prefix) else {
            throw BenchError("item does not start with its SalesOrderID")
        }
        var value = 0
        for b in item[prefix.count..<(prefix.count + 10)] {
            guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else {
                throw BenchError("SalesOrderID is not 10 digits")
            }
            value = value * 10 + Int(b - UInt8(ascii: "0"))
        }
        return value - orderIDBase
    }
}

