import OfflineODataModel

/// Evaluation errors, codes 1700–1749 (docs/Query.md §3.8, docs/Errors.md "Query evaluation").
extension ODataError {
    /// 1700: `div` or `mod` by zero on a type without INF/NaN (integers, fixed-scale Decimal).
    static func evalDivisionByZero(_ op: String, at position: Int) -> ODataError {
        ODataError(.invalidInput, name: "divisionByZero", code: 1700,
                   message: "'\(op)' by zero", location: at(position))
    }

    /// 1701: an argument value a function rejects (negative `substring` length, …).
    static func evalInvalidArgument(_ message: String, at position: Int) -> ODataError {
        ODataError(.invalidInput, name: "invalidArgument", code: 1701, message: message, location: at(position))
    }

    /// 1702: a `matchesPattern` pattern that is not a regular expression.
    static func evalInvalidPattern(_ pattern: String, _ reason: String, offset: Int, at position: Int) -> ODataError {
        ODataError(.invalidInput, name: "invalidPattern", code: 1702,
                   message: "'\(shown(pattern))' is not a valid regular expression: \(reason) at pattern offset \(offset)",
                   location: at(position))
    }

    /// 1706: a `matchesPattern` pattern that is valid ECMAScript but needs backtracking
    /// (backreferences, lookaround) or more automaton states than the matcher allows.
    static func evalPatternNotSupported(_ pattern: String, _ reason: String, at position: Int) -> ODataError {
        ODataError(.notSupported, name: "patternNotSupported", code: 1706,
                   message: "'\(shown(pattern))': \(reason)", location: at(position))
    }

    private static func shown(_ pattern: String) -> String {
        pattern.count > 80 ? String(pattern.prefix(80)) + "…" : pattern
    }

    /// 1703: an integer, decimal or date result outside its type's range.
    static func evalOverflow(_ message: String, at position: Int) -> ODataError {
        ODataError(.invalidInput, name: "arithmeticOverflow", code: 1703, message: message, location: at(position))
    }

    /// 1704: a value whose run-time type does not fit the operation (a dynamic property of an
    /// unexpected type, an instance that lacks a value the binder expected).
    static func evalTypeMismatch(_ message: String, at position: Int) -> ODataError {
        ODataError(.invalidInput, name: "evaluationTypeMismatch", code: 1704, message: message, location: at(position))
    }

    /// 1705: an expression the evaluator cannot compute in this context (`$root` without a
    /// resolver, entity comparison, navigation from a value that is not an instance).
    static func evalNotSupported(_ what: String, at position: Int) -> ODataError {
        ODataError(.notSupported, name: "evaluationNotSupported", code: 1705,
                   message: "\(what) is not supported during evaluation", location: at(position))
    }
}
