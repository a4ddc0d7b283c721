import OfflineODataModel
import Testing
@testable import OfflineODataQuery

@Suite struct EvaluatorRootAndAliasTests {
    struct Resolver: EvaluationRootResolver, Sendable {
        let products: [Int32: ODataEntity]
        func entity(set: String, entityType: String, key: [ODataValue]) throws(ODataError) -> (any EvaluationInstance)? {
            guard set == "Products", case .int32(let id)? = key.first else { return nil }
            return products[id]
        }
    }

    @Test func rootPathsGoThroughTheResolver() throws {
        let reference = Eval.product([("ID", .int32(9)), ("Price", Eval.dec("4.5"))])
        let binder = try TestModel.binder()
        let expr = try binder.bindFilter(try ODataURLParser.parseFilter("Price gt $root/Products(9)/Price"))
        #expect(BoundPrinter.print(expr) == "(gt<Edm.Decimal> Price[2]:Edm.Decimal $root/Products(9)/Price[2]:Edm.Decimal):Edm.Boolean")
        let evaluator = Evaluator(now: Eval.fixedNow, rootResolver: Resolver(products: [9: reference]))
        #expect(try evaluator.matches(expr, on: Eval.product([("Price", Eval.dec("5"))])))
        #expect(try !evaluator.matches(expr, on: Eval.product([("Price", Eval.dec("4"))])))
        let missing = try binder.bindFilter(try ODataURLParser.parseFilter("$root/Products(1)/Price eq null"))
        #expect(try evaluator.matches(missing, on: reference))
        // Without a resolver the path cannot be evaluated.
        let error = #expect(throws: ODataError.self) { try Eval.evaluator.matches(expr, on: reference) }
        #expect(error?.name == "evaluationNotSupported")
        #expect(error?.category == .notSupported)
    }

    @Test func aliases() throws {
        let options = try ODataURLParser.parseQueryOptions("$filter=Rating ge @low and Name eq @name&@low=3&@name='x'")
        let binder = try TestModel.binder(aliases: options.aliases)
        let filter = try binder.bindFilter(try #require(options.filter))
        #expect(try Eval.evaluator.matches(filter, on: Eval.product([("Rating", .int16(4)), ("Name", .string("x"))])))
        #expect(try !Eval.evaluator.matches(filter, on: Eval.product([("Rating", .int16(2)), ("Name", .string("x"))])))
        let cyclic = try TestModel.binder(aliases: ["a": SyntaxExpr(.alias("b"), at: 0), "b": SyntaxExpr(.alias("a"), at: 0)])
        let error = #expect(throws: ODataError.self) { try cyclic.bind(SyntaxExpr(.alias("a"), at: 5)) }
        #expect(error?.name == "aliasCycle")
        #expect(error?.code == 1659)
    }

    @Test func nullsInInHasIsofAndCase() throws {
        let row = Eval.product([("ID", .int32(1))])
        func v(_ text: String) throws -> ODataValue {
            try Eval.evaluator.evaluate(try TestModel.binder().bind(try ODataURLParser.parseFilter(text)), on: row)
        }
        #expect(try v("Name in ('a', null)") == .boolean(true))
        #expect(try v("Name in ('a')") == .boolean(false))
        #expect(try v("isof(Name, Edm.String)") == .null)
        // isof follows cast (notes §5): true when the cast would succeed.
        #expect(try v("isof(ID, Edm.String)") == .boolean(true))
        #expect(try v("isof(ID, Edm.Date)") == .boolean(false))
        #expect(try v("isof(ID, Edm.Int64)") == .boolean(true))
        #expect(try v("case(ID eq 1: 2, true: 2.5)") == Eval.dec("2"))
        #expect(try v("$this/ID eq 1") == .boolean(true))
    }
}

@Suite struct ExpandedFilterTests {
    @Test func nestedFilterSeesTheTargetTypeAndItIsTheOuterInstance() throws {
        let binder = try TestModel.binder().expanded(["Orders"])
        #expect(binder.entityType == "Ns.Order")
        #expect(binder.entitySet == "Orders")
        #expect(binder.itEntityType == "Ns.Product")
        let filter = try binder.bindFilter(try ODataURLParser.parseFilter("Quantity gt $it/Rating"))
        #expect(BoundPrinter.print(filter) == "(gt<Edm.Int32> Quantity[2]:Edm.Int32 $it/Rating[3]:Edm.Int16):Edm.Boolean")
        let product = Eval.product([("Rating", .int16(2))])
        let order = ODataEntity(typeName: "Ns.Order", properties: [ODataProperty("Quantity", .int32(3))])
        #expect(try Eval.evaluator.matches(filter, on: order, it: product))
        #expect(try !Eval.evaluator.matches(filter, on: order, it: Eval.product([("Rating", .int16(5))])))
        #expect(throws: ODataError.self) { try TestModel.binder().expanded(["Name"]) }
        #expect(throws: ODataError.self) { try TestModel.binder().expanded(["Nope"]) }
    }
}
