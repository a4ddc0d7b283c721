import OfflineODataEngine
import OfflineODataFixtures
import OfflineODataModel
import OfflineODataQuery
import Testing
@testable import OfflineODataStore

/// The query executor on the generated sales service: paths, paging, expand, select, count,
/// checked against the data itself (all entities held in memory for the expectations).
@Suite(.serialized) final class QueryExecutionTests {
    let model: ServiceModel
    let harness: StorageHarness
    var data: [String: [ODataEntity]] = [:]

    init() async throws {
        let generator = SalesServiceGenerator(seed: 7, scale: .small)
        model = try ServiceModel.parse(metadata: Array(generator.metadataXML().utf8))
        harness = try StorageHarness(model: model, label: "query-exec")
        data = try harness.loadSales(generator, model: model)
        _ = try await harness.storage.declareIndex(IndexDefinition(name: "SO_Gross", entitySet: "SalesOrders", properties: ["GrossAmount"]))
        _ = try await harness.storage.declareIndex(IndexDefinition(name: "SO_Status", entitySet: "SalesOrders", properties: ["LifecycleStatus"]))
    }

    func executor(pageSize: Int? = nil) throws -> QueryExecutor {
        QueryExecutor(reader: try harness.storage.reader(), model: model, pageSize: pageSize)
    }

    func string(_ entity: ODataEntity, _ name: String) -> String {
        if case .string(let s)? = entity[property: name] { return s }
        return ""
    }

    /// Follows next links to the end; returns every entity and the counts seen.
    func allPages(_ url: String, pageSize: Int) throws -> (entities: [ODataEntity], pages: Int, counts: Set<Int>) {
        var entities: [ODataEntity] = []
        var counts = Set<Int>()
        var next: String? = url
        var pages = 0
        while let link = next {
            let result = try executor(pageSize: pageSize).execute(link)
            guard case .collection(let page, let count, let nextLink) = result.payload else {
                Issue.record("not a collection: \(link)"); break
            }
            #expect(page.count <= pageSize)
            if nextLink != nil { #expect(page.count == pageSize, "a partial page must be the last: \(link)") }
            entities += page
            if let count { counts.insert(count) }
            next = nextLink
            pages += 1
            if pages > 10_000 { Issue.record("paging does not end"); break }
        }
        return (entities, pages, counts)
    }

    @Test func pagingWalksEveryRowOnceInOrder() throws {
        let orders = data["SalesOrders"] ?? []
        // Key order, no filter.
        let plain = try allPages("SalesOrders?$count=true", pageSize: 37)
        #expect(plain.entities.map { string($0, "SalesOrderID") } == orders.map { string($0, "SalesOrderID") }.sorted())
        #expect(plain.counts == [orders.count])
        #expect(plain.pages == (orders.count + 36) / 37)

        // Indexed order, descending, with a filter, through the index stream.
        let expected = orders.filter { if case .string("N")? = $0[property: "LifecycleStatus"] { return false }; return true }
            .sorted { a, b in
                let order = ODataOrdering.compare(a[property: "GrossAmount"] ?? .null, b[property: "GrossAmount"] ?? .null)
                return order != 0 ? order > 0 : string(a, "SalesOrderID") > string(b, "SalesOrderID")
            }
        let indexed = try allPages("SalesOrders?$filter=LifecycleStatus ne 'N'&$orderby=GrossAmount desc&$count=true", pageSize: 50)
        #expect(indexed.entities.map { string($0, "SalesOrderID") } == expected.map { string($0, "SalesOrderID") })
        #expect(indexed.counts == [expected.count])

        // Unindexed order (top-k heap per page) with $top spanning several pages.
        let byName = orders.sorted { a, b in
            let order = ODataOrdering.compare(a[property: "CustomerName"] ?? .null, b[property: "CustomerName"] ?? .null)
            return order != 0 ? order < 0 : string(a, "SalesOrderID") < string(b, "SalesOrderID")
        }
        let heap = try allPages("SalesOrders?$orderby=CustomerName&$top=130&$skip=5", pageSize: 40)
        #expect(heap.entities.map { string($0, "SalesOrderID") } == byName.dropFirst(5).prefix(130).map { string($0, "SalesOrderID") })
        #expect(heap.pages == 4)
    }

    @Test func skipTokensFromOtherRequestsAreRejected() throws {
        let first = try executor(pageSize: 10).execute("SalesOrders?$orderby=GrossAmount")
        guard case .collection(_, _, let next?) = first.payload, let token = next.split(separator: "$skiptoken=").last else {
            Issue.record("no next link"); return
        }
        for url in ["SalesOrders?$orderby=NetAmount&$skiptoken=\(token)", "SalesOrders?$skiptoken=abc", "SalesOrders?$skiptoken=\(token)x"] {
            #expect(throws: ODataError.self, "\(url)") { try self.executor(pageSize: 10).execute(url) }
        }
    }

    @Test func expandReturnsEachParentsTargets() throws {
        let items = data["SalesOrderItems"] ?? []
        let result = try executor().execute("SalesOrders?$top=25&$expand=ToItems($orderby=ItemPosition desc;$count=true),ToCustomer($select=CompanyName)")
        #expect(result.entities.count == 25)
        for order in result.entities {
            let id = string(order, "SalesOrderID")
            let mine = items.filter { string($0, "SalesOrderID") == id }.map { string($0, "ItemPosition") }.sorted(by: >)
            guard case .entities(let expanded, let count, _)? = order.navigation("ToItems")?.content else {
                Issue.record("ToItems not expanded for \(id)"); continue
            }
            #expect(expanded.map { string($0, "ItemPosition") } == mine)
            #expect(count == Int64(mine.count))
            guard case .entity(let customer?)? = order.navigation("ToCustomer")?.content else {
                Issue.record("ToCustomer not expanded for \(id)"); continue
            }
            #expect(string(customer, "BusinessPartnerID") == string(order, "CustomerID"))
            #expect(Set(customer.properties.map(\.name)) == ["BusinessPartnerID", "CompanyName"])
        }
    }

    /// One executor reuses the key-prefix cursor of `$expand` from parent to parent (moved on
    /// to the next parent's range): parents in key order, in reverse, in an unrelated order,
    /// with gaps, a nested expand of the same navigation under another, and a second request
    /// on the same executor must each get exactly their own items.
    @Test func expandOfManyParentsInAnyOrderGetsEachParentsItems() throws {
        let items = data["SalesOrderItems"] ?? []
        var byOrder: [String: [String]] = [:]
        for item in items { byOrder[string(item, "SalesOrderID"), default: []].append(string(item, "ItemPosition")) }
        let executor = try executor()
        func check(_ orders: [ODataEntity], _ url: String) {
            for order in orders {
                let id = string(order, "SalesOrderID")
                guard case .entities(let expanded, _, _)? = order.navigation("ToItems")?.content else {
                    Issue.record("ToItems not expanded for \(id) in \(url)"); continue
                }
                #expect(expanded.map { string($0, "ItemPosition") } == (byOrder[id] ?? []).sorted(), "\(id) in \(url)")
                #expect(expanded.allSatisfy { string($0, "SalesOrderID") == id }, "\(id) in \(url)")
            }
        }
        for url in ["SalesOrders?$expand=ToItems", "SalesOrders?$orderby=SalesOrderID desc&$expand=ToItems",
                    "SalesOrders?$orderby=GrossAmount&$top=60&$expand=ToItems",
                    "SalesOrders?$filter=LifecycleStatus eq 'N'&$expand=ToItems", "SalesOrders?$top=40&$expand=ToItems"] {
            let result = try executor.execute(url)
            #expect(!result.entities.isEmpty, "\(url)")
            check(result.entities, url)
        }
        let nested = "SalesOrderItems?$top=80&$expand=ToSalesOrder($expand=ToItems)"
        let result = try executor.execute(nested)
        #expect(result.entities.count == 80)
        var parents: [ODataEntity] = []
        for item in result.entities {
            guard case .entity(let order?)? = item.navigation("ToSalesOrder")?.content else { Issue.record("no ToSalesOrder"); continue }
            #expect(string(order, "SalesOrderID") == string(item, "SalesOrderID"))
            parents.append(order)
        }
        check(parents, nested)
    }

    /// Ranges on the key with one bound or two: the planner bounds `lt`/`le` below by "above
    /// null" (for secondary indexes, where nulls sort first); on the key, which is never null,
    /// that bound must not be encoded (it was: `SalesOrderID lt '…'` failed with
    /// nullKeyProperty).
    @Test func keyRangesWithOneBoundOrTwoMatchTheData() throws {
        let ids = (data["SalesOrders"] ?? []).map { string($0, "SalesOrderID") }.sorted()
        let pivot = ids[ids.count / 3], other = ids[ids.count / 2]
        let cases: [(String, (String) -> Bool)] = [
            ("SalesOrderID lt '\(pivot)'", { $0 < pivot }), ("SalesOrderID le '\(pivot)'", { $0 <= pivot }),
            ("SalesOrderID gt '\(pivot)'", { $0 > pivot }), ("SalesOrderID ge '\(pivot)'", { $0 >= pivot }),
            ("SalesOrderID gt '\(pivot)' and SalesOrderID le '\(other)'", { $0 > pivot && $0 <= other }),
            ("SalesOrderID lt '\(pivot)' and SalesOrderID gt '\(other)'", { _ in false }),
        ]
        for (filter, keep) in cases {
            for order in ["", "&$orderby=SalesOrderID desc"] {
                let url = "SalesOrders?$filter=\(filter)\(order)"
                let expected = ids.filter(keep)
                let found = try executor().execute(url).entities.map { string($0, "SalesOrderID") }
                #expect(found == (order.isEmpty ? expected : expected.reversed()), "\(url)")
            }
        }
    }

    /// Rows that need nothing but their own bytes are decoded from the bytes the engine lends;
    /// with a page size (a next link needs the last row) the same rows come through copies. Both
    /// must give the same entities, values, ETags and `$select`, for index equality, range,
    /// ordered `$top`, key ranges, explicit keys and whole-set reads.
    @Test func rowsReadInPlaceEqualRowsReadThroughCopies() throws {
        let orders = data["SalesOrders"] ?? []
        for url in ["SalesOrders?$filter=LifecycleStatus eq 'N'", "SalesOrders?$filter=GrossAmount ge 1000 and GrossAmount lt 3000&$select=SalesOrderID,GrossAmount",
                    "SalesOrders?$orderby=GrossAmount desc&$top=7&$select=GrossAmount,CustomerName", "SalesOrders?$filter=SalesOrderID lt '0500000040'",
                    "SalesOrders?$filter=SalesOrderID le '0500000040' and SalesOrderID gt '0500000030'", "SalesOrders?$filter=SalesOrderID ge '0500000150'",
                    "SalesOrders?$filter=SalesOrderID eq '0500000003' or SalesOrderID eq '0500000011'&$select=Note", "SalesOrders?$select=CurrencyCode&$skip=3",
                    "SalesOrders?$filter=LifecycleStatus in ('N','P')&$count=true&$top=30"] {
            let inPlace = try executor().execute(url)
            let copied = try allPages(url, pageSize: 1_000_000 - 1).entities
            #expect(!inPlace.entities.isEmpty, "\(url)")
            #expect(inPlace.entities.count == copied.count, "\(url)")
            for (a, b) in zip(inPlace.entities, copied) {
                #expect(a.typeName == b.typeName && a.control.etag == b.control.etag, "\(url)")
                #expect(a.properties.map(\.name) == b.properties.map(\.name), "\(url)")
                #expect(zip(a.properties, b.properties).allSatisfy { $0.value.isIdentical(to: $1.value) }, "\(url)")
            }
            if url.contains("$select=") {
                // The key is always returned (docs/Query.md: `$select` keeps the key).
                let selected = Set(url.split(separator: "$select=")[1].split(separator: "&")[0].split(separator: ",").map(String.init) + ["SalesOrderID"])
                #expect(inPlace.entities.allSatisfy { Set($0.properties.map(\.name)) == selected }, "\(url)")
            }
        }
        #expect(orders.count > 40)
    }

    /// Nested `$skip`/`$top` without a filter or `$orderby` page each parent's targets in key
    /// order, and `$count` counts them all (the path that projects targets as they come).
    @Test func nestedSkipTopAndCountWithoutFilter() throws {
        let items = data["SalesOrderItems"] ?? []
        for (skip, top) in [(0, 2), (1, 2), (2, 1), (3, 5), (0, 0), (12, 3)] {
            let result = try executor().execute("SalesOrders?$top=15&$expand=ToItems($skip=\(skip);$top=\(top);$count=true)")
            #expect(result.entities.count == 15)
            for order in result.entities {
                let id = string(order, "SalesOrderID")
                let mine = items.filter { string($0, "SalesOrderID") == id }.map { string($0, "ItemPosition") }.sorted()
                guard case .entities(let expanded, let count, _)? = order.navigation("ToItems")?.content else {
                    Issue.record("ToItems not expanded for \(id)"); continue
                }
                #expect(expanded.map { string($0, "ItemPosition") } == Array(mine.dropFirst(skip).prefix(top)), "$skip=\(skip);$top=\(top) of \(id)")
                #expect(count == Int64(mine.count))
            }
        }
    }

    @Test func nestedFilterTopAndRefCount() throws {
        let result = try executor().execute("SalesOrders?$top=10&$expand=ToItems($filter=Quantity gt 2;$top=1;$select=Quantity)")
        for order in result.entities {
            guard case .entities(let expanded, _, _)? = order.navigation("ToItems")?.content else { Issue.record("no ToItems"); continue }
            #expect(expanded.count <= 1)
            for item in expanded {
                #expect((ODataOrdering.compare(item[property: "Quantity"] ?? .null, .int32(2))) > 0)
            }
        }
        let refs = try executor().execute("SalesOrders?$top=3&$expand=ToItems/$ref")
        for order in refs.entities {
            guard case .entities(let expanded, _, _)? = order.navigation("ToItems")?.content else { Issue.record("no refs"); continue }
            #expect(expanded.allSatisfy { $0.properties.isEmpty && ($0.control.id?.hasPrefix("SalesOrderItems(") ?? false) })
        }
    }

    @Test func keysNavigationPathsCountsAndProperties() throws {
        let orders = data["SalesOrders"] ?? []
        let items = data["SalesOrderItems"] ?? []
        let first = try #require(orders.first)
        let id = string(first, "SalesOrderID")
        let single = try executor().execute("SalesOrders('\(id)')")
        guard case .entity(let entity) = single.payload else { Issue.record("not an entity"); return }
        #expect(string(entity, "SalesOrderID") == id)

        let mine = items.filter { string($0, "SalesOrderID") == id }
        let nav = try executor().execute("SalesOrders('\(id)')/ToItems?$orderby=ItemPosition")
        #expect(nav.entities.map { string($0, "ItemPosition") } == mine.map { string($0, "ItemPosition") }.sorted())
        let count = try executor().execute("SalesOrders('\(id)')/ToItems/$count")
        guard case .count(let n) = count.payload else { Issue.record("not a count"); return }
        #expect(n == mine.count)

        let customer = try executor().execute("SalesOrders('\(id)')/ToCustomer/ToContacts")
        let contacts = (data["Contacts"] ?? []).filter { string($0, "BusinessPartnerID") == string(first, "CustomerID") }
        #expect(customer.entities.count == contacts.count)

        let property = try executor().execute("SalesOrders('\(id)')/CustomerID")
        guard case .property(let name, let value) = property.payload else { Issue.record("not a property"); return }
        #expect(name == "CustomerID" && value == first[property: "CustomerID"])

        let total = try executor().execute("SalesOrders/$count?$filter=LifecycleStatus eq 'N'")
        let expected = orders.filter { $0[property: "LifecycleStatus"] == .string("N") }.count
        #expect(total.payload.countValue == expected)

        do {
            _ = try executor().execute("SalesOrders('nope')")
            Issue.record("missing entity found")
        } catch let error as ODataError {
            #expect(error.name == "entityNotFound" && error.category == .notFound)
        }
    }

    @Test func explainShowsTheIndexAndTheStream() throws {
        let equality = try executor().explain("SalesOrders?$filter=LifecycleStatus eq 'N'")
        #expect(equality.contains("index SO_Status range [LifecycleStatus = 'N']"))
        let top = try executor().explain("SalesOrders?$orderby=GrossAmount desc&$top=20")
        #expect(top.contains("index SO_Gross") && top.contains("backward"))
        let heap = try executor().explain("SalesOrders?$orderby=NetAmount&$top=20")
        #expect(heap.contains("top-20 heap") && heap.contains("full scan"))
    }

    /// Executed plans come from a cache shared by the catalog's readers: a query run again after
    /// an index is dropped or declared must plan with the indexes of that moment, and give the
    /// same rows either way.
    @Test func cachedPlansFollowIndexChanges() async throws {
        let url = "SalesOrders?$orderby=NetAmount desc&$top=5"
        func run() throws -> (plan: QueryPlan?, keys: [String]) {
            let result = try executor().execute(url)
            guard case .collection(let rows, _, _) = result.payload else { return (result.plan, []) }
            return (result.plan, rows.map { string($0, "SalesOrderID") })
        }
        let heap = try run()
        #expect(heap.plan?.order == .topK(6))
        #expect(try run().plan == heap.plan)  // a second run: the cached plan
        _ = try await harness.storage.declareIndex(IndexDefinition(name: "SO_Net", entitySet: "SalesOrders", properties: ["NetAmount"]))
        let streamed = try run()
        guard case .index(let index, _)? = streamed.plan?.access else {
            Issue.record("after declaring SO_Net the query still plans \(String(describing: streamed.plan?.access))"); return
        }
        #expect(index.name == "SO_Net" && streamed.plan?.order == .accessOrder(reverse: true))
        #expect(streamed.keys == heap.keys && heap.keys.count == 5)
        try harness.storage.dropIndex(named: "SO_Net")
        let again = try run()
        #expect(again.plan?.order == .topK(6) && again.keys == heap.keys)
    }

    @Test func thePlanCacheStaysBounded() throws {
        let cache = PlanCache()
        let primaryKey = AccessIndex(name: "key", kind: .primaryKey, properties: ["ID"])
        for top in 1...(PlanCache.capacity + 10) {
            let request = PlanRequest(entitySet: "S", orderBy: [PlanOrderKey(property: "ID", descending: false)], top: top, primaryKey: primaryKey)
            #expect(cache.plan(request) == Planner.plan(request))
        }
        #expect(cache.count <= PlanCache.capacity && cache.count > 0)
    }
}

extension QueryResult.Payload {
    var countValue: Int? {
        if case .count(let n) = self { return n }
        return nil
    }
}
