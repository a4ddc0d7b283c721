import BenchCommon
import Foundation
import OfflineODataSync
#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.1 server on loopback (keep-alive, GET only, a thread per connection) that
/// serves the precomputed pages of `SyncPages`: the sync benchmark's back end. It does no work
/// per request beyond finding a page, so the client, not the server, is measured; `fetch-only`
/// measures it alone.
final class PageServer: @unchecked Sendable {
    let pages: SyncPages
    let expanded: [[UInt8]]
    let plain: [[UInt8]]
    let plainFirstWithDelta: [UInt8]
    let delta: [[UInt8]]
    let metadata: [UInt8]
    private(set) var port: Int = 0

    init(pages: SyncPages) {
        self.pages = pages
        expanded = (0..<pages.pageCount).map { pages.expandedPage($0) }
        plain = (0..<pages.pageCount).map { pages.plainPage($0, deltaLink: false) }
        plainFirstWithDelta = pages.plainPage(0, deltaLink: true)
        let deltaPages = max(1, (pages.deltaCount + pages.pageSize - 1) / pages.pageSize)
        delta = (0..<deltaPages).map { pages.deltaPage($0) }
        metadata = pages.metadata
        partners = pages.partnersPage(count: 10)
    }

    /// A page of the first business partners (the customers the upload benchmark's creates name).
    let partners: [UInt8]

    var totalBytes: Int { expanded.reduce(0) { $0 + $1.count } }

    func start() throws {
        port = try LoopbackHTTP.listen { connection in self.serve(&connection) }
    }

    private func serve(_ connection: inout LoopbackHTTP.Connection) {
        while let head = connection.readHead() {
            guard !head.method.isEmpty, !head.target.isEmpty else { return }
            if head.method != "GET" {
                // A write (the upload benchmark): read its body, answer at once.
                guard let body = connection.readBody(head.contentLength),
                      connection.write(Self.writeAnswer(method: head.method, target: head.target, head: head.text, body: body)) else { return }
                continue
            }
            let trackChanges = head.text.lowercased().contains("odata.track-changes")
            let body = route(head.target, trackChanges: trackChanges)
            let status = body == nil ? "404 Not Found" : "200 OK"
            let payload = body ?? Array("no such page".utf8)
            let type = head.target.hasPrefix("/$metadata") ? "application/xml" : "application/json"
            let header = "HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(payload.count)\r\nOData-Version: 4.01\r\n\r\n"
            guard connection.write(Array(header.utf8)), connection.write(payload) else { return }
        }
    }

    /// The answer to a write: 201 to a POST, 204 with an ETag to the others; to a `$batch`, one
    /// change set answer per change set of the request, each with a 201 or 204 per request and
    /// its Content-ID echoed (as odatapy answers).
    static func writeAnswer(method: String, target: String, head: String, body: [UInt8]) -> [UInt8] {
        guard target.hasSuffix("$batch") else {
            let status = method == "POST" ? "201 Created" : "204 No Content"
            return Array("HTTP/1.1 \(status)\r\nETag: W/\"u\"\r\nContent-Length: 0\r\nOData-Version: 4.01\r\n\r\n".utf8)
        }
        var changeSets: [[(id: String, method: String)]] = []
        var contentID = ""
        for line in String(decoding: body, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("Content-Type: multipart/mixed; boundary=changeset_") {
                changeSets.append([])
            } else if line.hasPrefix("Content-ID: ") {
                contentID = String(line.dropFirst("Content-ID: ".count))
            } else if let space = line.firstIndex(of: " "), ["POST", "PATCH", "MERGE", "PUT", "DELETE"].contains(String(line[..<space])),
                      line.hasSuffix(" HTTP/1.1"), !changeSets.isEmpty {
                changeSets[changeSets.count - 1].append((contentID, String(line[..<space])))
            }
        }
        var out = ""
        for (n, changeSet) in changeSets.enumerated() {
            out += "--b\r\nContent-Type: multipart/mixed; boundary=c\(n)\r\n\r\n"
            for part in changeSet {
                let status = part.method == "POST" ? "201 Created" : "204 No Content"
                out += "--c\(n)\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\nContent-ID: \(part.id)\r\n\r\n"
                out += "HTTP/1.1 \(status)\r\nETag: W/\"u\"\r\n\r\n\r\n"
            }
            out += "--c\(n)--\r\n\r\n"
        }
        out += "--b--\r\n"
        let payload = Array(out.utf8)
        return Array("HTTP/1.1 200 OK\r\nContent-Type: multipart/mixed; boundary=b\r\nContent-Length: \(payload.count)\r\nOData-Version: 4.01\r\n\r\n".utf8) + payload
    }

    func route(_ target: String, trackChanges: Bool) -> [UInt8]? {
        if target.hasPrefix("/$metadata") { return metadata }
        if target.hasPrefix("/BusinessPartners") { return partners }
        guard target.hasPrefix("/SalesOrders") else { return nil }
        let skip = target.range(of: "$skiptoken=").flatMap { Int(target[$0.upperBound...].prefix { $0.isNumber }) } ?? 0
        let index = skip / max(1, pages.pageSize)
        if target.contains("$deltatoken=2") { return Array(#"{"value":[],"@odata.deltaLink":"SalesOrders?$deltatoken=2"}"#.utf8) }
        if target.contains("$deltatoken=1") { return index < delta.count ? delta[index] : nil }
        if target.contains("$expand=ToItems") { return index < expanded.count ? expanded[index] : nil }
        if index == 0 && trackChanges { return plainFirstWithDelta }
        return index < plain.count ? plain[index] : nil
    }
}

/// The page server's answers without a network: the upload benchmark's decomposition, the
/// client's CPU for its own code with no HTTP stack under it (`upload-batch-local`). The time
/// spent making the answers (the server's share) is counted apart, per thread, and taken off.
final class InProcessTransport: Transport, @unchecked Sendable {
    let server: PageServer
    private let lock = NSLock()
    private var serverSeconds = 0.0

    init(server: PageServer) { self.server = server }

    /// CPU seconds spent making answers.
    var answerSeconds: Double { lock.withLock { serverSeconds } }

    func exchange(_ request: HTTPRequest) async throws -> HTTPResponse {
        let start = threadCPUSeconds()
        defer {
            let spent = threadCPUSeconds() - start
            lock.withLock { serverSeconds += spent }
        }
        var target = request.url
        if let scheme = target.range(of: "://"), let slash = target[scheme.upperBound...].firstIndex(of: "/") {
            target = String(target[slash...])
        }
        if request.method == "GET" {
            let track = request.headers.contains { $0.value.lowercased().contains("odata.track-changes") }
            guard let body = server.route(target, trackChanges: track) else { return HTTPResponse(status: 404, body: []) }
            return HTTPResponse(status: 200, headers: [(name: "Content-Type", value: target.hasPrefix("/$metadata") ? "application/xml" : "application/json"),
                                                       (name: "OData-Version", value: "4.01")], body: body)
        }
        let head = request.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\r\n")
        let raw = PageServer.writeAnswer(method: request.method, target: target, head: head, body: request.body ?? [])
        // Status line, headers, blank line, body.
        let text = raw.withUnsafeBufferPointer { Array($0) }
        var i = 0
        while i + 3 < text.count, !(text[i] == 13 && text[i + 1] == 10 && text[i + 2] == 13 && text[i + 3] == 10) { i += 1 }
        let lines = String(decoding: text[0..<i], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 500
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return HTTPResponse(status: status, headers: headers, body: Array(text[min(text.count, i + 4)...]))
    }
}

/// CPU seconds of the calling thread.
func threadCPUSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}
