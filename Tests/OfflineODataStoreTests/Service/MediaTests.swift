import Foundation
import OfflineODataModel
import Testing
@testable import OfflineODataEngine
@testable import OfflineODataStore

/// Media resources and stream properties offline (docs/LocalService.md §2.10, docs/StoreFormat.md
/// §11): written and read through requests and through the streaming API, ranges, queued for
/// upload atomically with the entity's change, removed with the entity, moved with a re-key,
/// dropped by undo, never half-visible, and encrypted at rest.
@Suite struct MediaTests {
    static let metadata = Array("""
        <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0"><edmx:DataServices>
        <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="M">
          <EntityType Name="Photo" HasStream="true"><Key><PropertyRef Name="ID"/></Key>
            <Property Name="ID" Type="Edm.Int32" Nullable="false"/><Property Name="Name" Type="Edm.String"/></EntityType>
          <EntityType Name="Product"><Key><PropertyRef Name="ID"/></Key>
            <Property Name="ID" Type="Edm.String" Nullable="false"/><Property Name="Manual" Type="Edm.Stream"/></EntityType>
          <EntityType Name="Order"><Key><PropertyRef Name="ID"/></Key>
            <Property Name="ID" Type="Edm.String" Nullable="false"/><Property Name="PhotoID" Type="Edm.Int32"/>
            <NavigationProperty Name="Photo" Type="M.Photo"><ReferentialConstraint Property="PhotoID" ReferencedProperty="ID"/></NavigationProperty>
          </EntityType>
          <EntityType Name="Person"><Key><PropertyRef Name="UserName"/></Key>
            <Property Name="UserName" Type="Edm.String" Nullable="false"/><Property Name="Photo" Type="Edm.Stream"/></EntityType>
          <EntityContainer Name="C">
            <EntitySet Name="Photos" EntityType="M.Photo"/>
            <EntitySet Name="Products" EntityType="M.Product"/>
            <EntitySet Name="Orders" EntityType="M.Order"><NavigationPropertyBinding Path="Photo" Target="Photos"/></EntitySet>
            <Singleton Name="Me" Type="M.Person"/>
          </EntityContainer>
        </Schema></edmx:DataServices></edmx:Edmx>
        """.utf8)

    static func open(_ dir: OfflineTempDir, encryption: StoreEncryption = .unencrypted) async throws -> OfflineStore {
        try await OfflineStore.open(metadata: metadata, parameters: OfflineFixtures.parameters(dir, encryption: encryption))
    }

    /// Bytes that no compression shrinks and that a test can recognise.
    static func random(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed | 1
        var out = [UInt8](repeating: 0, count: count)
        for i in 0..<count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            out[i] = UInt8(truncatingIfNeeded: state)
        }
        return out
    }

    /// `bytes` in pieces of `piece` bytes, as an app's async sequence.
    static func pieces(_ bytes: [UInt8], _ piece: Int) -> AsyncStream<[UInt8]> {
        AsyncStream { continuation in
            var offset = 0
            while offset < bytes.count {
                continuation.yield(Array(bytes[offset..<min(offset + piece, bytes.count)]))
                offset += piece
            }
            continuation.finish()
        }
    }

    static func collect(_ stream: AsyncThrowingStream<[UInt8], any Error>) async throws -> [UInt8] {
        var out: [UInt8] = []
        for try await piece in stream { out += piece }
        return out
    }

    /// Records of a system tree (chunks, pending streams), read from the store's storage.
    static func count(_ store: OfflineStore, _ tree: String) throws -> Int {
        var cursor = try store.storage.reader().systemScan(tree: tree)
        var n = 0
        while try cursor.next() != nil { n += 1 }
        return n
    }

    @Test("PUT …/$value stores the bytes with their type; GET returns them, a range gives 206, the change is queued with the entity pending")
    func putAndGet() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await Self.open(dir)
        defer { try? store.close() }
        #expect(try store.execute(.post, "Photos", body: #"{"ID":1,"Name":"a"}"#).status == 201)
        // No stream yet: 204.
        #expect(try store.execute(.get, "Photos(1)/$value").status == 204)
        let etagBefore = try #require(try store.execute(.get, "Photos(1)").headers["ETag"])
        let bytes = Self.random(200_000, seed: 3)
        let put = try store.execute(ODataRequest(.put, "Photos(1)/$value", headers: ["Content-Type": "image/jpeg", "If-Match": etagBefore],
                                                 body: bytes))
        #expect(put.status == 204 && put.headers["ETag"] != nil && put.headers["ETag"] != etagBefore)
        let got = try store.execute(.get, "Photos(1)/$value")
        #expect(got.status == 200 && got.headers["Content-Type"] == "image/jpeg" && got.body == bytes)
        let part = try store.execute(ODataRequest(.get, "Photos(1)/$value", headers: ["Range": "bytes=65530-65545"]))
        #expect(part.status == 206 && part.body == Array(bytes[65530...65545]))
        #expect(part.headers["Content-Range"] == "bytes 65530-65545/200000")
        let tail = try store.execute(ODataRequest(.get, "Photos(1)/$value", headers: ["Range": "bytes=-10"]))
        #expect(tail.body == Array(bytes.suffix(10)))
        for (range, status) in [("bytes=200000-", 416), ("bytes=5-1", 400), ("items=1-2", 400), ("bytes=1-2,4-5", 501)] {
            let error = #expect(throws: ODataError.self) {
                _ = try store.execute(ODataRequest(.get, "Photos(1)/$value", headers: ["Range": range]))
            }
            #expect(error.map(ODataResponse.status(for:)) == status, "\(range): \(error?.message ?? "")")
        }
        // A stale If-Match changes nothing.
        let stale = #expect(throws: ODataError.self) {
            _ = try store.execute(ODataRequest(.put, "Photos(1)/$value", headers: ["If-Match": etagBefore], body: [1, 2, 3]))
        }
        #expect(stale?.category == .preconditionFailed)
        #expect(try store.execute(.get, "Photos(1)/$value").body == bytes)
        let queue = try store.requestQueue()
        let media = try #require(queue.last)
        #expect(queue.count == 2 && media.method == "PUT" && media.url == "Photos(1)/$value" && media.body == nil)
        #expect(media.mediaContentType == "image/jpeg" && queue[0].mediaContentType == nil)
        let info = try #require(try store.mediaInfo(set: "Photos", key: [.int32(1)]))
        #expect(info.length == 200_000 && info.isLocal && info.etag == nil)
        // The entity carries its media control information, in a collection too.
        let entity = try #require(try store.execute(.get, "Photos(1)").json())
        #expect(entity["@odata.mediaReadLink"]?.stringValue == "Photos(1)/$value")
        #expect(entity["@odata.mediaEditLink"]?.stringValue == "Photos(1)/$value")
        #expect(entity["@odata.mediaContentType"]?.stringValue == "image/jpeg")
        let listed = try #require(try store.execute(.get, "Photos?$filter=ID eq 1").json()?["value"]?.arrayValue?.first)
        #expect(listed["@odata.mediaContentType"]?.stringValue == "image/jpeg")
        // The stream property of another type, and $value on a type without a stream.
        #expect(try store.execute(.post, "Products", body: #"{"ID":"p"}"#).status == 201)
        #expect(try store.execute(ODataRequest(.put, "Products('p')/Manual", headers: ["Content-Type": "application/pdf"],
                                               body: Array("%PDF".utf8))).status == 204)
        let manual = try store.execute(.get, "Products('p')/Manual")
        #expect(manual.body == Array("%PDF".utf8) && manual.headers["Content-Type"] == "application/pdf")
        #expect(throws: ODataError.self) { _ = try store.execute(ODataRequest(.put, "Products('p')/$value", body: [1])) }
        #expect(throws: ODataError.self) { _ = try store.execute(ODataRequest(.put, "Photos(9)/$value", body: [1])) }
        #expect(throws: ODataError.self) {
            _ = try store.execute(ODataRequest(.put, "Photos(1)/$value", headers: ["Content-Type": "no type\n"], body: [1]))
        }
    }

    @Test("POST of a media entity creates it with a temporary key and its stream; DELETE removes entity and chunks")
    func createAndDelete() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await Self.open(dir)
        defer { try? store.close() }
        let bytes = Self.random(3 << 20, seed: 5)
        let created = try store.execute(ODataRequest(.post, "Photos", headers: ["Content-Type": "image/png", "Slug": "site.png"], body: bytes))
        #expect(created.status == 201)
        let location = try #require(created.headers["Location"])
        let key = try #require(created.entity?[property: "ID"])
        #expect(try store.execute(.get, location + "/$value").body == bytes)
        let queued = try #require(try store.requestQueue().last)
        #expect(queued.method == "POST" && queued.url == "Photos" && queued.mediaContentType == "image/png")
        #expect(queued.customHeaders["Slug"] == "site.png")
        #expect(try Self.count(store, "media.chunks") == 48)
        #expect(try store.execute(.delete, location).status == 204)
        #expect(try Self.count(store, "media.chunks") == 0 && Self.count(store, "media") == 0)
        #expect(throws: ODataError.self) { _ = try store.mediaInfo(set: "Photos", key: [key]) }
        // In a JSON $batch a stream goes as its own request; inside an atomic change set it is
        // refused (its bytes are staged before the one commit that names them).
        #expect(try store.execute(.post, "Photos", body: #"{"ID":1}"#).status == 201)
        let alone = try store.execute(ODataRequest(.post, "$batch", headers: ["Content-Type": "application/json"], body: Array("""
            {"requests":[{"id":"1","method":"PUT","url":"Photos(1)/$value","headers":{"content-type":"text/plain"},"body":"hello"}]}
            """.utf8)))
        #expect(alone.bodyText?.contains(#""status":204"#) == true, "\(alone.bodyText ?? "")")
        let stored = try store.execute(.get, "Photos(1)/$value")
        #expect(stored.headers["Content-Type"] == "text/plain" && stored.bodyText == "hello", "\(stored.bodyText ?? "")")
        let atomic = try store.execute(ODataRequest(.post, "$batch", headers: ["Content-Type": "application/json"], body: Array("""
            {"requests":[{"id":"1","atomicityGroup":"g","method":"PUT","url":"Photos(1)/$value","headers":{"content-type":"text/plain"},"body":"x"}]}
            """.utf8)))
        #expect(atomic.bodyText?.contains(#""status":501"#) == true, "\(atomic.bodyText ?? "")")
        #expect(try store.execute(.get, "Photos(1)/$value").bodyText == "hello")
    }

    @Test("streaming write and read of a large stream: memory bounded in pieces, old chunks go when it is replaced")
    func streaming() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await Self.open(dir)
        defer { try? store.close() }
        #expect(try store.execute(.post, "Photos", body: #"{"ID":1}"#).status == 201)
        let first = Self.random(5_000_001, seed: 11)
        let response = try await store.writeMedia(set: "Photos", key: [.int32(1)], contentType: "video/mp4",
                                                  from: Self.pieces(first, 100_003))
        #expect(response.status == 204)
        #expect(try store.requestQueue().last?.url == "Photos(1)/$value")
        #expect(try await Self.collect(try store.readMedia(set: "Photos", key: [.int32(1)])) == first)
        #expect(try await Self.collect(try store.readMedia(set: "Photos", key: [.int32(1)], range: 4_999_990..<5_000_001))
                == Array(first.suffix(11)))
        #expect(try Self.count(store, "media.chunks") == 77 && Self.count(store, "media.pending") == 0)
        // Past 8 MiB the chunks go into a run of their own; read back the same, ranges across the boundary.
        let long = Self.random(21_000_000, seed: 13)
        try await store.writeMedia(set: "Photos", key: [.int32(1)], contentType: "video/mp4", from: Self.pieces(long, 1 << 20))
        #expect(try await Self.collect(try store.readMedia(set: "Photos", key: [.int32(1)])) == long)
        let boundary: Range<Int64> = (8 << 20) - 100..<(8 << 20) + 100
        #expect(try await Self.collect(try store.readMedia(set: "Photos", key: [.int32(1)], range: boundary))
                == Array(long[Int(boundary.lowerBound)..<Int(boundary.upperBound)]))
        #expect(try Self.count(store, "media.chunks") == 321 && Self.count(store, "media.pending") == 0)
        try await store.writeMedia(set: "Photos", key: [.int32(1)], contentType: "video/mp4", from: Self.pieces(first, 100_003))
        // A reader holds its point in time while the stream is replaced.
        let before = try store.readMedia(set: "Photos", key: [.int32(1)])
        let second = Self.random(70_000, seed: 12)
        try await store.writeMedia(set: "Photos", key: [.int32(1)], contentType: "video/mp4", from: Self.pieces(second, 7))
        #expect(try await Self.collect(before) == first)
        #expect(try await Self.collect(try store.readMedia(set: "Photos", key: [.int32(1)])) == second)
        #expect(try Self.count(store, "media.chunks") == 2)
        // Through a file both ways.
        let file = dir.path + "/in.bin", out = dir.path + "/out.bin"
        try Data(first).write(to: URL(fileURLWithPath: file))
        try await store.writeMedia(set: "Photos", key: [.int32(1)], contentType: "video/mp4", fromFile: file)
        #expect(try await store.readMedia(set: "Photos", key: [.int32(1)], toFile: out) == Int64(first.count))
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data(first))
        await #expect(throws: ODataError.self) {
            try await store.writeMedia(set: "Photos", key: [.int32(1)], contentType: "x/y", fromFile: dir.path + "/missing")
        }
    }

    @Test("a cancelled or failed write changes nothing and leaves no chunk behind")
    func cancelled() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await Self.open(dir)
        defer { try? store.close() }
        #expect(try store.execute(.post, "Photos", body: #"{"ID":1}"#).status == 201)
        let queued = try store.requestQueue().count
        struct Broken: Error {}
        let failing = AsyncThrowingStream<[UInt8], any Error> { continuation in
            for i in 0..<40 { continuation.yield(Self.random(100_000, seed: UInt64(i))) }
            continuation.finish(throwing: Broken())
        }
        await #expect(throws: Broken.self) {
            try await store.writeMedia(set: "Photos", key: [.int32(1)], contentType: "image/png", from: failing)
        }
        #expect(try Self.count(store, "media.chunks") == 0 && Self.count(store, "media.pending") == 0)
        #expect(try store.mediaInfo(set: "Photos", key: [.int32(1)]) == nil && store.requestQueue().count == queued)
        let task = Task {
            try await store.writeMedia(set: "Photos", key: [.int32(1)], contentType: "image/png",
                                       from: AsyncStream<[UInt8]> { continuation in
                                           for i in 0..<40 { continuation.yield(Self.random(100_000, seed: UInt64(i))) }
                                           continuation.finish()
                                       })
        }
        task.cancel()
        let outcome = await task.result
        if case .failure(let error) = outcome {
            #expect((error as? ODataError)?.code == StoreErrorCode.cancelled.code)
            #expect(try store.mediaInfo(set: "Photos", key: [.int32(1)]) == nil)
        }
        #expect(try Self.count(store, "media.pending") == 0)
    }

    @Test("chunks staged by a write that never finished are removed when the store opens again")
    func sweptOnOpen() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        do {
            let store = try await Self.open(dir)
            #expect(try store.execute(.post, "Photos", body: #"{"ID":1}"#).status == 201)
            let stager = try store.storage.stageMedia(contentType: "image/png")
            try stager.append(Self.random(3 << 20, seed: 1))
            // A long one, past the bulk threshold: its run published, the stream named by nothing.
            let long = try store.storage.stageMedia(contentType: "video/mp4")
            for i in 0..<20 { try long.append(Self.random(1 << 20, seed: UInt64(i))) }
            _ = try long.finish()
            let pending = try Self.count(store, "media.pending"), chunks = try Self.count(store, "media.chunks")
            #expect(pending == 2 && chunks >= 320 + 32 && chunks <= 320 + 48, "\(pending) pending, \(chunks) chunks")
            try store.close()   // the app died before naming the streams
        }
        let store = try await Self.open(dir)
        defer { try? store.close() }
        let pending = try Self.count(store, "media.pending"), chunks = try Self.count(store, "media.chunks")
        #expect(pending == 0 && chunks == 0, "\(pending) pending, \(chunks) chunks")
        #expect(try store.execute(.get, "Photos(1)/$value").status == 204)
    }

    @Test("a confirmed media create moves the stream to the back end's key; undo drops a stream written locally")
    func rekeyAndUndo() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await Self.open(dir)
        defer { try? store.close() }
        let bytes = Self.random(1_500_000, seed: 8)
        let created = try store.execute(ODataRequest(.post, "Photos", headers: ["Content-Type": "image/png"], body: bytes))
        let requestID = try #require(created.requestID)
        let confirmation = try store.confirmUpload(requestID: requestID, etag: "W/\"1\"", serverKey: [.int32(42)])
        #expect(confirmation.entityKey == "(42)")
        #expect(try store.execute(.get, "Photos(42)/$value").body == bytes)
        let info = try #require(try store.mediaInfo(set: "Photos", key: [.int32(42)]))
        #expect(!info.isLocal)
        // A local replacement of the back end's stream, undone: the local bytes go (the back
        // end's come again with the next download), the entity is the back end's again.
        #expect(try store.execute(ODataRequest(.put, "Photos(42)/$value", headers: ["Content-Type": "image/png"], body: [1, 2])).status == 204)
        #expect(try store.undoPendingChanges(set: "Photos", key: [.int32(42)]))
        #expect(try store.mediaInfo(set: "Photos", key: [.int32(42)]) == nil)
        #expect(try store.execute(.get, "Photos(42)").headers["ETag"] == "W/\"1\"")
        #expect(try Self.count(store, "media.chunks") == 0)
    }

    @Test("a long stream of a type not known to be compressed is compressed when its chunks shrink, and written without LZ4 when they do not; both read back whole")
    func compressionSampled() async throws {
        func storeBytes(_ dir: OfflineTempDir) -> Int {
            var total = 0
            let enumerator = FileManager.default.enumerator(at: URL(fileURLWithPath: dir.path), includingPropertiesForKeys: [.fileSizeKey])
            while let url = enumerator?.nextObject() as? URL { total += (try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0) ?? 0 }
            return total
        }
        // 12 MB of text (LZ4 shrinks it), then 12 MB of random bytes (it does not): each past
        // the 8 MiB after which a stream's chunks go into a run of their own.
        let line = Array("<row id=\"000001\" state=\"open\" note=\"inspected, no damage\"/>\n".utf8)
        var text = [UInt8]()
        text.reserveCapacity(12_000_000 + line.count)
        while text.count < 12_000_000 { text += line }
        let noise = Self.random(12_000_000, seed: 21)
        var sizes: [Int] = []
        for bytes in [text, noise] {
            let dir = OfflineTempDir()
            defer { dir.cleanup() }
            let store = try await Self.open(dir)
            #expect(try store.execute(.post, "Photos", body: #"{"ID":1}"#).status == 201)
            try await store.writeMedia(set: "Photos", key: [.int32(1)], contentType: "application/octet-stream", from: Self.pieces(bytes, 1 << 20))
            #expect(try await Self.collect(try store.readMedia(set: "Photos", key: [.int32(1)])) == bytes)
            try store.close()
            sizes.append(storeBytes(dir))
        }
        // The text's run is compressed (its first 8 MB go through the log, compressed again
        // when merged); the noise takes about its own size.
        #expect(sizes[0] < 1_000_000, "text stream stored in \(sizes[0]) bytes")
        #expect(sizes[1] > 12_000_000, "noise stream stored in \(sizes[1]) bytes")
    }

    @Test("the store's files never hold a stream's bytes in clear")
    func encrypted() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let marker = Self.random(4096, seed: 99)
        do {
            let store = try await Self.open(dir, encryption: .passphrase("media secret"))
            #expect(try store.execute(.post, "Photos", body: #"{"ID":1}"#).status == 201)
            #expect(try store.execute(ODataRequest(.put, "Photos(1)/$value", headers: ["Content-Type": "image/png"],
                                                   body: marker + marker)).status == 204)
            #expect(try store.execute(ODataRequest(.post, "Photos", headers: ["Content-Type": "image/png"],
                                                   body: Array(repeating: 7, count: 2 << 20) + marker)).status == 201)
            try store.close()
        }
        var files = 0
        let enumerator = FileManager.default.enumerator(at: URL(fileURLWithPath: dir.path), includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            guard let data = try? Data(contentsOf: url) else { continue }
            files += 1
            #expect(data.range(of: Data(marker.prefix(64))) == nil, "\(url.lastPathComponent) holds the stream in clear")
        }
        #expect(files > 0)
        let store = try await Self.open(dir, encryption: .passphrase("media secret"))
        defer { try? store.close() }
        #expect(try store.execute(.get, "Photos(1)/$value").body == marker + marker)
    }

    @Test("a singleton's stream property (Me/Photo) is written, read and queued like a set's; stream properties carry their links in the entity")
    func singletonStream() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await Self.open(dir)
        defer { try? store.close() }
        try store.addDefiningQuery(DefiningQuery(name: "Me", url: "Me"))
        try await store.applyDownload(definingQuery: "Me", pages: [Array(#"{"value":[{"UserName":"russell"}]}"#.utf8)])
        #expect(try store.execute(.get, "Me/Photo").status == 204)
        #expect(try store.execute(ODataRequest(.put, "Me/Photo", headers: ["Content-Type": "image/png"], body: [1, 2, 3])).status == 204)
        let photo = try store.execute(.get, "Me/Photo/$value")
        #expect(photo.body == [1, 2, 3] && photo.headers["Content-Type"] == "image/png")
        let me = try #require(try store.execute(.get, "Me").json())
        #expect(me["Photo@odata.mediaReadLink"]?.stringValue == "Me/Photo")
        #expect(me["Photo@odata.mediaContentType"]?.stringValue == "image/png")
        let queued = try #require(try store.requestQueue().last)
        #expect(queued.method == "PUT" && queued.url == "Me/Photo" && queued.affectedEntitySet == "Me" && queued.mediaContentType == "image/png")
        // A set's stream property too.
        #expect(try store.execute(.post, "Products", body: #"{"ID":"p"}"#).status == 201)
        #expect(try store.execute(.get, "Products('p')").json()?["Manual@odata.mediaReadLink"] == nil)
        #expect(try store.execute(ODataRequest(.put, "Products('p')/Manual", headers: ["Content-Type": "application/pdf"], body: [9])).status == 204)
        #expect(try store.execute(.get, "Products('p')").json()?["Manual@odata.mediaReadLink"]?.stringValue == "Products('p')/Manual")
    }

    @Test("a stream through a navigation path (Orders('o')/Photo/$value) is the stream of the entity it leads to; a write is queued under that entity's own URL")
    func throughNavigation() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await Self.open(dir)
        defer { try? store.close() }
        #expect(try store.execute(.post, "Photos", body: #"{"ID":7}"#).status == 201)
        #expect(try store.execute(.post, "Orders", body: #"{"ID":"o","PhotoID":7}"#).status == 201)
        #expect(try store.execute(ODataRequest(.put, "Orders('o')/Photo/$value", headers: ["Content-Type": "image/png"], body: [4, 5])).status == 204)
        #expect(try store.execute(.get, "Photos(7)/$value").body == [4, 5])
        #expect(try store.execute(.get, "Orders('o')/Photo/$value").body == [4, 5])
        #expect(try store.requestQueue().last?.url == "Photos(7)/$value")
        // An order without a photo: nothing there.
        #expect(try store.execute(.post, "Orders", body: #"{"ID":"none"}"#).status == 201)
        #expect(try store.execute(.get, "Orders('none')/Photo/$value").status == 404)
    }
}
