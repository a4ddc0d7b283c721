import OfflineODataModel
import Testing
@testable import OfflineODataQuery

/// Filter expressions → canonical text (SyntaxPrinter). Each golden also reads back: parsing
/// the canonical text gives the same tree (positions aside) and prints identically.
@Suite struct ExpressionGoldenTests {
    static let goldens: [(String, String)] = [
        // precedence
        ("Price gt 5", "(Price gt 5)"),
        ("A eq 1 or B eq 2 and C eq 3", "((A eq 1) or ((B eq 2) and (C eq 3)))"),
        ("a gt b eq true", "((a gt b) eq true)"),
        ("not A eq B", "((not A) eq B)"),
        ("not (A eq B)", "(not (A eq B))"),
        ("1 add 2 mul 3", "(1 add (2 mul 3))"),
        ("1 sub 2 sub 3", "((1 sub 2) sub 3)"),
        ("Price div 2 divby 3 mod 4", "(((Price div 2) divby 3) mod 4)"),
        ("-Price add 1", "((- Price) add 1)"),
        ("- 5", "(- 5)"),
        ("-5", "-5"),
        ("Price sub -1", "(Price sub -1)"),
        ("Name EQ 'Milk' AND Price LT 2.55", "((Name eq 'Milk') and (Price lt 2.55))"),
        ("(4 add 5) mod (4 sub 1) eq 0", "(((4 add 5) mod (4 sub 1)) eq 0)"),
        ("( true )", "true"),
        ("A has Ns.Color'Red' eq true", "((A has Ns.Color'Red') eq true)"),
        ("-A has Ns.F'X'", "(- (A has Ns.F'X'))"),
        ("not X in (1,2)", "(not (X in (1,2)))"),
        ("X in ('a', 'b')", "(X in ('a','b'))"),
        ("X in ('a')", "(X in ('a'))"),
        ("X in ()", "(X in ())"),
        ("X in (Y)", "(X in Y)"),
        ("X in [1,2]", "(X in [1,2])"),
        ("FirstName in [\"Miller\",'Smith']", "(FirstName in [\"Miller\",\"Smith\"])"),
        ("[FirstName,LastName] in [[\"John\",\"Doe\"]]", "([FirstName,LastName] in [[\"John\",\"Doe\"]])"),
        // literals
        ("X eq 3000000000", "(X eq 3000000000)"),
        ("X eq 1.50", "(X eq 1.50)"),
        ("X eq 1e3", "(X eq 1000.0e0)"),
        ("X eq -INF", "(X eq -INF)"),
        ("X eq NaN", "(X eq NaN)"),
        ("X eq 2012-09-03", "(X eq 2012-09-03)"),
        ("X eq 2012-09-03T13:52Z", "(X eq 2012-09-03T13:52:00Z)"),
        ("X eq 13:52:01", "(X eq 13:52:01)"),
        ("X eq duration'P1D'", "(X eq duration'P1D')"),
        ("X eq 01234567-89ab-cdef-0123-456789abcdef", "(X eq 01234567-89ab-cdef-0123-456789abcdef)"),
        ("X eq binary'Zm9v'", "(X eq binary'Zm9v')"),
        ("X eq 'O''Neil'", "(X eq 'O''Neil')"),
        ("X eq TRUE", "(X eq true)"),
        ("X eq null", "(X eq null)"),
        ("style has Sales.Pattern'Yellow,32'", "(style has Sales.Pattern'Yellow,32')"),
        ("X eq {\"a\":1}", "(X eq {\"a\":1})"),
        // functions and casts
        ("contains(Name,'x')", "contains(Name,'x')"),
        ("CONTAINS(Name, 'x')", "contains(Name,'x')"),
        ("matchespattern(Name,'^a')", "matchesPattern(Name,'^a')"),
        ("substring(Name, 1, 2) eq 'ab'", "(substring(Name,1,2) eq 'ab')"),
        ("now() gt X", "(now() gt X)"),
        ("cast(Edm.String)", "cast(Edm.String)"),
        ("cast(Category, Model.Customer)", "cast(Category,Model.Customer)"),
        ("isof(Category,Customer)", "isof(Category,Customer)"),
        ("geo.distance(A,B) lt 5", "(geo.distance(A,B) lt 5)"),
        ("Model.Fn(a=1,b=Name)", "Model.Fn(a=1,b=Name)"),
        ("Products/Model.BestProduct()/Name", "Products/Model.BestProduct()/Name"),
        ("case(X gt 0:1,X lt 0:-1,true:0)", "case((X gt 0):1,(X lt 0):-1,true:0)"),
        // paths, lambdas, variables
        ("Address/City eq 'x'", "(Address/City eq 'x')"),
        ("Ns.Manager/Budget gt 5", "(Ns.Manager/Budget gt 5)"),
        ("Items(1)/Name", "Items(1)/Name"),
        ("Orders/any(o:o/Total gt 5)", "Orders/any(o:(o/Total gt 5))"),
        ("Orders/ANY(o: o/Total gt $it/Min)", "Orders/any(o:(o/Total gt $it/Min))"),
        ("Orders/any()", "Orders/any()"),
        ("Orders/all(o:o/Lines/any(l:l/Qty eq 1))", "Orders/all(o:o/Lines/any(l:(l/Qty eq 1)))"),
        ("Orders/$count gt 2", "(Orders/$count gt 2)"),
        ("Orders/$count($filter=Price gt 5;$search=blue) gt 2", "(Orders/$count($filter=(Price gt 5);$search=blue) gt 2)"),
        // `/$filter(…)` segments (4.01 §4.12, ABNF filterExpr)
        ("Products/$filter(Age gt 3)(ID='Sugar')", "Products/$filter((Age gt 3))(ID='Sugar')"),
        ("Products/$filter(Age gt 3)/$count lt 10", "(Products/$filter((Age gt 3))/$count lt 10)"),
        ("Addresses/$filter(endswith(Street,'St'))/$count lt 10", "(Addresses/$filter(endswith(Street,'St'))/$count lt 10)"),
        ("Orders/$filter( Amount gt 5 )/$filter(@q)/any(o:o/Quantity gt 0)",
         "Orders/$filter((Amount gt 5))/$filter(@q)/any(o:(o/Quantity gt 0))"),
        ("Tags/$filter($this ne 'a')/all(t:t eq 'b')", "Tags/$filter(($this ne 'a'))/all(t:(t eq 'b'))"),
        ("Items/$filter(true)(1)/Name eq $it/Name", "(Items/$filter(true)(1)/Name eq $it/Name)"),
        ("Orders/$filter(Product/Orders/$filter(Quantity gt 1)/$count eq 0)/$count",
         "Orders/$filter((Product/Orders/$filter((Quantity gt 1))/$count eq 0))/$count"),
        ("$it/$filter(true)", "$it/$filter(true)"),
        ("$it/Name eq $this", "($it/Name eq $this)"),
        ("$root/People('x')/Name eq Name", "($root/People('x')/Name eq Name)"),
        ("$root/People(ID='x')/Name", "$root/People(ID='x')/Name"),
        ("Price/@Measures.Currency eq 'EUR'", "(Price/@Measures.Currency eq 'EUR')"),
        ("@Core.Messages/any(m:m/severity eq 'error')", "@Core.Messages/any(m:(m/severity eq 'error'))"),
        ("Title eq @title", "(Title eq @title)"),
        ("@m/FirstName eq FirstName", "(@m/FirstName eq FirstName)"),
    ]

    @Test func goldens() throws {
        for (input, expected) in Self.goldens {
            let tree = try ODataURLParser.parseFilter(input)
            let printed = SyntaxPrinter.print(tree)
            #expect(printed == expected, "input: \(input)")
            let again = try ODataURLParser.parseFilter(printed)
            #expect(SyntaxPrinter.print(again) == printed, "reprint of \(input)")
            #expect(again.normalized == tree.normalized, "reparse of \(input)")
        }
    }

    @Test func goldenCount() {
        #expect(Self.goldens.count >= 60)
    }
}
