import Foundation
@testable import OfflineODataFixtures
import PropertyBased
import Testing

@Suite struct FixtureInternalsTests {
    /// Any string written by the generator's JSON writer reads back unchanged with Foundation.
    @Test func jsonStringsRoundTripThroughFoundation() async {
        let text = Gen.unicodeScalar(in: "\u{0}"..."\u{D7FF}").map { Character($0) }.string(of: 0...40)
        await propertyCheck(count: 300, input: text) { value in
            var writer = JSONWriter()
            writer.beginObject()
            writer.name("s")
            writer.string(value)
            writer.name("n")
            writer.null()
            writer.endObject()
            do {
                let object = try FixtureTestSupport.object(writer.bytes)
                #expect(object["s"] as? String == value)
                #expect(object["n"] is NSNull)
            } catch {
                Issue.record("writer produced unreadable JSON for \(value.debugDescription): \(error)")
            }
        }
    }

    @Test func unmixInvertsMix() async {
        await propertyCheck(count: 500, input: Gen.uint64(in: 0 ... .max)) { value in
            #expect(SplitMix64.unmix(SplitMix64.mix(value)) == value)
            #expect(SplitMix64.mix(SplitMix64.unmix(value)) == value)
        }
    }

    @Test func controlCharactersAreEscaped() {
        var writer = JSONWriter()
        writer.string("a\"b\\c\n\t\u{1}é🎁")
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "\"a\\\"b\\\\c\\n\\t\\u0001é🎁\"")
    }

    @Test func decimalsKeepTheirScale() {
        #expect(JSONWriter.decimalText(1_234_500, scale: 3) == "1234.500")
        #expect(JSONWriter.decimalText(5, scale: 3) == "0.005")
        #expect(JSONWriter.decimalText(0, scale: 3) == "0.000")
        #expect(JSONWriter.decimalText(-1_500, scale: 3) == "-1.500")
        #expect(JSONWriter.decimalText(42, scale: 0) == "42")
    }

    @Test func civilDatesRoundTrip() async {
        await propertyCheck(count: 300, input: Gen.int64(in: -800_000...800_000)) { days in
            let (y, m, d) = CivilTime.civil(days: days)
            #expect(CivilTime.days(year: y, month: m, day: d) == days)
            #expect((1...12).contains(m) && (1...31).contains(d))
        }
        #expect(CivilTime.dateText(days: 0) == "1970-01-01")
        #expect(CivilTime.dateText(days: CivilTime.days(year: 2024, month: 2, day: 29)) == "2024-02-29")
        let instant = CivilTime.days(year: 2024, month: 3, day: 5) * CivilTime.millisPerDay + 33_330_123
        #expect(CivilTime.dateTimeOffsetText(millis: instant, offsetMinutes: 0) == "2024-03-05T09:15:30.123Z")
        #expect(CivilTime.dateTimeOffsetText(millis: instant, offsetMinutes: 60) == "2024-03-05T10:15:30.123+01:00")
        #expect(CivilTime.dateTimeOffsetText(millis: instant, offsetMinutes: -570) == "2024-03-04T23:45:30.123-09:30")
    }

    @Test func asciiSlugsFoldAccentsAndDropPunctuation() {
        #expect(TextFormatting.asciiSlug("Müller") == "mueller")
        #expect(TextFormatting.asciiSlug("Søren") == "soeren")
        #expect(TextFormatting.asciiSlug("O'Neil & José") == "oneiljose")
    }

    @Test func customerRanksMapOntoNonSupplierPartners() throws {
        for partners in 2...200 {
            let generator = SalesServiceGenerator(
                seed: 0, scale: try Scale(businessPartners: partners, products: 1, salesOrders: 1))
            let mapped = (0..<generator.customerCount).map { generator.customerIndex(rank: $0) }
            #expect(mapped == (0..<partners).filter { !generator.isSupplier($0) }, "partners \(partners)")
            #expect(generator.supplierCount == (0..<partners).filter { generator.isSupplier($0) }.count)
        }
    }

    @Test func blockDistributionCountsAreBoundedAndVaried() {
        let distribution = BlockDistribution(parents: 1_000, perParent: 4, seed: 1, salt: 2)
        var histogram: [Int: Int] = [:]
        for parent in 0..<1_000 { histogram[distribution.childRange(ofParent: parent).count, default: 0] += 1 }
        #expect(histogram.keys.min() ?? 0 >= 1)
        #expect(histogram.keys.max() ?? 99 <= 16)
        #expect(histogram.count >= 6)
        #expect(distribution.childRange(ofParent: -1).isEmpty && distribution.childRange(ofParent: 1_000).isEmpty)
    }
}
