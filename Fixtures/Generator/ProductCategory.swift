/// One product category of the catalog: name stems, variant suffixes, description fragments
/// and realistic ranges for price (in cents), weight and dimensions (in millimetres).
/// (A final class: shared, immutable, and cheap to pass around in hot loops.)
final class ProductCategory: Sendable {
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

    init(
        name: String, stems: [String], variants: [String], fragments: [String], priceCents: ClosedRange<Int>,
        weightGrams: ClosedRange<Int>, widthMM: ClosedRange<Int>, depthMM: ClosedRange<Int>,
        heightMM: ClosedRange<Int>
    ) {
        self.name = name
        self.stems = stems
        self.variants = variants
        self.fragments = fragments
        self.priceCents = priceCents
        self.weightGrams = weightGrams
        self.widthMM = widthMM
        self.depthMM = depthMM
        self.heightMM = heightMM
    }
}
