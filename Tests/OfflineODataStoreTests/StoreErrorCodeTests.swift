import Testing
@testable import OfflineODataStore

@Suite struct StoreErrorCodeTests {
    @Test func storeCodesStayOutOfTheEngineAndModelRanges() {
        for range in [StoreErrorCodes.storageRange, StoreErrorCodes.serviceRange, StoreErrorCodes.queueRange] {
            #expect(range.lowerBound >= 3000 && range.upperBound < 4000)
        }
        #expect(!StoreErrorCodes.storageRange.overlaps(StoreErrorCodes.serviceRange))
        #expect(!StoreErrorCodes.serviceRange.overlaps(StoreErrorCodes.queueRange))
    }
}
