import OfflineODataModel

/// Primary expressions: literals, grouping and lists, JSON, aliases, `$it`/`$this`/`$root`,
/// canonical function calls, `case(…)`, and member paths (docs/Query.md §1.3).
extension SyntaxParser {
    mutating func parsePrimary(listAllowed: Bool = false) throws(ODataError) -> SyntaxExpr {
        guard let c = current else { throw unexpected("an expression") }
        let start = pos
        switch c {
        case UInt8(ascii: "("):
            return try parseParenthesised(listAllowed: listAllowed)
        case UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: "\""):
            return try parseJSONLiteral()
        case UInt8(ascii: "'"):
            return try parseQuotedLiteral(prefixStart: start)
        case UInt8(ascii: "@"):
            return try parseAtExpression()
        case UInt8(ascii: "$"):
            return try parseVariablePath()
        case UInt8(ascii: "-"), UInt8(ascii: "+"):
            guard startsSignedNumber(at: pos) else { throw unexpected("an expression") }
            return try parseNumericLiteral()
        default:
            if let guid = scanGuid() { return try literal(guid, at: start) }
            if Self.isDigit(c) { return try parseNumericLiteral() }
            if Self.isIdentifierStart(c) { return try parseIdentifierExpression() }
            throw unexpected("an expression")
        }
    }

    /// `( expr )`, or a list `( a, b )` / `()` when `listAllowed` (right of `in`).
    private mutating func parseParenthesised(listAllowed: Bool) throws(ODataError) -> SyntaxExpr {
        let start = pos
        pos += 1
        skipWhitespace()
        var items: [SyntaxExpr] = []
        var isList = false
        if take(")") {
            isList = true
        } else {
            while true {
                items.append(try parseExpression())
                skipWhitespace()
                if take(",") { isList = true; skipWhitespace(); continue }
                try expect(")", "')' or ','")
                break
            }
        }
        guard isList else { return items[0] }
        guard listAllowed else {
            throw error(.invalidListOperand, "a parenthesised list is only allowed right of 'in'", at: start)
        }
        return SyntaxExpr(.list(items), at: start)
    }

    /// `@alias`, or an annotation path `@Ns.Term/…` (a path whose first segment is an
    /// `.annotation` without a dot may also be an alias: the binder decides).
    private mutating func parseAtExpression() throws(ODataError) -> SyntaxExpr {
        let start = pos
        pos += 1
        guard let name = scanAnnotationName() else { throw unexpected("an alias or annotation name") }
        let isAnnotation = name.contains(".") || name.contains("#")
        if !isAnnotation, current != UInt8(ascii: "/") {
            return SyntaxExpr(.alias(name), at: start)
        }
        var segments: [SyntaxPathSegment] = [.annotation(name, position: start)]
        try parsePathTail(&segments)
        return SyntaxExpr(.path(SyntaxPath(root: .implicit, segments: segments)), at: start)
    }

    /// `Ns.Term` with an optional `#qualifier`, after the `@`.
    mutating func scanAnnotationName() -> String? {
        let start = pos
        guard scanQualifiedName() != nil else { return nil }
        if current == UInt8(ascii: "#") {
            let hash = pos
            pos += 1
            if scanIdentifier() == nil { pos = hash }
        }
        return text(start..<pos)
    }

    /// `$it`, `$this`, `$root/…`, each optionally followed by a path.
    private mutating func parseVariablePath() throws(ODataError) -> SyntaxExpr {
        let start = pos
        let root: SyntaxPathRoot
        if exactWord("$it", at: pos) {
            root = .it
            pos += 3
        } else if exactWord("$this", at: pos) {
            root = .this
            pos += 5
        } else if exactWord("$root", at: pos) {
            pos += 5
            guard take("/") else { throw unexpected("'/' after $root") }
            var segments: [SyntaxPathSegment] = []
            try parseMemberSegment(&segments, afterRoot: true)
            try parsePathTail(&segments)
            return SyntaxExpr(.path(SyntaxPath(root: .root, segments: segments)), at: start)
        } else {
            throw unexpected("$it, $this or $root")
        }
        var segments: [SyntaxPathSegment] = []
        try parsePathTail(&segments)
        return SyntaxExpr(.path(SyntaxPath(root: root, segments: segments)), at: start)
    }

    /// Identifier-led primaries: keyword literals, prefixed literals (`duration'…'`,
    /// `Ns.Color'Red'`), canonical function calls, `case(…)`, and member paths.
    private mutating func parseIdentifierExpression() throws(ODataError) -> SyntaxExpr {
        let start = pos
        for word in ["true", "false", "null"] where keyword(word, at: pos) && !continuesName(at: pos + word.utf8.count) {
            pos += word.utf8.count
            if word == "null" { return SyntaxExpr(.null, at: start) }
            return try literal(text(start..<pos), at: start)
        }
        for word in ["INF", "NaN"] where exactWord(word, at: pos) && !continuesName(at: pos + word.utf8.count) {
            pos += word.utf8.count
            return try literal(word, at: start)
        }
        guard let name = scanQualifiedName() else { throw unexpected("an expression") }
        if current == UInt8(ascii: "'") { return try parseQuotedLiteral(prefixStart: start) }
        if current == UInt8(ascii: "(") {
            if name.lowercased() == "case" { return try parseCase(at: start) }
            if let signature = CanonicalFunctions.lookup(name) {
                let call = try parseCanonicalCall(signature, at: start)
                if current == UInt8(ascii: "/") { return try castPath(call) }
                return call
            }
            if version == .v2, name == "substringof", let contains = CanonicalFunctions.lookup("contains") {
                // V2's substringof(needle, text) is V4's contains(text, needle).
                let call = try parseCanonicalCall(contains, at: start)
                guard case .call(let function, let arguments) = call.kind, arguments.count == 2 else { return call }
                return SyntaxExpr(.call(name: function, arguments: [arguments[1], arguments[0]]), at: start)
            }
            let lower = name.lowercased()
            if lower == "any" || lower == "all" {
                throw error(.invalidLambda, "'\(name)' needs a collection path before it (Path/\(lower)(…))", at: start)
            }
        }
        pos = start
        var segments: [SyntaxPathSegment] = []
        try parseMemberSegment(&segments, afterRoot: false)
        try parsePathTail(&segments)
        return SyntaxExpr(.path(SyntaxPath(root: .implicit, segments: segments)), at: start)
    }

    /// After a keyword literal: `/`, `(` or `'` would make it a name instead.
    private func continuesName(at index: Int) -> Bool {
        let c = byte(at: index)
        return c == UInt8(ascii: "/") || c == UInt8(ascii: "(") || c == UInt8(ascii: "'") || c == UInt8(ascii: ".")
    }

    /// `cast(Path, Ns.Type)/Prop` (an odata.net form) as the path `Path/Ns.Type/Prop`, which
    /// means the same (a type-cast segment that does not match is null, as a failed cast is);
    /// `cast(Ns.Type)/Prop` is `Ns.Type/Prop`. Other calls cannot be followed by `/`.
    private mutating func castPath(_ call: SyntaxExpr) throws(ODataError) -> SyntaxExpr {
        guard case .call("cast", let arguments) = call.kind, case .typeName(let type)? = arguments.last?.kind,
              type.contains("."), !type.lowercased().hasPrefix("edm."), !type.hasPrefix("Collection(") else {
            throw unexpected("an operator after the function call")
        }
        var path = SyntaxPath(segments: [])
        if arguments.count == 2 {
            guard case .path(let inner) = arguments[0].kind else { throw unexpected("an operator after the function call") }
            path = inner
        }
        path.segments.append(.typeCast(type, position: arguments[arguments.count - 1].position))
        try parsePathTail(&path.segments)
        return SyntaxExpr(.path(path), at: call.position)
    }

    /// A canonical function call; `cast`/`isof` take a type name as their last argument.
    private mutating func parseCanonicalCall(_ signature: CanonicalFunctions.Signature, at start: Int) throws(ODataError) -> SyntaxExpr {
        pos += 1  // (
        try enter()
        defer { leave() }
        skipWhitespace()
        var arguments: [SyntaxExpr] = []
        let typed = signature.name == "cast" || signature.name == "isof"
        if !take(")") {
            while true {
                if typed, let typeName = try scanTypeNameArgument() {
                    arguments.append(typeName)
                } else {
                    arguments.append(try parseExpression())
                }
                skipWhitespace()
                if take(",") { skipWhitespace(); continue }
                try expect(")", "')' or ',' in \(signature.name)(…)")
                break
            }
        }
        guard signature.arguments.contains(arguments.count) else {
            let expected = signature.arguments.count == 1 ? "\(signature.arguments.lowerBound)"
                : "\(signature.arguments.lowerBound) to \(signature.arguments.upperBound)"
            throw error(.urlSyntaxError,
                        "\(signature.name) takes \(expected) argument(s), not \(arguments.count)", at: start)
        }
        if typed, arguments.last.map({ if case .typeName = $0.kind { false } else { true } }) ?? true {
            throw error(.urlSyntaxError, "the last argument of \(signature.name) is a type name", at: start)
        }
        return SyntaxExpr(.call(name: signature.name, arguments: arguments), at: start)
    }

    /// A (qualified) type name or `Collection(Type)` directly followed by `)`; also the
    /// quoted form `'Ns.Type'` that odata.net accepts.
    private mutating func scanTypeNameArgument() throws(ODataError) -> SyntaxExpr? {
        let start = pos
        var name: String
        if current == UInt8(ascii: "'") {
            pos += 1
            if let quoted = scanQualifiedName(), take("'") {
                let afterName = pos
                skipWhitespace()
                if current == UInt8(ascii: ")") { pos = afterName; return SyntaxExpr(.typeName(quoted), at: start) }
            }
            pos = start
            return nil
        }
        if keyword("Collection", at: pos), byte(at: pos + 10) == UInt8(ascii: "(") {
            pos += 11
            guard let inner = scanQualifiedName(), take(")") else { pos = start; return nil }
            name = "Collection(\(inner))"
        } else {
            guard let qualified = scanQualifiedName() else { return nil }
            name = qualified
        }
        let afterName = pos
        skipWhitespace()
        guard current == UInt8(ascii: ")") else { pos = start; return nil }
        pos = afterName
        if name.isEmpty { pos = start; return nil }
        return SyntaxExpr(.typeName(name), at: start)
    }

    /// `case(cond:value, …)`.
    private mutating func parseCase(at start: Int) throws(ODataError) -> SyntaxExpr {
        pos += 1
        try enter()
        defer { leave() }
        var branches: [SyntaxCaseBranch] = []
        repeat {
            skipWhitespace()
            let condition = try parseExpression()
            skipWhitespace()
            try expect(":", "':' after a case condition")
            skipWhitespace()
            let value = try parseExpression()
            branches.append(SyntaxCaseBranch(condition: condition, value: value))
            skipWhitespace()
        } while take(",")
        try expect(")", "')' or ',' in case(…)")
        return SyntaxExpr(.caseOf(branches), at: start)
    }
}
