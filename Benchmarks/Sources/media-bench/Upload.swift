import BenchCommon
import Foundation
import OfflineODataModel
import OfflineODataStore
import OfflineODataSync
#if canImport(Glibc)
import Glibc
#endif

// The upload of a stored stream (`peer ours-upload`, `peer ours-upload-whole`): a provider whose
// back end is a loopback sink (below) downloads one photo entity, the app writes a stream of
// `--megabytes` MB to it (queued as `PUT Photos(1)/$value`), and `upload()` sends it through the
// default transport. `ours-upload` as shipped (on Linux the body is read from the store as it is
// sent); `ours-upload-whole` through a transport that declines streamed bodies, so the stream is
// handed over whole (what the default transport did before). Reported: MB/s and the peak RSS
// above the RSS before the upload.

/// A minimal HTTP/1.1 back end on loopback: `$metadata` with one media entity set, `Photos` and
/// `Photos(1)` as JSON, and a `PUT` whose body it reads and discards, counting it. A chunked
/// request body is refused with 400 (the benchmark then fails), so only a body sent with
/// `Content-Length` is measured.
final class SinkServer: @unchecked Sendable {
    static let metadata = Array("""
        <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0"><edmx:DataServices>
        <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="M">
          <EntityType Name="Photo" HasStream="true"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int32" Nullable="false"/></EntityType>
          <EntityContainer Name="C"><EntitySet Name="Photos" EntityType="M.Photo"/></EntityContainer>
        </Schema></edmx:DataServices></edmx:Edmx>
        """.utf8)
    private(set) var port = 0
    private let lock = NSLock()
    private var received: [Int] = []
    var bodies: [Int] { lock.withLock { received } }

    func start() throws {
        port = try LoopbackHTTP.listen { connection in self.serve(&connection) }
    }

    private func serve(_ connection: inout LoopbackHTTP.Connection) {
        while let head = connection.readHead() {
            if head.header("transfer-encoding")?.lowercased().contains("chunked") == true {
                let refusal = Array("chunked request bodies are not taken".utf8)
                _ = connection.write(Array("HTTP/1.1 400 Bad Request\r\nContent-Length: \(refusal.count)\r\nConnection: close\r\n\r\n".utf8) + refusal)
                return
            }
            // The body, read and dropped as it comes.
            guard connection.readBody(head.contentLength, keep: false) != nil else { return }
            if head.method != "GET" { lock.withLock { received.append(head.contentLength) } }
            let entity = #"{"@odata.etag":"W/\"1\"","@odata.mediaEtag":"W/\"m1\"","ID":1}"#
            let answer: (status: String, type: String, body: [UInt8])
            switch (head.method, head.target) {
            case ("GET", let t) where t.hasPrefix("/$metadata"): answer = ("200 OK", "application/xml", Self.metadata)
            case ("GET", let t) where t.hasPrefix("/Photos(1)"): answer = ("200 OK", "application/json", Array(entity.utf8))
            case ("GET", let t) where t.hasPrefix("/Photos"): answer = ("200 OK", "application/json", Array(#"{"value":[\#(entity)]}"#.utf8))
            case ("GET", _), ("HEAD", _): answer = ("200 OK", "application/json", Array(#"{"value":[]}"#.utf8))
            case ("PUT", let t) where t.hasPrefix("/Photos(1)/$value"): answer = ("204 No Content", "text/plain", [])
            default: answer = ("404 Not Found", "text/plain", Array("no".utf8))
            }
            var reply = "HTTP/1.1 \(answer.status)\r\nContent-Type: \(answer.type)\r\nOData-Version: 4.0\r\n"
            if head.method == "PUT" { reply += "ETag: W/\"2\"\r\n" }
            reply += "Content-Length: \(answer.body.count)\r\n\r\n"
            guard connection.write(Array(reply.utf8) + answer.body) else { return }
        }
    }
}

/// The default transport with streamed bodies declined: sync hands the stream over whole.
struct WholeBodyTransport: Transport {
    let inner = URLSessionTransport(timeout: 600)
    var acceptsStreamedBodies: Bool { false }
    func exchange(_ request: HTTPRequest) async throws -> HTTPResponse { try await inner.exchange(request) }
}

func runUploadPeer(whole: Bool, megabytes: Int, dir: String) async throws {
    let server = SinkServer()
    try server.start()
    var parameters = OfflineODataParameters(storePath: dir, encryption: .key(Array(repeating: 0x42, count: 32)), timeout: 600,
                                            durability: .full, keyDerivation: .minimum)
    parameters.definingQueries = [DefiningQuery(name: "Photos", url: "Photos")]
    let root = "http://127.0.0.1:\(server.port)/"
    let provider = whole
        ? try OfflineODataProvider(serviceRoot: root, parameters: parameters, transport: WholeBodyTransport())
        : try OfflineODataProvider(serviceRoot: root, parameters: parameters)
    try await provider.open()
    let store = try provider.store
    let total = megabytes * 1_000_000
    try await store.writeMedia(set: "Photos", key: [.int32(1)], contentType: "video/mp4", from: Generated(sizes: pieces(total: total)))
    let (seconds, memory) = try await measure {
        let summary = try await provider.upload()
        guard summary.succeeded == 1, summary.failed == 0 else { throw BenchError("upload: \(summary)") }
    }
    guard server.bodies.contains(total) else { throw BenchError("the back end received \(server.bodies), not \(total) bytes") }
    try provider.close()
    metric("upload_mbs", Double(total) / 1e6 / seconds)
    metric("upload_mem_mib", memory)
}
