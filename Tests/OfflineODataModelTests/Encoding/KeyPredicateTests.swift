import PropertyBased
import Testing
@testable import OfflineODataModel

@Suite struct KeyPredicateTests {
    let orderID = [KeyProperty("OrderID", .int32)]
    let composite = [KeyProperty("OrderID", .int32), KeyProperty("Code", .string)]

    @Test func parsesTheSpecForms() throws {
        #expect(try KeyPredicate.parse("(1)", keys: orderID) == [.int32(1)])
        #expect(try KeyPredicate.parse("(OrderID=1)", keys: orderID) == [.int32(1)])
        #expect(try KeyPredicate.parse("('O''Neil')", keys: [KeyProperty("Name", .string)]) == [.string("O'Neil")])
        #expect(try KeyPredicate.parse("(OrderID=1,Code='x')", keys: composite) == [.int32(1), .string("x")])
        #expect(try KeyPredicate.parse("(Code='a,b=c)',OrderID=-2)", keys: composite) == [.int32(-2), .string("a,b=c)")])
        let guidKey = [KeyProperty("ID", .guid)]
        #expect(try KeyPredicate.parse("(148d1101-58fb-410b-ad6d-7379fd9564ca)", keys: guidKey).first?.kind == .guid)
        #expect(try KeyPredicate.parse("(guid'148d1101-58fb-410b-ad6d-7379fd9564ca')", keys: guidKey, version: .v2).first?.kind == .guid)
        #expect(try KeyPredicate.parse("(5L)", keys: [KeyProperty("ID", .int64)], version: .v2) == [.int64(5)])
    }

    @Test func formatsCanonically() throws {
        #expect(try KeyPredicate.format([.int32(10248)], keys: orderID) == "(10248)")
        #expect(try KeyPredicate.format([.int32(1), .string("O'Neil")], keys: composite) == "(OrderID=1,Code='O''Neil')")
        #expect(try KeyPredicate.format([.int64(5)], keys: [KeyProperty("ID", .int64)], version: .v2) == "(5L)")
        #expect(throws: ODataError.self) { try KeyPredicate.format([.int64(1)], keys: orderID) }
        #expect(throws: ODataError.self) { try KeyPredicate.format([.null], keys: orderID) }
    }

    @Test func formattedPredicatesParseBack() async {
        let keys = [KeyProperty("A", .int64), KeyProperty("B", .string), KeyProperty("C", .dateTimeOffset), KeyProperty("D", .decimal)]
        await propertyCheck(count: 300, input: Gen.int64(), ValueGen.string, ValueGen.dateTimeOffset, ValueGen.decimal) { a, b, c, d in
            let values: [ODataValue] = [.int64(a), .string(b), .dateTimeOffset(c), .decimal(d)]
            for version in [ODataVersion.v4, .v2] {
                let text = try KeyPredicate.format(values, keys: keys, version: version)
                let back = try KeyPredicate.parse(text, keys: keys, version: version)
                #expect(zip(back, values).allSatisfy { $0.isIdentical(to: $1) }, "\(text)")
            }
            let single = try KeyPredicate.format([.string(b)], keys: [KeyProperty("S", .string)])
            #expect(try KeyPredicate.parse(single, keys: [KeyProperty("S", .string)]) == [.string(b)])
        }
    }

    @Test(arguments: [
        ("1", 0), ("(1", 2), ("()", 1), ("(1,2)", 1), ("( 1)", 1), ("(OrderID =1,Code='x')", 8),
        ("(OrderID=1)", 10), ("(OrderID=1,Code='x',Extra=2)", 20), ("(OrderID=1,OrderID=2,Code='x')", 11),
        ("(OrderID=1,Code='x)", 18), ("(OrderID=,Code='x')", 9), ("(OrderID=1,,Code='x')", 11),
        ("(OrderID=2147483648,Code='x')", 9), ("(OrderID=null,Code='x')", 9), ("(OrderID=1,Code=x)", 16),
    ])
    func malformedCompositePredicatesAreRejectedWithAPosition(text: String, position: Int) {
        do {
            let values = try KeyPredicate.parse(text, keys: composite)
            Issue.record("\(text) parsed as \(values)")
        } catch {
            #expect(error.name == "invalidKeyPredicate", "\(error)")
            #expect(error.code == 1400)
            #expect(error.location == "position \(position)", "\(text): \(error)")
        }
    }

    @Test func entitySetSegmentsAndKeyAsSegment() throws {
        let split = try KeyPredicate.parseEntitySetKeySegment("Orders(10248)")
        #expect(split.entitySet == "Orders" && split.predicate == "(10248)")
        #expect(try KeyPredicate.parseEntitySetKeySegment("Orders").predicate == nil)
        #expect(throws: ODataError.self) { try KeyPredicate.parseEntitySetKeySegment("Orders(10248") }
        #expect(throws: ODataError.self) { try KeyPredicate.parseEntitySetKeySegment("Or ders(1)") }
        #expect(try KeyPredicate.parseKeyAsSegment("10248", key: orderID[0]) == .int32(10248))
        #expect(try KeyPredicate.parseKeyAsSegment("ALFKI", key: KeyProperty("ID", .string)) == .string("ALFKI"))
        #expect(try KeyPredicate.formatKeyAsSegment(.string("ALFKI"), key: KeyProperty("ID", .string)) == "ALFKI")
        #expect(throws: ODataError.self) { try KeyPredicate.parseKeyAsSegment("x", key: orderID[0]) }
        #expect(throws: ODataError.self) { try KeyPredicate.parseKeyAsSegment("null", key: orderID[0]) }
    }
}
