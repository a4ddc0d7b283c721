import OfflineODataModel

/// The resource path (URL §4): split at raw `/`, each segment percent-decoded once, then read
/// as a name with `(…)` parts, a `$` segment, or a key-as-segment value (docs/Query.md §1.2).
/// Model-free readings: `Name(1)` and `Name(A=1)` are identifier + key (the binder turns them
/// into a function call when `Name` is a function); `Name()` and `Ns.F(a=1)` are functions; a
/// qualified name alone is a type cast; any other text (`O'Neil`, `-1`) is an identifier.
enum ResourcePathParser {
    static func parse(_ path: String, version: ODataVersion = .v4) throws(ODataError) -> SyntaxResourcePath {
        let raw = Array(path.utf8)
        guard !raw.isEmpty else { return SyntaxResourcePath(segments: []) }
        var segments: [SyntaxResourceSegment] = []
        var base = 0
        for (number, rawSegment) in raw.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).enumerated() {
            let label = "path segment \(number + 1)"
            let decoded = try PercentDecoded(rawSegment, label: label)
            guard !decoded.bytes.isEmpty else {
                throw ODataError.syntax(.invalidResourcePath, "empty path segment in '\(ODataError.syntaxClip(path))'",
                                        option: label, position: 0)
            }
            try checkOrder(segments, label: label, next: decoded.bytes)
            var parser = SyntaxParser(decoded.bytes, option: label, encodedSemicolons: decoded.encodedSemicolons, version: version)
            try parser.parseResourceSegment(into: &segments, base: base)
            base += decoded.bytes.count + 1
        }
        return SyntaxResourcePath(segments: segments)
    }

    /// Nothing may follow `$count`, `$value`, `$ref`, `$metadata`, `$batch`.
    private static func checkOrder(_ segments: [SyntaxResourceSegment], label: String, next: [UInt8]) throws(ODataError) {
        guard let last = segments.last else { return }
        let name: String?
        switch last {
        case .count: name = "$count"
        case .value: name = "$value"
        case .ref: name = "$ref"
        case .system(let system, _) where system == "metadata" || system == "batch": name = "$" + system
        default: name = nil
        }
        if let name {
            throw ODataError.syntax(.invalidResourcePath,
                                    "no segment may follow \(name) ('\(ODataError.syntaxClip(String(decoding: next, as: UTF8.self)))')",
                                    option: label, position: 0)
        }
    }
}

extension SyntaxParser {
    /// One decoded path segment; positions in the segments are offsets in the decoded path.
    mutating func parseResourceSegment(into segments: inout [SyntaxResourceSegment], base: Int) throws(ODataError) {
        if current == UInt8(ascii: "$") {
            try parseSystemSegment(into: &segments, base: base)
        } else if !bytes.contains(UInt8(ascii: "(")) {
            if let name = scanQualifiedName(), atEnd {
                segments.append(name.contains(".") ? .typeCast(name, position: base) : .identifier(name, position: base))
            } else {
                segments.append(.identifier(text(0..<end), position: base))
            }
            pos = end
        } else {
            guard let name = scanQualifiedName() else { throw unexpected("a name before '('") }
            let qualified = name.contains(".")
            guard current == UInt8(ascii: "(") else { throw unexpected("'(' or '/'") }
            var first = true
            while current == UInt8(ascii: "(") {
                let parenStart = pos
                let arguments = try parseParenArguments()
                for argument in arguments where !Self.isKeyValue(argument.value) {
                    throw error(.invalidKeyPredicate,
                                "a key or parameter value in the path is a literal or @alias, not \(token(at: argument.value.position))",
                                at: argument.value.position)
                }
                let named = arguments.contains { $0.name != nil }
                if first && (arguments.isEmpty || (named && qualified)) {
                    segments.append(.function(name, parameters: arguments, position: base))
                } else {
                    guard !arguments.isEmpty else {
                        throw error(.invalidKeyPredicate, "empty key predicate '()'", at: parenStart)
                    }
                    if first { segments.append(qualified ? .typeCast(name, position: base) : .identifier(name, position: base)) }
                    segments.append(.key(arguments, position: base + parenStart))
                }
                first = false
            }
            guard atEnd else { throw unexpected("'/' or the end of the path") }
        }
    }

    static func isKeyValue(_ expr: SyntaxExpr) -> Bool {
        switch expr.kind {
        case .literal, .null, .alias: return true
        default: return false
        }
    }

    private mutating func parseSystemSegment(into segments: inout [SyntaxResourceSegment], base: Int) throws(ODataError) {
        let simple: [(String, SyntaxResourceSegment)] = [
            ("$count", .count(position: base)), ("$ref", .ref(position: base)), ("$value", .value(position: base)),
        ]
        for (word, segment) in simple where exactWord(word, at: 0) && end == word.utf8.count {
            segments.append(segment)
            pos = end
            return
        }
        for word in ["metadata", "batch", "entity", "all", "each", "query"]
        where exactWord("$" + word, at: 0) && end == word.utf8.count + 1 {
            segments.append(.system(word, position: base))
            pos = end
            return
        }
        if exactWord("$crossjoin", at: 0), byte(at: 10) == UInt8(ascii: "(") {
            pos = 11
            repeat {
                skipWhitespace()
                guard scanQualifiedName() != nil else { throw unexpected("an entity set name in $crossjoin(…)") }
                skipWhitespace()
            } while take(",")
            try expect(")", "')' or ',' in $crossjoin(…)")
            guard atEnd else { throw unexpected("the end of the $crossjoin segment") }
            segments.append(.system(text(1..<end), position: base))
            return
        }
        if exactWord("$filter", at: 0), byte(at: 7) == UInt8(ascii: "(") {
            pos = 8
            skipWhitespace()
            let expression = try parseExpression()
            skipWhitespace()
            try expect(")", "')' closing $filter(…)")
            segments.append(.filter(expression, position: base))
            // `Set/$filter(…)(key)` (ABNF `filterInPath [ collectionNavigation ]`).
            while current == UInt8(ascii: "(") {
                let parenStart = pos
                let arguments = try parseParenArguments()
                guard !arguments.isEmpty else { throw error(.invalidKeyPredicate, "empty key predicate '()'", at: parenStart) }
                for argument in arguments where !Self.isKeyValue(argument.value) {
                    throw error(.invalidKeyPredicate,
                                "a key value in the path is a literal or @alias, not \(token(at: argument.value.position))",
                                at: argument.value.position)
                }
                segments.append(.key(arguments, position: base + parenStart))
            }
            guard atEnd else { throw unexpected("'/', a key predicate or the end of the path after $filter(…)") }
            return
        }
        throw error(.invalidResourcePath, "unknown path segment \(token(at: 0))", at: 0)
    }
}
