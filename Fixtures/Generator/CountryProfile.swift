/// One city of a country profile: its name, a postal-code pattern (`#` = random digit) and a
/// few streets. (A final class: shared, immutable, and cheap to pass around in hot loops.)
final class CityProfile: Sendable {
    let name: String
    let postalPattern: String
    let streets: [String]

    init(name: String, postalPattern: String, streets: [String]) {
        self.name = name
        self.postalPattern = postalPattern
        self.streets = streets
    }
}

/// Everything country-specific the generator needs to make a believable partner or contact:
/// cities, currency, phone format, web domain, legal forms, the local UTC offset used for some
/// `ChangedAt` values, and people's names.
final class CountryProfile: Sendable {
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

    init(
        code: String, currency: String, phonePattern: String, topLevelDomain: String, legalForms: [String],
        utcOffsetMinutes: Int, weight: Int, cities: [CityProfile], maleNames: [String], femaleNames: [String],
        lastNames: [String], companyWords: [String]
    ) {
        self.code = code
        self.currency = currency
        self.phonePattern = phonePattern
        self.topLevelDomain = topLevelDomain
        self.legalForms = legalForms
        self.utcOffsetMinutes = utcOffsetMinutes
        self.weight = weight
        self.cities = cities
        self.maleNames = maleNames
        self.femaleNames = femaleNames
        self.lastNames = lastNames
        self.companyWords = companyWords
    }
}
