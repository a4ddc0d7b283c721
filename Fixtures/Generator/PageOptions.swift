/// How `SalesServiceGenerator.page` and `entityJSON` render their payloads.
public struct PageOptions: Sendable, Hashable {
    /// Add `"@odata.count"` (the size of the whole set) before `value`.
    public var includeCount: Bool
    /// Add a weak `"@odata.etag"` to every entity: `W/"<16 hex digits>"`, the FNV-1a hash of
    /// the entity's JSON, so it changes exactly when the entity's content does.
    public var includeETags: Bool
    /// Write `Edm.Decimal` values as JSON strings (`"1234.500"`), as with `IEEE754Compatible=true`;
    /// otherwise as JSON numbers with their full scale (`1234.500`).
    public var ieee754Compatible: Bool
    /// Prefixed to the context URL and the next link (e.g. `https://host/sap/opu/odata4/sales/`).
    /// Empty keeps both relative: `$metadata#SalesOrders`, `SalesOrders?$skiptoken=500`.
    public var serviceRoot: String

    public init(
        includeCount: Bool = false, includeETags: Bool = false, ieee754Compatible: Bool = false,
        serviceRoot: String = ""
    ) {
        self.includeCount = includeCount
        self.includeETags = includeETags
        self.ieee754Compatible = ieee754Compatible
        self.serviceRoot = serviceRoot
    }
}
