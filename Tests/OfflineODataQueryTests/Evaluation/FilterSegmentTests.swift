import OfflineODataModel
import PropertyBased
import Testing
@testable import OfflineODataQuery

/// The `/$filter(…)` path segment inside expressions (URL §4.12, ABNF `filterExpr`): parsed
/// text bound against the test model and evaluated on in-memory products.
@Suite struct FilterSegmentTests {
    func bound(_ filter: String) throws -> BoundExpr {
        try TestModel.binder().bind(try ODataURLParser.parseFilter(filter))
    }

    func error(_ filter: String) -> ODataError? {
        do {
            _ = try TestModel.binder().bind(try ODataURLParser.parseFilter(filter))
            return nil
        } catch let error as ODataError {
            return error
        } catch {
            return nil
        }
    }

    func value(_ expression: String, on row: ODataEntity) throws -> ODataValue {
        try Eval.evaluator.evaluate(try bound(expression), on: row)
    }

    static func order(_ id: Int32, amount: String, quantity: Int32?) -> ODataEntity {
        var properties = [ODataProperty("OrderID", .int32(id)), ODataProperty("Amount", Eval.dec(amount))]
        if let quantity { properties.append(ODataProperty("Quantity", .int32(quantity))) }
        return ODataEntity(typeName: "Ns.Order", properties: properties)
    }

    static func address(_ street: String?, _ city: String) -> ODataValue {
        .complex(ODataComplexValue([("Street", street.map(ODataValue.string) ?? .null), ("City", .string(city))]))
    }

    /// ID 1; orders 10 (qty 1), 11 (qty 3), 12 (qty 5), 13 (qty null); tags a, b, a; scores
    /// 1…5; two addresses ending in 'St' out of three.
    let row = Eval.product([
        ("ID", .int32(1)), ("Rating", .int16(2)),
        ("Tags", .collection([.string("a"), .string("b"), .string("a")])),
        ("Scores", .collection([.int32(1), .int32(2), .int32(3), .int32(4), .int32(5)])),
        ("Addresses", .collection([FilterSegmentTests.address("Main St", "Oslo"), FilterSegmentTests.address("Elm Road", "Bergen"),
                                   FilterSegmentTests.address("High St", "Oslo")])),
    ], navigation: [ODataNavigationValue("Orders", .entities([
        FilterSegmentTests.order(10, amount: "5", quantity: 1), FilterSegmentTests.order(11, amount: "30", quantity: 3),
        FilterSegmentTests.order(12, amount: "50", quantity: 5), FilterSegmentTests.order(13, amount: "70", quantity: nil),
    ], count: nil, nextLink: nil))])

    /// No orders loaded, null primitive and complex collections.
    let bare = Eval.product([("ID", .int32(2)), ("Tags", .null), ("Addresses", .null)],
                            navigation: [ODataNavigationValue("Orders", .entities([], count: nil, nextLink: nil))])

    @Test func theFilteredPathHasTheCollectionsType() throws {
        let orders = try bound("Orders/$filter(Quantity gt 2)")
        #expect(orders.type == .collection(of: .entity("Ns.Order")))
        #expect(BoundPrinter.print(orders)
                == "->Orders*/$filter((gt<Edm.Int32> Quantity[2]:Edm.Int32 2:Edm.Int32):Edm.Boolean):Collection(Ns.Order)")
        #expect(try bound("Tags/$filter($this ne 'a')").type == .collection(of: .string))
        #expect(try bound("Addresses/$filter(City eq 'Oslo')").type == .collection(of: .complex("Ns.Address")))
        #expect(try bound("Orders/$filter(true)/$filter(false)/$count").type == .int64)
        // A key after the segment is one order: its properties can be read.
        let keyed = try bound("Orders/$filter(Quantity gt 2)(12)/Amount")
        #expect(keyed.type == .decimal)
        #expect(BoundPrinter.print(keyed).hasSuffix("(OrderID=12)/Amount[1]:Edm.Decimal"), "\(BoundPrinter.print(keyed))")
        // The planner sees no property condition in a filtered collection path.
        let filter = try TestModel.binder().bindFilter(try ODataURLParser.parseFilter("Orders/$filter(Quantity gt 2)/$count gt 1 and Rating eq 2"))
        #expect(ConditionExtractor.propertyPath(filter.conjuncts[0]) == nil)
        if case .and(let parts) = ConditionExtractor.conditions(of: filter) {
            #expect(parts.count == 2 && parts.contains(.opaque))
        } else {
            Issue.record("not a conjunction: \(ConditionExtractor.conditions(of: filter))")
        }
    }

    @Test func misuseIsATypedErrorAtTheSegment() throws {
        let single = try #require(error("Name/$filter(true)"))
        #expect(single.name == "invalidPath" && single.code == 1658 && single.location == "position 5")
        #expect(single.message.contains("Edm.String"), "\(single.message)")
        #expect(error("Category/$filter(true)/$count gt 1")?.code == 1658)
        #expect(error("Address/$filter(true)/$count gt 1")?.code == 1658)
        let notBoolean = try #require(error("Orders/$filter(Quantity)/$count gt 1"))
        #expect(notBoolean.name == "typeMismatch" && notBoolean.code == 1651 && notBoolean.location == "position 15")
        let unknown = try #require(error("Orders/$filter(Nope eq 1)/$count gt 1"))
        #expect(unknown.name == "invalidProperty" && unknown.message.contains("Ns.Order"))
        // Still a collection: a member needs any/all, $count or a key first.
        #expect(error("Orders/$filter(true)/Quantity eq 1")?.code == 1658)
        // Key predicates: on entities only, of the key's type, all parts.
        #expect(error("Tags/$filter(true)('a') eq 'a'")?.code == 1658)
        let wrongType = try #require(error("Orders/$filter(true)('x')/Amount eq 1"))
        #expect(wrongType.name == "typeMismatch" && wrongType.location == "position 21")
        #expect(error("Orders/$filter(true)(Nope=1)/Amount eq 1")?.code == 1658)
        #expect(error("Orders/$filter(true)(OrderID=Rating)/Amount eq 1")?.code == 1658)
        // $compute aliases belong to the outer instance, not to the members.
        var binder = try TestModel.binder()
        binder.computed = ["Big": try binder.bind(try ODataURLParser.parseFilter("Rating gt 1"))]
        #expect(throws: ODataError.self) { try binder.bind(try ODataURLParser.parseFilter("Orders/$filter(Big)/$count gt 0")) }
    }

    @Test func keepsTheMembersForWhichTheConditionIsTrue() throws {
        #expect(try value("Orders/$filter(Quantity gt 2)/$count", on: row) == .int64(2))
        // A comparison with a null quantity is false: order 13 is dropped.
        #expect(try value("Orders/$filter(Quantity lt 100)/$count", on: row) == .int64(3))
        #expect(try value("Orders/$filter(not (Quantity eq 3))/$count", on: row) == .int64(3))
        // A null condition (the product's Active is absent) drops every member, as false does.
        #expect(try value("Orders/$filter($it/Active)/$count", on: row) == .int64(0))
        #expect(try value("Orders/$filter(not $it/Active)/$count", on: row) == .int64(0))
        // Nested: each segment filters what the one before kept.
        #expect(try value("Orders/$filter(Amount gt 10)/$filter(Quantity lt 5)/$count", on: row) == .int64(1))
        #expect(try value("Orders/$filter(Amount gt 10)/$filter(Amount lt 10)/$count", on: row) == .int64(0))
        // Lambdas after the segment see only the kept members.
        #expect(try value("Orders/$filter(Amount gt 10)/all(o: o/Amount ge 30)", on: row) == .boolean(true))
        #expect(try value("Orders/all(o: o/Amount ge 30)", on: row) == .boolean(false))
        #expect(try value("Orders/$filter(Amount gt 100)/any()", on: row) == .boolean(false))
        #expect(try value("Orders/$filter(Amount gt 100)/all(o: false)", on: row) == .boolean(true))
        #expect(try value("Orders/$filter(Amount gt 10)/any(o: o/Quantity eq 1)", on: row) == .boolean(false))
        // $count with its own filter after the segment: both apply.
        #expect(try value("Orders/$filter(Amount gt 10)/$count($filter=Quantity eq 5)", on: row) == .int64(1))
        // `$it` inside the condition is the product; bare names are the order's.
        #expect(try value("Orders/$filter(Quantity gt $it/Rating)/$count", on: row) == .int64(2))
        // Inside a lambda, the lambda variable stays visible.
        #expect(try value("Orders/any(o: Orders/$filter(Amount gt o/Amount)/$count eq 3)", on: row) == .boolean(true))
    }

    @Test func primitiveAndComplexCollections() throws {
        #expect(try value("Tags/$filter($this eq 'a')/$count", on: row) == .int64(2))
        #expect(try value("Tags/$filter($this ne 'a')/all(t: t eq 'b')", on: row) == .boolean(true))
        #expect(try value("Scores/$filter($this mod 2 eq 1)/$filter($this gt 1)/$count", on: row) == .int64(2))
        #expect(try value("Scores/$filter($this gt 3)", on: row) == .collection([.int32(4), .int32(5)]))
        // The ABNF test case: addresses whose street ends in 'St'.
        #expect(try value("Addresses/$filter(endswith(Street,'St'))/$count lt 10", on: row) == .boolean(true))
        #expect(try value("Addresses/$filter(endswith(Street,'St'))/$count", on: row) == .int64(2))
        let oslo = try value("Addresses/$filter(City eq 'Oslo')", on: row)
        #expect(oslo == .collection([Self.address("Main St", "Oslo"), Self.address("High St", "Oslo")]))
        // `in` takes the filtered collection as its right operand.
        #expect(try value("'b' in Tags/$filter($this ne 'b')", on: row) == .boolean(false))
        #expect(try value("'a' in Tags/$filter($this ne 'b')", on: row) == .boolean(true))
    }

    @Test func nullAndEmptyCollections() throws {
        #expect(try value("Orders/$filter(true)/$count", on: bare) == .int64(0))
        #expect(try value("Orders/$filter(true)/any()", on: bare) == .boolean(false))
        #expect(try value("Orders/$filter(true)/all(o: false)", on: bare) == .boolean(true))
        #expect(try value("Orders/$filter(true)(10)/Amount", on: bare) == .null)
        // A null collection stays null; counted and tested as empty.
        #expect(try value("Tags/$filter($this eq 'a')", on: bare) == .null)
        #expect(try value("Tags/$filter($this eq 'a')/$count", on: bare) == .int64(0))
        #expect(try value("Addresses/$filter(City eq 'Oslo')/any()", on: bare) == .boolean(false))
        // An entity without the navigation loaded (deferred) reads as empty too.
        #expect(try value("Orders/$filter(true)/$count", on: Eval.product([("ID", .int32(3))])) == .int64(0))
    }

    @Test func aKeyPicksAMemberOfTheFilteredCollection() throws {
        #expect(try value("Orders/$filter(Quantity gt 2)(12)/Amount", on: row) == Eval.dec("50"))
        // Order 10 exists but does not pass the filter: there is no such member.
        #expect(try value("Orders/$filter(Quantity gt 2)(10)/Amount", on: row) == .null)
        #expect(try value("Orders/$filter(Quantity gt 2)(OrderID=11)/Quantity", on: row) == .int32(3))
        #expect(try value("Orders/$filter(Quantity gt 2)(99)/Amount eq null", on: row) == .boolean(true))
        // The key needs no filter before it (ABNF collectionNavNoCastExpr).
        #expect(try value("Orders(10)/Quantity", on: row) == .int32(1))
        // A filter that keeps everything changes nothing; in a larger filter.
        let bound = try TestModel.binder().bindFilter(try ODataURLParser.parseFilter("Orders/$filter(true)(13)/Quantity eq null and ID eq 1"))
        #expect(try Eval.evaluator.matches(bound, on: row))
    }

    /// On random orders (quantities possibly null) and thresholds, the segment means what the
    /// spec says in terms of the older forms: a filtered `$count` is `$count($filter=…)`, two
    /// segments are one with `and`, and a lambda after the segment is the lambda with the
    /// condition folded in.
    @Test func theSegmentAgreesWithEquivalentExpressions() async {
        let quantities = Gen.int(in: -3...8).optional(valueRate: 0.8).array(of: 0...7)
        let threshold = Gen.int(in: -2...9)
        await propertyCheck(count: 300, input: quantities, threshold, threshold) { quantities, a, b in
            let orders = quantities.enumerated().map { index, quantity in
                Self.order(Int32(index), amount: "1", quantity: quantity.map(Int32.init))
            }
            let row = Eval.product([("ID", .int32(1))], navigation: [ODataNavigationValue("Orders", .entities(orders, count: nil, nextLink: nil))])
            func same(_ left: String, _ right: String) throws {
                let x = try value(left, on: row), y = try value(right, on: row)
                #expect(x == y, "\(left) = \(x), \(right) = \(y), quantities \(quantities)")
            }
            let kept = quantities.filter { quantity in quantity.map { $0 > a } ?? false }.count
            #expect(try value("Orders/$filter(Quantity gt \(a))/$count", on: row) == .int64(Int64(kept)))
            try same("Orders/$filter(Quantity gt \(a))/$count", "Orders/$count($filter=Quantity gt \(a))")
            try same("Orders/$filter(Quantity gt \(a))/$filter(Quantity lt \(b))/$count", "Orders/$filter(Quantity gt \(a) and Quantity lt \(b))/$count")
            try same("Orders/$filter(Quantity gt \(a))/any(o: o/Quantity lt \(b))", "Orders/any(o: o/Quantity gt \(a) and o/Quantity lt \(b))")
            try same("Orders/$filter(Quantity gt \(a))/all(o: o/Quantity lt \(b))", "Orders/all(o: not (o/Quantity gt \(a)) or o/Quantity lt \(b))")
            try same("Orders/$filter(Quantity gt \(a))/any()", "Orders/any(o: o/Quantity gt \(a))")
            for order in orders {
                guard case .int32(let id)? = order[property: "OrderID"] else { continue }
                // A key finds the order exactly when it passes the filter.
                var passes = false
                if case .int32(let quantity)? = order[property: "Quantity"] { passes = Int(quantity) > a }
                #expect(try value("Orders/$filter(Quantity gt \(a))(\(id))/OrderID eq \(id)", on: row) == .boolean(passes))
            }
        }
    }

    @Test func evaluationAgreesWithFilteringByHand() throws {
        // Every threshold: the segment's count is the count of orders passing the same test.
        let quantities: [Int32?] = [1, 3, 5, nil]
        for threshold in Int32(0)...6 {
            let expected = quantities.filter { quantity in quantity.map { $0 > threshold } ?? false }.count
            #expect(try value("Orders/$filter(Quantity gt \(threshold))/$count", on: row) == .int64(Int64(expected)), "threshold \(threshold)")
            #expect(try value("Orders/$filter(Quantity gt \(threshold))/any()", on: row) == .boolean(expected > 0))
            let viaCount = try value("Orders/$count($filter=Quantity gt \(threshold))", on: row)
            #expect(try value("Orders/$filter(Quantity gt \(threshold))/$count", on: row) == viaCount)
        }
    }
}

