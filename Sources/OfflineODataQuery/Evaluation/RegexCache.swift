import OfflineODataModel
import Synchronization

/// Compiles `matchesPattern` patterns with `LinearRegex`, whose matching time is linear in the
/// text whatever the pattern (the standard library's `Regex` backtracks, and a pattern such as
/// `(.*){25}x` ran for minutes on a short string).
enum RegexCache {
    static func compile(_ pattern: String, at position: Int) throws(ODataError) -> LinearRegex {
        do {
            return try LinearRegex(pattern)
        } catch {
            if error.unsupported { throw .evalPatternNotSupported(pattern, error.message, at: position) }
            throw .evalInvalidPattern(pattern, error.message, offset: error.offset, at: position)
        }
    }

    /// Compiles once to report an invalid literal pattern at bind time.
    static func validate(_ pattern: String, at position: Int) throws(ODataError) {
        _ = try compile(pattern, at: position)
    }
}

/// The compiled patterns of one `Evaluator` (and its copies), so a filter does not compile its
/// pattern again for every row. Bounded: cleared when it holds `limit` patterns.
final class PatternCache: Sendable {
    static let limit = 64
    private let patterns = Mutex<[String: LinearRegex]>([:])

    /// True when `pattern` matches somewhere in `text` (ECMAScript `RegExp.test` semantics).
    func matches(_ text: String, _ pattern: String, at position: Int) throws(ODataError) -> Bool {
        try regex(pattern, at: position).matches(text)
    }

    func regex(_ pattern: String, at position: Int) throws(ODataError) -> LinearRegex {
        if let cached = patterns.withLock({ $0[pattern] }) { return cached }
        let compiled = try RegexCache.compile(pattern, at: position)
        patterns.withLock { patterns in
            if patterns.count >= Self.limit { patterns.removeAll() }
            patterns[pattern] = compiled
        }
        return compiled
    }
}
