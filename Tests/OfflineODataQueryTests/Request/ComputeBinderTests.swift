import OfflineODataFixtures
import OfflineODataModel
import Testing
@testable import OfflineODataQuery

/// `$compute` and the `/$filter(…)` path segment through `RequestBinder` (docs/Query.md §5).
@Suite struct ComputeBinderTests {
    static let model: ServiceModel? = try? ServiceModel.parse(metadata: Array(SalesServiceGenerator(seed: 1, scale: .tiny).metadataXML().utf8))

    func bind(_ url: String) throws -> BoundRequest {
        let model = try #require(Self.model)
        return try RequestBinder(model: model).bind(try ODataURLParser.parse(url))
    }

    func filterText(_ url: String) throws -> String? {
        try bind(url).options.filter.map { BoundPrinter.print($0) }
    }

    /// The error binding `url` throws (nil, with an issue, when it binds).
    func failure(_ url: String) -> ODataError? {
        do {
            _ = try bind(url)
            Issue.record("accepted \(url)")
            return nil
        } catch let error as ODataError {
            return error
        } catch {
            Issue.record("\(url): \(error)")
            return nil
        }
    }

    @Test func computedPropertiesTakeTheBoundExpressionsType() throws {
        let request = try bind("SalesOrderItems?$compute=NetAmount mul Quantity as Total,concat(ProductID,'-x') as Label,year(DeliveryDate) as Y,Total gt 10 as Big")
        #expect(request.options.compute.map(\.alias) == ["Total", "Label", "Y", "Big"])
        #expect(request.options.compute.map(\.type) == [.decimal, .string, .int32, .boolean])
        // A later item may use an earlier alias: its expression is inlined.
        #expect(BoundPrinter.print(request.options.compute[3].expression) == BoundPrinter.print(try #require(try bind("SalesOrderItems?$filter=NetAmount mul Quantity gt 10").options.filter)))
        #expect(request.options.select == .everything && request.options.select.includes(computed: "Label"))
    }

    @Test func filterAndOrderByOnAnAliasBindToItsExpression() throws {
        let viaAlias = try filterText("SalesOrders?$compute=GrossAmount sub NetAmount as Tax&$filter=Tax gt 5 and CustomerID eq 'C'")
        let inline = try filterText("SalesOrders?$filter=GrossAmount sub NetAmount gt 5 and CustomerID eq 'C'")
        #expect(viaAlias != nil && viaAlias == inline)
        let order = try bind("SalesOrders?$compute=GrossAmount sub NetAmount as Tax&$orderby=Tax desc,CustomerID")
        #expect(BoundPrinter.print(order.options.orderBy) == BoundPrinter.print(try bind("SalesOrders?$orderby=GrossAmount sub NetAmount desc,CustomerID").options.orderBy))
        // The alias literal is retyped like a property comparison would be.
        let retyped = try bind("SalesOrders?$compute=GrossAmount as G&$filter=G ge 100")
        guard case .binary(.ge, _, let right, _)? = retyped.options.filter?.kind else { Issue.record("not a comparison"); return }
        #expect(right.literalValue?.kind == .decimal)
    }

    @Test func indexConditionsSurviveAComputeAndAFilterOnAnAliasIsOpaque() throws {
        let request = try bind("SalesOrders?$compute=GrossAmount mul 2 as Double&$filter=CustomerID eq 'X' and Double gt 10")
        guard case .and(let parts) = ConditionExtractor.conditions(of: request.options.filter) else { Issue.record("not a conjunction"); return }
        #expect(parts.contains(.atom(IndexCondition(property: "CustomerID", op: .eq, values: [.string("X")]))))
        #expect(parts.contains(.opaque))
        #expect(ConditionExtractor.conditions(of: try bind("SalesOrders?$compute=GrossAmount mul 2 as D&$filter=D gt 10").options.filter) == .opaque)
        #expect(ConditionExtractor.propertyPath(try #require(try bind("SalesOrders?$compute=GrossAmount mul 2 as D&$orderby=D").options.orderBy.first).expression) == nil)
    }

    @Test func selectReturnsOnlyTheNamedComputedProperties() throws {
        let some = try bind("SalesOrders?$compute=GrossAmount mul 2 as A,NetAmount mul 2 as B&$select=Note,B")
        #expect(some.options.select == BoundSelection(all: false, properties: ["SalesOrderID", "Note"], computed: ["B"]))
        #expect(!some.options.select.includes(computed: "A") && some.options.select.includes(computed: "B"))
        let none = try bind("SalesOrders?$compute=GrossAmount mul 2 as A&$select=Note")
        #expect(none.options.select.computed.isEmpty && !none.options.select.includes(computed: "A"))
        #expect(try bind("SalesOrders?$compute=GrossAmount mul 2 as A&$select=*").options.select.includes(computed: "A"))
        // Without $compute an alias name is still unknown.
        #expect(failure("SalesOrders?$select=A")?.code == 1756)
    }

    @Test func computeInsideExpandBindsAgainstTheTarget() throws {
        let request = try bind("SalesOrders?$expand=ToItems($compute=NetAmount div Quantity as Unit;$filter=Unit gt 1;$orderby=Unit;$select=Unit),ToCustomer($compute=length(CompanyName) as L)")
        let items = try #require(request.options.expand.first)
        #expect(items.options.compute.map(\.alias) == ["Unit"] && items.options.compute.first?.type == .decimal)
        #expect(items.options.select.computed == ["Unit"] && items.options.filter != nil && items.options.orderBy.count == 1)
        #expect(request.options.expand.last?.options.compute.first?.type == .int32)
        // The outer request does not see nested aliases.
        #expect(failure("SalesOrders?$expand=ToItems($compute=Quantity as Q)&$filter=Q gt 1")?.code == 1650)
    }

    @Test func aliasErrorsAreTypedAndPointAtTheAlias() throws {
        let declared = try #require(failure("SalesOrders?$compute=GrossAmount add 1 as NetAmount"))
        #expect(declared.name == "computedAliasClash" && declared.code == 1757 && declared.category == .invalidInput)
        #expect(declared.location == "$compute, position 21" && declared.message.contains("NetAmount"))
        let navigation = try #require(failure("SalesOrders?$compute=1 as ToItems"))
        #expect(navigation.code == 1757 && navigation.location == "$compute, position 5")
        let twice = try #require(failure("SalesOrders?$compute=1 as A,2 as A"))
        #expect(twice.code == 1757 && twice.location == "$compute, position 12" && twice.message.contains("twice"))
        let unknown = try #require(failure("SalesOrders?$compute=GrossAmount add Nope as X"))
        #expect(unknown.name == "invalidProperty" && unknown.code == 1650 && unknown.location == "$compute, position 16")
        #expect(unknown.message.contains("Nope"))
        let collection = try #require(failure("SalesOrders?$compute=ToItems as Items"))
        #expect(collection.name == "computedTypeNotPrimitive" && collection.code == 1758 && collection.location == "$compute, position 0")
        let complex = try #require(failure("BusinessPartners?$compute=Address as A"))
        #expect(complex.code == 1758 && complex.message.contains("Address"))
        let entity = try #require(failure("SalesOrders?$compute=ToCustomer as C"))
        #expect(entity.code == 1758)
        let nested = try #require(failure("SalesOrders?$expand=ToItems($compute=Quantity as Quantity)"))
        #expect(nested.code == 1757 && nested.location == "$expand, position 29")
        // Not visible where another instance is meant.
        #expect(failure("SalesOrders?$compute=GrossAmount as G&$filter=ToItems/$count($filter=G gt 1) gt 0")?.code == 1650)
        #expect(failure("SalesOrders?$compute=GrossAmount as G&$filter=G/X eq 1")?.code == 1658)
        #expect(failure("SalesOrders?$compute=GrossAmount as G&$select=G/X")?.code == 1754)
        #expect(failure("SalesOrders('1')/Note?$compute=1 as X")?.code == 1754)
    }

    @Test func filterSegmentsJoinTheFilterOption() throws {
        let one = try bind("SalesOrders/$filter(GrossAmount gt 1000)/$count")
        #expect(one.path.suffix == .count && one.path.filters.count == 1)
        #expect(try filterText("SalesOrders/$filter(GrossAmount gt 1000)/$count") == filterText("SalesOrders?$filter=GrossAmount gt 1000"))
        let three = try filterText("SalesOrders/$filter(GrossAmount gt 1000)/$filter(CustomerID eq 'A')?$filter=Note eq null")
        #expect(three == (try filterText("SalesOrders?$filter=GrossAmount gt 1000 and CustomerID eq 'A' and Note eq null")))
        // Parameter aliases of the request work inside the segment.
        #expect(try filterText("SalesOrders/$filter(@p)?@p=GrossAmount gt 5") == (try filterText("SalesOrders?$filter=GrossAmount gt 5")))
        #expect(try filterText("SalesOrders/$filter(GrossAmount gt @v)?@v=5") == (try filterText("SalesOrders?$filter=GrossAmount gt @v&@v=5")))
        // After a collection navigation, against its target type; with $ref and query options.
        let nav = try bind("BusinessPartners('1')/ToSalesOrders/$filter(GrossAmount gt 5)/$ref?$top=2")
        #expect(nav.path.targetSet == "SalesOrders" && nav.path.suffix == .ref && nav.options.filter != nil && nav.options.top == 2)
        // A path inside the condition: `/` percent-encoded (the path is split at raw `/`).
        #expect(try filterText("SalesOrders/$filter(ToCustomer%2FCompanyName eq 'A')") == (try filterText("SalesOrders?$filter=ToCustomer/CompanyName eq 'A'")))
        // The condition can use the request's $compute? No: the path is bound before the options.
        #expect(failure("SalesOrders/$filter(G gt 1)?$compute=GrossAmount as G")?.code == 1650)
    }

    @Test func malformedFilterSegmentsAreTypedWithPositions() throws {
        let single = try #require(failure("SalesOrders('1')/$filter(true)"))
        #expect(single.name == "invalidFilterSegment" && single.code == 1759 && single.location == "path, position 17")
        #expect(failure("$filter(true)")?.code == 1759)
        let notBoolean = try #require(failure("SalesOrders/$filter(GrossAmount)"))
        #expect(notBoolean.name == "typeMismatch" && notBoolean.location == "path, position 20")
        let unknown = try #require(failure("SalesOrders/$filter(Nope eq 1)"))
        #expect(unknown.code == 1650 && unknown.location == "path, position 20")
        let syntax = try #require(failure("SalesOrders/$filter(GrossAmount gt)"))
        #expect(QueryErrorCodes.syntaxRange.contains(syntax.code) && syntax.location?.contains("position") == true)
        let unclosed = try #require(failure("SalesOrders/$filter(GrossAmount gt 5"))
        #expect(unclosed.name == "unexpectedEndOfInput" && unclosed.location == "path segment 2, position 24")
        #expect(unclosed.message.contains("')' closing $filter(…)"), "\(unclosed.message)")
        // A key after the segment must fit the key type; an empty one is malformed.
        let wrongKey = try #require(failure("SalesOrders/$filter(true)(1)"))
        #expect(wrongKey.code == 1752 && wrongKey.name == "invalidKeyPredicate", "\(wrongKey)")
        #expect(failure("SalesOrders/$filter(true)()")?.code == 1602)
        #expect(failure("SalesOrders/$filter(true)(GrossAmount)")?.code == 1602)
        #expect(failure("SalesOrders/$filter()") != nil)
        // Nothing but a key (or key-as-segment) picks a member: a property needs one first.
        #expect(failure("SalesOrders/$filter(true)/$value") != nil)
    }

    @Test func aKeyAfterAFilterSegmentAddressesAMemberOfTheFilteredCollection() throws {
        // The condition becomes a step before the key; the query option is not touched.
        let keyed = try bind("SalesOrders/$filter(GrossAmount gt 5)('1')")
        #expect(keyed.path.target == .entity(set: "SalesOrders", type: keyed.path.targetType ?? ""))
        #expect(keyed.path.filters.isEmpty && keyed.options.filter == nil && keyed.path.hasFilterSegments)
        guard keyed.path.steps.count == 3, case .entitySet("SalesOrders") = keyed.path.steps[0],
              case .filter(let condition) = keyed.path.steps[1], case .key(let key) = keyed.path.steps[2] else {
            Issue.record("steps: \(keyed.path.steps)")
            return
        }
        #expect(BoundPrinter.print(condition) == (try filterText("SalesOrders?$filter=GrossAmount gt 5")))
        #expect(key == [.string("1")])
        // Key-as-segment, casts and several segments: all of them before the key, in order.
        let segment = try bind("SalesOrders/$filter(GrossAmount gt 5)/$filter(Note eq null)/'1'")
        #expect(segment.path.steps.filter { if case .filter = $0 { true } else { false } }.count == 2)
        #expect(segment.path.directKey == nil, "a filtered key is not a plain key lookup")
        // Then a navigation and more segments on the navigation's collection.
        let deep = try bind("SalesOrders/$filter(GrossAmount gt 5)('1')/ToItems/$filter(Quantity gt 3)/$count?$filter=NetAmount gt 1")
        #expect(deep.path.target == .entityCollection(set: "SalesOrderItems", type: deep.path.targetType ?? "") && deep.path.suffix == .count)
        #expect(deep.path.filters.count == 1 && deep.path.steps.count == 4)
        #expect(try filterText("SalesOrders('1')/ToItems/$filter(Quantity gt 3)/$count?$filter=NetAmount gt 1")
                == (try filterText("SalesOrderItems?$filter=Quantity gt 3 and NetAmount gt 1")))
        // A single-valued navigation, then a property of the member.
        let property = try bind("SalesOrders/$filter(GrossAmount gt 5)('1')/ToCustomer/CompanyName")
        if case .property(let name, _) = property.path.target { #expect(name == "CompanyName") } else { Issue.record("\(property.path.target)") }
    }

    @Test("an error moves into a larger text by its structured position, never by reading its location back")
    func relocationByPosition() {
        let bound = ODataError.bindTypeMismatch("x", at: 7)
        #expect(bound.position == 7 && bound.location == "position 7")
        let placed = bound.relocated("$compute", base: 5)
        #expect(placed.location == "$compute, position 12" && placed.position == nil)
        // Placed once: a further move names the place before it, as for any location.
        #expect(placed.relocated("$expand", base: 3).location == "$expand: $compute, position 12")
        // A location that only reads like a position is not parsed.
        let text = ODataError(.invalidInput, name: "n", code: 1, message: "m", location: "position 7")
        #expect(text.relocated("path", base: 5).location == "path: position 7")
    }
}
