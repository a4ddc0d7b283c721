import Foundation
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
    private var listener: Int32 = -1
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
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw ServerError("socket") }
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 64) == 0 else { throw ServerError("bind/listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let socketFD = self.listener
        Thread {
            while true {
                let client = accept(socketFD, nil, nil)
                guard client >= 0 else { continue }
                Thread { self.serve(client) }.start()
            }
        }.start()
    }

    struct ServerError: Error { let what: String; init(_ what: String) { self.what = what } }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            // One request head.
            var end: Int?
            while end == nil {
                if let found = Self.headEnd(buffer) { end = found; break }
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n <= 0 { return }
                buffer += chunk[0..<n]
            }
            guard let headEnd = end else { return }
            let head = String(decoding: buffer[0..<headEnd], as: UTF8.self)
            buffer.removeFirst(headEnd + 4)
            let line = head.split(separator: "\r\n").first.map(String.init) ?? ""
            let parts = line.split(separator: " ")
            guard parts.count >= 2 else { return }
            let target = String(parts[1]).replacingOccurrences(of: "%24", with: "$")
            if parts[0] != "GET" {
                // A write (the upload benchmark): read its body, answer at once.
                let length = Self.contentLength(head)
                while buffer.count < length {
                    let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if n <= 0 { return }
                    buffer += chunk[0..<n]
                }
                let body = Array(buffer[0..<length])
                buffer.removeFirst(length)
                guard writeAll(fd, Self.writeAnswer(method: String(parts[0]), target: target, head: head, body: body)) else { return }
                continue
            }
            let trackChanges = head.lowercased().contains("odata.track-changes")
            let body = route(target, trackChanges: trackChanges)
            let status = body == nil ? "404 Not Found" : "200 OK"
            let payload = body ?? Array("no such page".utf8)
            let type = target.hasPrefix("/$metadata") ? "application/xml" : "application/json"
            let header = "HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(payload.count)\r\nOData-Version: 4.01\r\n\r\n"
            guard writeAll(fd, Array(header.utf8)), writeAll(fd, payload) else { return }
        }
    }

    static func contentLength(_ head: String) -> Int {
        for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
            return Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        return 0
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

    static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 { return i }
        return nil
    }

    private func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    private func route(_ target: String, trackChanges: Bool) -> [UInt8]? {
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
