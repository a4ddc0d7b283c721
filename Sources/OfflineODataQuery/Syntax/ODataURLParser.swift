import OfflineODataModel

/// The OData 4.01 URL parser: request text → untyped syntax tree (docs/Query.md §1). No service
/// model is used; names are resolved by the binder.
///
/// `parse`, `parseResourcePath` and `parseQueryOptions` take text as written in a URL
/// (percent-encoded); the single-option functions (`parseFilter`, …) take an option value that
/// is already percent-decoded. Errors are `ODataError`s with codes 1600–1649 (or the model's
/// literal codes 1300–1309 for malformed literals) and a location such as
/// `"$filter, position 12"`: a 0-based UTF-8 offset in the decoded option value.
public enum ODataURLParser {
    /// A request URL relative to the service root: `Set?…`, `/Set…`, `Set(1)/Nav?$filter=…`.
    /// `version: .v2` (a V2 service) also reads V2's literals (`guid'…'`, `datetime'…'`, `2000M`).
    public static func parse(_ relativeURL: String, version: ODataVersion = .v4) throws(ODataError) -> SyntaxURL {
        var text = Substring(relativeURL)
        if text.first == "/" { text = text.dropFirst() }
        guard let question = text.firstIndex(of: "?") else {
            return SyntaxURL(path: try ResourcePathParser.parse(String(text), version: version))
        }
        let path = try ResourcePathParser.parse(String(text[..<question]), version: version)
        let options = try QueryOptionsParser.parse(String(text[text.index(after: question)...]), version: version)
        return SyntaxURL(path: path, options: options)
    }

    /// A resource path as written (`Customers('A%2FB')/Orders`).
    public static func parseResourcePath(_ path: String) throws(ODataError) -> SyntaxResourcePath {
        var text = Substring(path)
        if text.first == "/" { text = text.dropFirst() }
        return try ResourcePathParser.parse(String(text))
    }

    /// The query part as written (without `?`): split at `&`, each option at its first `=`,
    /// names and values percent-decoded once, then parsed.
    public static func parseQueryOptions(_ query: String) throws(ODataError) -> SyntaxQueryOptions {
        try QueryOptionsParser.parse(query)
    }

    /// A `$filter` value (decoded), also any other common expression.
    public static func parseFilter(_ text: String) throws(ODataError) -> SyntaxExpr {
        try parseWhole(text, option: "$filter") { (parser: inout SyntaxParser) throws(ODataError) in try parser.parseExpression() }
    }

    /// A `$orderby` value (decoded).
    public static func parseOrderBy(_ text: String) throws(ODataError) -> [SyntaxOrderItem] {
        try option("orderby", text).orderBy ?? []
    }

    /// A `$select` value (decoded).
    public static func parseSelect(_ text: String) throws(ODataError) -> [SyntaxSelectItem] {
        try option("select", text).select ?? []
    }

    /// A `$expand` value (decoded).
    public static func parseExpand(_ text: String) throws(ODataError) -> [SyntaxExpandItem] {
        try option("expand", text).expand ?? []
    }

    /// A `$search` value (decoded).
    public static func parseSearch(_ text: String) throws(ODataError) -> SyntaxSearch {
        guard let search = try option("search", text).search else {
            throw ODataError.syntax(.invalidSearch, "empty $search", option: "$search", position: 0)
        }
        return search
    }

    /// A `$compute` value (decoded).
    public static func parseCompute(_ text: String) throws(ODataError) -> [SyntaxComputeItem] {
        try option("compute", text).compute ?? []
    }

    private static func option(_ name: String, _ text: String) throws(ODataError) -> SyntaxQueryOptions {
        var options = SyntaxQueryOptions()
        var parser = SyntaxParser(text, option: "$" + name)
        try parser.parseOptionValue(name, display: "$" + name, into: &options, nested: false)
        guard parser.atEnd else { throw parser.unexpected("the end of $\(name)") }
        return options
    }

    private static func parseWhole<T>(
        _ text: String, option: String, _ body: (inout SyntaxParser) throws(ODataError) -> T
    ) throws(ODataError) -> T {
        var parser = SyntaxParser(text, option: option)
        let result = try body(&parser)
        guard parser.atEnd else { throw parser.unexpected("an operator or the end of \(option)") }
        return result
    }
}
