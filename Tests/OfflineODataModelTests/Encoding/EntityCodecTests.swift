import PropertyBased
import Testing
@testable import OfflineODataModel

@Suite struct EntityCodecTests {
    static let kinds: [EdmPrimitiveKind] = [.boolean, .byte, .sbyte, .int16, .int32, .int64, .decimal, .single,
                                            .double, .string, .binary, .guid, .date, .dateTimeOffset, .timeOfDay, .duration]

    static let layout = EntityLayout(
        kinds.map { EntityPropertyDescriptor($0.rawValue, $0) } + [
            EntityPropertyDescriptor(name: "Color", shape: .enumType("Ns.Color")),
            EntityPropertyDescriptor(name: "Nested", shape: .primitive(.untyped)),
            EntityPropertyDescriptor("Required", .int32, isNullable: false),
        ])

    /// A record: one random value (or null/absent) per primitive slot, nested values, dynamic properties.
    static let record = zip(
        zip(ValueGen.bool3, ValueGen.byKind[0].gen, ValueGen.byKind[1].gen, ValueGen.byKind[2].gen,
            ValueGen.byKind[3].gen, ValueGen.byKind[4].gen, ValueGen.byKind[5].gen, ValueGen.byKind[6].gen),
        zip(ValueGen.byKind[7].gen, ValueGen.byKind[8].gen, ValueGen.byKind[9].gen, ValueGen.byKind[10].gen,
            ValueGen.byKind[11].gen, ValueGen.byKind[12].gen, ValueGen.byKind[13].gen, ValueGen.byKind[14].gen),
        zip(ValueGen.byKind[15].gen, ValueGen.byKind[16].gen, ValueGen.nested, Gen.int32(),
            ValueGen.primitiveOrNull.array(of: 0...3), Gen.int(in: 0...18))
    ).map { first, second, third -> EntityRecord in
        var values: [ODataValue?] = [first.1, first.2, first.3, first.4, first.5, first.6, first.7,
                                     second.0, second.1, second.2, second.3, second.4, second.5, second.6, second.7,
                                     third.0, third.1, third.2, .int32(third.3)]
        // Make one slot null and another absent, chosen by the generator.
        let pick = third.5
        if pick < values.count - 1 { values[pick] = first.0 == 0 ? .null : nil }
        let dynamic = third.4.enumerated().map { ODataProperty("Dyn\($0.offset)", $0.element) }
        return EntityRecord(values: values, dynamicProperties: dynamic)
    }

    @Test func recordsRoundTripExactly() async {
        let codec = EntityCodec(layout: Self.layout)
        await propertyCheck(count: 300, input: Self.record) { record in
            let bytes = try codec.encode(record)
            let back = try codec.decode(bytes)
            #expect(back.isIdentical(to: record), "\(record) → \(back)")
        }
    }

    @Test func onePropertyReadsWithoutTheOthers() async {
        let codec = EntityCodec(layout: Self.layout)
        await propertyCheck(count: 200, input: Self.record) { record in
            let bytes = try codec.encode(record)
            for index in record.values.indices {
                let single = try codec.readProperty(at: index, from: bytes)
                switch (single, record.values[index]) {
                case (nil, nil): break
                case let (read?, written?): #expect(read.isIdentical(to: written))
                default: Issue.record("slot \(index): read \(String(describing: single))")
                }
            }
        }
    }

    /// The query path's `decodeProperties` gives what `decode` gives without its absent slots
    /// (declared ones in layout order, then dynamic ones), and on damaged bytes the same error.
    @Test func propertiesDecodeLikeTheRecord() async {
        let codec = EntityCodec(layout: Self.layout)
        func expected(_ record: EntityRecord) -> [ODataProperty] {
            var out: [ODataProperty] = []
            for (index, value) in record.values.enumerated() {
                if let value { out.append(ODataProperty(Self.layout.properties[index].name, value)) }
            }
            return out + record.dynamicProperties
        }
        func outcome(_ body: () throws(ODataError) -> [ODataProperty]) -> Result<[ODataProperty], ODataError> {
            do { return .success(try body()) } catch { return .failure(error) }
        }
        await propertyCheck(count: 200, input: Self.record, Gen.int(in: 0...10_000), Gen.uint8()) { record, position, byte in
            var bytes = try codec.encode(record)
            let properties = try codec.decodeProperties(bytes)
            let wanted = expected(record)
            #expect(properties.count == wanted.count)
            for (read, written) in zip(properties, wanted) {
                #expect(read.name == written.name && read.value.isIdentical(to: written.value), "\(read) vs \(written)")
            }
            bytes[position % bytes.count] = byte
            // The array form, the borrowed form (a cursor's bytes) and `decode` agree, on intact
            // and on damaged bytes (values, errors and their locations).
            let borrowed = bytes.withUnsafeBytes { raw in outcome { () throws(ODataError) in try codec.decodeProperties(borrowing: raw) } }
            let fromArray = outcome { () throws(ODataError) in try codec.decodeProperties(bytes) }
            for (form, read) in [("array", fromArray), ("borrowed", borrowed)] {
                switch (read, outcome { () throws(ODataError) in expected(try codec.decode(bytes)) }) {
                case let (.success(a), .success(b)):
                    #expect(a.count == b.count && zip(a, b).allSatisfy { $0.name == $1.name && $0.value.isIdentical(to: $1.value) }, "\(form)")
                case let (.failure(a), .failure(b)):
                    #expect(a.name == b.name && a.code == b.code && a.location == b.location, "\(form): \(a) vs \(b)")
                case let (a, b):
                    Issue.record("decodeProperties (\(form)) \(a), decode \(b)")
                }
            }
        }
    }

    /// Every single-byte change of a small record with the values the query path reads on its
    /// fast path (a decimal of odd and even digit counts, ASCII and non-ASCII strings, a date, a
    /// date/time offset): decodeProperties, on an array and on borrowed bytes, answers as
    /// `decode` does, value for value and error for error. Exhaustive, so a fast-path check that
    /// is missing (a leading zero or a nibble above 9 in a packed decimal, an invalid UTF-8
    /// byte) shows here.
    @Test func everySingleByteChangeDecodesLikeTheRecord() throws {
        let layout = EntityLayout([
            EntityPropertyDescriptor("Odd", .decimal), EntityPropertyDescriptor("Even", .decimal),
            EntityPropertyDescriptor("Text", .string), EntityPropertyDescriptor("Name", .string),
            EntityPropertyDescriptor("Day", .date), EntityPropertyDescriptor("At", .dateTimeOffset),
        ])
        let codec = EntityCodec(layout: layout)
        let record = EntityRecord(values: [
            .decimal(try EdmDecimal(parsing: "12345.67")), .decimal(try EdmDecimal(parsing: "-9081.5")),
            .string("EUR"), .string("Zürich"), .date(try EdmDate(year: 2026, month: 11, day: 27)),
            .dateTimeOffset(try EdmDateTimeOffset(utcSeconds: 1_795_000_000, picoseconds: 120_000_000_000, offsetMinutes: 60)),
        ], dynamicProperties: [])
        let intact = try codec.encode(record)
        func outcome(_ body: () throws(ODataError) -> [ODataProperty]) -> Result<[ODataProperty], ODataError> {
            do { return .success(try body()) } catch { return .failure(error) }
        }
        var checked = 0
        for position in intact.indices {
            for byte in UInt8.min...UInt8.max where byte != intact[position] {
                var bytes = intact
                bytes[position] = byte
                let reference = outcome { () throws(ODataError) in
                    let decoded = try codec.decode(bytes)
                    return decoded.values.enumerated().compactMap { index, value in value.map { ODataProperty(layout.properties[index].name, $0) } }
                        + decoded.dynamicProperties
                }
                let borrowed = bytes.withUnsafeBytes { raw in outcome { () throws(ODataError) in try codec.decodeProperties(borrowing: raw) } }
                for read in [outcome { () throws(ODataError) in try codec.decodeProperties(bytes) }, borrowed] {
                    switch (read, reference) {
                    case let (.success(a), .success(b)):
                        #expect(a.count == b.count && zip(a, b).allSatisfy { $0.name == $1.name && $0.value.isIdentical(to: $1.value) },
                                "byte \(position) = \(byte)")
                    case let (.failure(a), .failure(b)):
                        #expect(a.name == b.name && a.location == b.location, "byte \(position) = \(byte): \(a) vs \(b)")
                    case let (a, b):
                        Issue.record("byte \(position) = \(byte): decodeProperties \(a), decode \(b)")
                    }
                }
                checked += 1
            }
        }
        #expect(checked == intact.count * 255)
    }

    /// Stored strings are read through `EntityValueEncoding.validString`: it must accept
    /// exactly the valid UTF-8 that `String(validating:as:)` accepts, with the same text, for
    /// ASCII, multi-byte text and damaged sequences (lone continuation bytes, truncated and
    /// overlong sequences, surrogates, bytes past U+10FFFF).
    @Test func storedStringsAcceptExactlyValidUTF8() async {
        let pieces: [[UInt8]] = [Array("a".utf8), Array("Zürich".utf8), Array("東京".utf8), Array("🙂".utf8),
                                 [0x80], [0xC3], [0xE6, 0x9D], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
                                 [0xFF], [0xEF, 0xBF, 0xBD], Array("0123456789abcdef".utf8)]
        await propertyCheck(count: 500, input: Gen.int(in: 0...(pieces.count - 1)).array(of: 0...12)) { choice in
            let bytes = choice.flatMap { pieces[$0] }
            let ours = bytes.withUnsafeBufferPointer { EntityValueEncoding.validString($0) }
            #expect(ours == String(validating: bytes, as: UTF8.self), "bytes \(bytes)")
        }
    }

    @Test func aLayoutWithAppendedPropertiesReadsOlderBytes() throws {
        let old = EntityLayout([EntityPropertyDescriptor("ID", .int32, isNullable: false), EntityPropertyDescriptor("Name", .string)])
        let bytes = try EntityCodec(layout: old).encode(EntityRecord(values: [.int32(7), .string("x")],
                                                                     dynamicProperties: [ODataProperty("Extra", .boolean(true))]))
        var newer = old
        newer.properties.append(EntityPropertyDescriptor("Price", .decimal))
        let codec = EntityCodec(layout: newer)
        let record = try codec.decode(bytes)
        #expect(record.values.count == 3)
        #expect(record.values[0] == .int32(7) && record.values[1] == .string("x"))
        #expect(record.values[2] == nil)
        #expect(try codec.readProperty(at: 2, from: bytes) == nil)
        #expect(record.dynamicProperties == [ODataProperty("Extra", .boolean(true))])
    }

    @Test func valuesThatDoNotFitTheLayoutAreRejected() {
        let codec = EntityCodec(layout: Self.layout)
        let wrongKind = EntityRecord(values: [.string("no")])
        #expect(throws: ODataError.self) { try codec.encode(wrongKind) }
        var nullRequired = [ODataValue?](repeating: nil, count: Self.layout.properties.count)
        nullRequired[Self.layout.properties.count - 1] = .null
        #expect(throws: ODataError.self) { try codec.encode(EntityRecord(values: nullRequired)) }
        let clash = EntityRecord(values: [], dynamicProperties: [ODataProperty("Edm.Int32", .int32(1))])
        #expect(throws: ODataError.self) { try codec.encode(clash) }
    }

    @Test func truncationAtEveryOffsetIsATypedError() async {
        let codec = EntityCodec(layout: Self.layout)
        await propertyCheck(count: 30, input: Self.record) { record in
            let bytes = try codec.encode(record)
            for cut in 0..<bytes.count {
                do {
                    let decoded = try codec.decode(Array(bytes.prefix(cut)))
                    Issue.record("prefix \(cut)/\(bytes.count) decoded as \(decoded)")
                } catch let error as ODataError {
                    #expect((1400...1499).contains(error.code), "\(error)")
                }
            }
        }
    }

    @Test func corruptBytesNeverCrash() async {
        let codec = EntityCodec(layout: Self.layout)
        await propertyCheck(count: 100, input: Self.record, Gen.int(in: 0...10_000), Gen.uint8()) { record, position, byte in
            var bytes = try codec.encode(record)
            bytes[position % bytes.count] = byte
            _ = try? codec.decode(bytes)
            for index in 0..<Self.layout.properties.count { _ = try? codec.readProperty(at: index, from: bytes) }
        }
        await propertyCheck(count: 300, input: Gen.uint8().array(of: 0...64)) { bytes in
            _ = try? codec.decode([EntityCodec.formatVersion] + bytes)
            _ = try? EntityCodec.readProperty(at: 0, from: [EntityCodec.formatVersion] + bytes)
        }
    }

    @Test func hostileHeadersAreTypedErrors() {
        let codec = EntityCodec(layout: Self.layout)
        let cases: [(String, [UInt8], String)] = [
            ("empty", [], "truncatedEncoding"),
            ("future version", [2, 0, 0, 0, 0, 0, 0], "unsupportedEncodingVersion"),
            ("huge count", [1, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F], "truncatedEncoding"),
            ("offset past end", [1, 1, 0, 0, 0, 0, 9, 0, 0, 0, 0], "truncatedEncoding"),
            ("decreasing offsets", [1, 2, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0x03, 0x04, 0], "invalidEncoding"),
            ("trailing bytes", [1, 0, 0, 0, 0, 0, 0, 0xAA], "invalidEncoding"),
            ("invalid UTF-8 string", [1, 1, 0, 0, 0, 0, 4, 0, 0, 0, 0x0B, 0x02, 0xC3, 0x28, 0x00], "invalidEncoding"),
            ("string longer than its slot", [1, 1, 0, 0, 0, 0, 3, 0, 0, 0, 0x0B, 0x05, 0x41, 0x00], "truncatedEncoding"),
            ("unknown value tag", [1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0x7F, 0x00], "invalidEncoding"),
        ]
        for (label, bytes, name) in cases {
            do {
                _ = try codec.decode(bytes)
                Issue.record("\(label) decoded")
            } catch {
                #expect(error.name == name, "\(label): \(error)")
            }
            do {
                _ = try codec.decodeProperties(bytes)
                Issue.record("\(label) decoded as properties")
            } catch {
                #expect(error.name == name, "\(label) (properties): \(error)")
            }
        }
        // Deep nesting beyond the limit is refused, not a stack overflow.
        var deep: [UInt8] = [1, 1, 0, 0, 0, 0]
        let body = [UInt8](repeating: 0x15, count: 0) + Array(repeating: [0x15, 0x01], count: 200).flatMap { $0 } + [0x00]
        deep.appendLittleEndianUInt(UInt64(body.count), 4)
        deep += body + [0x00]
        #expect(throws: ODataError.self) { try EntityCodec.readProperty(at: 0, from: deep) }
    }
}
