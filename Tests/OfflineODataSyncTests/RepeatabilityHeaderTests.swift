import Foundation
import Testing
@testable import OfflineODataSync

/// The values of the repeatable-request headers (OASIS Repeatable Requests 1.0 §2): the first
/// sending time as an RFC 9110 IMF-fixdate and request IDs as lowercase version-4 UUIDs, both
/// written without Foundation's formatters.
@Suite struct RepeatabilityHeaderTests {
    @Test("Repeatability-First-Sent is an IMF-fixdate in GMT, the same as DateFormatter writes")
    func imfDate() {
        #expect(OfflineODataProvider.imfDate(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(OfflineODataProvider.imfDate(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(OfflineODataProvider.imfDate(Date(timeIntervalSince1970: 1_798_761_599.9)) == "Thu, 31 Dec 2026 23:59:59 GMT")
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let date = Date(timeIntervalSince1970: Double(UInt64.random(in: 0..<4_102_444_800, using: &generator)))
            #expect(OfflineODataProvider.imfDate(date) == formatter.string(from: date))
        }
    }

    @Test("request IDs are lowercase version-4 UUIDs that Foundation parses, and differ")
    func uuids() {
        var seen = Set<String>()
        for _ in 0..<1_000 {
            let id = OfflineODataProvider.randomUUID()
            #expect(id.count == 36 && id == id.lowercased())
            let parsed = UUID(uuidString: id)
            #expect(parsed != nil && parsed?.uuidString.lowercased() == id)
            let bytes = Array(id.utf8)
            #expect(bytes[14] == UInt8(ascii: "4") && [UInt8(ascii: "8"), UInt8(ascii: "9"), UInt8(ascii: "a"), UInt8(ascii: "b")].contains(bytes[19]))
            seen.insert(id)
        }
        #expect(seen.count == 1_000)
        // One batch's source: all different, all version 4, and another batch's differ from them.
        var batch = OfflineODataProvider.UUIDSource(), other = OfflineODataProvider.UUIDSource()
        let first = (0..<500).map { _ in batch.next() }, second = (0..<500).map { _ in other.next() }
        #expect(Set(first).count == 500 && Set(first).isDisjoint(with: second))
        #expect(first.allSatisfy { UUID(uuidString: $0) != nil && Array($0.utf8)[14] == UInt8(ascii: "4") })
    }
}
