import OfflineODataModel
import Testing
@testable import OfflineODataQuery

@Suite struct PlannerTests {
    let key = AccessIndex.primaryKey(["SalesOrderID"])
    let byCustomer = AccessIndex(name: "byCustomer", kind: .secondary, properties: ["CustomerID"])
    let byAmount = AccessIndex(name: "byAmount", kind: .secondary, properties: ["GrossAmount"])
    let byStatusDate = AccessIndex(name: "byStatusDate", kind: .secondary, properties: ["LifecycleStatus", "DeliveryDate"])

    func request(_ tree: ConditionTree, orderBy: [PlanOrderKey] = [], top: Int? = nil) -> PlanRequest {
        PlanRequest(entitySet: "SalesOrders", conditions: tree, hasFilter: tree != .and([]), orderBy: orderBy,
                    top: top, primaryKey: key, indexes: [byCustomer, byAmount, byStatusDate])
    }

    func atom(_ property: String, _ op: IndexCondition.Operator, _ values: ODataValue...) -> ConditionTree {
        .atom(IndexCondition(property: property, op: op, values: values))
    }

    @Test func keyEqualityIsAnExactLookup() {
        let plan = Planner.plan(request(atom("SalesOrderID", .eq, .string("0500000001"))))
        #expect(plan.access == .index(key, [IndexRange(equal: [.string("0500000001")])]))
        #expect(plan.needsFilter == false)
    }

    @Test func equalityUsesTheSecondaryIndexAndKeepsTheFilter() {
        let tree = ConditionTree.and([atom("CustomerID", .eq, .string("C1")), .opaque])
        let plan = Planner.plan(request(tree))
        #expect(plan.access == .index(byCustomer, [IndexRange(equal: [.string("C1")])]))
        #expect(plan.needsFilter)
        #expect(plan.explain().contains("index byCustomer range [CustomerID = 'C1']"))
    }

    @Test func compositeIndexTakesEqualityThenRange() {
        let tree = ConditionTree.and([
            atom("LifecycleStatus", .eq, .string("N")),
            atom("DeliveryDate", .ge, .int32(1)), atom("DeliveryDate", .lt, .int32(9)), atom("DeliveryDate", .gt, .int32(3)),
        ])
        let plan = Planner.plan(request(tree))
        let expected = IndexRange(equal: [.string("N")], lower: RangeBound(.int32(3), inclusive: false), upper: RangeBound(.int32(9), inclusive: false))
        #expect(plan.access == .index(byStatusDate, [expected]))
    }

    @Test func contradictoryRangeIsEmpty() {
        let tree = ConditionTree.and([atom("GrossAmount", .gt, .int32(10)), atom("GrossAmount", .lt, .int32(5))])
        #expect(Planner.plan(request(tree)).access == .empty)
        #expect(Planner.plan(request(.and([atom("GrossAmount", .ge, .int32(5)), atom("GrossAmount", .le, .int32(5))]))).access != .empty)
    }

    @Test func inListBecomesSortedDistinctRanges() {
        let plan = Planner.plan(request(atom("CustomerID", .in, .string("b"), .string("a"), .string("b"))))
        #expect(plan.access == .index(byCustomer, [IndexRange(equal: [.string("a")]), IndexRange(equal: [.string("b")])]))
    }

    @Test func orNeedsEveryBranchIndexable() {
        let both = ConditionTree.or([atom("CustomerID", .eq, .string("a")), atom("GrossAmount", .gt, .int32(5))])
        guard case .union(let parts) = Planner.plan(request(both)).access else {
            Issue.record("expected a union"); return
        }
        #expect(parts.count == 2)
        let one = ConditionTree.or([atom("CustomerID", .eq, .string("a")), .opaque])
        #expect(Planner.plan(request(one)).access == .scan)
    }

    @Test func orderByIndexedPropertyWithTopStreams() {
        let plan = Planner.plan(request(.and([]), orderBy: [PlanOrderKey(property: "GrossAmount", descending: true)], top: 20))
        #expect(plan.access == .index(byAmount, [.all]))
        #expect(plan.order == .accessOrder(reverse: true))
    }

    @Test func selectiveFilterWinsOverOrderIndexAndUsesAHeap() {
        let plan = Planner.plan(request(atom("CustomerID", .eq, .string("a")),
                                        orderBy: [PlanOrderKey(property: "GrossAmount", descending: false)], top: 20))
        #expect(plan.access == .index(byCustomer, [IndexRange(equal: [.string("a")])]))
        #expect(plan.order == .topK(20))
    }

    @Test func orderByUnindexedExpressionWithoutTopSortsFully() {
        let plan = Planner.plan(request(.and([]), orderBy: [PlanOrderKey(property: nil, descending: false)]))
        #expect(plan.order == .fullSort)
        #expect(plan.access == .scan)
    }

    @Test func equalityPrefixThenOrderOnNextColumnStreams() {
        let plan = Planner.plan(request(atom("LifecycleStatus", .eq, .string("N")),
                                        orderBy: [PlanOrderKey(property: "DeliveryDate", descending: false)], top: 5))
        #expect(plan.access == .index(byStatusDate, [IndexRange(equal: [.string("N")])]))
        #expect(plan.order == .accessOrder(reverse: false))
    }

    @Test func neverIsEmptyAndStartsWithIsAPrefixRange() {
        #expect(Planner.plan(request(.never)).access == .empty)
        let plan = Planner.plan(request(atom("CustomerID", .startsWith, .string("01"))))
        #expect(plan.access == .index(byCustomer, [IndexRange(prefix: "01")]))
    }
}
