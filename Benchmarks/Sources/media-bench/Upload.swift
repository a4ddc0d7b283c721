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
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw BenchError("socket") }
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 16) == 0 else { throw BenchError("bind/listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread {
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { continue }
                Thread { self.serve(client) }.start()
            }
        }.start()
    }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            var headEnd: Int?
            while headEnd == nil {
                if buffer.count >= 4, let i = (0...(buffer.count - 4)).first(where: { buffer[$0] == 13 && buffer[$0 + 1] == 10 && buffer[$0 + 2] == 13 && buffer[$0 + 3] == 10 }) {
                    headEnd = i
                    break
                }
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n <= 0 { return }
                buffer += chunk[0..<n]
            }
            guard let end = headEnd else { return }
            let head = String(decoding: buffer[0..<end], as: UTF8.self)
            buffer.removeFirst(end + 4)
            let lines = head.split(separator: "\r\n")
            let parts = (lines.first ?? "").split(separator: " ")
            guard parts.count >= 2 else { return }
            let method = String(parts[0]), target = String(parts[1]).replacingOccurrences(of: "%24", with: "$")
            func header(_ name: String) -> String? {
                lines.first { $0.lowercased().hasPrefix(name + ":") }.map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
            }
            var answer: (status: String, type: String, body: [UInt8])
            if header("transfer-encoding")?.lowercased().contains("chunked") == true {
                answer = ("400 Bad Request", "text/plain", Array("chunked request bodies are not taken".utf8))
                _ = write(fd, Array("HTTP/1.1 \(answer.status)\r\nContent-Length: \(answer.body.count)\r\nConnection: close\r\n\r\n".utf8) + answer.body, 200)
                return
            }
            // The body, read and dropped as it comes.
            var left = Int(header("content-length") ?? "0") ?? 0
            let total = left
            let taken = min(left, buffer.count)
            buffer.removeFirst(taken)
            left -= taken
            while left > 0 {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, min($0.count, left)) }
                if n <= 0 { return }
                left -= n
            }
            if method != "GET" { lock.withLock { received.append(total) } }
            let entity = #"{"@odata.etag":"W/\"1\"","@odata.mediaEtag":"W/\"m1\"","ID":1}"#
            switch (method, target) {
            case ("GET", let t) where t.hasPrefix("/$metadata"): answer = ("200 OK", "application/xml", Self.metadata)
            case ("GET", let t) where t.hasPrefix("/Photos(1)"): answer = ("200 OK", "application/json", Array(entity.utf8))
            case ("GET", let t) where t.hasPrefix("/Photos"): answer = ("200 OK", "application/json", Array(#"{"value":[\#(entity)]}"#.utf8))
            case ("GET", _), ("HEAD", _): answer = ("200 OK", "application/json", Array(#"{"value":[]}"#.utf8))
            case ("PUT", let t) where t.hasPrefix("/Photos(1)/$value"): answer = ("204 No Content", "text/plain", [])
            default: answer = ("404 Not Found", "text/plain", Array("no".utf8))
            }
            var reply = "HTTP/1.1 \(answer.status)\r\nContent-Type: \(answer.type)\r\nOData-Version: 4.0\r\n"
            if method == "PUT" { reply += "ETag: W/\"2\"\r\n" }
            reply += "Content-Length: \(answer.body.count)\r\n\r\n"
            let bytes = Array(reply.utf8) + answer.body
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                if n <= 0 { return }
                offset += n
            }
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
