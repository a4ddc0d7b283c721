import OfflineODataModel
import PropertyBased
import Testing
@testable import OfflineODataQuery

@Suite struct PagingSupportTests {
    @Test func topKKeepsTheSmallestInOrder() async {
        await propertyCheck(count: 200, input: Gen.int(in: -1000...1000).array(of: 0...300), Gen.int(in: 0...40)) { values, k in
            var heap = TopKHeap<Int>(capacity: k, by: <)
            for value in values { heap.insert(value) }
            #expect(heap.sorted() == Array(values.sorted().prefix(k)))
        }
    }

    @Test func base64URLRoundTripsAndRejectsForeignText() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...255).array(of: 0...64)) { ints in
            let bytes = ints.map { UInt8($0) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("+") && !text.contains("/") && !text.contains("=") && !text.contains("&"))
            #expect(Base64URL.decode(text) == bytes)
        }
        #expect(Base64URL.decode("ab&c") == nil)
        #expect(Base64URL.decode("abcde") == nil)
    }

    @Test func skipTokenRoundTripAndRejections() throws {
        let fingerprint = SkipToken.fingerprint(of: ["SalesOrders", "GrossAmount gt 5", "GrossAmount desc"])
        let token = SkipToken(position: [.decimal(EdmDecimal(1200)), .string("0500000007")], fingerprint: fingerprint)
        let text = try token.encoded()
        #expect(try SkipToken.decode(text, expectedFingerprint: fingerprint) == token)

        let other = SkipToken.fingerprint(of: ["SalesOrders", "GrossAmount gt 6", "GrossAmount desc"])
        #expect(other != fingerprint)
        for (bad, why) in [(text, "other request"), ("", "empty"), ("%%%", "not base64url"), (String(text.dropLast()), "truncated"),
                           (String(text.dropLast()) + (text.hasSuffix("A") ? "B" : "A"), "edited")] {
            let expected = why == "other request" ? other : fingerprint
            #expect(throws: ODataError.self, "\(why)") { try SkipToken.decode(bad, expectedFingerprint: expected) }
            do { _ = try SkipToken.decode(bad, expectedFingerprint: expected) } catch {
                #expect(error.name == "invalidSkipToken" && error.code == 1755)
            }
        }
    }
}
