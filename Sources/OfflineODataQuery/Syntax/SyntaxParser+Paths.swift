import OfflineODataModel

/// Member paths in expressions (URL Conventions §5.1.1.15): properties, type casts, key
/// predicates, bound functions, `$count`, `$filter(…)`, lambdas and annotations, separated by `/`.
///
/// Without the model, `Name(…)` is read as: `()` or `name=value` arguments → `.function`
/// (except right after `$root/`, where named values are a key), positional → member + `.key`.
/// A qualified name without parentheses is a `.typeCast`.
extension SyntaxParser {
    /// One member segment at the cursor, with its `(…)` parts.
    mutating func parseMemberSegment(_ segments: inout [SyntaxPathSegment], afterRoot: Bool) throws(ODataError) {
        let start = pos
        guard let name = scanQualifiedName() else { throw unexpected("a property or type name") }
        let qualified = name.contains(".")
        guard current == UInt8(ascii: "(") else {
            segments.append(qualified ? .typeCast(name, position: start) : .member(name, position: start))
            return
        }
        let parenStart = pos
        let arguments = try parseParenArguments()
        let named = arguments.contains { $0.name != nil }
        if arguments.isEmpty || (named && !(afterRoot && !qualified)) {
            segments.append(.function(name, parameters: arguments, position: start))
        } else {
            segments.append(qualified ? .typeCast(name, position: start) : .member(name, position: start))
            segments.append(.key(arguments, position: parenStart))
        }
        while current == UInt8(ascii: "(") {
            let keyStart = pos
            let key = try parseParenArguments()
            guard !key.isEmpty else { throw error(.invalidKeyPredicate, "empty key predicate '()'", at: keyStart) }
            segments.append(.key(key, position: keyStart))
        }
    }

    /// `( [name=]value, … )`: all named or one positional value.
    mutating func parseParenArguments() throws(ODataError) -> [SyntaxKeyValue] {
        let start = pos
        try expect("(")
        try enter()
        defer { leave() }
        skipWhitespace()
        var items: [SyntaxKeyValue] = []
        if take(")") { return items }
        while true {
            let itemStart = pos
            var name: String?
            if let identifier = scanIdentifier(), current == UInt8(ascii: "="), byte(at: pos + 1) != UInt8(ascii: "=") {
                name = identifier
                pos += 1
            } else {
                pos = itemStart
            }
            let value = try parseExpression()
            items.append(SyntaxKeyValue(name: name, value: value))
            skipWhitespace()
            if take(",") { skipWhitespace(); continue }
            try expect(")", "')' or ','")
            break
        }
        let namedCount = items.filter { $0.name != nil }.count
        if namedCount != 0 && namedCount != items.count {
            throw error(.invalidKeyPredicate, "mixed named and positional values in \(text(start..<pos))", at: start)
        }
        if namedCount == 0 && items.count > 1 {
            throw error(.invalidKeyPredicate,
                        "more than one positional value in \(text(start..<pos)); name them (Name=value)", at: start)
        }
        var seen = Set<String>()
        for item in items {
            if let name = item.name, !seen.insert(name).inserted {
                throw error(.invalidKeyPredicate, "'\(name)' appears twice in \(text(start..<pos))", at: start)
            }
        }
        return items
    }

    /// `/segment` repeated.
    mutating func parsePathTail(_ segments: inout [SyntaxPathSegment]) throws(ODataError) {
        while current == UInt8(ascii: "/") {
            pos += 1
            let start = pos
            if exactWord("$count", at: pos) {
                pos += 6
                var filter: SyntaxExpr?
                var search: SyntaxSearch?
                if current == UInt8(ascii: "(") {
                    let options = try parseNestedOptions(.countSegment)
                    filter = options.filter
                    search = options.search
                }
                segments.append(.count(filter: filter, search: search, position: start))
            } else if exactWord("$filter", at: pos) {
                segments.append(try parseFilterSegment())
                try parseKeysAfterFilter(&segments)
            } else if current == UInt8(ascii: "@") {
                pos += 1
                guard let name = scanAnnotationName() else { throw unexpected("an annotation name") }
                segments.append(.annotation(name, position: start))
            } else if (keyword("any", at: pos) || keyword("all", at: pos)), byte(at: pos + 3) == UInt8(ascii: "(") {
                segments.append(try parseLambda())
            } else if let c = current, Self.isIdentifierStart(c) {
                try parseMemberSegment(&segments, afterRoot: false)
            } else {
                throw unexpected("a path segment after '/'")
            }
        }
    }

    /// `$filter(boolCommonExpr)` (ABNF `filterExpr`; `$filter` is case-sensitive, `%s"/$filter"`).
    private mutating func parseFilterSegment() throws(ODataError) -> SyntaxPathSegment {
        let start = pos
        pos += 7
        guard current == UInt8(ascii: "(") else { throw unexpected("'(' after /$filter") }
        pos += 1
        try enter()
        defer { leave() }
        skipWhitespace()
        if current == UInt8(ascii: ")") { throw unexpected("a condition inside $filter(…)") }
        let condition = try parseExpression()
        skipWhitespace()
        try expect(")", "')' closing $filter(…)")
        return .filter(condition, position: start)
    }

    /// Key predicates right after `/$filter(…)` (`collectionNavNoCastExpr = filterExpr
    /// [ collectionNavigationExpr ]`): `(1)`, `(ID='x')`, `(A=1,B=2)` are keys, never
    /// function parameters.
    private mutating func parseKeysAfterFilter(_ segments: inout [SyntaxPathSegment]) throws(ODataError) {
        while current == UInt8(ascii: "(") {
            let keyStart = pos
            let key = try parseParenArguments()
            guard !key.isEmpty else { throw error(.invalidKeyPredicate, "empty key predicate '()'", at: keyStart) }
            segments.append(.key(key, position: keyStart))
        }
    }

    /// `any()`, `any(v: expr)`, `all(v: expr)` (names in any case).
    private mutating func parseLambda() throws(ODataError) -> SyntaxPathSegment {
        let start = pos
        let isAll = keyword("all", at: pos)
        pos += 4
        try enter()
        defer { leave() }
        skipWhitespace()
        if take(")") {
            if isAll { throw error(.invalidLambda, "all() needs a lambda expression: all(v: condition)", at: start) }
            return .any(variable: nil, predicate: nil, position: start)
        }
        guard let variable = scanIdentifier() else { throw unexpected("a lambda variable name") }
        skipWhitespace()
        try expect(":", "':' after the lambda variable")
        skipWhitespace()
        let predicate = try parseExpression()
        skipWhitespace()
        try expect(")", "')' closing the lambda")
        if isAll { return .all(variable: variable, predicate: predicate, position: start) }
        return .any(variable: variable, predicate: predicate, position: start)
    }
}
