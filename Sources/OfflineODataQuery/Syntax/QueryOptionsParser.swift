import OfflineODataModel

/// The query part of a URL (URL §5): options split at `&`, each at its first `=`,
/// name and value percent-decoded once. System option names are case-insensitive with an
/// optional `$`; each may appear once (any spelling). `@name=value` is a parameter alias
/// (value parsed as an expression); other names are custom options.
enum QueryOptionsParser {
    static func parse(_ query: String, version: ODataVersion = .v4) throws(ODataError) -> SyntaxQueryOptions {
        var options = SyntaxQueryOptions()
        var seen: [String: String] = [:]
        let raw = Array(query.utf8)
        if let hash = raw.firstIndex(of: UInt8(ascii: "#")) {
            throw ODataError.syntax(.urlSyntaxError, "an unencoded '#' in the query (write %23)",
                                    option: "query", position: hash)
        }
        for part in raw.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = part.firstIndex(of: UInt8(ascii: "="))
            let rawName = part[part.startIndex..<(equals ?? part.endIndex)]
            let name = String(decoding: try PercentDecoded(rawName, label: "query option name").bytes, as: UTF8.self)
            let label = name.isEmpty ? "query option" : name
            let value = try equals.map { (index: Int) throws(ODataError) -> PercentDecoded in
                try PercentDecoded(part[(index + 1)...], label: label)
            }
            guard !name.isEmpty else {
                throw ODataError.syntax(.urlSyntaxError, "a query option without a name ('\(ODataError.syntaxClip(String(decoding: part, as: UTF8.self)))')",
                                        option: "query", position: 0)
            }
            if name.hasPrefix("@") {
                try parseAlias(name, value, into: &options, version: version)
                continue
            }
            let lower = name.lowercased()
            let key = lower.hasPrefix("$") ? String(lower.dropFirst()) : lower
            guard name.hasPrefix("$") || SyntaxParser.systemOptionNames.contains(key) else {
                options.customOptions.append(SyntaxCustomOption(
                    name: name, value: value.map { String(decoding: $0.bytes, as: UTF8.self) } ?? ""))
                continue
            }
            if version == .v2, key == "inlinecount" {
                // V2's $inlinecount=allpages|none is V4's $count=true|false.
                let text = value.map { String(decoding: $0.bytes, as: UTF8.self) } ?? ""
                guard text == "allpages" || text == "none", seen["count"] == nil else {
                    throw ODataError.syntax(.invalidQueryOptionValue, "$inlinecount takes allpages or none (and not beside $count), not '\(ODataError.syntaxClip(text))'",
                                            option: name, position: 0)
                }
                seen["count"] = name
                options.count = text == "allpages"
                continue
            }
            try checkSystemName(name, key: key)
            if let previous = seen[key] {
                throw ODataError.syntax(.duplicateQueryOption,
                                        "query option \(name) is given twice (also as \(previous))",
                                        option: name, position: 0)
            }
            seen[key] = name
            guard let value else {
                throw ODataError.syntax(.invalidQueryOptionValue, "query option \(name) needs '=' and a value",
                                        option: name, position: name.utf8.count)
            }
            var parser = SyntaxParser(value.bytes, option: name, encodedSemicolons: value.encodedSemicolons, version: version)
            try parser.parseOptionValue(key, display: name, into: &options, nested: false)
            guard parser.atEnd else { throw parser.unexpected("an operator or the end of \(name)") }
        }
        return options
    }

    private static func checkSystemName(_ name: String, key: String) throws(ODataError) {
        let validName = !key.isEmpty && key.utf8.allSatisfy { SyntaxParser.isIdentifierChar($0) }
        guard validName else {
            throw ODataError.syntax(.urlSyntaxError, "invalid query option name '\(ODataError.syntaxClip(name))'",
                                    option: "query", position: 0)
        }
        guard SyntaxParser.systemOptionNames.contains(key) else {
            throw ODataError.syntax(.unsupportedQueryOption, "unknown system query option \(name)",
                                    option: name, position: 0)
        }
        if key == "levels" {
            throw ODataError.syntax(.invalidNestedOption, "\(name) is allowed only inside an $expand item",
                                    option: name, position: 0)
        }
    }

    private static func parseAlias(_ name: String, _ value: PercentDecoded?, into options: inout SyntaxQueryOptions,
                                   version: ODataVersion) throws(ODataError) {
        let alias = String(name.dropFirst())
        guard let first = alias.utf8.first, SyntaxParser.isIdentifierStart(first),
              alias.utf8.allSatisfy({ SyntaxParser.isIdentifierChar($0) }) else {
            throw ODataError.syntax(.urlSyntaxError, "invalid parameter alias name '\(ODataError.syntaxClip(name))'",
                                    option: "query", position: 0)
        }
        guard options.aliases[alias] == nil else {
            throw ODataError.syntax(.duplicateQueryOption, "parameter alias \(name) is given twice", option: name, position: 0)
        }
        guard let value else { return }  // no value: absent, evaluates to null
        var parser = SyntaxParser(value.bytes, option: name, encodedSemicolons: value.encodedSemicolons, version: version)
        let expression = try parser.parseExpression()
        guard parser.atEnd else { throw parser.unexpected("an operator or the end of \(name)") }
        options.aliases[alias] = expression
    }
}
