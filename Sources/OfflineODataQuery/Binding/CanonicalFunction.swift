/// The canonical functions of OData 4.01 URL Conventions §5.1.1.4–5.1.1.11 that the binder
/// accepts (names are case-insensitive in the URL; `rawValue` is the spelling of the spec).
/// `cast` and `isof` are bound to `BoundExprKind.cast`/`.isOf`; geo functions are rejected as
/// not supported.
public enum CanonicalFunction: String, Sendable, Hashable, CaseIterable {
    // String and collection functions (§5.1.1.5, §5.1.1.6, §5.1.1.7)
    case contains, startswith, endswith, length, indexof, substring
    case hassubset, hassubsequence
    case tolower, toupper, trim, concat
    case matchesPattern
    // Date and time functions (§5.1.1.8)
    case year, month, day, hour, minute, second, fractionalseconds
    case date, time, totaloffsetminutes, totalseconds
    case now, mindatetime, maxdatetime
    // Arithmetic functions (§5.1.1.9)
    case round, floor, ceiling

    /// Case-insensitive lookup.
    public init?(name: String) {
        let lower = name.lowercased()
        guard let match = CanonicalFunction.allCases.first(where: { $0.rawValue.lowercased() == lower }) else {
            return nil
        }
        self = match
    }

    /// Allowed argument counts.
    public var arity: ClosedRange<Int> {
        switch self {
        case .now, .mindatetime, .maxdatetime: 0...0
        case .length, .tolower, .toupper, .trim, .year, .month, .day, .hour, .minute, .second,
             .fractionalseconds, .date, .time, .totaloffsetminutes, .totalseconds, .round,
             .floor, .ceiling: 1...1
        case .substring: 2...3
        default: 2...2
        }
    }
}

/// Geo functions of §5.1.1.11: recognised so that they fail as "not supported" rather than
/// "unknown".
enum GeoFunctionNames {
    static let all: Set<String> = ["geo.distance", "geo.length", "geo.intersects"]
}
