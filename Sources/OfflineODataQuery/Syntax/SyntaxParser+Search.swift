import OfflineODataModel

/// `$search` (URL §5.1.8): words, `"phrases"`, upper-case `NOT`/`AND`/`OR`,
/// implicit AND between space-separated expressions, grouping. Precedence: grouping, NOT, AND,
/// OR. `AND`, `OR`, `NOT` in a position where they cannot be operators are words. A value in
/// single quotes is the 4.01 "incomplete expression" form and becomes one phrase.
extension SyntaxParser {
    mutating func parseSearchOption() throws(ODataError) -> SyntaxSearch {
        skipWhitespace()
        let start = pos
        if current == UInt8(ascii: "'") {
            var body: [UInt8] = []
            pos += 1
            while true {
                guard let c = current else {
                    throw error(.invalidSearch, "unterminated quoted search text", at: start)
                }
                pos += 1
                if c == UInt8(ascii: "'") {
                    if current == UInt8(ascii: "'") { body.append(c); pos += 1; continue }
                    break
                }
                body.append(c)
            }
            return .phrase(String(decoding: body, as: UTF8.self))
        }
        let search = try parseSearchOr()
        return search
    }

    private mutating func parseSearchOr() throws(ODataError) -> SyntaxSearch {
        var left = try parseSearchAnd()
        var chain = 0
        defer { leaveChain(chain) }
        while let after = searchOperator("OR") {
            pos = after
            try enterChain()
            chain += 1
            left = .or(left, try parseSearchAnd())
        }
        return left
    }

    private mutating func parseSearchAnd() throws(ODataError) -> SyntaxSearch {
        var left = try parseSearchUnary()
        var chain = 0
        defer { leaveChain(chain) }
        while true {
            if searchOperator("OR") != nil { break }
            if let after = searchOperator("AND") {
                pos = after
            } else {
                var index = pos
                guard isWhitespace(byte(at: index)) else { break }
                while isWhitespace(byte(at: index)) { index += 1 }
                guard startsSearchExpression(at: index) else { break }
                pos = index
            }
            try enterChain()
            chain += 1
            left = .and(left, try parseSearchUnary())
        }
        return left
    }

    private mutating func parseSearchUnary() throws(ODataError) -> SyntaxSearch {
        if exactSearchWord("NOT", at: pos) {
            var index = pos + 3
            if isWhitespace(byte(at: index)) {
                while isWhitespace(byte(at: index)) { index += 1 }
                if startsSearchExpression(at: index) {
                    pos = index
                    try enter()
                    defer { leave() }
                    return .not(try parseSearchUnary())
                }
            }
        }
        return try parseSearchPrimary()
    }

    private mutating func parseSearchPrimary() throws(ODataError) -> SyntaxSearch {
        let start = pos
        guard let c = current else { throw error(.invalidSearch, "unexpected end of input, expected a search term") }
        if c == UInt8(ascii: "(") {
            pos += 1
            try enter()
            defer { leave() }
            skipWhitespace()
            let inner = try parseSearchOr()
            skipWhitespace()
            guard take(")") else { throw error(.invalidSearch, "unbalanced '(' in $search", at: start) }
            return inner
        }
        if c == UInt8(ascii: "\"") {
            pos += 1
            let bodyStart = pos
            while let b = current, b != UInt8(ascii: "\"") { pos += 1 }
            guard current == UInt8(ascii: "\"") else {
                throw error(.invalidSearch, "unterminated phrase \(token(at: start)) in $search", at: start)
            }
            let body = text(bodyStart..<pos)
            pos += 1
            guard !body.isEmpty else { throw error(.invalidSearch, "empty phrase in $search", at: start) }
            return .phrase(body)
        }
        guard isSearchWordChar(pos), c != UInt8(ascii: "'") else {
            throw error(.invalidSearch, "unexpected \(token(at: pos)) in $search", at: pos)
        }
        while isSearchWordChar(pos) { pos += 1 }
        return .term(text(start..<pos))
    }

    /// After RWS, the upper-case keyword `word`, RWS and the start of an expression: the
    /// position after the keyword's trailing whitespace, else nil.
    private func searchOperator(_ word: String) -> Int? {
        var index = pos
        guard isWhitespace(byte(at: index)) else { return nil }
        while isWhitespace(byte(at: index)) { index += 1 }
        guard exactSearchWord(word, at: index) else { return nil }
        index += word.utf8.count
        guard isWhitespace(byte(at: index)) else { return nil }
        while isWhitespace(byte(at: index)) { index += 1 }
        return startsSearchExpression(at: index) ? index : nil
    }

    private func exactSearchWord(_ word: String, at index: Int) -> Bool {
        let utf8 = Array(word.utf8)
        guard index + utf8.count <= end else { return false }
        for (offset, expected) in utf8.enumerated() where bytes[index + offset] != expected { return false }
        return !isSearchWordChar(index + utf8.count)
    }

    private func startsSearchExpression(at index: Int) -> Bool {
        guard let c = byte(at: index) else { return false }
        return c == UInt8(ascii: "(") || c == UInt8(ascii: "\"") || (isSearchWordChar(index) && c != UInt8(ascii: "'"))
    }

    /// Word characters: anything but whitespace, parentheses, double quotes and raw `;`.
    private func isSearchWordChar(_ index: Int) -> Bool {
        guard let c = byte(at: index) else { return false }
        if isWhitespace(c) || c == UInt8(ascii: "(") || c == UInt8(ascii: ")") || c == UInt8(ascii: "\"") { return false }
        return !isRawSemicolon(index)
    }
}
