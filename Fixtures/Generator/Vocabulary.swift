/// The word lists the generator draws from. Country-specific lists are in
/// `Vocabulary+Countries.swift`, the product catalog and notes in `Vocabulary+Products.swift`.
enum Vocabulary {
    static let countryWeights: [Int] = countries.map(\.weight)

    /// English company-name stems (used in every country, like the EPM demo data).
    static let companyStems: [String] = [
        "Pear", "Alpine", "Becker", "DelBont", "Talpa", "Panorama", "Robert Brown", "Bionic",
        "Titanium", "Mexican Oil", "Printing for All", "Skyline", "Blue Harbor", "Nordic",
        "Crescent", "Silverline", "Quantum", "Evergreen", "Red Rock", "Polaris", "Anav",
        "Laurent", "Sunburst", "North Star", "Greenfield", "Ironbridge", "Cobalt", "Harbourview",
    ]

    static let companyNouns: [String] = [
        "Computing Services", "Industries", "Systems", "Trading Company", "Studios",
        "Entertainment", "Electronics", "Logistics", "Office Supplies", "Networks", "Retail",
        "Technologies", "Distribution", "Solutions", "Media", "Components",
    ]

    static let emailUsers: [String] = ["info", "sales", "orders", "purchasing", "contact", "do.not.reply"]
}
