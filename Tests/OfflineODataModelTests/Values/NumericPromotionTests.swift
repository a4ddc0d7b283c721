import Testing
@testable import OfflineODataModel

@Suite struct NumericPromotionTests {
    func decimal(_ text: String) throws -> ODataValue { .decimal(try EdmDecimal(parsing: text)) }

    @Test func doubleAndDecimalCompareAsDoubleInFilters() throws {
        // Exact order keeps them apart; the $filter comparison promotes the Decimal to Double.
        #expect(ODataValue.compare(.double(0.1), try decimal("0.1")) == 1)
        #expect(ODataValue.comparePromoted(.double(0.1), try decimal("0.1")) == 0)
        #expect(ODataValue.comparePromoted(try decimal("0.1"), .double(0.1)) == 0)
    }

    @Test func singleWinsOverDecimalAndIntegers() throws {
        #expect(ODataValue.comparePromoted(.single(0.1), try decimal("0.1")) == 0)
        #expect(ODataValue.comparePromoted(.single(16_777_217), .int32(16_777_216)) == 0)  // Single precision
        // The Float literal is 16,777,216; exact comparison sees that, promotion to Single hides it.
        #expect(ODataValue.compare(.single(16_777_217), .int32(16_777_217)) == -1)
        #expect(ODataValue.comparePromoted(.single(16_777_217), .int32(16_777_217)) == 0)
    }

    @Test func decimalAndIntegersStayExact() throws {
        #expect(ODataValue.comparePromoted(.int64(Int64.max), try decimal("9223372036854775806.5")) == 1)
        #expect(ODataValue.comparePromoted(try decimal("1.00"), .int32(1)) == 0)
        #expect(ODataValue.comparePromoted(.byte(2), .int16(-3)) == 1)
    }

    @Test func nanIsIncomparableAndNonNumbersFallBack() {
        #expect(ODataValue.comparePromoted(.double(.nan), .int32(1)) == nil)
        #expect(ODataValue.comparePromoted(.string("a"), .string("b")) == -1)
        #expect(ODataValue.comparePromoted(.string("1"), .int32(1)) == nil)
    }
}
