import OfflineODataModel
import Testing
@testable import OfflineODataStore

/// The byte layouts of docs/StoreFormat.md, checked against the documented examples.
@Suite struct StoreFormatTests {
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16, uppercase: true).count == 1 ? "0" + String($0, radix: 16, uppercase: true) : String($0, radix: 16, uppercase: true) }
            .joined(separator: " ")
    }

    @Test("entity value example of §4.2")
    func entityValueExample() throws {
        let layout = EntityLayout([EntityPropertyDescriptor("Id", .int32, isNullable: false), EntityPropertyDescriptor("Name", .string)])
        let codec = try EntityCodec(layout: layout).encode(EntityRecord(values: [.int32(7), .string("x")]))
        let value = StoredValue.encode(codec: codec, etag: "W/\"1\"", typeName: nil, flags: .pending)
        #expect(Self.hex(value) == "01 02 00 00 00 00 02 00 00 00 05 00 00 00 06 0E 0B 01 78 00 57 2F 22 31 22 05 00 00 00 02 01")
    }

    @Test("layout record example of §3 round-trips")
    func layoutRecordExample() throws {
        let layout = EntityLayout([EntityPropertyDescriptor("Id", .int32, isNullable: false), EntityPropertyDescriptor("Name", .string)])
        let bytes = LayoutRecord.encode(typeName: "T.Item", layout: layout)
        #expect(Self.hex(bytes) == "01 06 54 2E 49 74 65 6D 02 02 49 64 00 01 09 45 64 6D 2E 49 6E 74 33 32 04 4E 61 6D 65 01 01 0A 45 64 6D 2E 53 74 72 69 6E 67")
        let decoded = try LayoutRecord.decode(bytes, set: "Items")
        #expect(decoded.typeName == "T.Item" && decoded.layout == layout)
        // Truncations are typed errors.
        for cut in 0..<bytes.count {
            expectStoreError("storedDataCorrupted", 3014) { _ = try LayoutRecord.decode(Array(bytes[..<cut]), set: "Items") }
        }
    }

    @Test("index record and index entry examples of §5")
    func indexExamples() throws {
        let record = IndexRecord.encode(IndexDefinition(name: "byQty", entitySet: "Items", properties: ["Qty"]),
                                        isReady: true, isNavigation: false)
        #expect(Self.hex(record) == "01 05 62 79 51 74 79 05 49 74 65 6D 73 01 03 51 74 79 01")
        let decoded = try IndexRecord.decode(record)
        #expect(decoded.0 == IndexDefinition(name: "byQty", entitySet: "Items", properties: ["Qty"]) && decoded.isReady && !decoded.isNavigation)
        // Entry of an index over Name for Items(7) with Name "ab".
        let key = try OrderedKeyEncoding.encode([.string("ab")]) + OrderedKeyEncoding.encode([.int32(7)])
        #expect(Self.hex(key) == "30 61 62 00 01 20 04 80 01 47 00 04")
        #expect(OrderedKeySkipper.skip(key, components: 1) == 5)
        let entry = IndexEntry(keyBytes: key, primaryKeyOffset: 5)
        #expect(try entry.indexValues() == [.string("ab")] && entry.primaryKey() == [.int32(7)])
    }

    @Test("the component skipper agrees with the encoder for every kind")
    func skipper() throws {
        let values: [ODataValue] = [
            .null, .boolean(true), .byte(3), .sbyte(-3), .int16(-300), .int32(0), .int64(-123_456_789_012),
            .decimal(EdmDecimal(-5)), .double(-0.0), .double(2.5e-300), .single(-1.5), .double(.infinity), .double(.nan),
            .string(""), .string("a\u{0}b"), .binary([0, 0xFF, 0]), .guid(try EdmGuid(parsing: "01234567-89ab-cdef-0123-456789abcdef")),
            .date(try EdmDate(year: -44, month: 3, day: 15)),
            .dateTimeOffset(try EdmDateTimeOffset(parsing: "2024-02-29T12:00:00.5+05:30")),
            .timeOfDay(try EdmTimeOfDay(parsing: "23:59:59.999")),
            .duration(try EdmDuration(parsing: "-P1DT2H")),
            .enumValue(try EdmEnumValue(typeName: "T.Color", memberText: "Red", numericValue: 1)),
            .enumValue(try EdmEnumValue(typeName: nil, memberText: "Blue", numericValue: nil)),
        ]
        var all: [UInt8] = []
        var ends: [Int] = []
        for v in values {
            all += try OrderedKeyEncoding.encode([v])
            ends.append(all.count)
        }
        for (i, end) in ends.enumerated() {
            #expect(OrderedKeySkipper.skip(all, components: i + 1) == end, "\(values[i])")
        }
        // Truncated keys are reported, not trapped.
        for cut in 0..<all.count where !ends.contains(cut) {
            #expect(OrderedKeySkipper.skip(Array(all[..<cut]), components: ends.firstIndex { $0 > cut }.map { $0 + 1 } ?? 1) == nil)
        }
    }
}
