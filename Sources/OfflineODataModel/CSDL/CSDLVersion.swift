/// The OData version of the metadata document a `ServiceModel` was read from.
public enum CSDLVersion: String, Sendable, Hashable, CaseIterable {
    /// EDMX 1.0 with the 2006/04, 2007/05 or 2008/09 EDM namespaces (OData 1.0–3.0).
    case v2
    /// EDMX 4.0 with `http://docs.oasis-open.org/odata/ns/edm` (OData 4.0/4.01).
    case v4
}

/// Namespace URIs the readers recognise.
public enum CSDLNamespaces {
    public static let edmxV4 = "http://docs.oasis-open.org/odata/ns/edmx"
    public static let edmV4 = "http://docs.oasis-open.org/odata/ns/edm"
    public static let edmxV2 = "http://schemas.microsoft.com/ado/2007/06/edmx"
    public static let edmV2 = [
        "http://schemas.microsoft.com/ado/2008/09/edm",
        "http://schemas.microsoft.com/ado/2007/05/edm",
        "http://schemas.microsoft.com/ado/2006/04/edm",
        "http://schemas.microsoft.com/ado/2009/11/edm",
    ]
    public static let metadataV2 = "http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"
    public static let sap = "http://www.sap.com/Protocols/SAPData"
    /// Entity Framework's annotation namespace (`StoreGeneratedPattern`, as Northwind writes it).
    public static let entityFrameworkAnnotation = "http://schemas.microsoft.com/ado/2009/02/edm/annotation"
}
