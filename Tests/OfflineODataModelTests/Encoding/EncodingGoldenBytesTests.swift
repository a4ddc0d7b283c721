import Testing
@testable import OfflineODataModel

/// The examples in docs/EntityEncoding.md, byte for byte: a format change must update both.
@Suite struct EncodingGoldenBytesTests {
    @Test func orderedKeyExamples() throws {
        #expect(try OrderedKeyEncoding.encode([.int32(-5)]) == [0x20, 0x02, 0x7F, 0xFE, 0xCC, 0xFF, 0x04])
        #expect(try OrderedKeyEncoding.encode([.decimal(try EdmDecimal(parsing: "2296.90"))])
            == [0x20, 0x04, 0x80, 0x04, 0x17, 0x61, 0x5B, 0x00, 0x06, 0x00, 0x02])
        #expect(try OrderedKeyEncoding.encode([.string("a\0"), .int64(10248)])
            == [0x30, 0x61, 0x00, 0xFF, 0x00, 0x01, 0x20, 0x04, 0x80, 0x05, 0x0B, 0x19, 0x51, 0x00, 0x05])
        #expect(try OrderedKeyEncoding.encode([.null]) == [0x01])
        #expect(OrderedKeyEncoding.formatVersion == 1)
    }

    @Test func entityExample() throws {
        let layout = EntityLayout([EntityPropertyDescriptor("ID", .int32, isNullable: false),
                                   EntityPropertyDescriptor("Name", .string), EntityPropertyDescriptor("Price", .decimal)])
        let bytes = try EntityCodec(layout: layout).encode(
            EntityRecord(values: [.int32(7), nil, .decimal(try EdmDecimal(parsing: "2296.90"))]))
        #expect(bytes == [0x01, 0x03, 0, 0, 0, 0, 0x02, 0, 0, 0, 0x02, 0, 0, 0, 0x09, 0, 0, 0,
                          0x06, 0x0E, 0x08, 0x00, 0x02, 0x06, 0x22, 0x96, 0x90, 0x00])
        #expect(EntityCodec.formatVersion == 1)
    }
}
