/// An error raised by the fixture generator (codes 1500–1599, the fixtures range of
/// `ODataError`; the fixtures target does not depend on the model, so it has its own type with
/// the same name/code/message shape).
///
/// | code | name | when |
/// |---|---|---|
/// | 1501 | `invalidPageSize` | a page size below 1 |
/// | 1502 | `pageOutOfRange` | a page index below 0 or at/after the last page |
/// | 1503 | `entityIndexOutOfRange` | an entity index outside `0..<count(of: set)` |
/// | 1504 | `invalidScale` | a negative count, fewer than 2 business partners or 1 product while there are orders, or more entities than the ID formats can number |
/// | 1505 | `invalidSkipToken` | a next link whose `$skiptoken` is missing or not a non-negative integer |
public struct FixtureError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable identifier, e.g. `pageOutOfRange`.
    public var name: String
    /// Stable numeric code in 1500–1599.
    public var code: Int
    /// What was wrong, naming the offending value.
    public var message: String
    /// Where, when the input is text (e.g. "offset 12" in a next link), else nil.
    public var location: String?

    /// Always `invalidInput` (the `ODataErrorCategory` raw value these errors map to).
    public var category: String { "invalidInput" }

    public init(name: String, code: Int, message: String, location: String? = nil) {
        self.name = name
        self.code = code
        self.message = message
        self.location = location
    }

    public var description: String {
        var text = "[\(category)] \(name) (\(code)): \(message)"
        if let location { text += " at \(location)" }
        return text
    }

    static func invalidPageSize(_ size: Int) -> FixtureError {
        FixtureError(name: "invalidPageSize", code: 1501, message: "page size \(size) is not at least 1")
    }

    static func pageOutOfRange(_ index: Int, set: SalesEntitySet, pages: Int) -> FixtureError {
        FixtureError(
            name: "pageOutOfRange", code: 1502,
            message: "page \(index) of \(set.name) is outside 0..<\(pages)")
    }

    static func entityIndexOutOfRange(_ index: Int, set: SalesEntitySet, count: Int) -> FixtureError {
        FixtureError(
            name: "entityIndexOutOfRange", code: 1503,
            message: "entity \(index) of \(set.name) is outside 0..<\(count)")
    }

    static func invalidScale(_ detail: String) -> FixtureError {
        FixtureError(name: "invalidScale", code: 1504, message: detail)
    }

    static func invalidSkipToken(_ link: String, offset: Int?) -> FixtureError {
        FixtureError(
            name: "invalidSkipToken", code: 1505,
            message: "next link '\(link)' has no non-negative integer $skiptoken",
            location: offset.map { "offset \($0)" })
    }
}
