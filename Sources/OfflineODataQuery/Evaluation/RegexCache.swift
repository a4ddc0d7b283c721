import OfflineODataModel

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

    /// True when `pattern` matches somewhere in `text` (ECMAScript `RegExp.test` semantics).
    static func matches(_ text: String, _ pattern: String, at position: Int) throws(ODataError) -> Bool {
        let regex = try compile(pattern, at: position)
        return text.contains(regex)
    }
}
