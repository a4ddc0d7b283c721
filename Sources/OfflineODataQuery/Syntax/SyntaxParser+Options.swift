import OfflineODataModel

/// System query option values (URL Conventions §5.1) and nested options in `( … )` after
/// `$expand`/`$select` items and `/$count` (separated by raw `;`; docs/Query.md §1.4).
extension SyntaxParser {
    /// Where a nested option list appears; decides which options it may hold (URL Conventions §5.1).
    enum NestedContext: Sendable {
        /// After `/$count` (in `$expand` or in an expression): `$filter`, `$search`.
        case countSegment
        /// After `/$ref` in `$expand`: also `$orderby`, `$skip`, `$top`, `$count`.
        case expandRef
        /// A plain `$expand` item: everything but `$skiptoken`-like options, with `$levels`.
        case expand
        /// A `$select` item: like `expand` without `$expand` and `$levels`.
        case select

        func allows(_ name: String) -> Bool {
            switch name {
            case "filter", "search": return true
            case "orderby", "skip", "top", "count": return self != .countSegment
            case "select", "compute": return self == .expand || self == .select
            case "expand", "levels": return self == .expand
            default: return false
            }
        }

        var label: String {
            switch self {
            case .countSegment: return "after /$count"
            case .expandRef: return "after /$ref"
            case .expand: return "in an $expand item"
            case .select: return "in a $select item"
            }
        }
    }

    /// System options whose names are known (lower case, without `$`).
    static let systemOptionNames: Set<String> = [
        "filter", "search", "orderby", "top", "skip", "count", "select", "expand", "levels", "compute",
        "skiptoken", "deltatoken", "format", "schemaversion", "index", "id", "apply",
    ]

    /// `( option ; option … )` at the cursor.
    mutating func parseNestedOptions(_ context: NestedContext) throws(ODataError) -> SyntaxQueryOptions {
        try expect("(")
        try enter()
        defer { leave() }
        var options = SyntaxQueryOptions()
        var seen = Set<String>()
        repeat {
            let nameStart = pos
            if take("@") {
                guard let alias = scanIdentifier() else { throw unexpected("an alias name after '@'") }
                try expect("=", "'=' after @\(alias)")
                guard options.aliases[alias] == nil else {
                    throw error(.duplicateQueryOption, "alias @\(alias) is given twice", at: nameStart)
                }
                options.aliases[alias] = try parseExpression()
                continue
            }
            _ = take("$")
            guard let name = scanIdentifier() else { throw unexpected("a query option name") }
            let key = name.lowercased()
            guard current == UInt8(ascii: "=") else { throw unexpected("'=' after \(name)") }
            guard Self.systemOptionNames.contains(key) else {
                throw error(.invalidNestedOption, "unknown nested option \(text(nameStart..<pos))", at: nameStart)
            }
            guard context.allows(key) else {
                throw error(.invalidNestedOption, "\(text(nameStart..<pos)) is not allowed \(context.label)", at: nameStart)
            }
            guard seen.insert(key).inserted else {
                throw error(.duplicateQueryOption, "\(text(nameStart..<pos)) is given twice", at: nameStart)
            }
            pos += 1
            try parseOptionValue(key, display: text(nameStart..<pos - 1), into: &options, nested: true)
        } while takeRawSemicolon()
        try expect(")", "';' or ')' after a nested option")
        return options
    }

    /// `,` and optional whitespace after it (peers write `Name asc, Shoe desc`).
    mutating func takeComma() -> Bool {
        guard take(",") else { return false }
        skipWhitespace()
        return true
    }

    mutating func takeRawSemicolon() -> Bool {
        guard isRawSemicolon(pos) else { return false }
        pos += 1
        return true
    }

    /// The value of system option `name` (lower case, no `$`) at the cursor. Top level: the
    /// caller checks that all text was used; nested: the value ends at a raw `;` or `)`.
    mutating func parseOptionValue(
        _ name: String, display: String, into options: inout SyntaxQueryOptions, nested: Bool
    ) throws(ODataError) {
        let start = pos
        switch name {
        case "filter":
            options.filter = try parseExpression()
        case "search":
            options.search = try parseSearchOption()
        case "orderby":
            options.orderBy = try parseOrderByItems()
        case "top":
            options.top = try parseNonNegativeInteger(display)
        case "skip":
            options.skip = try parseNonNegativeInteger(display)
        case "count":
            if keyword("true", at: pos) { pos += 4; options.count = true }
            else if keyword("false", at: pos) { pos += 5; options.count = false }
            else { throw error(.invalidQueryOptionValue, "\(display) takes true or false, not \(token(at: pos))") }
        case "select":
            // An empty top-level `$select=`/`$expand=` means "not given" (as odata.net reads it).
            if !(atEnd && !nested) { options.select = try parseSelectItems() }
        case "expand":
            if !(atEnd && !nested) { options.expand = try parseExpandItems() }
        case "levels":
            options.levels = try parseLevels()
        case "compute":
            options.compute = try parseComputeItems()
        default:
            let value = scanRawValue(nested: nested)
            guard !value.isEmpty || name == "schemaversion" else {
                throw error(.invalidQueryOptionValue, "\(display) needs a value", at: start)
            }
            switch name {
            case "skiptoken": options.skipToken = value
            case "deltatoken": options.deltaToken = value
            case "format":
                let lower = value.lowercased()
                guard ["json", "atom", "xml"].contains(lower) || value.contains("/") else {
                    throw error(.invalidQueryOptionValue,
                                "\(display) takes json, atom, xml or a media type (type/subtype), not '\(ODataError.syntaxClip(value))'",
                                at: start)
                }
                options.format = value
            case "apply":
                throw error(.unsupportedQueryOption, "\(display) (data aggregation) is not supported", at: start)
            default: options.otherSystemOptions[name] = value
            }
        }
    }

    /// Text up to the end (top level) or up to a raw `;` / unbalanced `)` (nested).
    private mutating func scanRawValue(nested: Bool) -> String {
        let start = pos
        var parens = 0
        while let c = current {
            if nested {
                if isRawSemicolon(pos) { break }
                if c == UInt8(ascii: "(") { parens += 1 }
                if c == UInt8(ascii: ")") { if parens == 0 { break }; parens -= 1 }
            }
            pos += 1
        }
        return text(start..<pos)
    }

    /// `$top`/`$skip`: 1*DIGIT, fitting an Int.
    mutating func parseNonNegativeInteger(_ display: String) throws(ODataError) -> Int {
        let start = pos
        var value = 0
        while let c = current, Self.isDigit(c) {
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(Int(c - UInt8(ascii: "0")))
            guard !o1, !o2 else {
                throw error(.invalidQueryOptionValue, "\(display) value \(token(at: start)) is too large", at: start)
            }
            value = sum
            pos += 1
        }
        guard pos > start, !isIdentifierChar(at: pos), current != UInt8(ascii: ".") else {
            throw error(.invalidQueryOptionValue, "\(display) takes a non-negative integer, not \(token(at: start))", at: start)
        }
        return value
    }

    /// `$levels`: a positive integer without leading zeros, or `max`.
    private mutating func parseLevels() throws(ODataError) -> SyntaxLevels {
        let start = pos
        if keyword("max", at: pos) { pos += 3; return .max }
        guard let first = current, Self.isDigit(first), first != UInt8(ascii: "0") else {
            throw error(.invalidQueryOptionValue,
                        "$levels takes a positive integer without leading zeros or max, not \(token(at: start))", at: start)
        }
        return .count(try parseNonNegativeInteger("$levels"))
    }

    /// `expr [asc|desc], …` (RWS before the direction may be a tab).
    private mutating func parseOrderByItems() throws(ODataError) -> [SyntaxOrderItem] {
        var items: [SyntaxOrderItem] = []
        repeat {
            let expression = try parseExpression()
            var descending = false
            var index = pos
            if isWhitespace(byte(at: index)) {
                while isWhitespace(byte(at: index)) { index += 1 }
                if keyword("asc", at: index) { pos = index + 3 }
                else if keyword("desc", at: index) { pos = index + 4; descending = true }
            }
            items.append(SyntaxOrderItem(expression: expression, descending: descending))
        } while takeComma()
        return items
    }

    /// `expr as Name, …`.
    private mutating func parseComputeItems() throws(ODataError) -> [SyntaxComputeItem] {
        var items: [SyntaxComputeItem] = []
        repeat {
            let expression = try parseExpression()
            guard skipWhitespace(), keyword("as", at: pos) else { throw unexpected("'as Name' after a computed expression") }
            pos += 2
            guard skipWhitespace() else { throw unexpected("the name of the computed property") }
            let aliasPosition = pos
            guard let alias = scanIdentifier() else { throw unexpected("the name of the computed property") }
            items.append(SyntaxComputeItem(expression: expression, alias: alias, aliasPosition: aliasPosition))
        } while takeComma()
        return items
    }
}
