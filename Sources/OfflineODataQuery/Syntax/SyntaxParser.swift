import OfflineODataModel

/// The recursive-descent parser behind `ODataURLParser` (docs/Query.md §1): one cursor over the
/// percent-decoded bytes of one option value (or path segment). Expressions, `$search`, `$select`,
/// `$expand` and nested options are parsed by the extensions in this folder, all sharing the
/// cursor so nested options report positions in the outer option value.
struct SyntaxParser {
    /// Deepest nesting of parentheses, unary operators, operator chains, JSON, lambdas and nested
    /// options; deeper input is rejected with `expressionTooDeep` instead of risking the stack.
    static let maxDepth = 200
    /// Deepest syntax tree, counting each operator of a left-associative chain (`a or b or …`)
    /// as one level: long flat chains are fine, but trees stay shallow enough for the recursive
    /// `==`, hashing, printing and binding that follow.
    static let maxTreeDepth = 2_000

    let bytes: [UInt8]
    var pos: Int
    let end: Int
    /// The option the text came from (`$filter`), used in error locations.
    let option: String?
    /// Offsets of `;` characters that were percent-encoded (`%3B`): those are data, not the
    /// separator of nested options (ABNF test "nested $search … percent-encoded semicolon").
    let encodedSemicolons: Set<Int>
    var depth = 0
    var treeDepth = 0
    /// `.v2`: the URL of a V2 service, whose literals also take V2's forms (`guid'…'`,
    /// `datetime'…'`, `2000M`, `12L`, `X'…'`).
    let version: ODataVersion

    init(_ bytes: [UInt8], option: String?, encodedSemicolons: Set<Int> = [], version: ODataVersion = .v4) {
        self.bytes = bytes
        self.pos = 0
        self.end = bytes.count
        self.option = option
        self.encodedSemicolons = encodedSemicolons
        self.version = version
    }

    init(_ text: String, option: String?, version: ODataVersion = .v4) {
        self.init(Array(text.utf8), option: option, version: version)
    }

    // MARK: cursor

    var atEnd: Bool { pos >= end }

    func byte(at index: Int) -> UInt8? { index < end && index >= 0 ? bytes[index] : nil }

    var current: UInt8? { byte(at: pos) }

    func isWhitespace(_ c: UInt8?) -> Bool { c == 0x20 || c == 0x09 }

    /// Skips optional whitespace (BWS); returns whether any was skipped.
    @discardableResult
    mutating func skipWhitespace() -> Bool {
        let start = pos
        while isWhitespace(current) { pos += 1 }
        return pos > start
    }

    /// A raw (not percent-encoded) `;` at `index`.
    func isRawSemicolon(_ index: Int) -> Bool {
        byte(at: index) == UInt8(ascii: ";") && !encodedSemicolons.contains(index)
    }

    static func isIdentifierStart(_ c: UInt8) -> Bool {
        (c | 0x20 >= UInt8(ascii: "a") && c | 0x20 <= UInt8(ascii: "z")) || c == UInt8(ascii: "_") || c >= 0x80
    }

    static func isIdentifierChar(_ c: UInt8) -> Bool {
        isIdentifierStart(c) || isDigit(c)
    }

    static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    static func isHexDigit(_ c: UInt8) -> Bool {
        isDigit(c) || (c | 0x20 >= UInt8(ascii: "a") && c | 0x20 <= UInt8(ascii: "f"))
    }

    func isIdentifierChar(at index: Int) -> Bool {
        guard let c = byte(at: index) else { return false }
        return Self.isIdentifierChar(c)
    }

    func text(_ range: Range<Int>) -> String {
        let low = max(0, min(range.lowerBound, end))
        let high = max(low, min(end, range.upperBound))
        return String(decoding: bytes[low..<high], as: UTF8.self)
    }

    /// The token at `index` for messages: up to the next whitespace or delimiter.
    func token(at index: Int) -> String {
        guard index < end else { return "end of input" }
        var stop = index
        while stop < end, stop - index < 40 {
            let c = bytes[stop]
            if c == 0x20 || c == 0x09 { break }
            if stop > index, c == UInt8(ascii: "(") || c == UInt8(ascii: ")") || c == UInt8(ascii: ",")
                || c == UInt8(ascii: ";") { break }
            stop += 1
        }
        return "'" + text(index..<max(stop, index + 1)) + "'"
    }

    // MARK: errors

    /// The binary operators written as words (URL §5.1.1.1–3).
    static let binaryOperators: Set<String> = ["eq", "ne", "gt", "ge", "lt", "le", "and", "or", "add", "sub", "mul", "div", "divby",
                                                "mod", "has", "in"]

    func error(_ code: ODataError.SyntaxCode, _ message: String, at position: Int? = nil) -> ODataError {
        .syntax(code, message, option: option, position: position ?? pos)
    }

    /// "unexpected X" or "unexpected end of input", with what was expected.
    func unexpected(_ expected: String, at position: Int? = nil) -> ODataError {
        let where_ = position ?? pos
        if where_ >= end {
            return error(.unexpectedEnd, "unexpected end of input, expected \(expected)", at: where_)
        }
        if isWhitespace(byte(at: where_)) {
            var next = where_
            while isWhitespace(byte(at: next)) { next += 1 }
            // An operator with nothing (or only blanks) after it: say so, not "whitespace".
            var word = next
            while word < end, let c = byte(at: word), (c >= 0x61 && c <= 0x7A) { word += 1 }
            let name = text(next..<word)
            if word > next, Self.binaryOperators.contains(name), !(word < end && !isWhitespace(byte(at: word))) {
                var after = word
                while isWhitespace(byte(at: after)) { after += 1 }
                if after >= end { return error(.unexpectedEnd, "'\(name)' at position \(next) has no right operand", at: next) }
            }
            let what = next >= end ? "whitespace at the end" : "whitespace before \(token(at: next))"
            return error(.urlSyntaxError, "unexpected \(what), expected \(expected)", at: where_)
        }
        return error(.urlSyntaxError, "unexpected \(token(at: where_)), expected \(expected)", at: where_)
    }

    mutating func expect(_ char: Character, _ what: String? = nil) throws(ODataError) {
        guard let ascii = char.asciiValue, current == ascii else {
            throw unexpected(what ?? "'\(char)'")
        }
        pos += 1
    }

    mutating func take(_ char: Character) -> Bool {
        guard let ascii = char.asciiValue, current == ascii else { return false }
        pos += 1
        return true
    }

    // MARK: depth

    mutating func enter() throws(ODataError) {
        depth += 1
        try enterChain()
        if depth > Self.maxDepth {
            throw error(.expressionTooDeep, "nesting deeper than \(Self.maxDepth) levels")
        }
    }

    mutating func leave(_ count: Int = 1) {
        depth -= count
        treeDepth -= count
    }

    /// One more operator in a chain: deepens the tree, not the parser's recursion.
    mutating func enterChain() throws(ODataError) {
        treeDepth += 1
        if treeDepth > Self.maxTreeDepth {
            throw error(.expressionTooDeep, "expression tree deeper than \(Self.maxTreeDepth) levels (operator chain too long)")
        }
    }

    mutating func leaveChain(_ count: Int) { treeDepth -= count }

    // MARK: names

    /// An odataIdentifier at the cursor (letters, digits, `_`, non-ASCII), or nil.
    mutating func scanIdentifier() -> String? {
        guard let c = current, Self.isIdentifierStart(c) else { return nil }
        let start = pos
        while isIdentifierChar(at: pos) { pos += 1 }
        return text(start..<pos)
    }

    /// `Ident(.Ident)*`; a dot not followed by an identifier (`Ns.*`) is left unread.
    mutating func scanQualifiedName() -> String? {
        let start = pos
        guard scanIdentifier() != nil else { return nil }
        while current == UInt8(ascii: "."), let next = byte(at: pos + 1), Self.isIdentifierStart(next) {
            pos += 1
            _ = scanIdentifier()
        }
        return text(start..<pos)
    }

    /// Case-insensitive keyword at `index`, not followed by an identifier character.
    func keyword(_ word: String, at index: Int) -> Bool {
        let utf8 = Array(word.utf8)
        guard index + utf8.count <= end else { return false }
        for (offset, expected) in utf8.enumerated() where bytes[index + offset] | 0x20 != expected | 0x20 {
            return false
        }
        return !isIdentifierChar(at: index + utf8.count)
    }

    /// Case-sensitive word at `index`, not followed by an identifier character.
    func exactWord(_ word: String, at index: Int) -> Bool {
        let utf8 = Array(word.utf8)
        guard index + utf8.count <= end else { return false }
        for (offset, expected) in utf8.enumerated() where bytes[index + offset] != expected { return false }
        return !isIdentifierChar(at: index + utf8.count)
    }
}
