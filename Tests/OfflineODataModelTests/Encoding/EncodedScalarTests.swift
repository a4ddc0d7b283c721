import PropertyBased
import Testing
@testable import OfflineODataModel

/// In-place reading of borrowed entity bytes (docs/EntityEncoding.md §2.5) gives exactly what
/// decoding gives: the same values, the same comparisons, and on damaged bytes either the
/// decoder's error or a hand-off to the decoder (`.other`), never a different value.
@Suite struct EncodedScalarTests {
    static let codec = EntityCodec(layout: EntityCodecTests.layout)

    /// The decoded value of an in-place scalar (nil for `.other`).
    static func decoded(_ scalar: EncodedScalar) -> ODataValue? {
        switch scalar {
        case .decimal(let decimal): return .decimal(decimal.value)
        case .string(let bytes): return .string(String(decoding: bytes, as: UTF8.self))
        default: return scalar.plainValue
        }
    }

    @Test func inPlaceReadsAgreeWithDecoding() async {
        await propertyCheck(count: 300, input: EntityCodecTests.record) { record in
            let bytes = try Self.codec.encode(record)
            var readInPlace = 0
            for index in record.values.indices {
                let expected = try Self.codec.readProperty(at: index, from: bytes)
                let scalar = try Self.readInPlace(bytes, index).get()
                let borrowed = try Self.readBorrowed(bytes, index).get()
                #expect(borrowed.map { v in expected.map { v.isIdentical(to: $0) } ?? false } ?? (expected == nil))
                switch scalar {
                case nil: #expect(expected == nil, "slot \(index): absent in place, \(String(describing: expected)) decoded")
                case .other?: break
                case let scalar?:
                    readInPlace += 1
                    let value = Self.decoded(scalar)
                    #expect(value.map { v in expected.map { v.isIdentical(to: $0) } ?? false } ?? false,
                            "slot \(index): \(String(describing: value)) in place, \(String(describing: expected)) decoded")
                }
            }
            // Booleans, integers, floats, strings and finite decimals are read in place.
            let eligible = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].filter { index in
                guard let value = record.values[index] else { return false }
                if case .decimal(let d) = value { return d.isFinite }
                return true
            }
            #expect(readInPlace >= eligible.count)
        }
    }

    static let number = zip(Gen.int(in: 0...2), ValueGen.decimal, Gen.int64(in: -100_000...100_000), ValueGen.numeric)
        .map { choice, decimal, integer, other -> ODataValue in
            switch choice {
            case 0: return .decimal(decimal)
            case 1: return .int64(integer)
            default: return other
            }
        }

    @Test func encodedDecimalsCompareLikeDecimals() async {
        let layout = EntityLayout([EntityPropertyDescriptor("Amount", .decimal)])
        let codec = EntityCodec(layout: layout)
        await propertyCheck(count: 500, input: ValueGen.decimal, Self.number) { decimal, other in
            let bytes = try codec.encode(EntityRecord(values: [.decimal(decimal)], dynamicProperties: []))
            let scalar = try Self.readInPlace(bytes, 0, codec).get()
            guard case .decimal(let encoded)? = scalar else {
                #expect(!decimal.isFinite, "\(decimal) is not read in place")
                return
            }
            #expect(encoded.value.isIdentical(to: decimal))
            guard let key = DecimalKey(other) else {
                #expect(other.exactNumericValue.map { if case .double = $0 { return true } else { return false } } ?? true
                        || { if case .decimal(let d) = other { return !d.isFinite } else { return false } }())
                return
            }
            #expect(encoded.compare(key) == ODataValue.compare(.decimal(decimal), other), "\(decimal) vs \(other)")
        }
    }

    /// Damaged bytes: whatever the in-place reader returns, decoding agrees (same value) or
    /// the reader handed off (`.other`) / threw like the decoder.
    @Test func damagedBytesNeverReadDifferently() async {
        let edits = zip(EntityCodecTests.record, Gen.int(in: 0...400).array(of: 1...4), Gen.uint8().array(of: 1...4), Gen.int(in: 0...2))
        await propertyCheck(count: 300, input: edits) { record, positions, values, mode in
            var bytes = try Self.codec.encode(record)
            switch mode {
            case 0: bytes.removeLast(min(bytes.count - 1, positions[0] % 16 + 1))
            default:
                for (position, value) in zip(positions, values) where !bytes.isEmpty { bytes[position % bytes.count] = value }
            }
            for index in record.values.indices {
                let decoded: Result<ODataValue?, ODataError>
                do throws(ODataError) { decoded = .success(try Self.codec.readProperty(at: index, from: bytes)) } catch { decoded = .failure(error) }
                let inPlace = Self.readInPlace(bytes, index)
                switch (inPlace, decoded) {
                case (.success(.other?), _), (.failure, .failure): break
                case (.success(nil), .success(nil)): break
                case let (.success(scalar?), .success(value?)):
                    #expect(Self.decoded(scalar).map { $0.isIdentical(to: value) } ?? false, "slot \(index)")
                case let (.failure(error), .success(value)):
                    Issue.record("slot \(index): in place threw \(error), decoding read \(String(describing: value))")
                default:
                    Issue.record("slot \(index): in place \(inPlace), decoded \(decoded)")
                }
            }
        }
    }

    static func readInPlace(_ bytes: [UInt8], _ index: Int, _ codec: EntityCodec = codec) -> Result<EncodedScalar?, ODataError> {
        bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Result<EncodedScalar?, ODataError> in
            do throws(ODataError) {
                return .success(try codec.scalar(at: index, from: raw))
            } catch {
                return .failure(error)
            }
        }
    }

    static func readBorrowed(_ bytes: [UInt8], _ index: Int) -> Result<ODataValue?, ODataError> {
        bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Result<ODataValue?, ODataError> in
            do throws(ODataError) {
                return .success(try codec.readProperty(at: index, from: raw))
            } catch {
                return .failure(error)
            }
        }
    }

    @Test func stringsWithInvalidUTF8AreHandedToTheDecoder() throws {
        let layout = EntityLayout([EntityPropertyDescriptor("Name", .string)])
        let codec = EntityCodec(layout: layout)
        var bytes = try codec.encode(EntityRecord(values: [.string("ab")], dynamicProperties: []))
        // version, N = 1, two offsets, then tag 0x0B, length 2, "ab", dynamic count.
        let text = bytes.count - 3
        bytes[text] = 0xC3
        bytes[text + 1] = 0x28
        let scalar = try Self.readInPlace(bytes, 0, codec).get()
        guard case .other? = scalar else {
            Issue.record("invalid UTF-8 read in place as \(String(describing: scalar))")
            return
        }
        #expect(throws: ODataError.self) { try codec.readProperty(at: 0, from: bytes) }
    }
}
