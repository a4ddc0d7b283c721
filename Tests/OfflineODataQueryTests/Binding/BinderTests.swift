import OfflineODataModel
import Testing
@testable import OfflineODataQuery

@Suite struct BinderTests {
    func bound(_ expr: SyntaxExpr, set: String = "Products") throws -> String {
        BoundPrinter.print(try TestModel.binder(set).bind(expr))
    }

    func bindError(_ expr: SyntaxExpr, filter: Bool = false) -> ODataError? {
        do {
            let binder = try TestModel.binder()
            _ = filter ? try binder.bindFilter(expr) : try binder.bind(expr)
            return nil
        } catch let error as ODataError {
            return error
        } catch {
            return nil
        }
    }

    // MARK: goldens

    @Test func int16PropertyRetypesAnExactLiteral() throws {
        let text = try bound(S.bin(.eq, S.prop("Rating"), S.int(5)))
        #expect(text == "(eq<Edm.Int16> Rating[3]:Edm.Int16 5:Edm.Int16):Edm.Boolean")
    }

    @Test func literalOutsideTheNarrowTypeKeepsThePromotedType() throws {
        let text = try bound(S.bin(.eq, S.prop("Rating"), S.int(40000)))
        #expect(text == "(eq<Edm.Int32> Rating[3]:Edm.Int16 40000:Edm.Int32):Edm.Boolean")
    }

    @Test func int64PropertyWidensTheLiteral() throws {
        let text = try bound(S.bin(.gt, S.prop("Stock"), S.int(7)))
        #expect(text == "(gt<Edm.Int64> Stock[5]:Edm.Int64 7:Edm.Int64):Edm.Boolean")
    }

    @Test func doublePropertyAgainstDecimalLiteralPromotesToDouble() throws {
        let text = try bound(S.bin(.lt, S.prop("Weight"), S.dec("1.5")))
        #expect(text == "(lt<Edm.Double> Weight[4]:Edm.Double 1.5:Edm.Double):Edm.Boolean")
    }

    @Test func narrowingIsOnlyDoneWhenItCannotChangeTheResult() throws {
        // Int32 converts exactly to Double, so comparing as Int32 is the same.
        #expect(try bound(S.bin(.eq, S.prop("ID"), S.dbl(5))) == "(eq<Edm.Int32> ID[0]:Edm.Int32 5:Edm.Int32):Edm.Boolean")
        // Decimal and Int64 values do not all convert exactly to Double: stay in Double.
        #expect(try bound(S.bin(.eq, S.prop("Price"), S.dbl(1))) == "(eq<Edm.Double> Price[2]:Edm.Decimal 1.0:Edm.Double):Edm.Boolean")
        #expect(try bound(S.bin(.eq, S.prop("Stock"), S.dbl(1))) == "(eq<Edm.Double> Stock[5]:Edm.Int64 1.0:Edm.Double):Edm.Boolean")
        // Decimal promotion is exact: an Int32 property with an exact decimal literal.
        #expect(try bound(S.bin(.eq, S.prop("ID"), S.dec("2.0"))) == "(eq<Edm.Int32> ID[0]:Edm.Int32 2:Edm.Int32):Edm.Boolean")
    }

    @Test func arithmeticPromotes() throws {
        let text = try bound(S.bin(.add, S.prop("Rating"), S.prop("Stock")))
        #expect(text == "(add<Edm.Int64> Rating[3]:Edm.Int16 Stock[5]:Edm.Int64):Edm.Int64")
        let decimal = try bound(S.bin(.divby, S.prop("ID"), S.int(2)))
        #expect(decimal == "(divby<Edm.Decimal> ID[0]:Edm.Int32 2:Edm.Int32):Edm.Decimal")
    }

    @Test func dateArithmeticTypes() throws {
        let duration = S.lit(.duration(try EdmDuration(parsing: "PT23H")))
        #expect(try bound(S.bin(.add, S.prop("Released"), duration)) == "(add<Edm.Date> Released[7]:Edm.Date duration'PT23H':Edm.Duration):Edm.Date")
        #expect(try bound(S.bin(.sub, S.prop("Updated"), S.prop("Updated"))).hasSuffix(":Edm.Duration"))
    }

    @Test func pathsThroughComplexNavigationAndCasts() throws {
        #expect(try bound(S.prop("Address", "City")) == "Address[16]/City[c1]:Edm.String")
        #expect(try bound(S.prop("Category", "Name")) == "->Category/Name[1]:Edm.String")
        let cast = S.path([.typeCast("Ns.SpecialProduct", position: 0), .member("Discount", position: 17)])
        #expect(try bound(cast) == "<Ns.SpecialProduct>/Discount[19]:Edm.Int32")
        let count = S.path([.member("Orders", position: 0), .count(filter: S.bin(.gt, S.prop("Amount"), S.int(5)), search: nil, position: 7)])
        #expect(try bound(count) == "->Orders*/$count((gt<Edm.Decimal> Amount[1]:Edm.Decimal 5:Edm.Decimal):Edm.Boolean):Edm.Int64")
    }

    @Test func navigationStepKnowsItsTargetSet() throws {
        let expr = try TestModel.binder().bind(S.prop("Orders"))
        guard case .path(let path) = expr.kind, case .navigation(let nav)? = path.steps.first else {
            Issue.record("expected a navigation path"); return
        }
        #expect(nav == BoundNavigationStep(name: "Orders", targetEntityType: "Ns.Order", targetSet: "Orders", isCollection: true))
        #expect(expr.type == .collection(of: .entity("Ns.Order")))
    }

    @Test func lambdaVariableWinsOverAProperty() throws {
        // Orders/any(Name: Name/Amount gt 1): `Name` is the variable, not Product.Name.
        let predicate = S.bin(.gt, S.prop("Name", "Amount"), S.int(1))
        let expr = S.path([.member("Orders", position: 0), .any(variable: "Name", predicate: predicate, position: 7)])
        #expect(try bound(expr) == "->Orders*/any(Name: (gt<Edm.Decimal> Name/Amount[1]:Edm.Decimal 1:Edm.Decimal):Edm.Boolean):Edm.Boolean")
    }

    @Test func lambdaOverPrimitiveCollectionAndOuterProperty() throws {
        let predicate = S.bin(.and, S.bin(.eq, S.prop("t"), S.str("x")), S.bin(.gt, S.prop("ID"), S.int(1)))
        let expr = S.path([.member("Tags", position: 0), .all(variable: "t", predicate: predicate, position: 5)])
        #expect(try bound(expr) == "Tags[14]/all(t: (and<Edm.Boolean> (eq<Edm.String> t:Edm.String 'x':Edm.String):Edm.Boolean (gt<Edm.Int32> ID[0]:Edm.Int32 1:Edm.Int32):Edm.Boolean):Edm.Boolean):Edm.Boolean")
    }

    @Test func enumLiteralsAndStringsAsMembers() throws {
        let red = S.lit(.enumValue(try EdmEnumValue(typeName: "Ns.Color", members: ["Red"])))
        #expect(try bound(S.bin(.eq, S.prop("Color"), red)) == "(eq<Ns.Color> Color[12]:Ns.Color Ns.Color'Red':Ns.Color):Edm.Boolean")
        #expect(try bound(S.bin(.eq, S.prop("Color"), S.str("Blue"))) == "(eq<Ns.Color> Color[12]:Ns.Color Ns.Color'Blue':Ns.Color):Edm.Boolean")
        let flags = S.lit(.enumValue(try EdmEnumValue(typeName: "Ns.Access", members: ["Read", "Write"])))
        let has = try TestModel.binder().bind(S.bin(.has, S.prop("Access"), flags))
        guard case .has(_, let right) = has.kind, case .enumValue(let value)? = right.literalValue else {
            Issue.record("expected has"); return
        }
        #expect(value.numericValue == 3)
    }

    @Test func inListConvertsLiterals() throws {
        let text = try bound(S.bin(.in, S.prop("Rating"), S.list(S.int(1), S.int(2), S.null)))
        #expect(text == "(in Rating[3]:Edm.Int16 [1:Edm.Int16, 2:Edm.Int16, null:null]):Edm.Boolean")
    }

    @Test func aliasesResolveToLiteralsAndMissingAliasIsNull() throws {
        let binder = try TestModel.binder(aliases: ["p": S.int(3)])
        let text = BoundPrinter.print(try binder.bind(S.bin(.eq, S.prop("Rating"), SyntaxExpr(.alias("p"), at: 10))))
        #expect(text == "(eq<Edm.Int16> Rating[3]:Edm.Int16 @p=3:Edm.Int16):Edm.Boolean")
        let missing = try binder.bind(SyntaxExpr(.alias("q"), at: 0))
        #expect(missing.kind == .null)
    }

    @Test func functionsAndCasts() throws {
        #expect(try bound(S.call("Contains", S.prop("Name"), S.str("a"))) == "contains(Name[1]:Edm.String, 'a':Edm.String):Edm.Boolean")
        #expect(try bound(S.call("length", S.prop("Tags"))) == "length(Tags[14]:Collection(Edm.String)):Edm.Int32")
        #expect(try bound(S.call("round", S.prop("Price"))) == "round(Price[2]:Edm.Decimal):Edm.Decimal")
        #expect(try bound(S.call("cast", S.prop("ID"), S.type("Edm.String"))) == "cast(ID[0]:Edm.Int32, Edm.String):Edm.String")
        #expect(try bound(S.call("isof", S.type("Ns.SpecialProduct"))) == "isof(Ns.SpecialProduct):Edm.Boolean")
        #expect(try bound(S.call("year", S.prop("Updated"))) == "year(Updated[8]:Edm.DateTimeOffset):Edm.Int32")
    }

    @Test func openTypeDynamicProperty() throws {
        #expect(try bound(S.bin(.eq, S.prop("Anything"), S.int(1)), set: "Bags") == "(eq<Edm.Untyped> Anything[dyn]:Edm.Untyped 1:Edm.Int32):Edm.Boolean")
    }

    @Test func orderByItems() throws {
        let items = try TestModel.binder().bindOrderBy([SyntaxOrderItem(expression: S.prop("Name")),
                                                        SyntaxOrderItem(expression: S.prop("Price"), descending: true)])
        #expect(BoundPrinter.print(items) == "Name[1]:Edm.String asc, Price[2]:Edm.Decimal desc")
    }

    // MARK: errors

    @Test func unknownPropertyNamesPropertyTypeAndPosition() throws {
        let error = try #require(bindError(S.bin(.eq, S.prop("Nope", at: 4), S.int(1))))
        #expect(error.name == "invalidProperty")
        #expect(error.code == 1650)
        #expect(error.category == .invalidInput)
        #expect(error.message.contains("Nope") && error.message.contains("Ns.Product"))
        #expect(error.location == "position 4")
    }

    @Test func typeMismatches() throws {
        let cases: [SyntaxExpr] = [
            S.bin(.eq, S.prop("Rating"), S.str("1")),
            S.bin(.eq, S.prop("Rating"), S.lit(.date(try EdmDate(year: 2020, month: 1, day: 1)))),
            S.bin(.eq, S.prop("Rating"), S.bool(true)),
            S.bin(.eq, S.prop("Rating"), S.lit(.duration(try EdmDuration(parsing: "P1D")))),
            S.bin(.add, S.prop("Name"), S.str("x")),
            S.bin(.add, S.prop("Name"), S.int(1)),
            S.bin(.in, S.prop("Name"), S.str("x")),
            S.bin(.has, S.prop("Rating"), S.int(1)),
            S.bin(.gt, S.prop("Photo"), S.null),
            S.call("contains", S.prop("Rating"), S.str("1")),
            S.not(S.prop("Name")),
        ]
        for expr in cases {
            let error = bindError(expr)
            #expect(error?.name == "typeMismatch", "\(expr)")
            #expect(error?.code == 1651)
        }
        let nonBoolean = bindError(S.prop("Name"), filter: true)
        #expect(nonBoolean?.name == "typeMismatch")
        #expect(nonBoolean?.message.contains("$filter") == true)
    }

    @Test func functionErrors() throws {
        let unknown = bindError(S.call("frobnicate", S.prop("Name"), at: 3))
        #expect(unknown?.name == "unknownFunction")
        #expect(unknown?.code == 1652)
        #expect(unknown?.location == "position 3")
        let count = bindError(S.call("tolower", S.prop("Name"), S.prop("Name")))
        #expect(count?.name == "invalidArgumentCount")
        #expect(count?.code == 1653)
        let geo = bindError(S.call("geo.distance", S.prop("Name"), S.prop("Name")))
        #expect(geo?.name == "notSupported")
        #expect(geo?.category == .notSupported)
        let badType = bindError(S.call("cast", S.prop("Name"), S.type("Ns.Nope", at: 9)))
        #expect(badType?.name == "unknownType")
        #expect(badType?.location == "position 9")
        let pattern = bindError(S.call("matchesPattern", S.prop("Name"), S.str("(unclosed")))
        #expect(pattern?.name == "invalidPattern")
    }

    @Test func lambdaErrors() throws {
        let inner = S.path([.member("Orders", position: 20), .any(variable: "o", predicate: S.bool(true), position: 27)])
        let nested = S.path([.member("Orders", position: 0), .any(variable: "o", predicate: inner, position: 7)])
        let error = bindError(nested)
        #expect(error?.name == "invalidLambdaVariable")
        #expect(error?.code == 1654)
        #expect(error?.location == "position 27")
        // A variable is only in scope inside its lambda.
        let outside = S.bin(.and, S.path([.member("Tags", position: 0), .any(variable: "t", predicate: S.bool(true), position: 5)]),
                            S.bin(.eq, S.prop("t", at: 30), S.str("x")))
        #expect(bindError(outside)?.name == "invalidProperty")
    }

    @Test func collectionWithoutLambdaIsAnInvalidPath() {
        #expect(bindError(S.prop("Orders", "Amount"))?.name == "invalidPath")
    }

    @Test func deepNestingIsRejected() {
        var expr = S.bool(true)
        for _ in 0..<(ExpressionBinder.maxDepth + 5) { expr = S.not(expr) }
        #expect(bindError(expr)?.name == "expressionTooDeep")
    }

    @Test func unknownEntitySet() {
        #expect(throws: ODataError.self) { try ExpressionBinder(model: TestModel.model, entityType: "Nope") }
    }
}

@Suite struct BoundAnalysisTests {
    @Test func conjunctsAndConstants() throws {
        let binder = try TestModel.binder()
        let filter = try binder.bindFilter(try ODataURLParser.parseFilter("ID gt 1 and (Name eq 'a' and Rating lt 3) and (ID eq 2 or ID eq 3)"))
        #expect(filter.conjuncts.map { BoundPrinter.print($0) } == [
            "(gt<Edm.Int32> ID[0]:Edm.Int32 1:Edm.Int32):Edm.Boolean",
            "(eq<Edm.String> Name[1]:Edm.String 'a':Edm.String):Edm.Boolean",
            "(lt<Edm.Int16> Rating[3]:Edm.Int16 3:Edm.Int16):Edm.Boolean",
            "(or<Edm.Boolean> (eq<Edm.Int32> ID[0]:Edm.Int32 2:Edm.Int32):Edm.Boolean (eq<Edm.Int32> ID[0]:Edm.Int32 3:Edm.Int32):Edm.Boolean):Edm.Boolean",
        ])
        #expect(try binder.bind(try ODataURLParser.parseFilter("1 add 2 eq 3")).isConstant)
        #expect(try !binder.bind(try ODataURLParser.parseFilter("ID add 2 eq 3")).isConstant)
        #expect(try !binder.bind(try ODataURLParser.parseFilter("now() gt 2020-01-01T00:00:00Z")).isConstant)
    }
}
