import OfflineODataFixtures
import OfflineODataModel

/// The sync benchmark's back-end data, built from the Fixtures generator: `$metadata`; the
/// defining query `SalesOrders?$expand=ToItems` in pages of `pageSize` orders, each with its
/// items expanded (next links `…&$skiptoken=k`); plain `SalesOrders` pages (the delta
/// workload's query) with a delta link on the first page; and the delta: 1 % of the orders
/// with a changed note.
struct SyncPages {
    let generator: SalesServiceGenerator
    let pageSize: Int
    var orders: Int { generator.count(of: .salesOrders) }

    /// `entities` top-level and expanded together: orders = entities / 5 (about 4 items each).
    init(entities: Int, pageSize: Int) {
        generator = SalesServiceGenerator(seed: 7, scale: .entities(salesOrders: max(1, entities / 5)))
        self.pageSize = pageSize
    }

    var metadata: [UInt8] { Array(generator.metadataXML().utf8) }

    var pageCount: Int { (orders + pageSize - 1) / pageSize }

    /// Orders and items in the expanded download.
    var entityCount: Int { orders + generator.count(of: .salesOrderItems) }

    /// Expanded page `index` (0-based); its next link is relative to the service root.
    func expandedPage(_ index: Int) -> [UInt8] {
        let start = index * pageSize, end = min(orders, start + pageSize)
        var out: [UInt8] = Array(#"{"@odata.context":"$metadata#SalesOrders(ToItems())","value":["#.utf8)
        out.reserveCapacity((end - start) * 1_800 + 128)
        for order in start..<end {
            if order > start { out.append(UInt8(ascii: ",")) }
            guard var body = generator.entityProperties(set: .salesOrders, index: order) else { continue }
            body.removeLast()  // "}"
            out += body
            out += Array(#","ToItems":["#.utf8)
            for (n, item) in generator.itemRange(ofSalesOrder: order).enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                out += generator.entityProperties(set: .salesOrderItems, index: item) ?? []
            }
            out += Array("]}".utf8)
        }
        out.append(UInt8(ascii: "]"))
        if end < orders {
            out += Array(#","@odata.nextLink":"SalesOrders?$expand=ToItems&$skiptoken=\#(end)""#.utf8)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Plain orders page `index`; the first carries the delta link when asked.
    func plainPage(_ index: Int, deltaLink: Bool) -> [UInt8] {
        let start = index * pageSize, end = min(orders, start + pageSize)
        var out: [UInt8] = Array(#"{"@odata.context":"$metadata#SalesOrders","value":["#.utf8)
        for order in start..<end {
            if order > start { out.append(UInt8(ascii: ",")) }
            out += generator.entityProperties(set: .salesOrders, index: order) ?? []
        }
        out.append(UInt8(ascii: "]"))
        if end < orders { out += Array(#","@odata.nextLink":"SalesOrders?$skiptoken=\#(end)""#.utf8) }
        if deltaLink { out += Array(#","@odata.deltaLink":"SalesOrders?$deltatoken=1""#.utf8) }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The first `count` business partners, as one page.
    func partnersPage(count: Int) -> [UInt8] {
        var out: [UInt8] = Array(#"{"@odata.context":"$metadata#BusinessPartners","value":["#.utf8)
        for index in 0..<count {
            guard let entity = generator.entityProperties(set: .businessPartners, index: index) else { break }
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += entity
        }
        return out + Array("]}".utf8)
    }

    /// The delta: every 100th order with a new note, in pages of `pageSize`.
    func deltaPage(_ index: Int) -> [UInt8] {
        let changed = Array(stride(from: 0, to: orders, by: 100))
        let start = index * pageSize, end = min(changed.count, start + pageSize)
        var out: [UInt8] = Array(#"{"@odata.context":"$metadata#SalesOrders/$delta","value":["#.utf8)
        for (n, order) in changed[start..<end].enumerated() {
            if n > 0 { out.append(UInt8(ascii: ",")) }
            guard let text = generator.entityProperties(set: .salesOrders, index: order).map({ String(decoding: $0, as: UTF8.self) }),
                  let range = text.range(of: #""Note":"#) else { continue }
            // Replace the note's value (a string or null) with a new string.
            let after = text[range.upperBound...]
            let valueEnd: String.Index
            if after.hasPrefix("null") {
                valueEnd = after.index(after.startIndex, offsetBy: 4)
            } else {
                var i = after.index(after: after.startIndex)
                while i < after.endIndex, after[i] != "\"" {
                    if after[i] == "\\" { i = after.index(after: i) }  // an escaped character
                    i = after.index(after: i)
                }
                valueEnd = after.index(after: i)
            }
            let edited = text[..<range.upperBound] + #""changed in the delta""# + text[valueEnd...]
            out += Array(edited.utf8)
        }
        out.append(UInt8(ascii: "]"))
        if end < changed.count {
            out += Array(#","@odata.nextLink":"SalesOrders?$deltatoken=1&$skiptoken=\#(end)""#.utf8)
        } else {
            out += Array(#","@odata.deltaLink":"SalesOrders?$deltatoken=2""#.utf8)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    var deltaCount: Int { (orders + 99) / 100 }
}
