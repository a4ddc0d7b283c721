import OfflineODataEngine
import OfflineODataModel
import OfflineODataQuery
import PropertyBased
import Testing
@testable import OfflineODataStore

/// Whole-set scans evaluate `$filter` and a single `$orderby` key on borrowed entity bytes
/// (docs/QueryExecution.md §6). For random rows and random filters over decimals, integers and
/// strings (non-ASCII, NUL, nulls and absent values included), every row is decided exactly as
/// the `Evaluator` decides it on the decoded entity, and scans return what the evaluator and
/// `ODataOrdering` select.
@Suite struct EncodedScanTests {
    static let metadata = """
        <EntityType Name="Row"><Key><PropertyRef Name="ID"/></Key>
          <Property Name="ID" Type="Edm.Int32" Nullable="false"/>
          <Property Name="Amount" Type="Edm.Decimal" Scale="variable"/>
          <Property Name="N" Type="Edm.Int64"/>
          <Property Name="S" Type="Edm.String"/>
          <Property Name="D" Type="Edm.Double"/>
        </EntityType>
        """
    static let strings = ["", "B", "Ba", "Bé", "b", "éB", "a\u{0}B", "Bob", "zz", "😀B"]
    static let decimals = ["0", "-0.00", "1000", "1000.00", "999.99", "1000.01", "-1000", "12.5", "0.001", "-12.50", "1e3"]
    static let literals = ["1000", "1000.0", "-12.5", "0", "999.990", "1e3", "12", "-1", "2.5e0", "null"]

    static func row(_ id: Int, _ seed: Int) throws -> ODataEntity {
        var x = UInt64(truncatingIfNeeded: seed &* 2_654_435_761 &+ 7)
        func next(_ n: Int) -> Int {
            x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((x >> 33) % UInt64(n))
        }
        var properties = [ODataProperty("ID", .int32(Int32(id)))]
        let amount = next(8) == 0 ? ODataValue.null : .decimal(try EdmDecimal(parsing: decimals[next(decimals.count)]))
        properties.append(ODataProperty("Amount", amount))
        if next(7) != 0 { properties.append(ODataProperty("N", next(6) == 0 ? .null : .int64(Int64(next(41) - 20)))) }
        properties.append(ODataProperty("S", next(7) == 0 ? .null : .string(strings[next(strings.count)])))
        properties.append(ODataProperty("D", next(5) == 0 ? .null : .double(Double(next(9) - 4) * 0.5)))
        return ODataEntity(typeName: "T.Row", properties: properties)
    }

    struct FilterBuilder {
        var program: [Int]
        var position = 0

        mutating func take(_ n: Int) -> Int {
            defer { position += 1 }
            return position < program.count ? abs(program[position]) % n : 0
        }

        mutating func expression(depth: Int) -> String {
            switch take(depth >= 3 ? 6 : 9) {
            case 6: return "(\(expression(depth: depth + 1)) and \(expression(depth: depth + 1)))"
            case 7: return "(\(expression(depth: depth + 1)) or \(expression(depth: depth + 1)))"
            case 8: return "not (\(expression(depth: depth + 1)))"
            default: return atom()
            }
        }

        mutating func atom() -> String {
            let op = ["eq", "ne", "lt", "le", "gt", "ge"][take(6)]
            let string = "'\(EncodedScanTests.strings[take(EncodedScanTests.strings.count)].replacingOccurrences(of: "\u{0}", with: "%00"))'"
            switch take(9) {
            case 0, 1: return "Amount \(op) \(EncodedScanTests.literals[take(EncodedScanTests.literals.count)])"
            case 2: return "\(EncodedScanTests.literals[take(EncodedScanTests.literals.count)]) \(op) Amount"
            case 3: return "N \(op) \(take(41) - 20)"
            case 4: return "S \(op) \(string)"
            case 5: return "\(["startswith", "endswith", "contains"][take(3)])(S,\(string))"
            case 6: return "D \(op) \(["0.5", "-1", "2e0", "null"][take(4)])"
            case 7: return "\(string) \(op) S"
            default: return "N add 1 gt \(take(11) - 5)"
            }
        }
    }

    @Test func encodedScansDecideLikeTheEvaluator() async throws {
        let model = try StorageFixtures.model(Self.metadata, container: #"<EntitySet Name="Rows" EntityType="T.Row"/>"#)
        await propertyCheck(count: 60, input: Gen.int(in: 0...9999).array(of: 0...50), Gen.int(in: 0...99).array(of: 1...12),
                            Gen.int(in: 1...6)) { seeds, program, top in
            do {
                try Self.check(model: model, seeds: seeds, program: program, top: top)
            } catch {
                Issue.record("error: \(error)")
            }
        }
    }

    static func check(model: ServiceModel, seeds: [Int], program: [Int], top: Int) throws {
        let harness = try StorageHarness(model: model, label: "encoded-scan")
        let rows = try seeds.enumerated().map { try row($0.offset, $0.element) }
        try harness.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
            for row in rows { try batch.put(row, in: "Rows") }
        }
        var builder = FilterBuilder(program: program)
        let filter = builder.expression(depth: 0)
        let reader = try harness.storage.reader()
        let request = try RequestBinder(model: model).bind(try ODataURLParser.parse("Rows?$filter=\(filter)"))
        guard let bound = request.options.filter else {
            Issue.record("\(filter): no filter bound")
            return
        }
        let evaluator = Evaluator()
        let context = EvaluationContext(reader: reader, model: model)
        let compiled = CompiledFilter(bound, evaluator: evaluator)
        let encoded = EncodedFilter(bound, info: try reader.catalog.set("Rows"))

        // Every row, decided on borrowed bytes (program and closures) and by the evaluator.
        var expected: [ODataValue] = []
        var evaluationFailed = false
        var decidedInPlace = 0
        try reader.forEachEntity("Rows") { (row: BorrowedEntity) throws(ODataError) -> Bool in
            let owned = StoredInstance(try row.owned(), context: context)
            let viaTree: Result<Bool, ODataError>
            do throws(ODataError) { viaTree = .success(try evaluator.matches(bound, on: owned)) } catch { viaTree = .failure(error) }
            let borrowed = StoredInstance(borrowing: row, context: context)
            let viaClosures: Result<Bool, ODataError>
            do throws(ODataError) { viaClosures = .success(try compiled.matches(borrowed)) } catch { viaClosures = .failure(error) }
            switch (viaTree, viaClosures) {
            case let (.success(a), .success(b)): #expect(a == b, "\(filter): borrowed closures \(b) vs evaluated \(a)")
            case (.failure, .failure): break
            default: Issue.record("\(filter): borrowed closures \(viaClosures) vs evaluated \(viaTree)")
            }
            if case .decided(let truth)? = encoded?.evaluate(row.codec) {
                decidedInPlace += 1
                if case .success(let a) = viaTree { #expect((truth == true) == a, "\(filter): in place \(String(describing: truth)) vs evaluated \(a)") }
                else { Issue.record("\(filter): decided in place, the evaluator threw \(viaTree)") }
            }
            switch viaTree {
            case .success(true): expected.append(try row.owned().value(named: "ID") ?? .null)
            case .success(false): break
            case .failure: evaluationFailed = true
            }
            return true
        }
        // Without floating-point operands (compared through Double, so decoded) the program
        // decides every row on the bytes.
        if encoded != nil, !["e0", "e3", "D "].contains(where: { filter.contains($0) }) {
            #expect(decidedInPlace == rows.count, "\(filter): \(decidedInPlace) of \(rows.count) rows decided in place")
        }

        // The executor's scan (no index on these properties) returns the same rows.
        let executor = QueryExecutor(reader: reader, model: model)
        if evaluationFailed {
            #expect(throws: ODataError.self) { try executor.execute("Rows?$filter=\(filter)") }
            return
        }
        let ids = try executor.execute("Rows?$filter=\(filter)").entities.map { $0[property: "ID"] ?? .null }
        #expect(ids == expected, "\(filter): scan \(ids) vs evaluated \(expected)")
        if case .count(let n) = try executor.execute("Rows/$count?$filter=\(filter)").payload {
            #expect(n == expected.count, "\(filter): /$count")
        }

        // `$orderby` on one key with `$top`: the heap drops rows on their encoded bytes.
        for order in ["Amount desc", "Amount", "S desc", "N", "D desc"] {
            let url = "Rows?$filter=\(filter)&$orderby=\(order)&$top=\(top)"
            let got = try executor.execute(url).entities.map { $0[property: "ID"] ?? .null }
            let name = String(order.split(separator: " ")[0])
            let descending = order.hasSuffix("desc")
            let kept = rows.filter { row in expected.contains(row[property: "ID"] ?? .null) }
            let sorted = kept.sorted { a, b in
                let o = ODataOrdering.compare(a[property: name] ?? .null, b[property: name] ?? .null)
                if o != 0 { return descending ? o > 0 : o < 0 }
                let (x, y) = (id(a), id(b))
                return descending ? x > y : x < y
            }
            let want = sorted.prefix(top).map { $0[property: "ID"] ?? .null }
            #expect(got == Array(want), "\(url): \(got) vs \(Array(want))")
        }
    }

    static func id(_ entity: ODataEntity) -> Int32 {
        if case .int32(let v)? = entity[property: "ID"] { return v }
        return -1
    }
}
