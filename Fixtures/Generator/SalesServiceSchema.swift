/// The declared shape of the generated service: every structural and navigation property of
/// every entity type, in the order the JSON payloads write them. `metadataXML()` renders it.
public enum SalesServiceSchema {
    /// The schema namespace.
    public static let namespace = "EPM.Sales"
    /// The entity container name.
    public static let containerName = "SalesService"

    /// One structural property with its facets.
    public struct Property: Sendable, Hashable {
        public let name: String
        /// `Edm.String`, `Edm.Decimal`, …, or the qualified complex type name.
        public let type: String
        public let nullable: Bool
        public let maxLength: Int?
        public let precision: Int?
        public let scale: Int?

        init(_ name: String, _ type: String, nullable: Bool = false, maxLength: Int? = nil,
             precision: Int? = nil, scale: Int? = nil) {
            self.name = name
            self.type = type
            self.nullable = nullable
            self.maxLength = maxLength
            self.precision = precision
            self.scale = scale
        }
    }

    /// One navigation property: its target, cardinality, partner and referential constraints
    /// (dependent property → principal property) when this side holds the foreign key.
    public struct Navigation: Sendable, Hashable {
        public let name: String
        public let target: SalesEntitySet
        public let isCollection: Bool
        public let partner: String
        public let constraints: [Constraint]
    }

    public struct Constraint: Sendable, Hashable {
        public let property: String
        public let referencedProperty: String
    }

    static func string(_ name: String, _ maxLength: Int, nullable: Bool = false) -> Property {
        Property(name, "Edm.String", nullable: nullable, maxLength: maxLength)
    }

    static func decimal(_ name: String, _ precision: Int, nullable: Bool = false) -> Property {
        Property(name, "Edm.Decimal", nullable: nullable, precision: precision, scale: 3)
    }

    static func timestamp(_ name: String) -> Property {
        Property(name, "Edm.DateTimeOffset", precision: 3)
    }

    /// The `Address` complex type.
    public static let addressProperties: [Property] = [
        string("City", 40), string("PostalCode", 10), string("Street", 60), string("Building", 10),
        string("Country", 3), string("AddressType", 2),
    ]

    static let address = Property("Address", namespace + ".Address")

    /// The structural properties of the entity type of `set`, in payload order.
    public static func properties(of set: SalesEntitySet) -> [Property] {
        switch set {
        case .businessPartners:
            [
                string("BusinessPartnerID", 10), string("CompanyName", 80), string("EmailAddress", 255),
                string("PhoneNumber", 30, nullable: true), string("CurrencyCode", 5),
                string("BusinessPartnerRole", 3), address, timestamp("CreatedAt"),
            ]
        case .contacts:
            [
                Property("ContactGuid", "Edm.Guid"), string("BusinessPartnerID", 10), string("FirstName", 40),
                string("MiddleName", 40, nullable: true), string("LastName", 40), string("Sex", 1),
                string("PhoneNumber", 30), string("EmailAddress", 255),
                Property("DateOfBirth", "Edm.Date", nullable: true), address,
            ]
        case .products:
            [
                string("ProductID", 10), string("TypeCode", 2), string("Category", 40), string("Name", 255),
                string("Description", 255, nullable: true), string("SupplierID", 10),
                Property("TaxTarifCode", "Edm.Byte"), string("MeasureUnit", 3), decimal("WeightMeasure", 13),
                string("WeightUnit", 3), string("CurrencyCode", 5), decimal("Price", 16),
                decimal("Width", 13, nullable: true), decimal("Depth", 13, nullable: true),
                decimal("Height", 13, nullable: true), string("DimUnit", 3, nullable: true), timestamp("CreatedAt"),
            ]
        case .salesOrders:
            [
                string("SalesOrderID", 10), string("Note", 255, nullable: true), string("CustomerID", 10),
                string("CustomerName", 80), string("CurrencyCode", 5), decimal("GrossAmount", 16),
                decimal("NetAmount", 16), decimal("TaxAmount", 16), string("LifecycleStatus", 1),
                string("BillingStatus", 1), string("DeliveryStatus", 1), timestamp("CreatedAt"),
                timestamp("ChangedAt"), Property("DeliveryDate", "Edm.Date"),
            ]
        case .salesOrderItems:
            [
                string("SalesOrderID", 10), string("ItemPosition", 10), string("ProductID", 10),
                string("Note", 255, nullable: true), string("CurrencyCode", 5), decimal("GrossAmount", 16),
                decimal("NetAmount", 16), decimal("TaxAmount", 16), decimal("Quantity", 13),
                string("QuantityUnit", 3), Property("DeliveryDate", "Edm.Date"),
            ]
        }
    }

    static func many(_ name: String, _ target: SalesEntitySet, partner: String) -> Navigation {
        Navigation(name: name, target: target, isCollection: true, partner: partner, constraints: [])
    }

    static func one(_ name: String, _ target: SalesEntitySet, partner: String, _ property: String,
                    _ referenced: String) -> Navigation {
        Navigation(
            name: name, target: target, isCollection: false, partner: partner,
            constraints: [Constraint(property: property, referencedProperty: referenced)])
    }

    /// The navigation properties of the entity type of `set`.
    public static func navigations(of set: SalesEntitySet) -> [Navigation] {
        switch set {
        case .businessPartners:
            [
                many("ToContacts", .contacts, partner: "ToBusinessPartner"),
                many("ToProducts", .products, partner: "ToSupplier"),
                many("ToSalesOrders", .salesOrders, partner: "ToCustomer"),
            ]
        case .contacts:
            [one("ToBusinessPartner", .businessPartners, partner: "ToContacts", "BusinessPartnerID", "BusinessPartnerID")]
        case .products:
            [
                one("ToSupplier", .businessPartners, partner: "ToProducts", "SupplierID", "BusinessPartnerID"),
                many("ToSalesOrderItems", .salesOrderItems, partner: "ToProduct"),
            ]
        case .salesOrders:
            [
                one("ToCustomer", .businessPartners, partner: "ToSalesOrders", "CustomerID", "BusinessPartnerID"),
                many("ToItems", .salesOrderItems, partner: "ToSalesOrder"),
            ]
        case .salesOrderItems:
            [
                one("ToSalesOrder", .salesOrders, partner: "ToItems", "SalesOrderID", "SalesOrderID"),
                one("ToProduct", .products, partner: "ToSalesOrderItems", "ProductID", "ProductID"),
            ]
        }
    }
}
