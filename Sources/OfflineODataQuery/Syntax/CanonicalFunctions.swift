/// The canonical functions of OData 4.01 (URL Conventions §5.1.1.4–5.1.1.11) with their
/// argument counts. Names are matched case-insensitively and stored in this spelling.
enum CanonicalFunctions {
    struct Signature {
        let name: String
        let arguments: ClosedRange<Int>
    }

    static let all: [Signature] = [
        .init(name: "concat", arguments: 2...2),
        .init(name: "contains", arguments: 2...2),
        .init(name: "endswith", arguments: 2...2),
        .init(name: "indexof", arguments: 2...2),
        .init(name: "length", arguments: 1...1),
        .init(name: "startswith", arguments: 2...2),
        .init(name: "substring", arguments: 2...3),
        .init(name: "matchesPattern", arguments: 2...2),
        .init(name: "tolower", arguments: 1...1),
        .init(name: "toupper", arguments: 1...1),
        .init(name: "trim", arguments: 1...1),
        .init(name: "hassubset", arguments: 2...2),
        .init(name: "hassubsequence", arguments: 2...2),
        .init(name: "date", arguments: 1...1),
        .init(name: "day", arguments: 1...1),
        .init(name: "fractionalseconds", arguments: 1...1),
        .init(name: "hour", arguments: 1...1),
        .init(name: "maxdatetime", arguments: 0...0),
        .init(name: "mindatetime", arguments: 0...0),
        .init(name: "minute", arguments: 1...1),
        .init(name: "month", arguments: 1...1),
        .init(name: "now", arguments: 0...0),
        .init(name: "second", arguments: 1...1),
        .init(name: "time", arguments: 1...1),
        .init(name: "totaloffsetminutes", arguments: 1...1),
        .init(name: "totalseconds", arguments: 1...1),
        .init(name: "year", arguments: 1...1),
        .init(name: "ceiling", arguments: 1...1),
        .init(name: "floor", arguments: 1...1),
        .init(name: "round", arguments: 1...1),
        .init(name: "cast", arguments: 1...2),
        .init(name: "isof", arguments: 1...2),
        .init(name: "geo.distance", arguments: 2...2),
        .init(name: "geo.intersects", arguments: 2...2),
        .init(name: "geo.length", arguments: 1...1),
    ]

    private static let byLowercasedName: [String: Signature] = {
        var table: [String: Signature] = [:]
        for signature in all { table[signature.name.lowercased()] = signature }
        return table
    }()

    /// The signature of the canonical function `name` (any case).
    static func lookup(_ name: String) -> Signature? {
        byLowercasedName[name.lowercased()]
    }
}
