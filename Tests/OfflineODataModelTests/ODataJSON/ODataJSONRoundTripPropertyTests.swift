import PropertyBased
import Testing
@testable import OfflineODataModel

/// Random entities of the test model written at every metadata level (with and without
/// IEEE754Compatible) and read back identical: scales, offsets, Int64 extremes, odd strings,
/// dynamic properties with and without type annotations.
@Suite struct ODataJSONRoundTripPropertyTests {
    static let text = Gen.unicodeScalar(in: "\u{0}"..."\u{2FF}").array(of: 0...8)
        .map { scalars in String(String.UnicodeScalarView(scalars)) }
    static let decimal = zip(Gen.bool, Gen.uint8(in: 0...9).array(of: 1...24), Gen.int(in: 0...12))
        .map { negative, digits, scale -> ODataValue in
            let trimmed = Array(digits.drop { $0 == 0 })
            return (try? EdmDecimal(isNegative: negative && !trimmed.isEmpty, digits: trimmed, scale: scale)).map(ODataValue.decimal) ?? .null
        }
    static let instant = zip(Gen.int64(in: -62_135_596_800...253_402_300_799), Gen.int64(in: 0...999_999_999_999),
                             Gen.int(in: -1439...1439))
        .map { seconds, picos, offset -> ODataValue in
            (try? EdmDateTimeOffset(utcSeconds: seconds, picoseconds: picos / 1_000_000 * 1_000_000, offsetMinutes: offset))
                .map(ODataValue.dateTimeOffset) ?? .null
        }
    static let numbers = zip(Gen.int32(in: .min ... .max), Gen.int64(in: .min ... .max), Gen.int16(in: .min ... .max),
                             Gen.double(in: -1e300...1e300))
    static let entity = zip(numbers, text, decimal, instant, Gen.uint8().array(of: 0...6), text.array(of: 0...3),
                            Gen.int(in: 0...7), Gen.bool)
        .map { numbers, name, price, stamp, blob, tags, rights, flag -> ODataEntity in
            let (id, big, small, ratio) = numbers
            let access = ["Read", "Write", "Delete"].enumerated().filter { rights & (1 << $0.offset) != 0 }.map(\.element)
            var properties = [
                ODataProperty("ID", .int32(id)), ODataProperty("Name", .string(name)), ODataProperty("Big", .int64(big)),
                ODataProperty("Small", .int16(small)), ODataProperty("Price", price), ODataProperty("Ratio", .double(ratio)),
                ODataProperty("Stamp", stamp), ODataProperty("Blob", .binary(blob)), ODataProperty("Flag", .boolean(flag)),
                ODataProperty("Tags", .collection(tags.map(ODataValue.string))),
            ]
            if !access.isEmpty, let value = try? EdmEnumValue(typeName: "T.Access", members: access,
                                                             numericValue: Int64(rights)) {
                properties.append(ODataProperty("Rights", .enumValue(value)))
            }
            return ODataEntity(typeName: flag ? "T.SpecialItem" : "T.Item", properties: properties,
                               control: ODataControlInformation(etag: flag ? "W/\"\(id)\"" : nil))
        }

    @Test("random Items round-trip through the writer and reader")
    func items() async throws {
        let model = try ODataJSONTestModel.model()
        let reader = ODataJSONReader(model: model)
        await propertyCheck(count: 200, input: Self.entity) { entity in
            for metadata in [ODataMetadataLevel.minimal, .full] {
                for ieee754 in [false, true] {
                    let bytes = try ODataJSONWriter(model: model, metadata: metadata, ieee754Compatible: ieee754)
                        .writeEntity(entity, entitySet: "Items")
                    let again = try reader.readEntity(bytes, entitySet: "Items")
                    #expect(again.isIdentical(to: entity), "\(String(decoding: bytes, as: UTF8.self))")
                }
            }
        }
    }

    @Test("random dynamic properties of an open type round-trip with their types")
    func dynamic() async throws {
        let model = try ODataJSONTestModel.model()
        let reader = ODataJSONReader(model: model)
        let values = zip(Self.numbers, Self.text, Self.decimal, Self.instant, Gen.bool)
            .map { numbers, text, decimal, instant, flag -> [ODataProperty] in
                let (int32, int64, int16, double) = numbers
                return [
                    ODataProperty("a b", .int32(int32)), ODataProperty("c", .int64(int64)),
                    ODataProperty("d", .int16(int16)), ODataProperty("e", .double(double)),
                    ODataProperty("f", .string(text)), ODataProperty("g", decimal), ODataProperty("h", instant),
                    ODataProperty("i", .boolean(flag)),
                    ODataProperty("j", .collection([.int64(int64), .null])),
                    ODataProperty("k", .complex(ODataComplexValue(typeName: nil, [("x", .int32(int32)), ("y", decimal)]))),
                ]
            }
        await propertyCheck(count: 200, input: values) { properties in
            let entity = ODataEntity(typeName: "T.Thing", properties: [ODataProperty("Key", .string("k"))] + properties)
            let bytes = try ODataJSONWriter(model: model).writeEntity(entity, entitySet: "Things")
            let again = try reader.readEntity(bytes, entitySet: "Things")
            #expect(again.isIdentical(to: entity), "\(String(decoding: bytes, as: UTF8.self))")
        }
    }
}
