import OfflineODataModel

/// Canonical text of whole URLs and query options: path segments joined by `/`, options in a
/// fixed order (`$filter`, `$search`, `$orderby`, `$top`, `$skip`, `$count`, `$select`,
/// `$expand`, `$levels`, `$compute`, `$skiptoken`, `$deltatoken`, `$format`, other system
/// options by name, aliases by name, custom options in order), values not percent-encoded.
extension SyntaxPrinter {
    public static func print(_ url: SyntaxURL) -> String {
        let path = print(url.path)
        let options = optionList(url.options)
        return options.isEmpty ? path : path + "?" + options.joined(separator: "&")
    }

    /// The URL as a link a client can send back (`@odata.nextLink`): as `print(_:)`, with the
    /// path and every option value percent-encoded, so a value holding `&`, `#`, `%`, `+` or a
    /// space does not split or end its option when the link is followed.
    public static func printLink(_ url: SyntaxURL) -> String {
        let path = URLPercentEncoding.resourcePath(print(url.path))
        let options = optionList(url.options).map { part -> String in
            guard let equals = part.firstIndex(of: "=") else { return URLPercentEncoding.queryValue(part) }
            let name = String(part[..<equals]), value = String(part[part.index(after: equals)...])
            let nested = name == "$expand" || name == "$select"
            return name + "=" + (nested ? URLPercentEncoding.nestedQueryValue(value) : URLPercentEncoding.queryValue(value))
        }
        return options.isEmpty ? path : path + "?" + options.joined(separator: "&")
    }

    public static func print(_ path: SyntaxResourcePath) -> String {
        var out = ""
        for segment in path.segments {
            if case .key(let values, _) = segment {
                writeArguments(values, to: &out)
                continue
            }
            if !out.isEmpty { out += "/" }
            switch segment {
            case .identifier(let name, _), .typeCast(let name, _): out += name
            case .key: break
            case .function(let name, let parameters, _):
                out += name
                writeArguments(parameters, to: &out)
            case .filter(let expr, _): out += "$filter(" + print(expr) + ")"
            case .count: out += "$count"
            case .ref: out += "$ref"
            case .value: out += "$value"
            case .system(let name, _): out += "$" + name
            }
        }
        return out
    }

    /// The options as `name=value` strings, nested options included.
    public static func optionList(_ options: SyntaxQueryOptions) -> [String] {
        var parts: [String] = []
        if let filter = options.filter { parts.append("$filter=" + print(filter)) }
        if let search = options.search { parts.append("$search=" + print(search)) }
        if let orderBy = options.orderBy {
            parts.append("$orderby=" + orderBy.map { print($0.expression) + ($0.descending ? " desc" : " asc") }.joined(separator: ","))
        }
        if let top = options.top { parts.append("$top=\(top)") }
        if let skip = options.skip { parts.append("$skip=\(skip)") }
        if let count = options.count { parts.append("$count=\(count)") }
        if let select = options.select { parts.append("$select=" + select.map(print).joined(separator: ",")) }
        if let expand = options.expand { parts.append("$expand=" + expand.map(print).joined(separator: ",")) }
        if let levels = options.levels {
            switch levels {
            case .count(let n): parts.append("$levels=\(n)")
            case .max: parts.append("$levels=max")
            }
        }
        if let compute = options.compute {
            parts.append("$compute=" + compute.map { print($0.expression) + " as " + $0.alias }.joined(separator: ","))
        }
        if let token = options.skipToken { parts.append("$skiptoken=" + token) }
        if let token = options.deltaToken { parts.append("$deltatoken=" + token) }
        if let format = options.format { parts.append("$format=" + format) }
        for (name, value) in options.otherSystemOptions.sorted(by: { $0.key < $1.key }) { parts.append("$\(name)=\(value)") }
        for (name, value) in options.aliases.sorted(by: { $0.key < $1.key }) { parts.append("@\(name)=" + print(value)) }
        for custom in options.customOptions { parts.append(custom.name + "=" + custom.value) }
        return parts
    }

    public static func print(_ item: SyntaxSelectItem) -> String {
        switch item {
        case .star: return "*"
        case .allOperations(let namespace, _): return namespace + ".*"
        case .path(let segments, let options, _):
            var out = segments.map { segment -> String in
                // In $select a function segment carries parameter names only.
                guard case .function(let name, let parameters, _) = segment else { return segmentText(segment) }
                return name + "(" + parameters.compactMap(\.name).joined(separator: ",") + ")"
            }.joined(separator: "/")
            if let options { out += nested(options) }
            return out
        }
    }

    public static func print(_ item: SyntaxExpandItem) -> String {
        var out: String
        switch item.target {
        case .star: out = "*"
        case .value: out = "$value"
        case .path(let segments): out = segments.map(segmentText).joined(separator: "/")
        }
        switch item.suffix {
        case .none: break
        case .ref: out += "/$ref"
        case .count: out += "/$count"
        }
        if item.options != SyntaxQueryOptions() { out += nested(item.options) }
        return out
    }

    private static func segmentText(_ segment: SyntaxPathSegment) -> String {
        var out = ""
        write(segment, to: &out)
        return out
    }

    private static func nested(_ options: SyntaxQueryOptions) -> String {
        "(" + optionList(options).joined(separator: ";") + ")"
    }
}
