import OfflineODataEngine
import OfflineODataModel
import OfflineODataQuery
import PropertyBased
import Testing
@testable import OfflineODataStore

/// For random `$compute` arithmetic over random rows: a `$filter` (and `$orderby … $top`) on the
/// alias returns the same rows, in the same order, as the expression written inline, as the
/// expression in a `/$filter(…)` segment, and as a plain Swift evaluation of the rows; the
/// computed values and their type agree too. Inputs are integer programs so failures shrink.
@Suite struct ComputePropertyTests {
    static let metadata = """
        <EntityType Name="Row"><Key><PropertyRef Name="ID"/></Key>
          <Property Name="ID" Type="Edm.Int32" Nullable="false"/>
          <Property Name="A" Type="Edm.Int32"/>
          <Property Name="B" Type="Edm.Int64"/>
          <Property Name="C" Type="Edm.Int32"/>
        </EntityType>
        """

    /// A row from one integer: A, C in -20...20 and B in -5000...5000, each null one time in six.
    static func row(_ id: Int, _ seed: Int) -> [String: Int?] {
        var x = UInt64(truncatingIfNeeded: seed &* 2_654_435_761 &+ 31)
        func next(_ n: Int) -> Int {
            x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((x >> 33) % UInt64(n))
        }
        return ["ID": id, "A": next(6) == 0 ? nil : next(41) - 20, "B": next(6) == 0 ? nil : next(10_001) - 5000,
                "C": next(6) == 0 ? nil : next(41) - 20]
    }

    /// `((t op t) op t)` from a program: its text and a Swift evaluator of the same arithmetic.
    struct Arithmetic {
        var text: String
        var usesB: Bool
        var evaluate: @Sendable ([String: Int?]) -> Int?

        init(_ program: [Int]) {
            var position = 0
            func take(_ n: Int) -> Int {
                defer { position += 1 }
                return position < program.count ? abs(program[position]) % n : 0
            }
            let ops = ["add", "sub", "mul"]
            func term() -> (String, @Sendable ([String: Int?]) -> Int?) {
                switch take(4) {
                case 0: return ("A", { $0["A"] ?? nil })
                case 1: return ("B", { $0["B"] ?? nil })
                case 2: return ("C", { $0["C"] ?? nil })
                default:
                    let k = take(9) - 4
                    return ("\(k)", { _ in k })
                }
            }
            @Sendable func apply(_ op: String, _ a: Int?, _ b: Int?) -> Int? {
                guard let a, let b else { return nil }
                switch op {
                case "add": return a + b
                case "sub": return a - b
                default: return a * b
                }
            }
            let (t1, e1) = term(), (t2, e2) = term()
            let op1 = ops[take(3)]
            var text = "(\(t1) \(op1) \(t2))"
            var evaluate: @Sendable ([String: Int?]) -> Int? = { row in apply(op1, e1(row), e2(row)) }
            if take(2) == 1 {
                let (t3, e3) = term()
                let op2 = ops[take(3)]
                let inner = evaluate
                text = "(\(text) \(op2) \(t3))"
                evaluate = { row in apply(op2, inner(row), e3(row)) }
            }
            self.text = text
            self.usesB = text.contains("B")
            self.evaluate = evaluate
        }
    }

    static func intValue(_ value: ODataValue?) -> Int? {
        switch value {
        case .int32(let n)?: return Int(n)
        case .int64(let n)?: return Int(n)
        default: return nil
        }
    }

    @Test func filterAndOrderOnAnAliasEqualTheInlineExpression() async throws {
        let model = try StorageFixtures.model(Self.metadata, container: #"<EntitySet Name="Rows" EntityType="T.Row"/>"#)
        await propertyCheck(count: 40, input: Gen.int(in: 0...9999).array(of: 0...50), Gen.int(in: 0...99).array(of: 4...9),
                            Gen.int(in: 0...99)) { seeds, program, choice in
            do {
                try await Self.check(model: model, seeds: seeds, program: program, choice: choice)
            } catch {
                Issue.record("error: \(error)")
            }
        }
    }

    static func check(model: ServiceModel, seeds: [Int], program: [Int], choice: Int) async throws {
        let harness = try StorageHarness(model: model, label: "compute-prop")
        let rows = seeds.enumerated().map { row($0.offset, $0.element) }
        try harness.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
            for row in rows {
                let properties = [ODataProperty("ID", .int32(Int32(row["ID"].flatMap { $0 } ?? 0))),
                                  ODataProperty("A", (row["A"] ?? nil).map { .int32(Int32($0)) } ?? .null),
                                  ODataProperty("B", (row["B"] ?? nil).map { .int64(Int64($0)) } ?? .null),
                                  ODataProperty("C", (row["C"] ?? nil).map { .int32(Int32($0)) } ?? .null)]
                try batch.put(ODataEntity(typeName: "T.Row", properties: properties), in: "Rows")
            }
        }
        _ = try await harness.storage.declareIndex(IndexDefinition(name: "byA", entitySet: "Rows", properties: ["A"]))
        let arithmetic = Arithmetic(program)
        let ops = ["eq", "ne", "lt", "le", "gt", "ge"]
        let op = ops[choice % ops.count]
        let threshold = (choice / 6) % 41 - 20
        let withA = choice % 3 == 0
        let descending = choice % 2 == 0
        let top = choice % 5 == 0 ? nil : choice % 7 + 1
        func condition(_ total: String) -> String { "\(total) \(op) \(threshold)" + (withA ? " and A ge -5" : "") }
        var suffix = "&$orderby=\(descending ? "Total desc" : "Total")"
        var inlineSuffix = "&$orderby=\(arithmetic.text)\(descending ? " desc" : "")"
        if let top { suffix += "&$top=\(top)"; inlineSuffix += "&$top=\(top)" }
        let viaAlias = "Rows?$compute=\(arithmetic.text) as Total&$filter=\(condition("Total"))" + suffix
        let inline = "Rows?$filter=\(condition(arithmetic.text))" + inlineSuffix
        let segment = "Rows/$filter(\(condition(arithmetic.text)))?$compute=\(arithmetic.text) as Total" + suffix

        // Reference: Swift arithmetic, OData comparison with null (only `ne` holds), nulls first.
        func holds(_ row: [String: Int?]) -> Bool {
            if withA { guard let a = row["A"] ?? nil, a >= -5 else { return false } }
            guard let total = arithmetic.evaluate(row) else { return op == "ne" }
            switch op {
            case "eq": return total == threshold
            case "ne": return total != threshold
            case "lt": return total < threshold
            case "le": return total <= threshold
            case "gt": return total > threshold
            default: return total >= threshold
            }
        }
        var expected = rows.filter(holds).sorted { a, b in
            let x = arithmetic.evaluate(a), y = arithmetic.evaluate(b)
            if x != y { return x.map { v in y.map { v < $0 } ?? false } ?? true }
            return (a["ID"] ?? 0) ?? 0 < (b["ID"] ?? 0) ?? 0
        }
        if descending { expected.reverse() }
        if let top { expected = Array(expected.prefix(top)) }

        let executor = QueryExecutor(reader: try harness.storage.reader(), model: model)
        let ids = { (entities: [ODataEntity]) in entities.map { intValue($0[property: "ID"]) ?? -1 } }
        let aliasResult = try executor.execute(viaAlias).entities
        let wanted = expected.map { ($0["ID"] ?? -1) ?? -1 }
        #expect(ids(aliasResult) == wanted, "\(viaAlias)")
        #expect(ids(try executor.execute(inline).entities) == wanted, "\(inline)")
        #expect(ids(try executor.execute(segment).entities) == wanted, "\(segment)")
        let kind: EdmPrimitiveKind = arithmetic.usesB ? .int64 : .int32
        for (entity, row) in zip(aliasResult, expected) {
            let total = entity[property: "Total"]
            #expect(intValue(total) == arithmetic.evaluate(row), "\(arithmetic.text) on \(row)")
            if let total, !total.isNull { #expect(total.kind == kind, "\(arithmetic.text) is \(kind.rawValue)") }
            #expect(entity.properties.last?.name == "Total")
        }
        // The same count through `/$count` with the segment and the alias.
        let count = try executor.execute("Rows/$filter(\(condition(arithmetic.text)))/$count").payload
        let aliasCount = try executor.execute("Rows/$count?$compute=\(arithmetic.text) as Total&$filter=\(condition("Total"))").payload
        let all = rows.filter(holds).count
        if case .count(let n) = count { #expect(n == all) } else { Issue.record("no count") }
        if case .count(let n) = aliasCount { #expect(n == all) } else { Issue.record("no count") }
    }
}
