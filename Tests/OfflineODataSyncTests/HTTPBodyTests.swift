import OfflineODataModel
import Testing
@testable import OfflineODataSync

/// A body's `Content-Length` is the back end's word: it sizes the buffer a page is collected
/// into, but never reserves more than `HTTPBody.maxReserved` before the bytes arrive (a lying
/// or mistaken header of a terabyte would otherwise ask the allocator for it at once).
@Suite struct HTTPBodyTests {
    @Test("a Content-Length far beyond the body reserves at most maxReserved; the body comes whole")
    func lyingLength() async throws {
        let body = HTTPBody(Array("{\"value\":[]}".utf8))
        let collected = try await body.collect(upTo: 1 << 40, expectedLength: 1 << 40)
        #expect(collected == Array("{\"value\":[]}".utf8))
        #expect(collected.capacity <= HTTPBody.maxReserved + 4096)
        #expect(HTTPBody.reservation(1 << 40, limit: 1 << 40) == HTTPBody.maxReserved)
        #expect(HTTPBody.reservation(1_400_000, limit: 256 << 20) == 1_400_000)
        #expect(HTTPBody.reservation(-5, limit: 256 << 20) == 0)
        #expect(HTTPBody.reservation(nil, limit: 256 << 20) == 0)
    }

    @Test("a body longer than its Content-Length grows as it arrives, up to the limit")
    func longerThanAnnounced() async throws {
        let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        for _ in 0..<10 { continuation.yield([UInt8](repeating: 7, count: 1000)) }
        continuation.finish()
        let collected = try await HTTPBody(stream).collect(upTo: 1 << 20, expectedLength: 10)
        #expect(collected.count == 10_000)
        await #expect(throws: HTTPBody.BodyTooLarge.self) {
            _ = try await HTTPBody([UInt8](repeating: 1, count: 5000)).collect(upTo: 4096, expectedLength: 100)
        }
    }
}
