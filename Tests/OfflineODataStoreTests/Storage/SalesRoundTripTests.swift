import OfflineODataFixtures
import OfflineODataModel
import Testing
@testable import OfflineODataStore

/// The generated sales service (.tiny) stored and read back.
@Suite struct SalesRoundTripTests {
    let model: ServiceModel
    let harness: StorageHarness
    let data: [SalesEntitySet: [ODataEntity]]

    init() throws {
        model = try StorageFixtures.salesModel()
        harness = try StorageHarness(model: model, label: "sales")
        var data: [SalesEntitySet: [ODataEntity]] = [:]
        for set in SalesEntitySet.allCases {
            let entities = try StorageFixtures.salesEntities(set, model: model)
            data[set] = entities
            try harness.storage.apply(entities: entities, to: set.name)
        }
        self.data = data
    }

    func key(_ entity: ODataEntity, _ set: SalesEntitySet) -> [ODataValue] {
        set.keyProperties.map { entity[property: $0] ?? .null }
    }

    @Test("every entity reads back identical by key, with counts per set")
    func pointReads() throws {
        let reader = try harness.storage.reader()
        for set in SalesEntitySet.allCases {
            let entities = data[set] ?? []
            #expect(entities.count == StorageFixtures.sales.count(of: set))
            #expect(try reader.count(set.name) == entities.count)
            for entity in entities {
                let stored = try #require(try reader.entity(in: set.name, key: key(entity, set)))
                expectSameEntity(try stored.toODataEntity(), entity, "\(set.name) \(key(entity, set))")
                #expect(try stored.key() == key(entity, set))
            }
        }
    }

    @Test("lazy property reads equal the full decode")
    func lazyProperties() throws {
        let reader = try harness.storage.reader()
        let layout = try reader.layout(of: "Products")
        var cursor = try reader.scan("Products")
        var seen = 0
        while let stored = try cursor.next() {
            let record = try stored.record()
            for (i, p) in layout.properties.enumerated() {
                let lazy = try stored.value(atDeclaredIndex: i)
                #expect(lazy == record.values[i], "\(p.name)")
                #expect(try stored.value(named: p.name) == record.values[i])
            }
            seen += 1
        }
        #expect(seen == data[.products]?.count)
    }

    @Test("scans are in key order, reverse is the mirror, `after` resumes a page")
    func scanOrder() throws {
        let reader = try harness.storage.reader()
        let forward = try reader.all("SalesOrderItems")
        let keys = forward.map(\.keyBytes)
        #expect(keys == keys.sorted { $0.lexicographicallyPrecedes($1) })
        #expect(Set(keys).count == keys.count)
        let backward = try reader.all("SalesOrderItems", reverse: true)
        #expect(backward.map(\.keyBytes) == keys.reversed())
        // Paging by 7 with `after` visits every entity once, in order.
        var paged: [[UInt8]] = []
        var after: [UInt8]?
        while true {
            var cursor = try reader.scan("SalesOrderItems", after: after)
            var page: [[UInt8]] = []
            while page.count < 7, let e = try cursor.next() { page.append(e.keyBytes) }
            if page.isEmpty { break }
            paged += page
            after = page.last
        }
        #expect(paged == keys)
        // Reverse paging too.
        var reversed: [[UInt8]] = []
        after = nil
        while true {
            var cursor = try reader.scan("SalesOrderItems", reverse: true, after: after)
            var page: [[UInt8]] = []
            while page.count < 5, let e = try cursor.next() { page.append(e.keyBytes) }
            if page.isEmpty { break }
            reversed += page
            after = page.last
        }
        #expect(reversed == keys.reversed())
    }

    @Test("navigation through referential constraints in both directions")
    func navigation() throws {
        let reader = try harness.storage.reader()
        let items = data[.salesOrderItems] ?? []
        for order in data[.salesOrders] ?? [] {
            let id = try #require(order[property: "SalesOrderID"])
            let expected = items.filter { $0[property: "SalesOrderID"] == id }
                .map { [$0[property: "SalesOrderID"] ?? .null, $0[property: "ItemPosition"] ?? .null] }
            let got = try reader.targets("SalesOrders", [id], "ToItems")
            #expect(Set(got) == Set(expected), "items of \(id)")
            #expect(!got.isEmpty)
            // To-one from the dependent: the customer.
            let customer = try reader.targets("SalesOrders", [id], "ToCustomer")
            #expect(customer == [[order[property: "CustomerID"] ?? .null]])
        }
        for item in items.prefix(20) {
            let k = key(item, .salesOrderItems)
            #expect(try reader.targets("SalesOrderItems", k, "ToSalesOrder") == [[item[property: "SalesOrderID"] ?? .null]])
            #expect(try reader.targets("SalesOrderItems", k, "ToProduct") == [[item[property: "ProductID"] ?? .null]])
        }
        // Items are found by the prefix of their key; contacts through a navigation index.
        #expect(try reader.indexes(of: "SalesOrderItems").allSatisfy { $0.definition.properties != ["SalesOrderID"] })
        #expect(try reader.indexes(of: "Contacts").contains {
            $0.isNavigationIndex && $0.definition.properties == ["BusinessPartnerID"] && $0.isReady
        })
        let contacts = data[.contacts] ?? []
        for partner in (data[.businessPartners] ?? []).prefix(10) {
            let id = try #require(partner[property: "BusinessPartnerID"])
            let expected = contacts.filter { $0[property: "BusinessPartnerID"] == id }.map { [$0[property: "ContactGuid"] ?? .null] }
            #expect(Set(try reader.targets("BusinessPartners", [id], "ToContacts")) == Set(expected))
        }
    }

    @Test("expanded content is stored in the target sets; missing foreign keys come from the parent")
    func expandedContent() throws {
        let partners = data[.businessPartners] ?? []
        let customer = try #require(partners.last)
        var newCustomer = customer
        if let i = newCustomer.properties.firstIndex(where: { $0.name == "BusinessPartnerID" }) {
            newCustomer.properties[i].value = .string("NEWBP")
        }
        var order = try #require(data[.salesOrders]?.first)
        if let i = order.properties.firstIndex(where: { $0.name == "SalesOrderID" }) { order.properties[i].value = .string("NEWSO") }
        var items = Array((data[.salesOrderItems] ?? []).prefix(3))
        for i in items.indices { items[i].properties.removeAll { $0.name == "SalesOrderID" } }
        order.navigation = [
            ODataNavigationValue("ToItems", .entities(items, count: nil, nextLink: nil)),
            ODataNavigationValue("ToCustomer", .entity(newCustomer)),
        ]
        try harness.storage.apply(entities: [order], to: "SalesOrders")
        let reader = try harness.storage.reader()
        let stored = try #require(try reader.entity(in: "SalesOrders", key: [.string("NEWSO")]))
        #expect(try stored.value(named: "CustomerID") == .string("NEWBP"))
        #expect(try reader.entity(in: "BusinessPartners", key: [.string("NEWBP")]) != nil)
        #expect(try reader.targets("SalesOrders", [.string("NEWSO")], "ToCustomer") == [[.string("NEWBP")]])
        let itemKeys = try reader.targets("SalesOrders", [.string("NEWSO")], "ToItems")
        #expect(Set(itemKeys) == Set(items.map { [.string("NEWSO"), $0[property: "ItemPosition"] ?? .null] }))
        #expect(try reader.targets("BusinessPartners", [.string("NEWBP")], "ToSalesOrders") == [[.string("NEWSO")]])
    }

    @Test("updating a foreign key moves the entity between navigation results")
    func foreignKeyUpdate() throws {
        let orders = data[.salesOrders] ?? []
        let first = try #require(orders.first?[property: "SalesOrderID"])
        let partners = (data[.businessPartners] ?? []).compactMap { $0[property: "BusinessPartnerID"] }
        let before = try harness.storage.reader()
        let oldCustomer = try #require(try before.targets("SalesOrders", [first], "ToCustomer").first?.first)
        let newCustomer = try #require(partners.first { $0 != oldCustomer })
        try harness.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
            try batch.link(from: "SalesOrders", key: [first], navigation: "ToCustomer", to: [newCustomer])
        }
        let after = try harness.storage.reader()
        #expect(try after.targets("SalesOrders", [first], "ToCustomer") == [[newCustomer]])
        #expect(try after.targets("BusinessPartners", [newCustomer], "ToSalesOrders").contains([first]))
        #expect(try !after.targets("BusinessPartners", [oldCustomer], "ToSalesOrders").contains([first]))
        // The old reader still sees the old state.
        #expect(try before.targets("SalesOrders", [first], "ToCustomer") == [[oldCustomer]])
    }
}
