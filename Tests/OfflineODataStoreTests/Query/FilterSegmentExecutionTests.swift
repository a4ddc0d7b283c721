import OfflineODataEngine
import OfflineODataFixtures
import OfflineODataModel
import OfflineODataQuery
import Testing
@testable import OfflineODataStore

/// Resource paths with `/$filter(…)` followed by a key, a navigation, `/$count` (URL §4.12)
/// executed against a store of the generated sales service, checked against the loaded data
/// filtered in Swift.
@Suite(.serialized) final class FilterSegmentExecutionTests {
    let model: ServiceModel
    let harness: StorageHarness
    var data: [String: [ODataEntity]] = [:]

    init() async throws {
        let generator = SalesServiceGenerator(seed: 11, scale: .small)
        model = try ServiceModel.parse(metadata: Array(generator.metadataXML().utf8))
        harness = try StorageHarness(model: model, label: "filter-segment")
        data = try harness.loadSales(generator, model: model)
    }

    func executor() throws -> QueryExecutor {
        QueryExecutor(reader: try harness.storage.reader(), model: model)
    }

    func run(_ url: String) throws -> QueryResult { try executor().execute(url) }

    static func string(_ entity: ODataEntity, _ name: String) -> String {
        if case .string(let s)? = entity[property: name] { return s }
        return "?"
    }

    static func number(_ value: ODataValue?) -> Double {
        switch value {
        case .decimal(let d)?: return Double(d.description) ?? .nan
        case .int32(let n)?: return Double(n)
        case .int64(let n)?: return Double(n)
        case .double(let d)?: return d
        default: return .nan
        }
    }

    var orders: [ODataEntity] { data["SalesOrders"] ?? [] }
    var items: [ODataEntity] { data["SalesOrderItems"] ?? [] }

    func isBig(_ order: ODataEntity) -> Bool { Self.number(order[property: "GrossAmount"]) > 1000 }

    /// An order that passes `GrossAmount gt 1000` and has items with quantities on both sides
    /// of 3, and one that does not pass.
    func sampleOrders() throws -> (big: ODataEntity, small: ODataEntity) {
        let big = try #require(orders.first { order in
            let mine = items.filter { Self.string($0, "SalesOrderID") == Self.string(order, "SalesOrderID") }
            return isBig(order) && mine.contains { Self.number($0[property: "Quantity"]) > 3 }
                && mine.contains { Self.number($0[property: "Quantity"]) <= 3 }
        })
        let small = try #require(orders.first { !isBig($0) })
        return (big, small)
    }

    /// The error a read throws (nil, with an issue, when it succeeds).
    func failure(_ url: String) throws -> ODataError? {
        do {
            _ = try run(url)
            Issue.record("\(url) succeeded")
            return nil
        } catch let error as ODataError {
            return error
        }
    }

    @Test func aKeyAfterTheSegmentAddressesTheMemberOnlyWhenItPasses() throws {
        let (big, small) = try sampleOrders()
        let bigID = Self.string(big, "SalesOrderID"), smallID = Self.string(small, "SalesOrderID")
        let found = try run("SalesOrders/$filter(GrossAmount gt 1000)('\(bigID)')")
        #expect(found.entities.map { Self.string($0, "SalesOrderID") } == [bigID])
        #expect(found.entities.first?[property: "GrossAmount"] == big[property: "GrossAmount"])
        // The same entity as without the segment, and key-as-segment reads the same.
        #expect(found.entities == (try run("SalesOrders('\(bigID)')")).entities)
        #expect(try run("SalesOrders/$filter(GrossAmount gt 1000)/\(bigID)").entities == found.entities)
        // An existing entity that fails the condition is not there: 404 as for a missing key.
        let missing = try #require(try failure("SalesOrders/$filter(GrossAmount gt 1000)('\(smallID)')"))
        let absent = try #require(try failure("SalesOrders('no-such-id')"))
        #expect(missing.category == .notFound && missing.code == absent.code && missing.name == absent.name)
        #expect(missing.message.contains("$filter("), "\(missing.message)")
        // Several segments: all must hold.
        let status = Self.string(big, "LifecycleStatus")
        #expect(try run("SalesOrders/$filter(GrossAmount gt 1000)/$filter(LifecycleStatus eq '\(status)')('\(bigID)')").entities.count == 1)
        #expect(try failure("SalesOrders/$filter(GrossAmount gt 1000)/$filter(LifecycleStatus ne '\(status)')('\(bigID)')")?.category == .notFound)
        // A property of the member, and its $ref.
        let customer = try run("SalesOrders/$filter(GrossAmount gt 1000)('\(bigID)')/CustomerID")
        guard case .property(_, let value) = customer.payload else { Issue.record("not a property: \(customer.payload)"); return }
        #expect(value == big[property: "CustomerID"])
        #expect(try failure("SalesOrders/$filter(GrossAmount gt 1000)('\(smallID)')/CustomerID")?.category == .notFound)
        let reference = try run("SalesOrders/$filter(GrossAmount gt 1000)('\(bigID)')/$ref")
        guard case .references(let ids, _, _) = reference.payload else { Issue.record("not references: \(reference.payload)"); return }
        #expect(ids == ["SalesOrders('\(bigID)')"])
    }

    @Test func navigationAndCountAfterAFilteredKey() throws {
        let (big, small) = try sampleOrders()
        let bigID = Self.string(big, "SalesOrderID"), smallID = Self.string(small, "SalesOrderID")
        let mine = items.filter { Self.string($0, "SalesOrderID") == bigID }
        let itemKey = { (item: ODataEntity) in Self.string(item, "ItemPosition") }
        // Collection navigation: the member's items, then filtered and counted.
        let all = try run("SalesOrders/$filter(GrossAmount gt 1000)('\(bigID)')/ToItems")
        #expect(Set(all.entities.map(itemKey)) == Set(mine.map(itemKey)))
        let many = mine.filter { Self.number($0[property: "Quantity"]) > 3 }
        #expect(!many.isEmpty && many.count < mine.count)
        let filtered = try run("SalesOrders/$filter(GrossAmount gt 1000)('\(bigID)')/ToItems/$filter(Quantity gt 3)")
        #expect(Set(filtered.entities.map(itemKey)) == Set(many.map(itemKey)))
        #expect(try run("SalesOrders/$filter(GrossAmount gt 1000)('\(bigID)')/ToItems/$filter(Quantity gt 3)/$count").payload.countValue == many.count)
        #expect(try run("SalesOrders/$filter(GrossAmount gt 1000)('\(bigID)')/ToItems/$count").payload.countValue == mine.count)
        // With the query option as well: both conditions hold.
        let both = many.filter { Self.number($0[property: "NetAmount"]) > 100 }
        #expect(try run("SalesOrders/$filter(GrossAmount gt 1000)('\(bigID)')/ToItems/$filter(Quantity gt 3)/$count?$filter=NetAmount gt 100").payload.countValue == both.count)
        // A member that fails the filter is not there, as an order that does not exist: its
        // items are not found either (not an empty collection, which would hide it).
        #expect(try failure("SalesOrders/$filter(GrossAmount gt 1000)('\(smallID)')/ToItems")?.category == .notFound)
        #expect(try failure("SalesOrders/$filter(GrossAmount gt 1000)('\(smallID)')/ToItems/$count")?.category == .notFound)
        #expect(try failure("SalesOrders('NO-SUCH-ORDER')/ToItems")?.category == .notFound)
        #expect(try run("SalesOrders('\(smallID)')/ToItems/$count").payload.countValue
                == items.filter { Self.string($0, "SalesOrderID") == smallID }.count)
        // A key inside the filtered items: found only when the item passes.
        let passing = try #require(many.first), failing = try #require(mine.first { Self.number($0[property: "Quantity"]) <= 3 })
        let one = try run("SalesOrders('\(bigID)')/ToItems/$filter(Quantity gt 3)(SalesOrderID='\(bigID)',ItemPosition='\(itemKey(passing))')")
        #expect(one.entities.map(itemKey) == [itemKey(passing)])
        #expect(try failure("SalesOrders('\(bigID)')/ToItems/$filter(Quantity gt 3)(SalesOrderID='\(bigID)',ItemPosition='\(itemKey(failing))')")?.category == .notFound)
        // Single-valued navigation after the member.
        let partner = try run("SalesOrders/$filter(GrossAmount gt 1000)('\(bigID)')/ToCustomer")
        #expect(partner.entities.map { Self.string($0, "BusinessPartnerID") } == [Self.string(big, "CustomerID")])
        #expect(try failure("SalesOrders/$filter(GrossAmount gt 1000)('\(smallID)')/ToCustomer")?.category == .notFound)
    }

    @Test func aCollectionNavigationThenAFilteredKey() throws {
        let (big, _) = try sampleOrders()
        let customer = Self.string(big, "CustomerID")
        let theirs = orders.filter { Self.string($0, "CustomerID") == customer }
        for order in theirs {
            let id = Self.string(order, "SalesOrderID")
            let url = "BusinessPartners('\(customer)')/ToSalesOrders/$filter(GrossAmount gt 1000)('\(id)')"
            if isBig(order) {
                #expect(try run(url).entities.map { Self.string($0, "SalesOrderID") } == [id])
            } else {
                #expect(try failure(url)?.category == .notFound)
            }
        }
        // The segment without a key still counts the partner's big orders.
        #expect(try run("BusinessPartners('\(customer)')/ToSalesOrders/$filter(GrossAmount gt 1000)/$count").payload.countValue
                == theirs.filter(isBig).count)
    }

    @Test func theSegmentInsideAFilterOptionOnStoredEntities() throws {
        func itemsOf(_ order: ODataEntity) -> [ODataEntity] {
            items.filter { Self.string($0, "SalesOrderID") == Self.string(order, "SalesOrderID") }
        }
        func ids(_ entities: [ODataEntity]) -> [String] { entities.map { Self.string($0, "SalesOrderID") }.sorted() }
        let twoBig = orders.filter { itemsOf($0).filter { Self.number($0[property: "Quantity"]) > 3 }.count >= 2 }
        #expect(!twoBig.isEmpty && twoBig.count < orders.count)
        #expect(ids(try run("SalesOrders?$filter=ToItems/$filter(Quantity gt 3)/$count ge 2").entities) == ids(twoBig))
        let pricey = orders.filter { order in
            itemsOf(order).contains { Self.number($0[property: "Quantity"]) > 3 && Self.number($0[property: "NetAmount"]) > 100 }
        }
        #expect(ids(try run("SalesOrders?$filter=ToItems/$filter(Quantity gt 3)/any(i: i/NetAmount gt 100)").entities) == ids(pricey))
        // Counted through the segment of the path and the option together.
        #expect(try run("SalesOrders/$filter(GrossAmount gt 1000)/$count?$filter=ToItems/$filter(Quantity gt 3)/$count ge 2").payload.countValue
                == twoBig.filter(isBig).count)
    }

    @Test func theLocalServiceReadsThroughAFilteredKeyButDoesNotWrite() throws {
        let h = try ServiceHarness()
        h.service = try LocalService(storage: h.storage.storage, readHandler: StoreReadHandler(model: h.model, pageSize: nil), now: { 1_700_000_000 })
        let all = try h.all("SalesOrders").map { try $0.toODataEntity() }
        let order = try #require(all.first)
        let id = Self.string(order, "SalesOrderID")
        let amount = Self.number(order[property: "GrossAmount"])
        let read = try h.run(.get, "SalesOrders/$filter(GrossAmount ge \(Int(amount.rounded(.down))))('\(id)')")
        #expect(read.status == 200)
        #expect(read.bodyText?.contains(id) == true)
        #expect(try h.run(.get, "SalesOrders/$filter(false)('\(id)')").status == 404)
        #expect(try h.run(.get, "SalesOrders/$filter(false)('\(id)')/ToItems/$count").status == 404)
        let before = try h.fingerprint()
        do {
            _ = try h.run(.patch, "SalesOrders/$filter(true)('\(id)')", "{\"Note\":\"changed\"}")
            Issue.record("PATCH through $filter(…) accepted")
        } catch let error as ODataError {
            #expect(error.name == "methodNotAllowed" && error.code == 3101)
        }
        #expect(try h.fingerprint() == before)
    }
}
