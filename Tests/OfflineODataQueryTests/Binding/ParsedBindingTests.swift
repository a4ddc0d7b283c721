import OfflineODataModel
import Testing
@testable import OfflineODataQuery

/// Parser + binder together: URL text to the canonical bound form, and evaluation of parsed
/// filters on in-memory entities.
@Suite struct ParsedBindingTests {
    func bound(_ filter: String) throws -> String {
        BoundPrinter.print(try TestModel.binder().bind(try ODataURLParser.parseFilter(filter)))
    }

    func error(_ filter: String) -> ODataError? {
        do {
            _ = try TestModel.binder().bindFilter(try ODataURLParser.parseFilter(filter))
            return nil
        } catch let error as ODataError {
            return error
        } catch {
            return nil
        }
    }

    @Test func goldens() throws {
        #expect(try bound("Rating eq 5") == "(eq<Edm.Int16> Rating[3]:Edm.Int16 5:Edm.Int16):Edm.Boolean")
        #expect(try bound("Name in ('a', 'b')") == "(in Name[1]:Edm.String ['a':Edm.String, 'b':Edm.String]):Edm.Boolean")
        #expect(try bound("Color eq Ns.Color'Green'") == "(eq<Ns.Color> Color[12]:Ns.Color Ns.Color'Green':Ns.Color):Edm.Boolean")
        #expect(try bound("Access has Ns.Access'Read'") == "(has Access[13]:Ns.Access Ns.Access'Read':Ns.Access):Edm.Boolean")
        #expect(try bound("Orders/any(o: o/Quantity gt 2)") == "->Orders*/any(o: (gt<Edm.Int32> o/Quantity[2]:Edm.Int32 2:Edm.Int32):Edm.Boolean):Edm.Boolean")
        #expect(try bound("Orders/$count gt 1") == "(gt<Edm.Int64> ->Orders*/$count:Edm.Int64 1:Edm.Int64):Edm.Boolean")
        #expect(try bound("Released add duration'P1D' lt 2024-01-01") == "(lt<Edm.Date> (add<Edm.Date> Released[7]:Edm.Date duration'P1D':Edm.Duration):Edm.Date 2024-01-01:Edm.Date):Edm.Boolean")
        #expect(try bound("Price mul 2 ge 10.5") == "(ge<Edm.Decimal> (mul<Edm.Decimal> Price[2]:Edm.Decimal 2:Edm.Int32):Edm.Decimal 10.5:Edm.Decimal):Edm.Boolean")
        #expect(try bound("Shelf eq 'PT1H'") == "(eq<Edm.Duration> Shelf[10]:Edm.Duration duration'PT1H':Edm.Duration):Edm.Boolean")
    }

    @Test func errorsPointAtTheOffendingToken() throws {
        let unknown = try #require(error("Price gt 1 and Nope eq 2"))
        #expect(unknown.name == "invalidProperty")
        #expect(unknown.location == "position 15")
        let mismatch = try #require(error("Rating eq '1'"))
        #expect(mismatch.name == "typeMismatch")
        #expect(error("Name")?.name == "typeMismatch")
        #expect(error("Name add 1 eq 2")?.name == "typeMismatch")
        #expect(error("Color eq 'Purple'")?.name == "invalidLiteralForType")
        #expect(error("Color eq 'Purple'")?.code == 1661)
        #expect(error("Color eq Ns.Color'Purple'")?.name == "invalidLiteralForType")
    }

    @Test func evaluatesParsedFilters() throws {
        let rows = [
            Eval.product([("ID", .int32(1)), ("Name", .string("Apple")), ("Rating", .int16(4)), ("Price", Eval.dec("2.50"))]),
            Eval.product([("ID", .int32(2)), ("Name", .string("banana")), ("Rating", .int16(2)), ("Price", Eval.dec("0.99"))]),
            Eval.product([("ID", .int32(3)), ("Name", .string("Cherry")), ("Price", Eval.dec("10"))]),
        ]
        func ids(_ filter: String) throws -> [Int32] {
            let bound = try TestModel.binder().bindFilter(try ODataURLParser.parseFilter(filter))
            return try rows.filter { try Eval.evaluator.matches(bound, on: $0) }.compactMap {
                if case .int32(let id)? = $0[property: "ID"] { return id } else { return nil }
            }
        }
        #expect(try ids("Rating ge 2") == [1, 2])
        // A null rating: `ge` with null is false (not null), so `not` makes it true.
        #expect(try ids("not (Rating ge 3)") == [2, 3])
        #expect(try ids("not (Rating add 0 eq 4)") == [2, 3])
        #expect(try ids("Rating eq null or Price gt 5") == [3])
        #expect(try ids("startswith(tolower(Name), 'b')") == [2])
        #expect(try ids("Price mul 2 eq 5") == [1])
        #expect(try ids("round(Price) eq 3") == [1])
        #expect(try ids("ID in (1, 3)") == [1, 3])
        #expect(try ids("case(Rating gt 3: true, Rating lt 3: false)") == [1])
    }
}
