/// Error code ranges owned by the store layer (docs/Errors.md, "Store"):
/// - 3000–3099 entity storage, indexes and the catalog,
/// - 3100–3199 the local OData service (requests, ETags, constraints),
/// - 3200–3299 request queue, ErrorArchive, EventLog, defining queries and download apply.
public enum StoreErrorCodes {
    public static let storageRange = 3000...3099
    public static let serviceRange = 3100...3199
    public static let queueRange = 3200...3299
}
