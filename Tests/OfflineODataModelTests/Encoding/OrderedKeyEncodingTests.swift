import PropertyBased
import Testing
@testable import OfflineODataModel

/// sign(memcmp(a, b)).
func keyByteOrder(_ a: [UInt8], _ b: [UInt8]) -> Int {
    a.lexicographicallyPrecedes(b) ? -1 : (a == b ? 0 : 1)
}

@Suite struct OrderedKeyEncodingTests {
    /// The encoding's contract against `ODataValue.compare`.
    private func checkOrder(_ a: ODataValue, _ b: ODataValue) throws {
        let ea = try OrderedKeyEncoding.encode([a])
        let eb = try OrderedKeyEncoding.encode([b])
        let bytes = keyByteOrder(ea, eb)
        switch ODataValue.compare(a, b) {
        case let order? where order != 0:
            #expect(bytes == order, "\(a) vs \(b): compare \(order), bytes \(bytes)")
        case 0?:
            #expect((bytes == 0) == a.isIdentical(to: b), "\(a) vs \(b): equal values, bytes \(bytes)")
        default:
            // Incomparable (NaN): bytes still give a total order; identical NaNs encode alike.
            if a.isIdentical(to: b) { #expect(bytes == 0) }
        }
    }

    @Test func everyKindRoundTripsExactly() async {
        for (name, gen) in ValueGen.byKind {
            await propertyCheck(count: 150, input: gen) { value in
                let bytes = try OrderedKeyEncoding.encode([value])
                let back = try OrderedKeyEncoding.decode(bytes, kinds: [value.kind])
                #expect(back.count == 1 && back[0].isIdentical(to: value), "\(name): \(value) → \(back)")
            }
        }
    }

    @Test func byteOrderEqualsODataOrderForSameKindPairs() async {
        for (_, gen) in ValueGen.byKind {
            await propertyCheck(count: 200, input: gen, gen) { a, b in try checkOrder(a, b) }
        }
    }

    @Test func byteOrderEqualsODataOrderAcrossNumericKinds() async {
        await propertyCheck(count: 1000, input: ValueGen.numeric, ValueGen.numeric) { a, b in try checkOrder(a, b) }
    }

    @Test func nullsSortFirstAndMixedKindsDoNotCollide() async {
        await propertyCheck(count: 300, input: ValueGen.primitiveOrNull, ValueGen.primitiveOrNull) { a, b in
            let ea = try OrderedKeyEncoding.encode([a])
            let eb = try OrderedKeyEncoding.encode([b])
            if a.isNull, !b.isNull { #expect(keyByteOrder(ea, eb) == -1) }
            if keyByteOrder(ea, eb) == 0 { #expect(a.isIdentical(to: b), "\(a) and \(b) share bytes") }
            if ODataValue.compare(a, b) != nil { try checkOrder(a, b) }
        }
    }

    @Test func compositeKeysOrderLexicographicallyAndPrefixesArePrefixes() async {
        let component = zip(Gen.int32(in: -3...3), ValueGen.string, ValueGen.decimal)
        await propertyCheck(count: 300, input: component, component) { left, right in
            let a: [ODataValue] = [.int32(left.0), .string(left.1), .decimal(left.2)]
            let b: [ODataValue] = [.int32(right.0), .string(right.1), .decimal(right.2)]
            let ea = try OrderedKeyEncoding.encode(a)
            let eb = try OrderedKeyEncoding.encode(b)
            var expected = 0
            for (x, y) in zip(a, b) {
                if let order = ODataValue.compare(x, y), order != 0 { expected = order; break }
            }
            if expected != 0 { #expect(keyByteOrder(ea, eb) == expected, "\(a) vs \(b)") }
            for count in 0...a.count {
                let prefix = try OrderedKeyEncoding.encode(Array(a.prefix(count)))
                #expect(Array(ea.prefix(prefix.count)) == prefix)
            }
            let back = try OrderedKeyEncoding.decode(ea)
            #expect(back.count == 3 && zip(back, a).allSatisfy { $0.isIdentical(to: $1) })
        }
    }

    @Test func representationVariantsAreAdjacentButDistinct() throws {
        let one = try OrderedKeyEncoding.encode([.decimal(try EdmDecimal(parsing: "1.0"))])
        let oneHundredth = try OrderedKeyEncoding.encode([.decimal(try EdmDecimal(parsing: "1.00"))])
        let justAbove = try OrderedKeyEncoding.encode([.decimal(try EdmDecimal(parsing: "1.0000000001"))])
        #expect(one != oneHundredth)
        #expect(keyByteOrder(one, justAbove) == -1 && keyByteOrder(oneHundredth, justAbove) == -1)
        let normalized = try OrderedKeyEncoding.encode([.decimal(try EdmDecimal(parsing: "1.00").normalized)])
        #expect(normalized == (try OrderedKeyEncoding.encode([.decimal(try EdmDecimal(parsing: "1"))])))
        let zero = try OrderedKeyEncoding.encode([.double(0.0)])
        let negativeZero = try OrderedKeyEncoding.encode([.double(-0.0)])
        #expect(zero != negativeZero)
        #expect(try OrderedKeyEncoding.decode(negativeZero)[0].isIdentical(to: .double(-0.0)))
    }

    @Test func stringsWithNULAndPrefixesOrderCorrectly() throws {
        let values = ["", "\0", "\0\0", "\u{1}", "a", "a\0", "a\0b", "a\u{1}", "ab", "\u{FFFF}", "\u{10000}"]
        let encoded = try values.map { try OrderedKeyEncoding.encode([.string($0)]) }
        for index in 1..<encoded.count { #expect(keyByteOrder(encoded[index - 1], encoded[index]) == -1, "\(values[index])") }
    }

    @Test func complexValuesAreNotKeys() {
        #expect(throws: ODataError.self) { try OrderedKeyEncoding.encode([.collection([.int32(1)])]) }
    }

    @Test func malformedBytesThrowTypedErrors() async throws {
        let samples: [[ODataValue]] = [
            [.string("abc\0d"), .int64(-5)], [.decimal(try EdmDecimal(parsing: "-123.4500"))], [.double(1e-300)],
            [.dateTimeOffset(try EdmDateTimeOffset(parsing: "2012-12-03T07:16:23.5+01:00"))],
            [.duration(try EdmDuration(parsing: "-P1DT1.5S"))], [.guid(EdmGuid(high: 1, low: 2))],
            [.enumValue(try EdmEnumValue(typeName: "Ns.E", members: ["A"], numericValue: 3))],
        ]
        for sample in samples {
            let bytes = try OrderedKeyEncoding.encode(sample)
            for cut in 1..<bytes.count {
                do {
                    let values = try OrderedKeyEncoding.decode(Array(bytes.prefix(cut)), kinds: sample.map(\.kind))
                    Issue.record("prefix \(cut) of \(sample) decoded as \(values)")
                } catch {
                    #expect((1400...1499).contains(error.code), "\(error)")
                }
            }
        }
        #expect(throws: ODataError.self) { try OrderedKeyEncoding.decode([0x30, 0xC3, 0x28, 0x00, 0x01]) } // bad UTF-8
        #expect(throws: ODataError.self) { try OrderedKeyEncoding.decode([0xEE]) } // unknown tag
        #expect(throws: ODataError.self) { try OrderedKeyEncoding.decode([0x10, 0x07]) } // bad boolean
        // Random bytes never crash.
        await propertyCheck(count: 500, input: Gen.uint8().array(of: 0...40)) { bytes in
            _ = try? OrderedKeyEncoding.decode(bytes)
        }
    }
}
