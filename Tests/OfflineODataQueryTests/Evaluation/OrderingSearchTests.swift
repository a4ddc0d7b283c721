import OfflineODataModel
import Testing
@testable import OfflineODataQuery

@Suite struct OrderingSearchTests {
    @Test func orderingRules() {
        #expect(ODataOrdering.compare(.null, .int32(-5)) == -1)
        #expect(ODataOrdering.compare(.int32(-5), .null) == 1)
        #expect(ODataOrdering.compare(.null, .null) == 0)
        #expect(ODataOrdering.compare(.boolean(false), .boolean(true)) == -1)
        #expect(ODataOrdering.compare(.int16(2), .double(1.5)) == 1)
        #expect(ODataOrdering.compare(.decimal(EdmDecimal(2)), .int64(2)) == 0)
        #expect(ODataOrdering.compare(.string("Tes"), .string("Test")) == -1)
        #expect(ODataOrdering.compare(.string("Z"), .string("a")) == -1)
        #expect(ODataOrdering.compare(.double(.nan), .double(.infinity)) == 1)
        #expect(ODataOrdering.compare(.double(.nan), .double(.nan)) == 0)
        #expect(ODataOrdering.compare(.double(-.infinity), .int32(Int32.min)) == -1)
    }

    @Test func multiKeySortWithNullsFirstAscendingAndLastDescending() throws {
        let rows = [
            Eval.product([("ID", .int32(1)), ("Name", .string("b")), ("Rating", .int16(1))]),
            Eval.product([("ID", .int32(2)), ("Name", .string("a"))]),
            Eval.product([("ID", .int32(3)), ("Name", .string("b")), ("Rating", .int16(5))]),
            Eval.product([("ID", .int32(4)), ("Rating", .int16(3))]),
        ]
        func order(_ text: String) throws -> [Int32] {
            let items = try TestModel.binder().bindOrderBy(try ODataURLParser.parseOrderBy(text))
            return try ODataOrdering.sorted(rows, by: items, evaluator: Eval.evaluator).compactMap {
                if case .int32(let id)? = $0[property: "ID"] { return id } else { return nil }
            }
        }
        #expect(try order("Rating") == [2, 1, 4, 3])
        #expect(try order("Rating desc") == [3, 4, 1, 2])
        #expect(try order("Name,Rating desc") == [4, 2, 3, 1])
        #expect(try order("Name desc,ID") == [1, 3, 2, 4])
        let keys = [[ODataValue.string("x"), .int32(1)], [.string("x"), .int32(2)]]
        #expect(ODataOrdering.compare(keys[0], keys[1], descending: [false, true]) == 1)
    }

    @Test func searchTermsPhrasesAndLogic() throws {
        let matcher = try SearchMatcher(model: TestModel.model, entityType: "Products")
        #expect(matcher.properties.map(\.name) == ["Name", "Tags"])
        let row = Eval.product([("Name", .string("Blue Widget")), ("Tags", .collection([.string("Garden")]))])
        func m(_ text: String) throws -> Bool { try matcher.matches(try ODataURLParser.parseSearch(text), on: row) }
        #expect(try m("widget"))
        #expect(try m("GARDEN"))
        #expect(try m("\"blue widget\""))
        #expect(try !m("\"widget blue\""))
        #expect(try m("blue AND garden"))
        #expect(try !m("blue AND red"))
        #expect(try m("red OR blue"))
        #expect(try !m("NOT blue"))
        #expect(try m("NOT red"))
    }

    /// An instance that answers `$count` from an "index" and must not be navigated.
    struct CountingInstance: EvaluationInstance {
        var typeName: String { "Ns.Product" }
        func value(of property: BoundPropertyStep) throws(ODataError) -> ODataValue? {
            property.declaredIndex == 0 ? .int32(7) : nil
        }
        func navigate(_ navigation: BoundNavigationStep) throws(ODataError) -> EvaluationNavigation {
            throw ODataError(.clientInternalError, name: "unexpectedNavigation", code: 1, message: "navigated")
        }
        func navigationCount(_ navigation: BoundNavigationStep) throws(ODataError) -> Int? {
            navigation.name == "Orders" ? 42 : nil
        }
    }

    @Test func storeInstancesReadByDeclaredIndexAndCountCheaply() throws {
        let binder = try TestModel.binder()
        let count = try binder.bind(try ODataURLParser.parseFilter("Orders/$count eq 42 and ID eq 7"))
        #expect(try Eval.evaluator.matches(count, on: CountingInstance()))
        // With a filter the evaluator must navigate.
        let filtered = try binder.bind(try ODataURLParser.parseFilter("Orders/$count($filter=Quantity gt 1) eq 0"))
        #expect(throws: ODataError.self) { try Eval.evaluator.matches(filtered, on: CountingInstance()) }
    }

    @Test func complexCollectionLambdaAndCast() throws {
        let addresses = ODataValue.collection([
            .complex(ODataComplexValue([("City", .string("Oslo")), ("Zip", .int32(150))])),
            .complex(ODataComplexValue([("City", .string("Bergen")), ("Zip", .int32(5003))])),
        ])
        let row = Eval.product([("Addresses", addresses)])
        let binder = try TestModel.binder()
        let any = try binder.bind(try ODataURLParser.parseFilter("Addresses/any(a: a/City eq 'Bergen' and a/Zip gt 5000)"))
        #expect(try Eval.evaluator.matches(any, on: row))
        let all = try binder.bind(try ODataURLParser.parseFilter("Addresses/all(a: a/Zip gt 1000)"))
        #expect(try !Eval.evaluator.matches(all, on: row))
        let instance = ComplexValueInstance(ODataComplexValue([("City", .string("Oslo"))]), declaredType: "Ns.Address")
        #expect(instance.typeName == "Ns.Address")
        let city = BoundPropertyStep(name: "City", access: .complex(index: 1), type: .string)
        #expect(try instance.value(of: city) == .string("Oslo"))
    }
}
