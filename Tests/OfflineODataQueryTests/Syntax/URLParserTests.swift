import OfflineODataModel
import Testing
@testable import OfflineODataQuery

/// Whole URLs, resource paths and query options: structure, decoding, option-name rules.
@Suite struct URLParserTests {
    static let urlGoldens: [(String, String)] = [
        ("Products", "Products"),
        ("/Products(1)/Orders?$top=2&$skip=1", "Products(1)/Orders?$top=2&$skip=1"),
        ("Categories(ID=1,Size=5)", "Categories(ID=1,Size=5)"),
        ("Customers%28%27O%27%27Neil%27%29", "Customers('O''Neil')"),
        ("Categories('Tablet%2FSlate')", "Categories('Tablet/Slate')"),
        ("Categories/Smartphone%2FTablet", "Categories/Smartphone/Tablet"),
        ("ProductsByCategoryId(categoryId=2)(2)", "ProductsByCategoryId(categoryId=2)(2)"),
        ("TheBestProduct()", "TheBestProduct()"),
        ("Categories(1)/Model.ProductsByColor(color='red')/$count", "Categories(1)/Model.ProductsByColor(color='red')/$count"),
        ("Products/$filter(@foo)/$each?@foo=Age gt 3", "Products/$filter(@foo)/$each?@foo=(Age gt 3)"),
        ("$crossjoin(Customers,Countries)", "$crossjoin(Customers,Countries)"),
        ("Products?$FILTER=Price gt 5&ORDERBY=Name DESC", "Products?$filter=(Price gt 5)&$orderby=Name desc"),
        ("P?$orderby=Name%09asc,Rating", "P?$orderby=Name asc,Rating asc"),
        ("P?$expand=Items($select=Quantity;$expand=Product($select=Name,Price);@c=15)",
         "P?$expand=Items($select=Quantity;$expand=Product($select=Name,Price);@c=15)"),
        ("P?$expand=*,*/$ref,*($levels=2),Category($levels=max)", "P?$expand=*,*/$ref,*($levels=2),Category($levels=max)"),
        ("P?$expand=Items/$count($filter=Name eq 'Hugo';$search=Hugo)",
         "P?$expand=Items/$count($filter=(Name eq 'Hugo');$search=Hugo)"),
        ("P?$expand=Model.VipCustomer/Orders/$ref($top=1)", "P?$expand=Model.VipCustomer/Orders/$ref($top=1)"),
        ("P?$expand=Address/*", "P?$expand=Address/*"),
        ("P?$select=Model.ActionName,Model.MostPopularName(Location,Kind),Model.*",
         "P?$select=Model.ActionName,Model.MostPopularName(Location,Kind),Model.*"),
        ("P?$select=Addresses($filter=startswith(City,'H');$top=5;$count=true;$orderby=$it)",
         "P?$select=Addresses($filter=startswith(City,'H');$orderby=$it asc;$top=5;$count=true)"),
        ("P?$search=blue green OR NOT red", "P?$search=((blue AND green) OR (NOT red))"),
        ("P?$search=NOT NOT", "P?$search=(NOT NOT)"),
        ("P?$search=AND OR NOT", "P?$search=(AND OR NOT)"),
        ("P?$compute=case(X gt 0:1,true:0) as S,day(Time) as D", "P?$compute=case((X gt 0):1,true:0) as S,day(Time) as D"),
        ("P?$compute=Price mul Quantity as Total&$filter=Total gt 5&$orderby=Total desc&$select=Name,Total",
         "P?$filter=(Total gt 5)&$orderby=Total desc&$select=Name,Total&$compute=(Price mul Quantity) as Total"),
        ("P?$expand=Items($compute=Price mul 2 as D;$select=D)", "P?$expand=Items($select=D;$compute=(Price mul 2) as D)"),
        ("P/$filter(Price gt 5)/$filter(@p)/$count?@p=true", "P/$filter((Price gt 5))/$filter(@p)/$count?@p=true"),
        ("C(1)/Items/$filter(Price%20gt%205)/$ref?$top=1", "C(1)/Items/$filter((Price gt 5))/$ref?$top=1"),
        ("P/$filter(Price gt 5)(1)/Items/$filter(Qty gt 1)('a')", "P/$filter((Price gt 5))(1)/Items/$filter((Qty gt 1))('a')"),
        ("P/$filter(true)(A=1,B='x')/$ref", "P/$filter(true)(A=1,B='x')/$ref"),
        ("P?$filter=Items/$filter(Qty gt 1)(2)/Name eq 'x'", "P?$filter=(Items/$filter((Qty gt 1))(2)/Name eq 'x')"),
        ("P?@word='Black'&$filter=contains(Title,@word)", "P?$filter=contains(Title,@word)&@word='Black'"),
        ("P?$skiptoken=Start@Next_Chunk:From?=Here!&$deltatoken=x", "P?$skiptoken=Start@Next_Chunk:From?=Here!&$deltatoken=x"),
        ("P?$format=application/json;odata.metadata=none&find=O%27Neil&!special",
         "P?$format=application/json;odata.metadata=none&find=O'Neil&!special="),
        ("P?$schemaversion=*&$count=TRUE", "P?$count=true&$schemaversion=*"),
    ]

    @Test func urlGoldens() throws {
        for (input, expected) in Self.urlGoldens {
            let url = try ODataURLParser.parse(input)
            let printed = SyntaxPrinter.print(url)
            #expect(printed == expected, "input: \(input)")
        }
    }

    @Test func computeItemsRecordWhereTheirAliasIs() throws {
        let items = try ODataURLParser.parseCompute("A mul 2 as X, B as Y")
        #expect(items.map(\.alias) == ["X", "Y"] && items.map(\.aliasPosition) == [11, 19])
        #expect(items.map(\.expression.position) == [0, 14])
    }

    @Test func resourcePathStructure() throws {
        let path = try ODataURLParser.parseResourcePath("Categories(1)/Products/Model.BestSellingProduct/$count")
        #expect(path.normalized.segments == [
            .identifier("Categories", position: 0),
            .key([SyntaxKeyValue(value: SyntaxExpr(.literal(.int32(1), text: "1"), at: 0))], position: 0),
            .identifier("Products", position: 0), .typeCast("Model.BestSellingProduct", position: 0), .count(position: 0),
        ])
        let keyed = try ODataURLParser.parseResourcePath("People/O'Neil")
        #expect(keyed.segments.last == .identifier("O'Neil", position: 7))
        let alias = try ODataURLParser.parse("Categories(ID=@key)?@key=1")
        #expect(alias.options.aliases["key"]?.kind == .literal(.int32(1), text: "1"))
    }

    @Test func optionNamesAreCaseInsensitiveWithOptionalDollar() throws {
        let options = try ODataURLParser.parseQueryOptions("FILTER=true&$Top=3&skip=1&Count=false&$SELECT=A")
        #expect(options.filter?.kind == .literal(.boolean(true), text: "true"))
        #expect(options.top == 3)
        #expect(options.skip == 1)
        #expect(options.count == false)
        #expect(options.select?.count == 1)
        #expect(options.customOptions.isEmpty)
    }

    @Test func valuesArePercentDecodedExactlyOnce() throws {
        let options = try ODataURLParser.parseQueryOptions("$filter=Name%20eq%20'100%2525'&x%3Dy=a%26b")
        guard case .binary(.eq, _, let right)? = options.filter?.kind else {
            Issue.record("not a comparison")
            return
        }
        #expect(right.kind == .literal(.string("100%25"), text: "'100%25'"))
        #expect(options.customOptions == [SyntaxCustomOption(name: "x=y", value: "a&b")])
    }

    @Test func encodedSemicolonsAreDataNotSeparators() throws {
        let options = try ODataURLParser.parseQueryOptions("$expand=Manager($search=a%3Bb)")
        #expect(options.expand?.first?.options.search == .term("a;b"))
        #expect(throws: ODataError.self) { try ODataURLParser.parseQueryOptions("$expand=Manager($search=a;b)") }
    }

    @Test func aliasWithoutValueIsAbsent() throws {
        let options = try ODataURLParser.parseQueryOptions("@p&$filter=X eq @p")
        #expect(options.aliases["p"] == nil)
        #expect(options.filter != nil)
        let nested = try ODataURLParser.parseQueryOptions("$expand=Products(@foo=$this;$filter=@foo/Price gt 3)")
        let item = try #require(nested.expand?.first)
        #expect(item.options.aliases["foo"]?.kind == .path(SyntaxPath(root: .this, segments: [])))
    }

    @Test func positionsPointIntoTheDecodedOptionValue() throws {
        let options = try ODataURLParser.parseQueryOptions("$filter=Name%20eq%20'x'")
        guard case .binary(.eq, let left, let right)? = options.filter?.kind else {
            Issue.record("not a comparison")
            return
        }
        #expect(left.position == 0)
        #expect(right.position == 8)
    }

    @Test func notBindsTighterThanComparison() throws {
        let tree = try ODataURLParser.parseFilter("not A eq B")
        guard case .binary(.eq, let left, _) = tree.kind, case .unary(.not, _) = left.kind else {
            Issue.record("expected (not A) eq B, got \(SyntaxPrinter.print(tree))")
            return
        }
    }

    @Test func hasAndInBindTighterThanUnary() throws {
        #expect(SyntaxPrinter.print(try ODataURLParser.parseFilter("not A in (1) and B")) == "((not (A in (1))) and B)")
        #expect(SyntaxPrinter.print(try ODataURLParser.parseFilter("A has Ns.E'x' eq true")) == "((A has Ns.E'x') eq true)")
    }

    @Test func searchStructure() throws {
        #expect(try ODataURLParser.parseSearch("(foo OR that) AND NOT quux")
            == .and(.or(.term("foo"), .term("that")), .not(.term("quux"))))
        #expect(try ODataURLParser.parseSearch("a and b") == .and(.and(.term("a"), .term("and")), .term("b")))
        #expect(try ODataURLParser.parseSearch("'\"bl'") == .phrase("\"bl"))
        #expect(try ODataURLParser.parseSearch("Daniel's") == .term("Daniel's"))
    }

    @Test func expandStructure() throws {
        let items = try ODataURLParser.parseExpand("Customer/$ref,Items($expand=Product;$levels=4),$value")
        #expect(items.count == 3)
        #expect(items[0].suffix == .ref)
        #expect(items[0].target == .path([.member("Customer", position: 0)]))
        #expect(items[1].options.levels == .count(4))
        #expect(items[1].options.expand?.first?.target == .path([.member("Product", position: 28)]))
        #expect(items[2].target == .value)
    }

    @Test func selectStructure() throws {
        let items = try ODataURLParser.parseSelect("*,Model.*,Address/Model.AddressWithLocation/Location,@Core.Messages($top=5)")
        #expect(items[0] == .star(position: 0))
        #expect(items[1] == .allOperations(namespace: "Model", position: 2))
        guard case .path(let segments, nil, _) = items[2], case .path(let annotation, let options?, _) = items[3] else {
            Issue.record("unexpected select items \(items)")
            return
        }
        #expect(segments.count == 3)
        #expect(annotation == [.annotation("Core.Messages", position: 53)])
        #expect(options.top == 5)
    }

    @Test func literalTypesFollowTheABNF() throws {
        func value(_ text: String) throws -> ODataValue? {
            if case .literal(let value, _) = try ODataURLParser.parseFilter(text).kind { return value }
            return nil
        }
        #expect(try value("2147483647")?.kind == .int32)
        #expect(try value("2147483648")?.kind == .int64)
        #expect(try value("99999999999999999999")?.kind == .decimal)
        #expect(try value("1.0")?.kind == .decimal)
        #expect(try value("1e0")?.kind == .double)
        #expect(try value("-INF")?.kind == .double)
        #expect(try value("'P1D'")?.kind == .string)
        #expect(try value("duration'P1D'")?.kind == .duration)
        #expect(try value("11:22:33.4444444")?.kind == .timeOfDay)
        if case .enumValue(let flags)? = try value("Sales.Pattern'Solid,Yellow'") {
            #expect(flags.typeName == "Sales.Pattern")
            #expect(flags.members == ["Solid", "Yellow"])
        } else {
            Issue.record("not an enum")
        }
    }
}
