import OfflineODataModel

/// Operator precedence (URL Conventions §5.1.1.17, docs/Query.md §1.3), lowest first:
/// `or`; `and`; `eq ne`; `gt ge lt le`; `add sub`; `mul div divby mod`; unary `-` `not`;
/// primary with `has`, `in`, `/`, calls and grouping. `not A eq B` is `(not A) eq B`.
/// Binary operators are left-associative and need whitespace on both sides (RWS); `in` may
/// be followed directly by `(` or `[`.
extension SyntaxParser {
    /// A whole expression (commonExpr / boolCommonExpr).
    mutating func parseExpression() throws(ODataError) -> SyntaxExpr {
        try enter()
        defer { leave() }
        return try parseBinaryLevel(0)
    }

    static let binaryLevels: [[SyntaxBinaryOperator]] = [
        [.or], [.and], [.eq, .ne], [.gt, .ge, .lt, .le], [.add, .sub], [.mul, .div, .divby, .mod],
    ]

    private mutating func parseBinaryLevel(_ level: Int) throws(ODataError) -> SyntaxExpr {
        guard level < Self.binaryLevels.count else { return try parseUnary() }
        var left = try parseBinaryLevel(level + 1)
        var chain = 0
        defer { leaveChain(chain) }
        while let op = takeBinaryOperator(Self.binaryLevels[level]) {
            // Each operator nests the tree one level deeper: count it against the limit.
            try enterChain()
            chain += 1
            let right = try parseBinaryLevel(level + 1)
            left = SyntaxExpr(.binary(op, left, right), at: left.position)
        }
        return left
    }

    /// RWS, one of `operators` (any case), RWS; consumed only when all three are there.
    mutating func takeBinaryOperator(_ operators: [SyntaxBinaryOperator]) -> SyntaxBinaryOperator? {
        var index = pos
        guard isWhitespace(byte(at: index)) else { return nil }
        while isWhitespace(byte(at: index)) { index += 1 }
        for op in operators where keyword(op.rawValue, at: index) {
            var after = index + op.rawValue.utf8.count
            let spaced = isWhitespace(byte(at: after))
            let opensList = op == .in && (byte(at: after) == UInt8(ascii: "(") || byte(at: after) == UInt8(ascii: "["))
            guard spaced || opensList else { continue }
            while isWhitespace(byte(at: after)) { after += 1 }
            guard after < end else { continue }
            pos = after
            return op
        }
        return nil
    }

    /// `-x` (when `-` is not the sign of a numeric literal), `not x`, or a postfix expression.
    mutating func parseUnary() throws(ODataError) -> SyntaxExpr {
        let start = pos
        if current == UInt8(ascii: "-"), !startsSignedNumber(at: pos) {
            pos += 1
            skipWhitespace()
            try enter()
            defer { leave() }
            let operand = try parseUnary()
            return SyntaxExpr(.unary(.negate, operand), at: start)
        }
        if keyword("not", at: pos) {
            let after = pos + 3
            if isWhitespace(byte(at: after)) || byte(at: after) == UInt8(ascii: "(") {
                pos = after
                skipWhitespace()
                try enter()
                defer { leave() }
                let operand = try parseUnary()
                return SyntaxExpr(.unary(.not, operand), at: start)
            }
        }
        return try parsePostfix()
    }

    /// A primary followed by any number of `has` / `in` operators (primary precedence).
    mutating func parsePostfix() throws(ODataError) -> SyntaxExpr {
        var left = try parsePrimary()
        var chain = 0
        defer { leaveChain(chain) }
        while let op = takeBinaryOperator([.has, .in]) {
            try enterChain()
            chain += 1
            let rightStart = pos
            var right = try parsePrimary(listAllowed: op == .in)
            if op == .in { right = try listOperand(right, at: rightStart) }
            left = SyntaxExpr(.binary(op, left, right), at: left.position)
        }
        return left
    }

    /// The right operand of `in`: a parenthesised single primitive literal is a one-element
    /// list; a list must hold primitive literals only (ABNF `listExpr`).
    private func listOperand(_ expr: SyntaxExpr, at start: Int) throws(ODataError) -> SyntaxExpr {
        switch expr.kind {
        case .list(let items):
            for item in items where !Self.isListLiteral(item) {
                throw error(.invalidListOperand,
                            "a parenthesised list holds primitive literals only, not \(token(at: item.position))",
                            at: item.position)
            }
            return expr
        default:
            if byte(at: start) == UInt8(ascii: "("), Self.isListLiteral(expr) {
                return SyntaxExpr(.list([expr]), at: start)
            }
            return expr
        }
    }

    static func isListLiteral(_ expr: SyntaxExpr) -> Bool {
        switch expr.kind {
        case .literal, .null, .alias: return true
        case .json(let value):
            switch value {
            case .array, .object: return false
            default: return true
            }
        default: return false
        }
    }

    /// `-` directly followed by a digit or `INF`: the sign of a literal, not negation.
    func startsSignedNumber(at index: Int) -> Bool {
        guard let next = byte(at: index + 1) else { return false }
        return Self.isDigit(next) || exactWord("INF", at: index + 1)
    }
}
