import OfflineODataEngine
import OfflineODataFixtures
import OfflineODataModel
import OfflineODataQuery
import Testing
@testable import OfflineODataStore

/// `$compute` and `/$filter(…)` end to end on the generated sales service (docs/Query.md §5):
/// values, their place and type, their use in `$filter`/`$orderby`/`$select`/`$expand`, the
/// plans they get, and the OData JSON the local service writes.
@Suite(.serialized) final class ComputeQueryTests {
    let model: ServiceModel
    let harness: StorageHarness
    var data: [String: [ODataEntity]] = [:]

    init() async throws {
        let generator = SalesServiceGenerator(seed: 7, scale: .small)
        model = try ServiceModel.parse(metadata: Array(generator.metadataXML().utf8))
        harness = try StorageHarness(model: model, label: "compute")
        data = try harness.loadSales(generator, model: model)
        _ = try await harness.storage.declareIndex(IndexDefinition(name: "SO_Status", entitySet: "SalesOrders", properties: ["LifecycleStatus"]))
    }

    func executor(pageSize: Int? = nil) throws -> QueryExecutor {
        QueryExecutor(reader: try harness.storage.reader(), model: model, pageSize: pageSize)
    }

    func run(_ url: String) throws -> [ODataEntity] { try executor().execute(url).entities }

    func ids(_ entities: [ODataEntity], _ key: String = "SalesOrderID") -> [String] {
        entities.map { if case .string(let s)? = $0[property: key] { return s }; return "?" }
    }

    static func double(_ value: ODataValue?) -> Double? {
        switch value {
        case .decimal(let d)?: return Double(d.description)
        case .int32(let n)?: return Double(n)
        case .int64(let n)?: return Double(n)
        case .double(let d)?: return d
        default: return nil
        }
    }

    @Test func computedPropertiesFollowTheDeclaredOnesWithTheirType() throws {
        let items = try run("SalesOrderItems?$compute=NetAmount mul Quantity as Total,concat(SalesOrderID,ItemPosition) as Label,length(ProductID) as L&$top=40")
        #expect(items.count == 40)
        let declared = model.entityType(ofSet: "SalesOrderItems").map { model.allProperties(of: $0).map(\.name) } ?? []
        for item in items {
            #expect(item.properties.map(\.name) == declared + ["Total", "Label", "L"])
            let total = try #require(item[property: "Total"])
            #expect(total.kind == .decimal, "Total is Edm.Decimal like the bound expression")
            let net = try #require(Self.double(item[property: "NetAmount"])), quantity = try #require(Self.double(item[property: "Quantity"]))
            let computed = try #require(Self.double(total))
            #expect(abs(computed - net * quantity) <= 1e-9 * max(1, abs(net * quantity)))
            guard case .string(let order)? = item[property: "SalesOrderID"], case .string(let position)? = item[property: "ItemPosition"],
                  case .string(let product)? = item[property: "ProductID"] else { Issue.record("keys missing"); continue }
            #expect(item[property: "Label"] == .string(order + position))
            #expect(item[property: "L"] == .int32(Int32(product.count)))
        }
        // One entity by key, with $select.
        let first = try #require(items.first)
        let key = "SalesOrderID='\(ids([first])[0])',ItemPosition='\(ids([first], "ItemPosition")[0])'"
        let one = try run("SalesOrderItems(\(key))?$compute=NetAmount mul Quantity as Total,1 as One&$select=Total")
        #expect(one.count == 1 && one.first?.properties.map(\.name) == ["SalesOrderID", "ItemPosition", "Total"])
        #expect(one.first?[property: "Total"] == first[property: "Total"])
    }

    @Test func computedValuesHaveTheBoundType() throws {
        let expressions = ["TaxTarifCode add 1", "-TaxTarifCode", "TaxTarifCode mul 2.5", "Price mul 2", "Price div 3", "Price divby 2",
                           "TaxTarifCode mod 2", "round(Price)", "cast(Price,Edm.Double)", "year(CreatedAt)", "CreatedAt add duration'P1D'",
                           "date(CreatedAt)", "Price gt 100", "toupper(Name)", "indexof(Name,'a')", "Width add 1"]
        let text = expressions.enumerated().map { "\($0.element) as C\($0.offset)" }.joined(separator: ",")
        let request = try RequestBinder(model: model).bind(try ODataURLParser.parse("Products?$compute=\(text)"))
        let products = try run("Products?$compute=\(text)&$top=30")
        #expect(products.count == 30)
        for (index, item) in request.options.compute.enumerated() {
            let kinds = Set(products.compactMap { $0[property: item.alias] }.filter { !$0.isNull }.compactMap(\.kind))
            #expect(kinds == [try #require(item.type.primitiveKind)], "\(expressions[index]): bound \(item.type), values \(kinds)")
        }
    }

    @Test func filterOrderBySelectOnAnAliasMatchTheInlineExpression() throws {
        let orders = data["SalesOrders"] ?? []
        let viaAlias = try run("SalesOrders?$compute=GrossAmount sub NetAmount as Tax&$filter=Tax gt 100&$select=SalesOrderID,Tax")
        let inline = try run("SalesOrders?$filter=GrossAmount sub NetAmount gt 100")
        #expect(!viaAlias.isEmpty && viaAlias.count < orders.count, "the filter must select a proper subset to mean something")
        #expect(ids(viaAlias) == ids(inline))
        for order in viaAlias {
            #expect(order.properties.map(\.name) == ["SalesOrderID", "Tax"])
            #expect((Self.double(order[property: "Tax"]) ?? 0) > 100)
        }
        // Not selected: not returned; `*`: returned.
        let unselected = try run("SalesOrders?$compute=GrossAmount sub NetAmount as Tax&$select=Note&$top=3")
        #expect(unselected.allSatisfy { $0[property: "Tax"] == nil && $0.properties.map(\.name) == ["SalesOrderID", "Note"] })
        #expect(try run("SalesOrders?$compute=GrossAmount sub NetAmount as Tax&$select=*&$top=3").allSatisfy { $0[property: "Tax"] != nil })
        // Order by the alias with $top: the same rows as the inline ordering, in order.
        let top = try run("SalesOrders?$compute=GrossAmount sub NetAmount as Tax&$orderby=Tax desc&$top=7")
        #expect(ids(top) == ids(try run("SalesOrders?$orderby=GrossAmount sub NetAmount desc&$top=7")))
        let taxes = top.compactMap { Self.double($0[property: "Tax"]) }
        #expect(taxes.count == 7 && taxes == taxes.sorted(by: >))
        let byData = orders.compactMap { o -> (String, Double)? in
            guard let g = Self.double(o[property: "GrossAmount"]), let n = Self.double(o[property: "NetAmount"]) else { return nil }
            return (ids([o])[0], g - n)
        }.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 > $1.0 }
        #expect(ids(top) == byData.prefix(7).map(\.0))
    }

    @Test func pagesKeepTheComputeAndTheOrder() throws {
        let url = "SalesOrders?$compute=GrossAmount sub NetAmount as Tax&$filter=Tax gt 10&$orderby=Tax,SalesOrderID&$count=true"
        let whole = try run(url)
        var paged: [ODataEntity] = []
        var next: String? = url
        var pages = 0
        while let link = next, pages < 1000 {
            guard case .collection(let page, let count, let nextLink) = try executor(pageSize: 40).execute(link).payload else {
                Issue.record("not a collection"); break
            }
            #expect(count == whole.count)
            paged += page
            next = nextLink
            pages += 1
        }
        #expect(pages > 1 && ids(paged) == ids(whole))
        #expect(paged.allSatisfy { $0[property: "Tax"] != nil })
    }

    @Test func computeInsideExpand() throws {
        let result = try run("SalesOrders?$top=15&$expand=ToItems($compute=NetAmount mul 2 as Twice;$filter=Twice gt 200;$orderby=Twice desc;$select=ItemPosition,Twice)")
        let items = data["SalesOrderItems"] ?? []
        for order in result {
            guard case .entities(let expanded, _, _)? = order.navigation("ToItems")?.content else { Issue.record("no ToItems"); continue }
            let id = ids([order])[0]
            let wanted = items.filter { ids([$0])[0] == id && (Self.double($0[property: "NetAmount"]) ?? 0) * 2 > 200 }
            #expect(expanded.count == wanted.count)
            let twice = expanded.compactMap { Self.double($0[property: "Twice"]) }
            #expect(twice == twice.sorted(by: >) && twice.count == expanded.count)
            #expect(expanded.allSatisfy { $0.properties.map(\.name) == ["SalesOrderID", "ItemPosition", "Twice"] })
        }
        #expect(result.allSatisfy { $0[property: "Twice"] == nil })
    }

    @Test func filterSegmentsRestrictTheCollection() throws {
        let orders = data["SalesOrders"] ?? []
        let big = orders.filter { (Self.double($0[property: "GrossAmount"]) ?? 0) > 1000 }
        #expect(!big.isEmpty && big.count < orders.count)
        let count = try executor().execute("SalesOrders/$filter(GrossAmount gt 1000)/$count")
        #expect(count.payload.countValue == big.count)
        let both = big.filter { $0[property: "LifecycleStatus"] == .string("N") }
        let twice = try run("SalesOrders/$filter(GrossAmount gt 1000)/$filter(LifecycleStatus eq 'N')?$orderby=SalesOrderID")
        #expect(ids(twice) == ids(both).sorted())
        let withOption = try executor().execute("SalesOrders/$filter(GrossAmount gt @min)?@min=1000&$filter=LifecycleStatus eq 'N'&$count=true&$top=2")
        guard case .collection(let page, let total, _) = withOption.payload else { Issue.record("not a collection"); return }
        #expect(total == both.count && page.count == min(2, both.count))
        // After a collection navigation.
        let customer = try #require(orders.first.map { ids([$0], "CustomerID")[0] })
        let mine = orders.filter { ids([$0], "CustomerID")[0] == customer && (Self.double($0[property: "GrossAmount"]) ?? 0) > 500 }
        let navigated = try run("BusinessPartners('\(customer)')/ToSalesOrders/$filter(GrossAmount gt 500)")
        #expect(Set(ids(navigated)) == Set(ids(mine)))
        #expect(try executor().execute("BusinessPartners('\(customer)')/ToSalesOrders/$filter(GrossAmount gt 500)/$count").payload.countValue == mine.count)
        // Next links keep the segment: following them returns exactly the filtered rows.
        var next: String? = "SalesOrders/$filter(GrossAmount gt 1000)"
        var paged: [ODataEntity] = []
        var pages = 0
        while let link = next, pages < 1000 {
            guard case .collection(let page, _, let nextLink) = try executor(pageSize: 5).execute(link).payload else { Issue.record("not a collection"); break }
            paged += page
            next = nextLink
            pages += 1
        }
        #expect(pages > 1 && ids(paged) == ids(big).sorted())
    }

    @Test func plansStillUseIndexesAndTheTopKHeap() throws {
        let indexed = try executor().explain("SalesOrders?$compute=GrossAmount mul 2 as D&$filter=CustomerID eq 'X'")
        #expect(indexed.contains("range [CustomerID = 'X']") && indexed.contains("answered by the access path"), "\(indexed)")
        #expect(indexed.hasPrefix(try executor().explain("SalesOrders?$filter=CustomerID eq 'X'") + "\n"), "a $compute must not change the plan")
        #expect(indexed.hasSuffix("compute: D = (GrossAmount mul 2) (Edm.Decimal), evaluated for each returned row"), "\(indexed)")
        let mixed = try executor().explain("SalesOrders?$compute=GrossAmount mul 2 as D&$filter=LifecycleStatus eq 'N' and D gt 10")
        #expect(mixed.contains("index SO_Status") && mixed.contains("re-checked on each candidate"), "\(mixed)")
        let onAlias = try executor().explain("SalesOrders?$compute=GrossAmount mul 2 as D&$filter=D gt 10")
        #expect(onAlias.contains("full scan") && onAlias.contains("re-checked on each candidate"), "\(onAlias)")
        let segment = try executor().explain("SalesOrders/$filter(LifecycleStatus eq 'N')")
        #expect(segment.contains("index SO_Status"), "\(segment)")
        let heap = try executor().explain("SalesOrders?$compute=GrossAmount mul 2 as D&$orderby=D desc&$top=5")
        #expect(heap.contains("top-5 heap"), "\(heap)")
        // The executed plans are the explained ones.
        let run = try executor().execute("SalesOrders?$compute=GrossAmount mul 2 as D&$orderby=D desc&$top=5")
        if case .topK? = run.plan?.order {} else { Issue.record("not a top-k plan: \(String(describing: run.plan))") }
        let lookup = try executor().execute("SalesOrders?$compute=GrossAmount mul 2 as D&$filter=LifecycleStatus eq 'N' and D gt 10")
        if case .index(let index, _)? = lookup.plan?.access { #expect(index.name == "SO_Status") } else {
            Issue.record("not an index plan: \(String(describing: lookup.plan))")
        }
    }

    @Test func localServiceWritesComputedPropertiesAsDynamicOnes() throws {
        let h = try ServiceHarness()
        h.service = try LocalService(storage: h.storage.storage, readHandler: StoreReadHandler(model: h.model, pageSize: nil), now: { 1_700_000_000 })
        let response = try h.run(.get, "SalesOrders?$compute=length(CustomerName) as L,GrossAmount sub NetAmount as Tax&$top=2&$select=SalesOrderID,L,Tax")
        #expect(response.status == 200)
        let body = try json(response)
        guard case .object(let first)? = body["value"]?[0] else { Issue.record("no entity: \(response.bodyText ?? "")"); return }
        #expect(first.keys.filter { !$0.hasPrefix("@") } == ["SalesOrderID", "L@odata.type", "L", "Tax"])
        #expect(first["L@odata.type"] == .string("#Int32"))
        let count = try h.run(.get, "SalesOrders/$filter(GrossAmount gt 1000)/$count")
        let all = try h.all("SalesOrders").map { try $0.toODataEntity() }
        #expect(count.bodyText == String(all.filter { (Self.double($0[property: "GrossAmount"]) ?? 0) > 1000 }.count))
        // Bad requests are typed errors; changes through a filter segment are refused.
        do {
            _ = try h.run(.get, "SalesOrders?$compute=1 as NetAmount")
            Issue.record("alias clash accepted")
        } catch let error as ODataError {
            #expect(error.code == 1757 && error.location == "$compute, position 5")
        }
        do {
            _ = try h.run(.delete, "SalesOrders/$filter(true)")
            Issue.record("DELETE through $filter(…) accepted")
        } catch let error as ODataError {
            #expect(error.category == .notSupported || error.category == .invalidInput, "\(error)")
        }
    }
}
