/// Row counts that come from a request (`$top`, `$skip`, a page size, `Prefer: odata.maxpagesize`)
/// are clamped to `ceiling` before any arithmetic, and sums of them saturate, so no request can
/// make the executor overflow (`$top=9223372036854775807` used to trap on `skip + top + 1`).
/// The ceiling is far above any number of rows a store can hold, so clamping changes no answer.
public enum RowCount {
    /// 2^52: more rows than any store holds; `ceiling * 4` still fits an `Int`.
    public static let ceiling = 1 << 52

    /// `n` clamped into `0...ceiling`.
    @inlinable public static func clamp(_ n: Int) -> Int { min(max(n, 0), ceiling) }

    /// `a + b`, saturating at `Int.max` (both are counts, never negative).
    @inlinable public static func sum(_ a: Int, _ b: Int) -> Int {
        let (value, overflow) = a.addingReportingOverflow(b)
        return overflow ? Int.max : value
    }
}
