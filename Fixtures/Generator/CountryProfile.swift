/// One city of a country profile: its name, a postal-code pattern (`#` = random digit) and a
/// few streets.
struct CityProfile: Sendable {
    let name: String
    let postalPattern: String
    let streets: [String]
}

/// Everything country-specific the generator needs to make a believable partner or contact:
/// cities, currency, phone format, web domain, legal forms, the local UTC offset used for some
/// `ChangedAt` values, and people's names.
struct CountryProfile: Sendable {
    let code: String
    let currency: String
    /// `#` = random digit, `@` = random digit 2–9.
    let phonePattern: String
    let topLevelDomain: String
    let legalForms: [String]
    let utcOffsetMinutes: Int
    /// Relative frequency among business partners.
    let weight: Int
    let cities: [CityProfile]
    let maleNames: [String]
    let femaleNames: [String]
    let lastNames: [String]
    /// Business words in the local language, used in company names.
    let companyWords: [String]
}
