import OfflineODataFixtures
import OfflineODataModel
import Testing
@testable import OfflineODataQuery

@Suite struct RequestBinderTests {
    static let model: ServiceModel? = try? ServiceModel.parse(metadata: Array(SalesServiceGenerator(seed: 1, scale: .tiny).metadataXML().utf8))

    func bind(_ url: String) throws -> BoundRequest {
        let model = try #require(Self.model)
        return try RequestBinder(model: model).bind(try ODataURLParser.parse(url))
    }

    func conditions(_ filter: String) throws -> ConditionTree {
        ConditionExtractor.conditions(of: try bind("SalesOrders?$filter=" + filter).options.filter)
    }

    func atom(_ property: String, _ op: IndexCondition.Operator, _ values: ODataValue...) -> ConditionTree {
        .atom(IndexCondition(property: property, op: op, values: values))
    }

    @Test func indexConditionsComeFromComparisonsInAndStartswith() throws {
        #expect(try conditions("CustomerID eq '0100000001'") == atom("CustomerID", .eq, .string("0100000001")))
        #expect(try conditions("'0100000001' lt CustomerID") == atom("CustomerID", .gt, .string("0100000001")))
        #expect(try conditions("startswith(CustomerName,'Ab')") == atom("CustomerName", .startsWith, .string("Ab")))
        #expect(try conditions("LifecycleStatus in ('N','P')") == atom("LifecycleStatus", .in, .string("N"), .string("P")))
        #expect(try conditions("Note eq null") == atom("Note", .eq, .null))
        #expect(try conditions("Note gt null") == .never)
        #expect(try conditions("CustomerID eq 'a' and (LifecycleStatus eq 'N' or LifecycleStatus eq 'P')")
            == .and([atom("CustomerID", .eq, .string("a")), .or([atom("LifecycleStatus", .eq, .string("N")), atom("LifecycleStatus", .eq, .string("P"))])]))
    }

    @Test func whatAnIndexCannotAnswerIsOpaque() throws {
        #expect(try conditions("not (CustomerID eq 'a')") == .opaque)
        #expect(try conditions("tolower(CustomerID) eq 'a'") == .opaque)
        #expect(try conditions("CustomerID ne 'a'") == .opaque)
        #expect(try conditions("ToCustomer/CompanyName eq 'a'") == .opaque)
    }

    @Test func numericLiteralsAreRetypedToTheProperty() throws {
        guard case .atom(let atom) = try conditions("GrossAmount ge 100") else { Issue.record("no atom"); return }
        #expect(atom.values.first?.kind == .decimal)
    }

    @Test func optionsAreCheckedWhereTheyApply() throws {
        let cases: [(String, String)] = [
            ("SalesOrders('1')?$top=1", "invalidQueryOption"),
            ("SalesOrders/$count?$orderby=CustomerID", "invalidQueryOption"),
            ("SalesOrders?$select=Nope", "invalidProperty"),
            ("SalesOrders?$expand=Nope", "invalidProperty"),
            ("SalesOrders?$expand=ToCustomer($top=1)", "invalidQueryOption"),
            ("SalesOrders?$expand=ToItems/$ref($select=Note)", "invalidNestedOption"),
            ("SalesOrders?$compute=GrossAmount add 1 as GrossAmount", "computedAliasClash"),
            ("SalesOrders('1')/CustomerID?$compute=GrossAmount add 1 as X", "invalidQueryOption"),
        ]
        for (url, name) in cases {
            do {
                _ = try bind(url)
                Issue.record("accepted \(url)")
            } catch let error as ODataError {
                #expect(error.name == name, "\(url): \(error)")
            }
        }
    }

    @Test("V2's multi-hop $expand (A/B) is unfolded into nested expands, merged by first navigation; a V4 model still refuses it")
    func v2ExpandPaths() throws {
        let parsed = try ODataURLParser.parse("SalesOrders?$expand=ToItems,ToItems/ToProduct,ToCustomer/ToOrders/ToItems,ToItems/ToOrder")
        let unfolded = RequestBinder.unfoldV2Paths(try #require(parsed.options.expand))
        func names(_ items: [SyntaxExpandItem]?) -> [String] {
            (items ?? []).map { item in
                guard case .path(let segments) = item.target, case .member(let name, _)? = segments.first else { return "?" }
                return segments.count == 1 ? name : "?"
            }
        }
        #expect(names(unfolded) == ["ToItems", "ToCustomer"])
        #expect(names(unfolded[0].options.expand) == ["ToProduct", "ToOrder"])
        #expect(names(unfolded[1].options.expand) == ["ToOrders"])
        #expect(names(unfolded[1].options.expand?.first?.options.expand) == ["ToItems"])
        // The model of these tests is V4: the path stays refused.
        #expect(throws: ODataError.self) { try bind("SalesOrders?$expand=ToItems/ToProduct") }
    }

    @Test func selectKeepsKeysAndExpandResolvesTargets() throws {
        let request = try bind("SalesOrders?$select=Note&$expand=ToItems($filter=Quantity gt 1;$orderby=ItemPosition desc;$top=2;$expand=ToProduct),ToCustomer")
        #expect(request.options.select == BoundSelection(all: false, properties: ["SalesOrderID", "Note"]))
        #expect(request.options.expand.map(\.navigation.name) == ["ToItems", "ToCustomer"])
        let items = request.options.expand[0]
        #expect(items.navigation.targetSet == "SalesOrderItems" && items.navigation.isCollection)
        #expect(items.options.top == 2 && items.options.filter != nil && items.options.orderBy.count == 1)
        #expect(items.options.expand.first?.navigation.targetSet == "Products")
        let star = try bind("SalesOrders?$expand=*")
        #expect(Set(star.options.expand.map(\.navigation.name)) == ["ToItems", "ToCustomer"])
    }

    @Test func levelsNestTheSameNavigation() throws {
        let request = try bind("BusinessPartners?$expand=ToSalesOrders($expand=ToCustomer($levels=1))")
        let customer = try #require(request.options.expand.first?.options.expand.first)
        #expect(customer.navigation.name == "ToCustomer" && customer.options.expand.isEmpty)
        #expect(throws: ODataError.self) { try bind("SalesOrders?$expand=ToItems($levels=2)") }
    }
}
