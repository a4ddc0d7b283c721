import OfflineODataFixtures
import OfflineODataModel
import Testing
@testable import OfflineODataQuery

@Suite struct ResourcePathBinderTests {
    static let model: ServiceModel? = try? ServiceModel.parse(metadata: Array(SalesServiceGenerator(seed: 1, scale: .tiny).metadataXML().utf8))

    func bind(_ segments: [SyntaxResourceSegment], aliases: [String: SyntaxExpr] = [:]) throws -> BoundResourcePath {
        let model = try #require(Self.model)
        return try ResourcePathBinder(model: model, aliases: aliases).bind(SyntaxResourcePath(segments: segments))
    }

    func literal(_ value: ODataValue, _ text: String) -> SyntaxExpr { SyntaxExpr(.literal(value, text: text), at: 0) }

    @Test func entitySetKeyAndNavigationHops() throws {
        let path = try bind([
            .identifier("SalesOrders", position: 0), .key([SyntaxKeyValue(value: literal(.string("0500000001"), "'0500000001'"))], position: 11),
            .identifier("ToItems", position: 25),
        ])
        #expect(path.target == .entityCollection(set: "SalesOrderItems", type: "EPM.Sales.SalesOrderItem"))
        #expect(path.steps.count == 3)
        guard case .navigation(let name, _, let set, let many) = path.steps[2] else { Issue.record("no navigation step"); return }
        #expect(name == "ToItems" && set == "SalesOrderItems" && many)
    }

    @Test func compositeKeyNamedInAnyOrderAndCount() throws {
        let path = try bind([
            .identifier("SalesOrderItems", position: 0),
            .key([SyntaxKeyValue(name: "ItemPosition", value: literal(.string("0000000010"), "'0000000010'")),
                  SyntaxKeyValue(name: "SalesOrderID", value: literal(.string("0500000001"), "'0500000001'"))], position: 15),
            .identifier("ToProduct", position: 60), .identifier("ToSupplier", position: 70),
        ])
        #expect(path.steps[1] == .key([.string("0500000001"), .string("0000000010")]))
        #expect(path.target == .entity(set: "BusinessPartners", type: "EPM.Sales.BusinessPartner"))
        let count = try bind([.identifier("Products", position: 0), .count(position: 9)])
        #expect(count.suffix == .count)
    }

    @Test func keyAsSegmentAliasAndProperty() throws {
        let path = try bind([.identifier("Products", position: 0), .identifier("HT-1000", position: 9), .identifier("Price", position: 17)])
        #expect(path.steps[1] == .key([.string("HT-1000")]))
        guard case .property(let name, _) = path.target else { Issue.record("expected a property"); return }
        #expect(name == "Price")
        let aliased = try bind([.identifier("Products", position: 0), .key([SyntaxKeyValue(value: SyntaxExpr(.alias("k"), at: 9))], position: 8)],
                               aliases: ["k": literal(.string("HT-1001"), "'HT-1001'")])
        #expect(aliased.directKey?.key == [.string("HT-1001")])
    }

    @Test func badPathsAreTypedErrors() throws {
        let cases: [([SyntaxResourceSegment], String)] = [
            ([.identifier("Nope", position: 0)], "resourceNotFound"),
            ([.identifier("Products", position: 0), .key([SyntaxKeyValue(value: literal(.string("HT-1000"), "'HT-1000'"))], position: 8),
              .identifier("Nope", position: 12)], "resourceNotFound"),
            ([.identifier("Products", position: 0), .key([SyntaxKeyValue(value: literal(.int32(1), "1"))], position: 8)], "invalidKeyPredicate"),
            ([.identifier("SalesOrderItems", position: 0), .key([SyntaxKeyValue(value: literal(.string("1"), "'1'"))], position: 15)], "invalidKeyPredicate"),
            ([.identifier("Products", position: 0), .count(position: 9), .ref(position: 16)], "invalidResourcePath"),
            ([.identifier("Products", position: 0), .key([SyntaxKeyValue(value: SyntaxExpr(.null, at: 9))], position: 8)], "invalidKeyPredicate"),
            ([.identifier("Products", position: 0), .function("Ns.Fn", parameters: [], position: 9)], "notSupported"),
            ([.identifier("Products", position: 0), .key([SyntaxKeyValue(value: SyntaxExpr(.alias("missing"), at: 9))], position: 8)], "invalidKeyPredicate"),
        ]
        for (segments, name) in cases {
            do {
                _ = try bind(segments)
                Issue.record("accepted \(segments)")
            } catch let error as ODataError {
                #expect(error.name == name, "\(segments): \(error)")
                #expect(error.location?.contains("position") == true)
            }
        }
    }
}
