import OfflineODataModel

/// Arithmetic operators on run-time values (docs/Query.md §3.3; URL §5.1.1.2): numeric
/// promotion, exact decimals, truncating integer `div`, `mod` with the sign of the left
/// operand, `divby` on decimals, and date/time arithmetic.
enum Arithmetic {
    static func apply(_ op: BoundBinaryOperator, _ l: ODataValue, _ r: ODataValue, at position: Int) throws(ODataError) -> ODataValue {
        if l.isNull || r.isNull { return .null }
        if let lk = l.kind, let rk = r.kind, let kind = ExpressionBinder.promotedKind(lk, rk) {
            if op == .divby { return try divby(l, r, kind, at: position) }
            return try numeric(op, l, r, kind, at: position)
        }
        return try temporal(op, l, r, at: position)
    }

    static func numeric(_ op: BoundBinaryOperator, _ l: ODataValue, _ r: ODataValue, _ kind: EdmPrimitiveKind,
                        at position: Int) throws(ODataError) -> ODataValue {
        switch kind {
        case .double:
            guard let x = NumericConversion.double(l), let y = NumericConversion.double(r) else { break }
            return .double(try floating(op, x, y, at: position))
        case .single:
            guard let x = NumericConversion.double(l).map(Float.init), let y = NumericConversion.double(r).map(Float.init) else { break }
            return .single(try floating(op, x, y, at: position))
        case .decimal:
            guard let x = NumericConversion.decimal(l), let y = NumericConversion.decimal(r) else { break }
            switch op {
            case .add: return .decimal(try x.adding(y, at: position))
            case .sub: return .decimal(try x.subtracting(y, at: position))
            case .mul: return .decimal(try x.multiplied(by: y, at: position))
            case .div:
                guard let q = try x.divided(by: y, at: position) else { throw .evalDivisionByZero("div", at: position) }
                return .decimal(q)
            case .mod:
                guard let m = try x.remainder(dividingBy: y, at: position) else { throw .evalDivisionByZero("mod", at: position) }
                return .decimal(m)
            default: break
            }
        default:
            guard let x = NumericConversion.integer(l), let y = NumericConversion.integer(r) else { break }
            let (result, overflow): (Int64, Bool)
            switch op {
            case .add: (result, overflow) = x.addingReportingOverflow(y)
            case .sub: (result, overflow) = x.subtractingReportingOverflow(y)
            case .mul: (result, overflow) = x.multipliedReportingOverflow(by: y)
            case .div:
                guard y != 0 else { throw .evalDivisionByZero("div", at: position) }
                (result, overflow) = x.dividedReportingOverflow(by: y)
            case .mod:
                guard y != 0 else { throw .evalDivisionByZero("mod", at: position) }
                (result, overflow) = x.remainderReportingOverflow(dividingBy: y)
            default: (result, overflow) = (0, true)
            }
            guard !overflow, let narrowed = NumericConversion.exact(.int64(result), to: kind) else {
                throw .evalOverflow("'\(op.rawValue)' overflows \(kind.rawValue)", at: position)
            }
            return narrowed
        }
        throw .evalTypeMismatch("'\(op.rawValue)' cannot be applied to these values", at: position)
    }

    static func floating<F: BinaryFloatingPoint>(_ op: BoundBinaryOperator, _ x: F, _ y: F, at position: Int) throws(ODataError) -> F {
        switch op {
        case .add: return x + y
        case .sub: return x - y
        case .mul: return x * y
        case .div, .divby: return x / y
        case .mod:
            guard y != 0 else { throw .evalDivisionByZero("mod", at: position) }
            return x.truncatingRemainder(dividingBy: y)
        default: throw .evalTypeMismatch("'\(op.rawValue)' is not arithmetic", at: position)
        }
    }

    /// `divby` (4.01): decimal division that never fails; by zero gives ±INF or NaN.
    static func divby(_ l: ODataValue, _ r: ODataValue, _ kind: EdmPrimitiveKind, at position: Int) throws(ODataError) -> ODataValue {
        if kind == .double || kind == .single {
            guard let x = NumericConversion.double(l), let y = NumericConversion.double(r) else { return .null }
            return .double(x / y)
        }
        guard let x = NumericConversion.decimal(l), let y = NumericConversion.decimal(r) else { return .null }
        if let q = try x.divided(by: y, at: position) { return .decimal(q) }
        if x.isZero { return .decimal(.nan) }
        return .decimal(x.isNegative ? .negativeInfinity : .infinity)
    }

    static func negate(_ value: ODataValue, at position: Int) throws(ODataError) -> ODataValue {
        func overflow() -> ODataError { .evalOverflow("negating \(value.kind?.rawValue ?? "value") overflows", at: position) }
        switch value {
        case .null: return .null
        case .byte(let v): return .int16(-Int16(v))
        case .sbyte(let v): guard v != .min else { throw overflow() }; return .sbyte(-v)
        case .int16(let v): guard v != .min else { throw overflow() }; return .int16(-v)
        case .int32(let v): guard v != .min else { throw overflow() }; return .int32(-v)
        case .int64(let v): guard v != .min else { throw overflow() }; return .int64(-v)
        case .decimal(let v): return .decimal(v.negated)
        case .single(let v): return .single(-v)
        case .double(let v): return .double(-v)
        case .duration(let d): return .duration(try Pico(d).negated.duration(at: position))
        default: throw .evalTypeMismatch("'-' cannot be applied to this value", at: position)
        }
    }

    // MARK: - Date and time (URL §5.1.1.2.1–2)

    static func temporal(_ op: BoundBinaryOperator, _ l: ODataValue, _ r: ODataValue, at position: Int) throws(ODataError) -> ODataValue {
        switch (op, l, r) {
        case let (.add, .dateTimeOffset(t), .duration(d)), let (.add, .duration(d), .dateTimeOffset(t)):
            return .dateTimeOffset(try Pico(t).adding(Pico(d)).dateTimeOffset(offset: t.offsetMinutes, at: position))
        case let (.sub, .dateTimeOffset(t), .duration(d)):
            return .dateTimeOffset(try Pico(t).adding(Pico(d).negated).dateTimeOffset(offset: t.offsetMinutes, at: position))
        case let (.add, .date(day), .duration(d)), let (.add, .duration(d), .date(day)):
            return .date(try Pico(day).adding(Pico(d)).date(at: position))
        case let (.sub, .date(day), .duration(d)):
            return .date(try Pico(day).adding(Pico(d).negated).date(at: position))
        case let (.add, .duration(a), .duration(b)):
            return .duration(try Pico(a).adding(Pico(b)).duration(at: position))
        case let (.sub, .duration(a), .duration(b)):
            return .duration(try Pico(a).adding(Pico(b).negated).duration(at: position))
        case let (.sub, .dateTimeOffset(a), .dateTimeOffset(b)):
            return .duration(try Pico(a).adding(Pico(b).negated).duration(at: position))
        case let (.sub, .date(a), .date(b)):
            return .duration(try Pico(a).adding(Pico(b).negated).duration(at: position))
        case let (.mul, .duration(d), number) where number.isNumeric, let (.mul, number, .duration(d)) where number.isNumeric:
            guard let factor = NumericConversion.decimal(number) else { break }
            return .duration(try Pico.fromSeconds(try Pico(d).seconds.multiplied(by: factor, at: position), at: position).duration(at: position))
        case let (.div, .duration(d), number) where number.isNumeric:
            guard let divisor = NumericConversion.decimal(number) else { break }
            guard let seconds = try Pico(d).seconds.divided(by: divisor, at: position) else {
                throw .evalDivisionByZero("div", at: position)
            }
            return .duration(try Pico.fromSeconds(seconds, at: position).duration(at: position))
        default: break
        }
        throw .evalTypeMismatch("'\(op.rawValue)' cannot be applied to \(l.kind?.rawValue ?? "this value") and \(r.kind?.rawValue ?? "this value")", at: position)
    }
}

/// An instant or amount as whole seconds plus picoseconds 0..<10^12 (floor-normalized).
struct Pico {
    static let perSecond = EdmTimeOfDay.picosecondsPerSecond
    var seconds64: Int64
    var picos: Int64

    init(seconds: Int64, picos: Int64) {
        var s = seconds
        var p = picos
        if p < 0 || p >= Pico.perSecond {
            s += p / Pico.perSecond
            p %= Pico.perSecond
            if p < 0 { p += Pico.perSecond; s -= 1 }
        }
        seconds64 = s
        self.picos = p
    }

    init(_ duration: EdmDuration) {
        let s = Int64(duration.seconds)
        self.init(seconds: duration.isNegative ? -s : s, picos: duration.isNegative ? -duration.picoseconds : duration.picoseconds)
    }

    init(_ instant: EdmDateTimeOffset) { self.init(seconds: instant.utcSeconds, picos: instant.picoseconds) }

    init(_ date: EdmDate) { self.init(seconds: date.daysSinceEpoch * 86_400, picos: 0) }

    var negated: Pico { Pico(seconds: -seconds64, picos: -picos) }

    /// The sum; saturates at the Int64 bounds, which lie far outside every date and duration
    /// range, so the range checks of `duration`, `dateTimeOffset` and `date` refuse it.
    func adding(_ other: Pico) -> Pico {
        let (sum, overflow) = seconds64.addingReportingOverflow(other.seconds64)
        return Pico(seconds: overflow ? (other.seconds64 < 0 ? Int64.min / 2 : Int64.max / 2) : sum, picos: picos + other.picos)
    }

    /// The instants `mindatetime()` and `maxdatetime()` bound (0001-01-01 to 9999-12-31, UTC):
    /// date arithmetic whose result leaves them is an overflow, not a silent year 273,790,000.
    static let representableSeconds: ClosedRange<Int64> = -62_135_596_800...253_402_300_799

    /// As exact decimal seconds (scale 12).
    var seconds: EdmDecimal {
        let total = EdmDecimal(seconds64)
        let fraction = (try? EdmDecimal(isNegative: false, digits: Array(String(picos).utf8.map { $0 - 48 }), scale: 12)) ?? EdmDecimal(0)
        return (try? total.adding(fraction, at: 0)) ?? total
    }

    /// From decimal seconds, rounded half away from zero to picoseconds.
    static func fromSeconds(_ value: EdmDecimal, at position: Int) throws(ODataError) -> Pico {
        guard value.isFinite else { throw .evalOverflow("duration is not finite", at: position) }
        let scaled = try value.multiplied(by: EdmDecimal(1_000_000_000_000), at: position).rounded(.halfAwayFromZero, at: position)
        guard let total = scaled.int64Value else { throw .evalOverflow("duration out of range", at: position) }
        return Pico(seconds: total / Pico.perSecond, picos: total % Pico.perSecond)
    }

    func duration(at position: Int) throws(ODataError) -> EdmDuration {
        let negative = seconds64 < 0
        let magnitudeSeconds = negative ? -(seconds64 + (picos > 0 ? 1 : 0)) : seconds64
        let magnitudePicos = negative && picos > 0 ? Pico.perSecond - picos : picos
        do {
            return try EdmDuration(isNegative: negative, seconds: UInt64(magnitudeSeconds), picoseconds: magnitudePicos)
        } catch {
            throw .evalOverflow("duration out of range", at: position)
        }
    }

    func dateTimeOffset(offset: Int, at position: Int) throws(ODataError) -> EdmDateTimeOffset {
        guard Self.representableSeconds.contains(seconds64) else {
            throw .evalOverflow("date/time out of range (years 1 to 9999)", at: position)
        }
        do {
            return try EdmDateTimeOffset(utcSeconds: seconds64, picoseconds: picos, offsetMinutes: offset)
        } catch {
            throw .evalOverflow("date/time out of range", at: position)
        }
    }

    /// The calendar day containing this instant (Date ± Duration drops the time part).
    func date(at position: Int) throws(ODataError) -> EdmDate {
        guard Self.representableSeconds.contains(seconds64) else {
            throw .evalOverflow("date out of range (years 1 to 9999)", at: position)
        }
        let days = seconds64 >= 0 ? seconds64 / 86_400 : (seconds64 - 86_399) / 86_400
        do {
            return try EdmDate(daysSinceEpoch: days)
        } catch {
            throw .evalOverflow("date out of range", at: position)
        }
    }
}
