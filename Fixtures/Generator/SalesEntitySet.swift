/// The five entity sets of the generated sales service, in dependency order (a set only refers
/// to sets before it).
public enum SalesEntitySet: String, CaseIterable, Sendable, Hashable {
    case businessPartners = "BusinessPartners"
    case contacts = "Contacts"
    case products = "Products"
    case salesOrders = "SalesOrders"
    case salesOrderItems = "SalesOrderItems"

    /// The entity set name in the entity container (and in `$metadata#…` context URLs).
    public var name: String { rawValue }

    /// The unqualified entity type name.
    public var entityTypeName: String {
        switch self {
        case .businessPartners: "BusinessPartner"
        case .contacts: "Contact"
        case .products: "Product"
        case .salesOrders: "SalesOrder"
        case .salesOrderItems: "SalesOrderItem"
        }
    }

    /// The key property names, in `<Key>` order.
    public var keyProperties: [String] {
        switch self {
        case .businessPartners: ["BusinessPartnerID"]
        case .contacts: ["ContactGuid"]
        case .products: ["ProductID"]
        case .salesOrders: ["SalesOrderID"]
        case .salesOrderItems: ["SalesOrderID", "ItemPosition"]
        }
    }

    /// A small constant that separates the random streams of the sets.
    var streamTag: UInt64 {
        switch self {
        case .businessPartners: 0xB0
        case .contacts: 0xC0
        case .products: 0xD0
        case .salesOrders: 0xE0
        case .salesOrderItems: 0xF0
        }
    }
}
