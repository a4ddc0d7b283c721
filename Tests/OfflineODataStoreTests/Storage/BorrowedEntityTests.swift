import OfflineODataFixtures
import OfflineODataModel
import PropertyBased
import Testing
@testable import OfflineODataStore

/// An entity decoded from the bytes a cursor lends (`BorrowedEntity.toODataEntity`, the read
/// path of `$expand` over key-prefix ranges) is exactly the entity decoded from a copy
/// (`StoredEntity.toODataEntity`): the same properties, type name and ETag, and on damaged
/// bytes (the codec bytes, the ETag, the trailer) the same typed error.
@Suite struct BorrowedEntityTests {
    @Test func borrowedDecodingMatchesTheCopy() async throws {
        let generator = SalesServiceGenerator(seed: 3, scale: .tiny)
        let model = try ServiceModel.parse(metadata: Array(generator.metadataXML().utf8))
        let harness = try StorageHarness(model: model, label: "borrowed")
        _ = try harness.loadSales(generator, model: model)
        let reader = try harness.storage.reader()
        var stored: [(key: [UInt8], value: [UInt8], info: SetInfo)] = []
        for set in ["SalesOrders", "SalesOrderItems", "BusinessPartners"] {
            let info = try reader.catalog.set(set)
            var taken = 0
            try reader.forEachEntity(set) { (row: BorrowedEntity) throws(ODataError) -> Bool in
                stored.append((Array(row.key), Array(row.value), info))
                taken += 1
                return taken < 40
            }
        }
        #expect(stored.count >= 40)
        // Some values carry a derived type name and no ETag, others an ETag that is not UTF-8.
        let sample = stored[0]
        var codec = sample.value
        _ = try StoredValue.split(&codec, what: "sample")
        let codecEnd = codec.count
        stored.append((sample.key, StoredValue.encode(codec: codec, etag: nil, typeName: sample.info.typeName, flags: []), sample.info))
        stored.append((sample.key, StoredValue.encode(codec: codec, etag: "W/\"\u{FFFD}x\"", typeName: nil, flags: []), sample.info))
        var badETag = StoredValue.encode(codec: codec, etag: "W/\"ab\"", typeName: nil, flags: [])
        badETag[codecEnd + 3] = 0xFF
        stored.append((sample.key, badETag, sample.info))

        func outcome(_ body: () throws(ODataError) -> ODataEntity) -> Result<ODataEntity, ODataError> {
            do { return .success(try body()) } catch { return .failure(error) }
        }
        func compare(_ key: [UInt8], _ value: [UInt8], _ info: SetInfo, _ context: String) {
            let copy = outcome { () throws(ODataError) in try StoredEntity(keyBytes: key, value: value, info: info).toODataEntity() }
            let lent = key.withUnsafeBytes { k in
                value.withUnsafeBytes { v in outcome { () throws(ODataError) in try BorrowedEntity(key: k, value: v, info: info).toODataEntity() } }
            }
            switch (lent, copy) {
            case let (.success(a), .success(b)):
                #expect(a.typeName == b.typeName && a.control.etag == b.control.etag, "\(context)")
                #expect(a.properties.count == b.properties.count
                        && zip(a.properties, b.properties).allSatisfy { $0.name == $1.name && $0.value.isIdentical(to: $1.value) }, "\(context)")
            case let (.failure(a), .failure(b)):
                #expect(a.name == b.name && a.code == b.code && a.message == b.message, "\(context): \(a) vs \(b)")
            case let (a, b):
                Issue.record("\(context): borrowed \(a), copy \(b)")
            }
        }
        for (index, entry) in stored.enumerated() { compare(entry.key, entry.value, entry.info, "entity \(index)") }
        #expect(throws: ODataError.self) { try StoredEntity(keyBytes: sample.key, value: badETag, info: sample.info) }

        // Damaged: one byte anywhere (codec bytes, ETag, type name, trailer), or cut short.
        await propertyCheck(count: 300, input: Gen.int(in: 0...(stored.count - 1)), Gen.int(in: 0...100_000), Gen.uint8()) { which, position, byte in
            var value = stored[which].value
            if byte < 16 {
                value.removeLast(position % value.count + 1)
            } else {
                value[position % value.count] = byte
            }
            compare(stored[which].key, value, stored[which].info, "entity \(which), byte \(position % stored[which].value.count) = \(byte)")
        }
    }
}
