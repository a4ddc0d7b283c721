import OfflineODataModel

/// JSON array and object literals in expressions (URL Conventions §5.1.1.14.2). Elements may be
/// JSON values or OData expressions (`["a",'b']`, `[FirstName,LastName]`). An array or object of
/// plain JSON values becomes `.json`; an array with expression elements becomes `.list`; an
/// object with expression members is rejected as `unsupportedSyntax` (the syntax tree has no
/// node for it).
extension SyntaxParser {
    /// One element: either plain JSON (`json`) or an expression (`expr`).
    enum JSONElement {
        case json(JSONValue)
        case expr(SyntaxExpr)
    }

    mutating func parseJSONLiteral() throws(ODataError) -> SyntaxExpr {
        let start = pos
        switch try parseJSONElement() {
        case .json(let value): return SyntaxExpr(.json(value), at: start)
        case .expr(let expr): return expr
        }
    }

    private mutating func parseJSONElement() throws(ODataError) -> JSONElement {
        let start = pos
        switch current {
        case UInt8(ascii: "["):
            pos += 1
            try enter()
            defer { leave() }
            var elements: [(JSONElement, Int)] = []
            skipWhitespace()
            if !take("]") {
                while true {
                    let elementStart = pos
                    elements.append((try parseJSONElement(), elementStart))
                    skipWhitespace()
                    if take(",") { skipWhitespace(); continue }
                    try expect("]", "']' or ','")
                    break
                }
            }
            var values: [JSONValue] = []
            for (element, _) in elements {
                guard case .json(let value) = element else { break }
                values.append(value)
            }
            if values.count == elements.count { return .json(.array(values)) }
            let items = elements.map { element, at -> SyntaxExpr in
                switch element {
                case .json(let value): return SyntaxExpr(.json(value), at: at)
                case .expr(let expr): return expr
                }
            }
            return .expr(SyntaxExpr(.list(items), at: start))
        case UInt8(ascii: "{"):
            pos += 1
            try enter()
            defer { leave() }
            var object = JSONObject()
            skipWhitespace()
            if !take("}") {
                while true {
                    let keyStart = pos
                    guard current == UInt8(ascii: "\"") else { throw unexpected("a JSON member name in double quotes") }
                    let key = try scanJSONString()
                    skipWhitespace()
                    try expect(":", "':' after a JSON member name")
                    skipWhitespace()
                    let valueStart = pos
                    switch try parseJSONElement() {
                    case .json(let value):
                        do {
                            try object.append(key: key, value: value)
                        } catch {
                            throw self.error(.urlSyntaxError, "duplicate JSON member \"\(key)\"", at: keyStart)
                        }
                    case .expr:
                        throw error(.unsupportedSyntax,
                                    "an expression as a JSON member value (\(token(at: valueStart))) is not supported",
                                    at: valueStart)
                    }
                    skipWhitespace()
                    if take(",") { skipWhitespace(); continue }
                    try expect("}", "'}' or ','")
                    break
                }
            }
            return .json(.object(object))
        case UInt8(ascii: "\""):
            return .json(.string(try scanJSONString()))
        default:
            let expr = try parseExpression()
            if let value = Self.jsonValue(of: expr) { return .json(value) }
            return .expr(expr)
        }
    }

    /// The JSON form of a literal expression, when it has one.
    static func jsonValue(of expr: SyntaxExpr) -> JSONValue? {
        switch expr.kind {
        case .null: return .null
        case .json(let value): return value
        case .literal(let value, let text):
            switch value {
            case .boolean(let flag): return .bool(flag)
            case .string(let string): return .string(string)
            case .int32, .int64, .decimal, .double:
                if let number = try? JSONNumber(validating: text) { return .number(number) }
                return nil
            default: return nil
            }
        default: return nil
        }
    }

    /// A JSON string at the cursor (`"…"` with JSON escapes).
    mutating func scanJSONString() throws(ODataError) -> String {
        let start = pos
        pos += 1
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        func flush() {
            if !raw.isEmpty {
                scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                raw.removeAll()
            }
        }
        while true {
            guard let c = current else {
                throw error(.unterminatedString, "unterminated JSON string \(ODataError.syntaxClip(text(start..<end)))", at: start)
            }
            pos += 1
            if c == UInt8(ascii: "\"") { break }
            guard c == UInt8(ascii: "\\") else { raw.append(c); continue }
            guard let escape = current else { continue }
            pos += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): raw.append(escape)
            case UInt8(ascii: "b"): raw.append(0x08)
            case UInt8(ascii: "f"): raw.append(0x0C)
            case UInt8(ascii: "n"): raw.append(0x0A)
            case UInt8(ascii: "r"): raw.append(0x0D)
            case UInt8(ascii: "t"): raw.append(0x09)
            case UInt8(ascii: "u"):
                guard pos + 4 <= end, let code = UInt32(text(pos..<pos + 4), radix: 16),
                      bytes[pos..<pos + 4].allSatisfy(Self.isHexDigit) else {
                    throw error(.urlSyntaxError, "invalid \\u escape in a JSON string", at: pos - 2)
                }
                pos += 4
                flush()
                scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
            default:
                throw error(.urlSyntaxError, "invalid escape '\\\(text(pos - 1..<pos))' in a JSON string", at: pos - 2)
            }
        }
        flush()
        return String(scalars)
    }
}
