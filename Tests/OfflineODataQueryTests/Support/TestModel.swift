import OfflineODataModel
@testable import OfflineODataQuery

/// A small service model for binder and evaluator tests:
/// - `Ns.Product` (set `Products`): ID Int32 key, Name String, Price Decimal, Rating Int16,
///   Weight Double, Stock Int64, Small Byte, Released Date, Updated DateTimeOffset,
///   Opens TimeOfDay, Shelf Duration, Active Boolean, Color `Ns.Color`, Access `Ns.Access`
///   (flags), Tags Collection(String), Scores Collection(Int32), Address `Ns.Address`,
///   Addresses Collection(Ns.Address), Photo Binary; navigation Category (single, set
///   Categories), Orders (collection, set Orders).
/// - `Ns.SpecialProduct` derives from Product and adds Discount Int32.
/// - `Ns.Order` (set `Orders`): OrderID Int32, Amount Decimal, Quantity Int32, Product (single).
/// - `Ns.Category` (set `Categories`): ID Int32, Name String, Products (collection).
/// - `Ns.Bag` (set `Bags`, open): ID Int32.
enum TestModel {
    static func property(_ name: String, _ kind: EdmPrimitiveKind, collection: Bool = false) -> CSDLProperty {
        CSDLProperty(name: name, type: CSDLTypeReference(kind: .primitive(kind), isCollection: collection))
    }

    static let model: ServiceModel = {
        let address = CSDLComplexType(name: "Address", namespace: "Ns", properties: [
            property("Street", .string), property("City", .string), property("Zip", .int32),
        ])
        let product = CSDLEntityType(
            name: "Product", namespace: "Ns", key: [CSDLPropertyRef(name: "ID")],
            properties: [
                property("ID", .int32), property("Name", .string), property("Price", .decimal),
                property("Rating", .int16), property("Weight", .double), property("Stock", .int64),
                property("Small", .byte), property("Released", .date), property("Updated", .dateTimeOffset),
                property("Opens", .timeOfDay), property("Shelf", .duration), property("Active", .boolean),
                CSDLProperty(name: "Color", type: CSDLTypeReference(kind: .enumeration("Ns.Color"))),
                CSDLProperty(name: "Access", type: CSDLTypeReference(kind: .enumeration("Ns.Access"))),
                property("Tags", .string, collection: true), property("Scores", .int32, collection: true),
                CSDLProperty(name: "Address", type: CSDLTypeReference(kind: .complex("Ns.Address"))),
                CSDLProperty(name: "Addresses", type: CSDLTypeReference(kind: .complex("Ns.Address"), isCollection: true)),
                property("Photo", .binary),
            ],
            navigationProperties: [
                CSDLNavigationProperty(name: "Category", targetType: "Ns.Category", isCollection: false),
                CSDLNavigationProperty(name: "Orders", targetType: "Ns.Order", isCollection: true),
            ])
        let special = CSDLEntityType(name: "SpecialProduct", namespace: "Ns", baseType: "Ns.Product",
                                     properties: [property("Discount", .int32)])
        let order = CSDLEntityType(
            name: "Order", namespace: "Ns", key: [CSDLPropertyRef(name: "OrderID")],
            properties: [property("OrderID", .int32), property("Amount", .decimal), property("Quantity", .int32)],
            navigationProperties: [CSDLNavigationProperty(name: "Product", targetType: "Ns.Product", isCollection: false)])
        let category = CSDLEntityType(
            name: "Category", namespace: "Ns", key: [CSDLPropertyRef(name: "ID")],
            properties: [property("ID", .int32), property("Name", .string)],
            navigationProperties: [CSDLNavigationProperty(name: "Products", targetType: "Ns.Product", isCollection: true)])
        let bag = CSDLEntityType(name: "Bag", namespace: "Ns", key: [CSDLPropertyRef(name: "ID")], isOpen: true,
                                 properties: [property("ID", .int32)])
        let color = CSDLEnumType(name: "Color", namespace: "Ns", members: [
            CSDLEnumMember(name: "Red", value: 0), CSDLEnumMember(name: "Green", value: 1), CSDLEnumMember(name: "Blue", value: 2),
        ])
        let access = CSDLEnumType(name: "Access", namespace: "Ns", isFlags: true, members: [
            CSDLEnumMember(name: "None", value: 0), CSDLEnumMember(name: "Read", value: 1),
            CSDLEnumMember(name: "Write", value: 2), CSDLEnumMember(name: "Delete", value: 4),
        ])
        let container = CSDLEntityContainer(name: "Container", namespace: "Ns", entitySets: [
            CSDLEntitySet(name: "Products", entityType: "Ns.Product", navigationPropertyBindings: [
                CSDLNavigationPropertyBinding(path: "Category", target: "Categories"),
                CSDLNavigationPropertyBinding(path: "Orders", target: "Orders"),
            ]),
            CSDLEntitySet(name: "Orders", entityType: "Ns.Order", navigationPropertyBindings: [
                CSDLNavigationPropertyBinding(path: "Product", target: "Products"),
            ]),
            CSDLEntitySet(name: "Categories", entityType: "Ns.Category", navigationPropertyBindings: [
                CSDLNavigationPropertyBinding(path: "Products", target: "Products"),
            ]),
            CSDLEntitySet(name: "Bags", entityType: "Ns.Bag"),
        ])
        let schema = CSDLSchema(namespace: "Ns", entityTypes: [product, special, order, category, bag],
                                complexTypes: [address], enumTypes: [color, access], entityContainers: [container])
        return ServiceModel(version: .v4, schemas: [schema])
    }()

    static func binder(_ set: String = "Products", aliases: [String: SyntaxExpr] = [:]) throws -> ExpressionBinder {
        try ExpressionBinder(model: model, entityType: set, aliases: aliases)
    }
}

/// Shorthands for hand-built syntax trees (positions count up so errors can be checked).
enum S {
    static func prop(_ names: String..., at position: Int = 0) -> SyntaxExpr {
        SyntaxExpr(.path(SyntaxPath(segments: names.enumerated().map { .member($0.element, position: position + $0.offset) })), at: position)
    }
    static func path(_ segments: [SyntaxPathSegment], root: SyntaxPathRoot = .implicit, at position: Int = 0) -> SyntaxExpr {
        SyntaxExpr(.path(SyntaxPath(root: root, segments: segments)), at: position)
    }
    static func lit(_ value: ODataValue, at position: Int = 0) -> SyntaxExpr {
        SyntaxExpr(.literal(value, text: (try? value.literal()) ?? "?"), at: position)
    }
    static func int(_ v: Int32, at position: Int = 0) -> SyntaxExpr { lit(.int32(v), at: position) }
    static func str(_ v: String, at position: Int = 0) -> SyntaxExpr { lit(.string(v), at: position) }
    static func dec(_ text: String, at position: Int = 0) -> SyntaxExpr {
        lit((try? ODataValue.parseLiteral(text, as: .decimal)) ?? .null, at: position)
    }
    static func dbl(_ v: Double, at position: Int = 0) -> SyntaxExpr { lit(.double(v), at: position) }
    static func bool(_ v: Bool, at position: Int = 0) -> SyntaxExpr { lit(.boolean(v), at: position) }
    static let null = SyntaxExpr(.null, at: 0)
    static func bin(_ op: SyntaxBinaryOperator, _ l: SyntaxExpr, _ r: SyntaxExpr, at position: Int = 0) -> SyntaxExpr {
        SyntaxExpr(.binary(op, l, r), at: position)
    }
    static func not(_ e: SyntaxExpr) -> SyntaxExpr { SyntaxExpr(.unary(.not, e), at: 0) }
    static func neg(_ e: SyntaxExpr) -> SyntaxExpr { SyntaxExpr(.unary(.negate, e), at: 0) }
    static func call(_ name: String, _ args: SyntaxExpr..., at position: Int = 0) -> SyntaxExpr {
        SyntaxExpr(.call(name: name, arguments: args), at: position)
    }
    static func list(_ items: SyntaxExpr...) -> SyntaxExpr { SyntaxExpr(.list(items), at: 0) }
    static func type(_ name: String, at position: Int = 0) -> SyntaxExpr { SyntaxExpr(.typeName(name), at: position) }
}
