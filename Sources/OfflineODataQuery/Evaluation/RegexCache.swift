import OfflineODataModel
import Synchronization

/// Compiles `matchesPattern` patterns with the standard library's `Regex` (no Foundation).
/// The syntax is Swift's regex syntax, a superset of the common ECMAScript subset
/// (classes, quantifiers, anchors, groups, alternation).
enum RegexCache {
    static func compile(_ pattern: String, at position: Int) throws(ODataError) -> Regex<AnyRegexOutput> {
        do {
            return try Regex(pattern)
        } catch {
            throw .evalInvalidPattern(pattern, at: position)
        }
    }

    /// Compiles once to report an invalid literal pattern at bind time.
    static func validate(_ pattern: String, at position: Int) throws(ODataError) {
        _ = try compile(pattern, at: position)
    }
}

/// The compiled patterns of one `Evaluator` (and its copies), so a filter does not compile its
/// pattern again for every row. Bounded: cleared when it holds `limit` patterns.
/// `Regex` is not `Sendable`; a compiled regex is immutable and only read under the lock or
/// after it, which is why the class is `@unchecked Sendable`.
final class PatternCache: @unchecked Sendable {
    static let limit = 64
    private let lock = Mutex<Void>(())
    private var patterns: [String: Regex<AnyRegexOutput>] = [:]

    /// True when `pattern` matches somewhere in `text` (ECMAScript `RegExp.test` semantics).
    func matches(_ text: String, _ pattern: String, at position: Int) throws(ODataError) -> Bool {
        let regex = try regex(pattern, at: position)
        return text.contains(regex)
    }

    func regex(_ pattern: String, at position: Int) throws(ODataError) -> Regex<AnyRegexOutput> {
        if let cached = lock.withLock({ _ in patterns[pattern] }) { return cached }
        let compiled = try RegexCache.compile(pattern, at: position)
        lock.withLock { _ in
            if patterns.count >= Self.limit { patterns.removeAll() }
            patterns[pattern] = compiled
        }
        return compiled
    }
}
