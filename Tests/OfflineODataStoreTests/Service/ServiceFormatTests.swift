import Foundation
import OfflineODataModel
import Testing
@testable import OfflineODataStore

/// The system records of docs/LocalService.md §5 byte by byte, corrupt records as typed errors,
/// and the error codes of §8.
@Suite struct ServiceFormatTests {
    @Test("counters record: version 1 and four little-endian Int64 (§5.1)")
    func counters() throws {
        let c = ServiceCounters(nextRequestID: 2, nextETag: 0x0102, nextLocalKey: 3, nextEventID: 1)
        let bytes = c.encode()
        #expect(bytes == [1, 2, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0])
        #expect(try ServiceCounters.decode(bytes) == c)
        let huge: [UInt8] = [1] + [UInt8](repeating: 0xFF, count: 7) + [0x7F] + Array(bytes[9...])
        let bads: [[UInt8]] = [Array(bytes.dropLast()), [2] + Array(bytes.dropFirst()), [1] + [UInt8](repeating: 0, count: 32), bytes + [0], huge]
        for bad in bads {
            expectStoreError("queueCorrupted", 3202) { _ = try ServiceCounters.decode(bad) }
        }
    }

    @Test("image records: local creation 11 bytes; server image with stored value, links, the downloaded version and the flags (§5.2); version 1 and 2 images still read")
    func images() throws {
        let created = ServerImage(kind: 2, firstRequestID: 5, keyGenerated: true, stored: [])
        #expect(created.encode() == [3, 2, 5, 0, 0, 0, 0, 0, 0, 0, 1])
        #expect(try ServerImage.decode(created.encode(), what: "t") == created)
        let stored: [UInt8] = [9, 0xFF, 0xFF, 0, 0, 0, 1]
        var server = ServerImage(kind: 1, firstRequestID: 1, keyGenerated: false, stored: stored,
                                 links: [ServerImage.Link(navigation: "N", targetKey: [0x20, 0x01])])
        let header: [UInt8] = [3, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0]
        let links: [UInt8] = [1, 0, 0, 0, 1, 0, 0, 0, 0x4E, 2, 0, 0, 0, 0x20, 0x01]
        #expect(server.encode() == header + stored + links + [0, 0, 0, 0] + [0])
        #expect(try ServerImage.decode(server.encode(), what: "t") == server)
        // Version 1 (no downloaded version) and version 2 (no flags) are still read.
        let version1 = [1] + Array(header.dropFirst()) + stored + links
        #expect(try ServerImage.decode(version1, what: "t") == server)
        let version2 = [2] + Array(header.dropFirst()) + stored + links + [0, 0, 0, 0]
        #expect(try ServerImage.decode(version2, what: "t") == server)
        let fresh: [UInt8] = [8, 0xFF, 0xFF, 0, 0, 0, 1]
        server.fresh = fresh
        #expect(server.encode() == header + stored + links + [7, 0, 0, 0] + fresh + [0])
        #expect(try ServerImage.decode(server.encode(), what: "t") == server)
        #expect(server.newest == fresh)
        var gone = server
        gone.fresh = nil
        gone.deletedOnServer = true
        #expect(gone.encode() == header + stored + links + [0, 0, 0, 0] + [1])
        #expect(try ServerImage.decode(gone.encode(), what: "t") == gone)
        let good = server.encode()
        let truncatedValue: [UInt8] = [3, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0]
        let truncatedFresh = header + stored + links + [2, 0, 0, 0, 1, 2]
        let badKind: [UInt8] = [3, 3] + Array(good.dropFirst(2))
        let badFlags = Array(good.dropLast()) + [2]
        let bads: [[UInt8]] = [Array(good.dropLast()), good + [0], badKind, truncatedValue, truncatedFresh, created.encode() + [0], [3, 2, 5],
                               [4] + Array(good.dropFirst()), badFlags]
        for bad in bads {
            expectStoreError("queueCorrupted", 3202) { _ = try ServerImage.decode(bad, what: "t") }
        }
        #expect(ServiceFormat.imageKey("Orders", [0x20]) == Array("Orders".utf8) + [0, 0x20])
        #expect(ServiceFormat.splitImageKey(ServiceFormat.imageKey("Orders", [0x20]))?.set == "Orders")
    }

    @Test("a corrupt counters record in the store is a typed error, not a crash")
    func corruptInStore() throws {
        let h = try ServiceHarness(load: false)
        try h.storage.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
            try batch.putSystem(tree: ServiceFormat.serviceTree, key: ServiceFormat.countersKey, value: [1, 2, 3])
        }
        expectStoreError("queueCorrupted", 3202) { try h.run(.post, "BusinessPartners", newPartner("9900000001")) }
        #expect(try h.entity("BusinessPartners", [.string("9900000001")]) == nil)
    }

    @Test("every service error has its code in 3100–3299 and is listed in docs/LocalService.md §8")
    func errorCodes() throws {
        let errors: [ODataError] = [
            .serviceMalformedRequest("x", nil), .serviceMethodNotAllowed("GET", "u"), .serviceEntityNotFound("S", "(1)"),
            .serviceDuplicateKey("S", "(1)"), .serviceMissingKey("S", "K"), .serviceKeyMismatch("S", "K", "d"),
            .serviceConstraintViolation("S", "d", nil), .serviceMissingPrincipal("S", "N", "T", "(1)"),
            .servicePreconditionFailed("S", "(1)", given: "a", current: nil), .serviceInvalidBody("d", nil),
            .serviceInvalidOption("o", "d"), .serviceNotSupported("d", nil), .serviceReadOnlySet("S", "POST"),
            .serviceCannotGenerateKey("S", "K", "k"), .serviceInvalidBatch("d", nil), .serviceNoReadHandler("u"),
            .serviceDependencyFailed("1"), .queueSystemSetsMissing("S"), .queueRequestNotFound("S", 1),
            .queueCorrupted("w", "d"), .queueSystemSetClash("S"), .queueInvalidFailure("d"),
        ]
        let doc = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/LocalService.md"), encoding: .utf8)
        #expect(Set(errors.map(\.code)).count == errors.count)
        for error in errors {
            #expect(StoreErrorCodes.serviceRange.contains(error.code) || StoreErrorCodes.queueRange.contains(error.code))
            #expect(doc.contains("| \(error.code) | `\(error.name)` | \(error.category.rawValue)"), "\(error.code) \(error.name)")
            #expect(!error.message.isEmpty)
        }
    }
}
