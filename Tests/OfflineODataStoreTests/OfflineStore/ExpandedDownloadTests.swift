import Foundation
import OfflineODataFixtures
import PropertyBased
import Testing
@testable import OfflineODataModel
@testable import OfflineODataStore

/// Expanded content read in place (docs/OfflineStore.md §7.2): a download of orders with their
/// items expanded stores, links and indexes exactly what the general reader's entities store,
/// in one commit or staged, and where a nested entity lacks the values its link sets (a foreign
/// key left out, another order's key) the page is read by the general reader, with its outcome.
@Suite struct ExpandedDownloadTests {
    /// Orders pages (`pageSize` orders each) with every order's items expanded; `item` may change
    /// each item (its order's index and the item) before it is written.
    static func orderPages(pageSize: Int = 20, item: (Int, inout ODataEntity) -> Void = { _, _ in },
                           annotate: Bool = false) throws -> [[UInt8]] {
        let model = try ServiceModel.parse(metadata: OfflineFixtures.metadata)
        let reader = ODataJSONReader(model: model)
        let generator = OfflineFixtures.sales
        let orders = try OfflineFixtures.pages(.salesOrders, pageSize: pageSize)
        var pages: [[UInt8]] = []
        var orderIndex = 0
        for page in orders {
            var collection = try reader.readCollection(page, entitySet: "SalesOrders")
            for i in collection.entities.indices {
                var items: [ODataEntity] = []
                for index in generator.itemRange(ofSalesOrder: orderIndex) {
                    var entity = try reader.readEntity(try #require(generator.entityProperties(set: .salesOrderItems, index: index)),
                                                       entitySet: "SalesOrderItems")
                    item(orderIndex, &entity)
                    items.append(entity)
                }
                collection.entities[i].navigation.append(ODataNavigationValue("ToItems", .entities(items, count: nil, nextLink: nil)))
                orderIndex += 1
            }
            let bytes = try ODataJSONWriter(model: model).writeCollection(collection, entitySet: "SalesOrders")
            pages.append(annotate ? Self.annotated(bytes) : bytes)
        }
        return pages
    }

    /// The page with a property annotation on every order: the flat reader leaves it to the
    /// general reader.
    static func annotated(_ page: [UInt8]) -> [UInt8] {
        Array(String(decoding: page, as: UTF8.self)
            .replacingOccurrences(of: #""SalesOrderID":"#, with: #""Note@Core.Description":"x","SalesOrderID":"#).utf8)
    }

    /// What a user sees after downloading `pages`.
    static func outcome(_ pages: [[UInt8]], batchBytes: Int = 4 << 20, pendingItem: Bool = false) async throws -> [String] {
        try await outcomeAndCommits(pages, batchBytes: batchBytes, pendingItem: pendingItem).seen
    }

    /// What a user sees after downloading `pages` (with `pendingItem`, into a store holding one
    /// item of order 2 with a local change), and the engine commits the download made.
    static func outcomeAndCommits(_ pages: [[UInt8]], batchBytes: Int = 4 << 20,
                                  pendingItem: Bool = false) async throws -> (seen: [String], commits: UInt64) {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        var parameters = OfflineFixtures.parameters(
            dir, definingQueries: [DefiningQuery(name: "Orders", url: "SalesOrders?$expand=ToItems"),
                                   DefiningQuery(name: "Items", url: "SalesOrderItems")], downloadBatchBytes: batchBytes)
        parameters.indexes = [IndexDefinition(name: "SOI_Quantity", entitySet: "SalesOrderItems", properties: ["Quantity"])]
        let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: parameters)
        defer { try? store.close() }
        let pendingOrder = OfflineFixtures.sales.salesOrderID(2)
        if pendingItem {
            let items = try OfflineFixtures.pages(.salesOrderItems, pageSize: 10_000)
            try await store.applyDownload(definingQuery: "Items", pages: items)
            let item = try #require(OfflineFixtures.sales.itemRange(ofSalesOrder: 2).first)
            let body = try #require(OfflineFixtures.sales.entityProperties(set: .salesOrderItems, index: item))
            let entity = try ODataJSONReader(model: store.model).readEntity(body, entitySet: "SalesOrderItems")
            let position = try #require(entity[property: "ItemPosition"])
            let literal: String
            switch position {
            case .string(let text): literal = "'\(text)'"
            case .int32(let n): literal = String(n)
            default: literal = "\(position)"
            }
            #expect(try store.execute(.patch, "SalesOrderItems(SalesOrderID='\(pendingOrder)',ItemPosition=\(literal))", body: #"{"Note":"mine"}"#).status == 204)
            try await store.applyDownload(definingQuery: "Items", pages: [Array(#"{"value":[]}"#.utf8)])
        }
        let before = try store.storage.engine.stats().commits
        let summary = try await store.applyDownload(definingQuery: "Orders", pages: pages)
        let commits = try store.storage.engine.stats().commits - before
        #expect(try store.storage.engine.check().isClean)
        var seen = ["\(summary)"]
        seen.append(try store.execute(.get, "SalesOrderItems?$filter=ProductID eq '\(OfflineFixtures.sales.productID(1))'&$select=SalesOrderID,ItemPosition&$orderby=SalesOrderID,ItemPosition").bodyText ?? "")
        seen.append(try store.execute(.get, "SalesOrderItems?$filter=Quantity ge 3 and Quantity lt 5&$select=SalesOrderID,ItemPosition,Quantity&$orderby=SalesOrderID,ItemPosition").bodyText ?? "")
        let plan = try store.explain("SalesOrderItems?$filter=Quantity ge 3 and Quantity lt 5")
        #expect(plan.contains("SOI_Quantity"), "\(plan)")
        seen.append(try store.execute(.get, "SalesOrderItems?$filter=sap.haspendingchanges()&$select=SalesOrderID,Note").bodyText ?? "")
        seen.append(try store.execute(.get, "SalesOrders?$orderby=SalesOrderID&$expand=ToItems($orderby=ItemPosition)").bodyText ?? "")
        seen.append(try store.execute(.get, "SalesOrderItems?$orderby=SalesOrderID,ItemPosition").bodyText ?? "")
        // Through the items' foreign-key index, and the membership: a second download of
        // nothing removes every entity it brought.
        let order = OfflineFixtures.sales.salesOrderID(3)
        seen.append(try store.execute(.get, "SalesOrders('\(order)')/ToItems/$count").bodyText ?? "")
        seen.append(try store.execute(.get, "SalesOrderItems?$filter=SalesOrderID eq '\(order)'&$select=ItemPosition").bodyText ?? "")
        seen += try store.service.eventLog().filter { $0.type == "DownloadRejected" }.map { $0.details ?? "" }
        let empty = try await store.applyDownload(definingQuery: "Orders", pages: [Array(#"{"value":[]}"#.utf8)])
        seen.append("removed \(empty.entitiesRemoved)")
        seen.append(try store.execute(.get, "SalesOrderItems/$count").bodyText ?? "")
        return (seen, commits)
    }

    @Test("orders with expanded items: read in place, stored as the general reader's entities are (one commit and staged)",
          arguments: [4 << 20, 2_000])
    func sameAsGeneral(batchBytes: Int) async throws {
        let flat = try Self.orderPages()
        let general = try Self.orderPages(annotate: true)
        let expected = try await Self.outcome(general, batchBytes: batchBytes)
        #expect(expected[0].contains("entitiesRejected: 0"), "\(expected[0])")
        #expect(try await Self.outcome(flat, batchBytes: batchBytes) == expected)
    }

    @Test("into fresh sets, orders and their items are loaded in bulk, with no commit per page, and leave what commits leave")
    func bulk() async throws {
        let pages = try Self.orderPages()
        let general = try await Self.outcomeAndCommits(try Self.orderPages(annotate: true), batchBytes: 2_000)
        let loaded = try await Self.outcomeAndCommits(pages, batchBytes: 2_000)
        #expect(loaded.seen == general.seen)
        // A few commits for the markers and the event (4 measured), none per page (25 pages).
        #expect(loaded.commits <= 4, "\(loaded.commits) commits, \(general.commits) by commits, \(pages.count) pages")
        #expect(general.commits > UInt64(pages.count), "\(general.commits) commits")
        // An item set with a pending change is not fresh: commits, and the change wins.
        let pending = try await Self.outcomeAndCommits(pages, batchBytes: 2_000, pendingItem: true)
        #expect(pending.seen == (try await Self.outcomeAndCommits(try Self.orderPages(annotate: true), batchBytes: 2_000, pendingItem: true)).seen)
        #expect(pending.seen.contains { $0.contains("mine") }, "\(pending.seen[2])")
        #expect(pending.commits > UInt64(pages.count))
    }

    @Test("an item that comes a second time (under another order, later) sends that page and all after it the commit way; the same result")
    func bulkItemTwice() async throws {
        let sales = OfflineFixtures.sales
        var pages = try Self.orderPages()
        // Page 3's first order also carries an item of order 1 (page 0), with another note.
        let model = try ServiceModel.parse(metadata: OfflineFixtures.metadata)
        let reader = ODataJSONReader(model: model)
        var collection = try reader.readCollection(pages[3], entitySet: "SalesOrders")
        let item = try #require(sales.itemRange(ofSalesOrder: 1).first)
        var again = try reader.readEntity(try #require(sales.entityProperties(set: .salesOrderItems, index: item)), entitySet: "SalesOrderItems")
        again.properties = again.properties.map { $0.name == "Note" ? ODataProperty("Note", .string("second")) : $0 }
        guard let at = collection.entities[0].navigation.firstIndex(where: { $0.name == "ToItems" }),
              case .entities(var list, _, _) = collection.entities[0].navigation[at].content else {
            Issue.record("no expanded items")
            return
        }
        list.append(again)
        collection.entities[0].navigation[at] = ODataNavigationValue("ToItems", .entities(list, count: nil, nextLink: nil))
        pages[3] = try ODataJSONWriter(model: model).writeCollection(collection, entitySet: "SalesOrders")
        let annotated = pages.map(Self.annotated)
        let loaded = try await Self.outcomeAndCommits(pages, batchBytes: 2_000)
        #expect(loaded.seen == (try await Self.outcomeAndCommits(annotated, batchBytes: 2_000)).seen)
        #expect(loaded.commits > 3, "the pages from the repeated item on are committed")
    }

    /// Pages of random shape: random orders (some twice, in any order), each with some of its
    /// items (sometimes also an item of another order, with that order's key: refused), random
    /// page sizes; the same pages annotated, for the general reader.
    static func randomPages(_ values: [Int]) throws -> (flat: [[UInt8]], general: [[UInt8]]) {
        var c = values.makeIterator()
        func next(_ n: Int) -> Int { (c.next() ?? 3) % max(1, n) }
        let model = try ServiceModel.parse(metadata: OfflineFixtures.metadata)
        let reader = ODataJSONReader(model: model)
        let generator = OfflineFixtures.sales
        let orderCount = generator.count(of: .salesOrders)
        var flat: [[UInt8]] = [], general: [[UInt8]] = []
        for _ in 0..<(1 + next(6)) {
            var entities: [ODataEntity] = []
            for _ in 0..<(1 + next(12)) {
                let order = next(orderCount)
                var entity = try reader.readEntity(try #require(generator.entityProperties(set: .salesOrders, index: order)), entitySet: "SalesOrders")
                var items: [ODataEntity] = []
                for index in generator.itemRange(ofSalesOrder: order) where next(4) != 0 {
                    items.append(try reader.readEntity(try #require(generator.entityProperties(set: .salesOrderItems, index: index)),
                                                       entitySet: "SalesOrderItems"))
                }
                if next(8) == 0, let other = generator.itemRange(ofSalesOrder: next(orderCount)).first {
                    items.append(try reader.readEntity(try #require(generator.entityProperties(set: .salesOrderItems, index: other)),
                                                       entitySet: "SalesOrderItems"))
                }
                entity.navigation.append(ODataNavigationValue("ToItems", .entities(items, count: nil, nextLink: nil)))
                entities.append(entity)
            }
            let bytes = try ODataJSONWriter(model: model).writeCollection(ODataEntityCollection(entities: entities), entitySet: "SalesOrders")
            flat.append(bytes)
            general.append(Self.annotated(bytes))
        }
        return (flat, general)
    }

    @Test("random expanded downloads (orders twice, items moved, one commit, staged, loaded in bulk, into a set with a pending change) leave what the general reader's download leaves")
    func randomDownloads() async throws {
        await propertyCheck(count: 12, input: Gen.int(in: 0...1_000).array(of: 10...120)) { values in
            let (flat, general) = try Self.randomPages(values)
            let batchBytes = [4 << 20, 2_000, 30_000][values[0] % 3]
            let pending = values[1] % 4 == 0
            let expected = try await Self.outcome(general, batchBytes: batchBytes, pendingItem: pending)
            let seen = try await Self.outcome(flat, batchBytes: batchBytes, pendingItem: pending)
            #expect(seen == expected, "batchBytes \(batchBytes), pending \(pending)")
        }
    }

    @Test("the readers take the flat pages in place, with every item after its order, and leave the annotated ones")
    func readInPlace() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: OfflineFixtures.parameters(dir))
        defer { try? store.close() }
        let info = try store.storage.setInfo("SalesOrders")
        let ahead = PageReadAhead(reader: store.service.validator, set: "SalesOrders", readers: 0, automatic: 0, preparingFor: info,
                                  catalog: store.storage.currentCatalog())
        #expect(ahead.flat?.reader.expandedNavigations == ["ToCustomer", "ToItems"])
        let page = try Self.orderPages()[0]
        let read = try ahead.submit(page, number: 0).take()
        let staged = try #require(read.staged)
        #expect(staged.count == 20)
        #expect(read.nested.count == (0..<20).reduce(0) { $0 + OfflineFixtures.sales.itemRange(ofSalesOrder: $1).count })
        #expect(read.nested.map(\.parent) == read.nested.map(\.parent).sorted())
        #expect(read.storedEntries(for: info) == nil, "a page with nested entities is spooled as JSON")
        let annotated = try ahead.submit(try Self.orderPages(annotate: true)[0], number: 1).take()
        #expect(annotated.staged == nil && annotated.nested.isEmpty)
    }

    @Test("a stored-form page with nested entities round-trips; damaged, it is a typed error at every truncation, never a crash")
    func nestedStagedForm() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: OfflineFixtures.parameters(dir))
        defer { try? store.close() }
        let info = try store.storage.setInfo("SalesOrders"), items = try store.storage.setInfo("SalesOrderItems")
        let ahead = PageReadAhead(reader: store.service.validator, set: "SalesOrders", readers: 0, automatic: 0, preparingFor: info,
                                  catalog: store.storage.currentCatalog())
        let read = try ahead.submit(try Self.orderPages(pageSize: 3)[0], number: 0).take()
        let form = try #require(read.stagedForm(for: info, downloadedSize: 1000))
        #expect(form[1] == StagedPage.versionNested)
        let layoutCount = info.layout.properties.count
        let sets: (String) -> SetInfo? = { $0 == "SalesOrderItems" ? items : nil }
        let decoded = try StagedPage.decode(form, layoutCount: layoutCount, page: 0, nestedSet: sets)
        #expect(decoded.entries.map(\.key) == read.staged?.map(\.key) && decoded.entries.map(\.value) == read.staged?.map(\.value))
        #expect(decoded.nested.map(\.parent) == read.nested.map(\.parent))
        #expect(decoded.nested.map(\.entry.key) == read.nested.map(\.entry.key))
        #expect(decoded.nested.map(\.entry.value) == read.nested.map(\.entry.value))
        #expect(decoded.nested.allSatisfy { $0.info === items })
        // Read back by a reader of the download (after a crash, from the spool): the same page.
        let again = try ahead.submit(form, number: 1).take()
        #expect(again.nested.map(\.entry.value) == read.nested.map(\.entry.value))
        for cut in 0..<form.count {
            expectStoreError("storeRecordCorrupted", 3265) {
                _ = try StagedPage.decode(Array(form[0..<cut]), layoutCount: layoutCount, page: 0, nestedSet: sets)
            }
        }
        expectStoreError("storeRecordCorrupted", 3265) { _ = try StagedPage.decode(form + [0], layoutCount: layoutCount, page: 0, nestedSet: sets) }
        expectStoreError("storeRecordCorrupted", 3265) { _ = try StagedPage.decode(form, layoutCount: layoutCount, page: 0, nestedSet: { _ in nil }) }
        expectStoreError("storeRecordCorrupted", 3265) { _ = try StagedPage.decode(form, layoutCount: layoutCount, page: 0) }
    }

    @Test("an item with another order's key takes the general reader's way, with its outcome: the link refused and logged")
    func mismatchedItems() async throws {
        let sales = OfflineFixtures.sales
        // The general reader requires the item's key, which holds the foreign key: the only
        // mismatch a page can carry is another order's key, whose link `put` refuses.
        let moved: (Int, inout ODataEntity) -> Void = { order, entity in
            guard order == 5 else { return }
            entity.properties = entity.properties.map {
                $0.name == "SalesOrderID" ? ODataProperty("SalesOrderID", .string(sales.salesOrderID(6))) : $0
            }
        }
        let expected = try await Self.outcome(try Self.orderPages(item: moved, annotate: true), batchBytes: 2_000)
        let flat = try await Self.outcome(try Self.orderPages(item: moved), batchBytes: 2_000)
        #expect(flat == expected)
        #expect(flat[0].contains("entitiesRejected: 1"), "\(flat[0])")
        #expect(flat.contains { $0.contains("invalidLink") }, "\(flat.suffix(4))")
    }
}
