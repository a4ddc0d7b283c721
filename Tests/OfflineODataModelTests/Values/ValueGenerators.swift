import PropertyBased
@testable import OfflineODataModel

/// swift-property-based generators for EDM values. Every generator is built from the
/// library's shrinking generators with zip/map, so failures shrink.
enum ValueGen {
    typealias AnyGen = Generator<ODataValue, AnySequence<Any>>

    /// Characters that stress literals and encodings: quotes, NUL, non-BMP, combining marks.
    static let specialScalars: [UInt32] = [0x27, 0x00, 0x01, 0xFF, 0x2C, 0x3D, 0x28, 0x29, 0x20, 0x2F, 0x25, 0x2B,
                                           0xE9, 0x65, 0x301, 0x1F600, 0xFFFF, 0x10FFFF, 0x7F, 0x80]

    static let scalar = zip(Gen.int(in: 0...3), Gen.uint32(in: 0...0x10FFFF), Gen.int(in: 0...(specialScalars.count - 1)))
        .map { choice, raw, special -> Unicode.Scalar in
            switch choice {
            case 0: return Unicode.Scalar(raw) ?? "?"
            case 1: return Unicode.Scalar(specialScalars[special]) ?? "?"
            default: return Unicode.Scalar(UInt8(0x61 + raw % 26))
            }
        }

    static let string = scalar.array(of: 0...12).map { scalars in
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        return text
    }

    static let bytes = Gen.uint8().array(of: 0...20)

    /// 0, 1 or 2.
    static let bool3 = Gen.int(in: 0...2)

    /// Decimals with up to 30 digits and scale up to 20, trailing zeros kept.
    static let decimal = zip(Gen.bool, Gen.uint8(in: 0...9).array(of: 0...30), Gen.int(in: 0...20), Gen.int(in: 0...29))
        .compactMap { negative, digits, scale, special -> EdmDecimal? in
            switch special {
            case 0: return .infinity
            case 1: return .negativeInfinity
            case 2: return .nan
            default: return try? EdmDecimal(isNegative: negative, digits: digits, scale: scale)
            }
        }

    static let double = zip(Gen.int(in: 0...9), Gen.double(in: -1e6...1e6), Gen.uint64(), Gen.int(in: 0...9))
        .map { choice, plain, bits, special -> Double in
            let specials: [Double] = [.infinity, -.infinity, .nan, 0.0, -0.0, .leastNonzeroMagnitude,
                                      .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 0.1, 1e-300]
            switch choice {
            case 0, 1: return specials[special]
            case 2, 3, 4: return Double(bitPattern: bits)
            default: return plain
            }
        }

    static let single = double.map { Float($0) }

    /// Picoseconds truncated to a random number of fraction digits (0...12).
    static let picoseconds = zip(Gen.int64(in: 0...999_999_999_999), Gen.int(in: 0...12)).map { picos, digits in
        var unit: Int64 = 1
        for _ in 0..<(12 - digits) { unit *= 10 }
        return picos - picos % unit
    }

    static let date = zip(Gen.int(in: -20000...20000), Gen.int(in: 1...12), Gen.int(in: 1...31))
        .compactMap { year, month, day in
            try? EdmDate(year: year, month: month, day: min(day, OfflineODataModel.ProlepticCalendar.daysInMonth(year, month)))
        }

    static let time = zip(Gen.int(in: 0...23), Gen.int(in: 0...59), Gen.int(in: 0...60), picoseconds)
        .compactMap { h, m, s, p in try? EdmTimeOfDay(hour: h, minute: m, second: s, picoseconds: p) }

    static let dateTimeOffset = zip(date, time, Gen.int(in: -1439...1439), Gen.bool)
        .compactMap { d, t, offset, utc in try? EdmDateTimeOffset(date: d, time: t, offsetMinutes: utc ? 0 : offset) }

    static let duration = zip(Gen.bool, Gen.uint64(in: 0...10_000_000_000), picoseconds)
        .compactMap { negative, seconds, picos in try? EdmDuration(isNegative: negative, seconds: seconds, picoseconds: picos) }

    static let guid = zip(Gen.uint64(), Gen.uint64()).map { EdmGuid(high: $0, low: $1) }

    static let enumValue = zip(Gen.int(in: 0...3), Gen.int64(in: -5...40), Gen.bool)
        .compactMap { count, number, known -> EdmEnumValue? in
            let names = ["Red", "Green", "Blue", "Ünïcode"]
            let members = count == 0 ? [String(number)] : Array(names.prefix(count))
            return try? EdmEnumValue(typeName: "Ns.Color", members: members, numericValue: known ? number : nil)
        }

    /// One generator per primitive kind (plus enum), as ODataValue, with shrinking kept.
    static let byKind: [(name: String, gen: AnyGen)] = [
        ("boolean", Gen.bool.map { ODataValue.boolean($0) }.eraseToAny()),
        ("byte", Gen.uint8().map { ODataValue.byte($0) }.eraseToAny()),
        ("sbyte", Gen.int8().map { ODataValue.sbyte($0) }.eraseToAny()),
        ("int16", Gen.int16().map { ODataValue.int16($0) }.eraseToAny()),
        ("int32", Gen.int32().map { ODataValue.int32($0) }.eraseToAny()),
        ("int64", Gen.int64().map { ODataValue.int64($0) }.eraseToAny()),
        ("decimal", decimal.map { ODataValue.decimal($0) }.eraseToAny()),
        ("single", single.map { ODataValue.single($0) }.eraseToAny()),
        ("double", double.map { ODataValue.double($0) }.eraseToAny()),
        ("string", string.map { ODataValue.string($0) }.eraseToAny()),
        ("binary", bytes.map { ODataValue.binary($0) }.eraseToAny()),
        ("guid", guid.map { ODataValue.guid($0) }.eraseToAny()),
        ("date", date.map { ODataValue.date($0) }.eraseToAny()),
        ("dateTimeOffset", dateTimeOffset.map { ODataValue.dateTimeOffset($0) }.eraseToAny()),
        ("timeOfDay", time.map { ODataValue.timeOfDay($0) }.eraseToAny()),
        ("duration", duration.map { ODataValue.duration($0) }.eraseToAny()),
        ("enum", enumValue.map { ODataValue.enumValue($0) }.eraseToAny()),
    ]

    static let numericKinds: Set<String> = ["byte", "sbyte", "int16", "int32", "int64", "decimal", "single", "double"]

    /// Any numeric kind (for mixed-kind comparisons).
    static let numeric: Generator<ODataValue, AnySequence<(index: Int, value: Any)>> =
        Gen.frequency(byKind.filter { numericKinds.contains($0.name) }.map { (weight: 1.0, gen: $0.gen) })

    /// Any primitive value or null.
    static let primitiveOrNull: Generator<ODataValue, AnySequence<(index: Int, value: Any)>> =
        Gen.frequency(byKind.map { (weight: 1.0, gen: $0.gen) } + [(weight: 0.3, gen: Gen.always(ODataValue.null).eraseToAny())])

    /// Nested complex/collection values (depth <= 2).
    static let nested = zip(primitiveOrNull.array(of: 0...4), Gen.letter.string(of: 1...6).array(of: 0...4), Gen.bool)
        .map { values, names, asCollection -> ODataValue in
            if asCollection { return .collection(values) }
            let props = zip(names, values).map { ODataProperty($0, $1) }
            let inner = ODataValue.complex(ODataComplexValue(typeName: "Ns.Inner", properties: props))
            return .complex(ODataComplexValue(typeName: nil, properties: props + [ODataProperty("Inner", inner),
                                                                                   ODataProperty("List", .collection(values))]))
        }
}
