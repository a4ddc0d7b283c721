import OfflineODataModel

/// Literal tokens (ABNF `primitiveLiteral`): the parser finds the token's extent and the model's
/// `ODataValue.inferLiteral` gives the value and type (Int32 if it fits, else Int64, else
/// Decimal; `1.5` Decimal; `1e3`, `INF`, `NaN` Double; dates, times, durations, guids, binary,
/// enums `Ns.T'Red'`, geo). Errors from the model keep their code (13xx) and get our location.
extension SyntaxParser {
    func literal(_ text: String, at start: Int) throws(ODataError) -> SyntaxExpr {
        do {
            let value = try ODataValue.inferLiteral(text, version: version)
            if value.isNull { return SyntaxExpr(.null, at: start) }
            return SyntaxExpr(.literal(value, text: text), at: start)
        } catch {
            var located = error
            located.location = ODataError.syntaxLocation(option: option, position: start)
            throw located
        }
    }

    /// `'…'` or `prefix'…'` (the cursor is on the opening quote); `''` is an escaped quote.
    mutating func parseQuotedLiteral(prefixStart: Int) throws(ODataError) -> SyntaxExpr {
        let quote = pos
        pos += 1
        while true {
            guard let c = current else {
                throw error(.unterminatedString, "unterminated literal \(ODataError.syntaxClip(text(prefixStart..<end)))",
                            at: quote)
            }
            pos += 1
            if c == UInt8(ascii: "'") {
                if current == UInt8(ascii: "'") { pos += 1; continue }
                break
            }
        }
        return try literal(text(prefixStart..<pos), at: prefixStart)
    }

    /// A 8-4-4-4-12 hex guid at the cursor (not followed by a name character), consumed.
    mutating func scanGuid() -> String? {
        guard pos + 36 <= end, !isIdentifierChar(at: pos + 36) else { return nil }
        for offset in 0..<36 {
            let c = bytes[pos + offset]
            if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                guard c == UInt8(ascii: "-") else { return nil }
            } else {
                guard Self.isHexDigit(c) else { return nil }
            }
        }
        let text = self.text(pos..<pos + 36)
        pos += 36
        return text
    }

    /// Numbers, `-INF`, dates, date-times and times of day.
    mutating func parseNumericLiteral() throws(ODataError) -> SyntaxExpr {
        let start = pos
        var signed = false
        if current == UInt8(ascii: "-") || current == UInt8(ascii: "+") { pos += 1; signed = true }
        if exactWord("INF", at: pos) {
            pos += 3
            return try literal(text(start..<pos), at: start)
        }
        let digitsStart = pos
        while let c = current, Self.isDigit(c) { pos += 1 }
        let digits = pos - digitsStart
        guard digits > 0 else { throw unexpected("a number") }
        if current == UInt8(ascii: "-"), digits >= 4, byte(at: start) != UInt8(ascii: "+") {
            scanDateTail()
        } else if !signed, digits == 2, current == UInt8(ascii: ":"), let next = byte(at: pos + 1), Self.isDigit(next) {
            scanTimeTail()
        } else {
            if current == UInt8(ascii: "."), let next = byte(at: pos + 1), Self.isDigit(next) {
                pos += 1
                while let c = current, Self.isDigit(c) { pos += 1 }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                var index = pos + 1
                if byte(at: index) == UInt8(ascii: "-") || byte(at: index) == UInt8(ascii: "+") { index += 1 }
                if let c = byte(at: index), Self.isDigit(c) {
                    pos = index
                    while let c = current, Self.isDigit(c) { pos += 1 }
                }
            }
        }
        // V2's type suffixes: `2000M` (Decimal), `12L` (Int64), `1.5D` (Double), `1.5F` (Single).
        if version == .v2, let c = current, "MmLlDdFf".utf8.contains(c), !isIdentifierChar(at: pos + 1) {
            pos += 1
        }
        if isIdentifierChar(at: pos) || current == UInt8(ascii: ".") {
            var stop = pos
            while isIdentifierChar(at: stop) || byte(at: stop) == UInt8(ascii: ".") { stop += 1 }
            throw ODataError(.invalidInput, name: "invalidLiteral", code: 1300,
                             message: "invalid literal '\(ODataError.syntaxClip(text(start..<stop)))': unexpected '\(text(pos..<pos + 1))' after the number",
                             location: ODataError.syntaxLocation(option: option, position: pos))
        }
        return try literal(text(start..<pos), at: start)
    }

    /// `-MM-DD` and an optional `Thh:mm[:ss[.f]]` with `Z` or `±hh:mm`.
    private mutating func scanDateTail() {
        while let c = current, Self.isDigit(c) || c == UInt8(ascii: "-") { pos += 1 }
        guard current == UInt8(ascii: "T") else { return }
        pos += 1
        scanTimeTail()
        if current == UInt8(ascii: "Z") || current == UInt8(ascii: "z") {
            pos += 1
        } else if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") {
            pos += 1
            while let c = current, Self.isDigit(c) || c == UInt8(ascii: ":") { pos += 1 }
        }
    }

    private mutating func scanTimeTail() {
        while let c = current, Self.isDigit(c) || c == UInt8(ascii: ":") || c == UInt8(ascii: ".") { pos += 1 }
    }
}
