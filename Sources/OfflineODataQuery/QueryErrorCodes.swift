/// Error code ranges owned by the query layer (docs/Errors.md, "Query"):
/// - 1600–1649 URL and expression syntax (parser),
/// - 1650–1699 binding against the service model (unknown names, type mismatches),
/// - 1700–1749 evaluation (division by zero, bad function arguments at run time),
/// - 1750–1799 requests: resource paths, query options against the model, planning, paging and
///   skip tokens.
/// The store layer owns 3000–3999.
public enum QueryErrorCodes {
    public static let syntaxRange = 1600...1649
    public static let bindingRange = 1650...1699
    public static let evaluationRange = 1700...1749
    public static let planningRange = 1750...1799
}
