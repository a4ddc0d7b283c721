import OfflineODataModel

/// Canonical functions (docs/Query.md §3.4; URL §5.1.1.5–5.1.1.9). Any null argument gives
/// null. Strings are handled as sequences of Unicode scalars (code points): `length`,
/// `indexof` and `substring` count code points, and `contains`/`startswith`/`endswith`
/// compare them ordinally (case-sensitive, no normalization).
extension Evaluator {
    /// `mindatetime()`: 0001-01-01T00:00:00Z.
    static let minDateTime = try? EdmDateTimeOffset(utcSeconds: -62_135_596_800)
    /// `maxdatetime()`: 9999-12-31T23:59:59.999999999999Z.
    static let maxDateTime = try? EdmDateTimeOffset(utcSeconds: 253_402_300_799, picoseconds: 999_999_999_999)

    func call(_ function: CanonicalFunction, _ args: [ODataValue], _ exprs: [BoundExpr], at position: Int) throws(ODataError) -> ODataValue {
        switch function {
        case .now: return now.map(ODataValue.dateTimeOffset) ?? .null
        case .mindatetime: return Self.minDateTime.map(ODataValue.dateTimeOffset) ?? .null
        case .maxdatetime: return Self.maxDateTime.map(ODataValue.dateTimeOffset) ?? .null
        default: break
        }
        // URL §5.1.1.4: a null argument makes the result null.
        if args.contains(where: \.isNull) { return .null }
        func mismatch() -> ODataError {
            .evalTypeMismatch("\(function.rawValue) cannot be applied to these argument values", at: position)
        }
        switch function {
        case .contains, .startswith, .endswith, .indexof:
            if case .string(let a) = args[0], case .string(let b) = args[1] {
                return Self.stringSearch(function, a, b)
            }
            guard case .collection(let haystack) = args[0], case .collection(let needle) = args[1] else { throw mismatch() }
            switch function {
            case .contains: return .boolean(try firstIndex(of: needle, in: haystack) != nil)
            case .startswith:
                let head = needle.count <= haystack.count ? try sequencesEqual(haystack.prefix(needle.count), needle[...]) : false
                return .boolean(head)
            case .endswith:
                let tail = needle.count <= haystack.count ? try sequencesEqual(haystack.suffix(needle.count), needle[...]) : false
                return .boolean(tail)
            default: return .int32(Int32(clamping: try firstIndex(of: needle, in: haystack) ?? -1))
            }
        case .length:
            switch args[0] {
            case .string(let s): return .int32(Int32(clamping: s.unicodeScalars.count))
            case .collection(let c): return .int32(Int32(clamping: c.count))
            default: throw mismatch()
            }
        case .substring:
            guard let start = NumericConversion.integer(args[1]) else { throw mismatch() }
            var length: Int64?
            if args.count > 2 {
                guard let value = NumericConversion.integer(args[2]) else { throw mismatch() }
                guard value >= 0 else {
                    throw .evalInvalidArgument("substring length \(value) is negative", at: exprs[2].position)
                }
                length = value
            }
            switch args[0] {
            case .string(let s):
                let scalars = Array(s.unicodeScalars)
                let range = Self.sliceRange(count: scalars.count, start: start, length: length)
                var view = String.UnicodeScalarView()
                view.append(contentsOf: scalars[range])
                return .string(String(view))
            case .collection(let c):
                return .collection(Array(c[Self.sliceRange(count: c.count, start: start, length: length)]))
            default: throw mismatch()
            }
        case .hassubset, .hassubsequence:
            guard case .collection(let a) = args[0], case .collection(let b) = args[1] else { throw mismatch() }
            return .boolean(function == .hassubset ? try isSubset(b, of: a) : try isSubsequence(b, of: a))
        case .tolower, .toupper, .trim:
            guard case .string(let s) = args[0] else { throw mismatch() }
            switch function {
            case .tolower: return .string(s.lowercased())
            case .toupper: return .string(s.uppercased())
            default:
                let scalars = s.unicodeScalars
                guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
                      let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return .string("") }
                return .string(String(scalars[first...last]))
            }
        case .concat:
            switch (args[0], args[1]) {
            case let (.string(a), .string(b)): return .string(a + b)
            case let (.collection(a), .collection(b)): return .collection(a + b)
            default: throw mismatch()
            }
        case .matchesPattern:
            guard case .string(let text) = args[0], case .string(let pattern) = args[1] else { throw mismatch() }
            return .boolean(try patternCache.matches(text, pattern, at: exprs[1].position))
        case .year, .month, .day:
            let date: EdmDate
            switch args[0] {
            case .date(let d): date = d
            case .dateTimeOffset(let t): date = t.date // in the value's own offset (URL §5.1.1.8)
            default: throw mismatch()
            }
            let part = function == .year ? date.year : (function == .month ? date.month : date.day)
            return .int32(Int32(clamping: part))
        case .hour, .minute, .second, .fractionalseconds:
            let time: EdmTimeOfDay
            switch args[0] {
            case .timeOfDay(let t): time = t
            case .dateTimeOffset(let t): time = t.time
            default: throw mismatch()
            }
            switch function {
            case .hour: return .int32(Int32(time.hour))
            case .minute: return .int32(Int32(time.minute))
            case .second: return .int32(Int32(time.second))
            default: return .decimal(Pico(seconds: 0, picos: time.picoseconds).seconds.normalized)
            }
        case .date:
            guard case .dateTimeOffset(let t) = args[0] else { throw mismatch() }
            return .date(t.date)
        case .time:
            guard case .dateTimeOffset(let t) = args[0] else { throw mismatch() }
            return .timeOfDay(t.time)
        case .totaloffsetminutes:
            guard case .dateTimeOffset(let t) = args[0] else { throw mismatch() }
            return .int32(Int32(t.offsetMinutes))
        case .totalseconds:
            guard case .duration(let d) = args[0] else { throw mismatch() }
            return .decimal(Pico(d).seconds.normalized)
        case .round, .floor, .ceiling:
            switch args[0] {
            case .double(let d): return .double(Self.round(function, d))
            case .single(let f): return .double(Self.round(function, Double(f)))
            case let other:
                guard let decimal = NumericConversion.decimal(other) else { throw mismatch() }
                let mode: EdmDecimal.Rounding = function == .round ? .halfAwayFromZero : (function == .floor ? .down : .up)
                return .decimal(try decimal.rounded(mode, at: position))
            }
        case .now, .mindatetime, .maxdatetime:
            return .null
        }
    }

    /// contains/startswith/endswith/indexof on strings, ordinal by Unicode scalar.
    static func stringSearch(_ function: CanonicalFunction, _ text: String, _ part: String) -> ODataValue {
        let hay = text.unicodeScalars, needle = part.unicodeScalars
        switch function {
        case .startswith: return .boolean(hay.starts(with: needle))
        case .endswith: return .boolean(hay.reversed().starts(with: needle.reversed()))
        default:
            let offset = LinearSearch.firstScalarOffset(of: part, in: text)
            if function == .contains { return .boolean(offset != nil) }
            return .int32(offset.map { Int32(clamping: $0) } ?? -1)
        }
    }

    static func round(_ function: CanonicalFunction, _ value: Double) -> Double {
        switch function {
        case .round: value.rounded(.toNearestOrAwayFromZero)
        case .floor: value.rounded(.down)
        default: value.rounded(.up)
        }
    }

    /// `substring` bounds: a negative start counts back from the end (clamped to 0); a start
    /// past the end gives an empty result; a length past the end is clipped.
    static func sliceRange(count: Int, start: Int64, length: Int64?) -> Range<Int> {
        let from = start < 0 ? max(0, Int64(count) + start) : min(start, Int64(count))
        let to = length.map { min(Int64(count), from + min($0, Int64(count))) } ?? Int64(count)
        return Int(from)..<Int(max(from, to))
    }

    func sequencesEqual(_ a: ArraySlice<ODataValue>, _ b: ArraySlice<ODataValue>) throws(ODataError) -> Bool {
        guard a.count == b.count else { return false }
        for (x, y) in zip(a, b) where try !valuesEqual(x, y) { return false }
        return true
    }

    func firstIndex(of needle: [ODataValue], in haystack: [ODataValue]) throws(ODataError) -> Int? {
        try LinearSearch.firstOffset(of: needle, in: haystack) { (a, b) throws(ODataError) in try valuesEqual(a, b) }
    }

    /// B can be made from A by reordering and removing items (duplicates count).
    func isSubset(_ b: [ODataValue], of a: [ODataValue]) throws(ODataError) -> Bool {
        var available = a
        for item in b {
            var found: Int?
            for (index, candidate) in available.enumerated() where try valuesEqual(candidate, item) {
                found = index
                break
            }
            guard let found else { return false }
            available.remove(at: found)
        }
        return true
    }

    /// B can be made from A by removing items, keeping the order.
    func isSubsequence(_ b: [ODataValue], of a: [ODataValue]) throws(ODataError) -> Bool {
        var index = 0
        for candidate in a where index < b.count {
            if try valuesEqual(candidate, b[index]) { index += 1 }
        }
        return index == b.count
    }
}
