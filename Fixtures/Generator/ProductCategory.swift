/// One product category of the catalog: name stems, variant suffixes, description fragments
/// and realistic ranges for price (in cents), weight and dimensions (in millimetres).
struct ProductCategory: Sendable {
    let name: String
    let stems: [String]
    let variants: [String]
    /// Joined with ", " (1 to 5 of them) into descriptions of varying length.
    let fragments: [String]
    let priceCents: ClosedRange<Int>
    /// Weight in grams.
    let weightGrams: ClosedRange<Int>
    /// Width, depth, height ranges in millimetres.
    let widthMM: ClosedRange<Int>
    let depthMM: ClosedRange<Int>
    let heightMM: ClosedRange<Int>
}
