import Foundation
import Synchronization
import Testing
@testable import OfflineODataSync
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The default transport's streamed request bodies where a real back end would redirect them.
/// No test back end redirects a write, so this one is a loopback double that does: `PUT /r`
/// answers 307 to `/t`, `PUT /t` reads `Content-Length` bytes and answers 204 with how many it
/// read (`X-Got`), and a chunked body is answered 400.
@Suite struct StreamedBodyTransportTests {
    final class RedirectingServer: @unchecked Sendable {
        private(set) var port = 0
        private var listener: Int32 = -1

        init() throws {
            listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard listener >= 0 else { throw TransportError(.other, "socket") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0, listen(listener, 8) == 0 else { throw TransportError(.other, "bind") }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
            }
            port = Int(UInt16(bigEndian: address.sin_port))
            let fd = listener
            Thread {
                while true {
                    let client = accept(fd, nil, nil)
                    if client < 0 { return }
                    Thread { Self.serve(client) }.start()
                }
            }.start()
        }

        func stop() { shutdown(listener, Int32(SHUT_RDWR)); close(listener) }

        static func serve(_ fd: Int32) {
            defer { close(fd) }
            var buffer: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                var end: Int?
                while end == nil {
                    if buffer.count >= 4, let i = (0...(buffer.count - 4)).first(where: {
                        buffer[$0] == 13 && buffer[$0 + 1] == 10 && buffer[$0 + 2] == 13 && buffer[$0 + 3] == 10 }) { end = i; break }
                    let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if n <= 0 { return }
                    buffer += chunk[0..<n]
                }
                guard let headEnd = end else { return }
                let head = String(decoding: buffer[0..<headEnd], as: UTF8.self)
                buffer.removeFirst(headEnd + 4)
                let lines = head.split(separator: "\r\n")
                let target = (lines.first ?? "").split(separator: " ").dropFirst().first.map(String.init) ?? ""
                func header(_ name: String) -> String? {
                    lines.first { $0.lowercased().hasPrefix(name + ":") }.map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
                }
                if header("transfer-encoding")?.lowercased().contains("chunked") == true {
                    _ = write(fd, Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8), 63)
                    return
                }
                var left = Int(header("content-length") ?? "0") ?? 0
                let taken = min(left, buffer.count)
                buffer.removeFirst(taken)
                var got = taken
                left -= taken
                while left > 0 {
                    let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, min($0.count, left)) }
                    if n <= 0 { return }
                    left -= n
                    got += n
                }
                // Answers no HTTP client should take for one (each ends the connection).
                switch target {
                case "/garbage":
                    _ = write(fd, Array("this is not HTTP\r\n\r\n".utf8), 22)
                    return
                case "/short":
                    let cut = Array("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n0123456789".utf8)
                    _ = cut.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                    return
                case "/silent":
                    // Reads on and never answers, until the client gives up or the server stops.
                    while chunk.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 {}
                    return
                default: break
                }
                var answer = target == "/r"
                    ? "HTTP/1.1 307 Temporary Redirect\r\nLocation: /t\r\nContent-Length: 0\r\n\r\n"
                    : "HTTP/1.1 204 No Content\r\nX-Got: \(got)\r\nContent-Length: 0\r\n\r\n"
                // `/cookie/set` sets a session cookie, `/cookie` says which cookies it was sent.
                if target == "/cookie/set" {
                    answer = "HTTP/1.1 204 No Content\r\nSet-Cookie: session=s1; Path=/\r\nContent-Length: 0\r\n\r\n"
                } else if target == "/cookie" {
                    answer = "HTTP/1.1 204 No Content\r\nX-Cookie: \(header("cookie") ?? "")\r\nContent-Length: 0\r\n\r\n"
                }
                // `/big`: 300,000 bytes (many libcurl pieces), the last of them "end".
                if target == "/big" {
                    answer = "HTTP/1.1 200 OK\r\nX-Got: \(got)\r\nContent-Length: 300000\r\n\r\n" + String(repeating: "x", count: 299_997) + "end"
                }
                let bytes = Array(answer.utf8)
                guard bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count else { return }
                // `/once`: the connection is closed after one answer without saying so (a
                // keep-alive connection a server or proxy dropped), so the client's next request
                // on it fails and is sent again on a new one.
                if target == "/once" { return }
            }
        }
    }

    final class Pieces: HTTPBodyReader, @unchecked Sendable {
        var left = 4
        func next() throws -> [UInt8]? {
            guard left > 0 else { return nil }
            left -= 1
            return [UInt8](repeating: UInt8(ascii: "b"), count: 50_000)
        }
    }

    @Test("a streamed body whose kept-alive connection turns out closed is sent again on a new one, whole", arguments: TransportKind.streaming)
    func streamedBodyOnADroppedConnection(kind: TransportKind) async throws {
        let server = try RedirectingServer()
        defer { server.stop() }
        let transport = try kind.make()
        for round in 0..<3 {
            var request = HTTPRequest(method: "PUT", url: "http://127.0.0.1:\(server.port)/once",
                                      headers: [(name: "Content-Type", value: "video/mp4")], timeout: 20)
            request.streamedBody = HTTPStreamedBody(length: 200_000) { Pieces() }
            let response = try await transport.exchange(request)
            #expect(response.status == 204, "round \(round)")
            #expect(response.header("X-Got") == "200000", "round \(round)")
        }
    }

    @Test("a streamed body redirected with 307 is sent again to the new location with a fresh reader, whole and not chunked", arguments: TransportKind.streaming)
    func redirectedStreamedBody(kind: TransportKind) async throws {
        let server = try RedirectingServer()
        defer { server.stop() }
        let passes = Mutex(0)
        var request = HTTPRequest(method: "PUT", url: "http://127.0.0.1:\(server.port)/r",
                                  headers: [(name: "Content-Type", value: "video/mp4")], timeout: 20)
        request.streamedBody = HTTPStreamedBody(length: 200_000) {
            passes.withLock { $0 += 1 }
            return Pieces()
        }
        let response = try await kind.make().exchange(request)
        #expect(response.status == 204)
        #expect(response.header("X-Got") == "200000")
        #expect(passes.withLock { $0 } == 2)
    }

    /// `HTTPRequest.collectsBody` makes `URLSessionTransport` take the answer in one piece (a
    /// completion handler instead of its data delegate): the same answer as streamed, the
    /// headers and a body of many pieces intact. Either way a write redirected with 307 reaches
    /// the new location with its body (FoundationNetworking alone sent it there without: the
    /// new location read 0 bytes, found by this test).
    @Test("an answer taken whole (collectsBody) is the answer streamed: status, headers, body; a 307 write is sent again with its body", arguments: TransportKind.allCases)
    func wholeAnswersAsStreamed(kind: TransportKind) async throws {
        let server = try RedirectingServer()
        defer { server.stop() }
        let transport = try kind.make()
        for whole in [false, true] {
            var redirected = HTTPRequest(method: "PUT", url: "http://127.0.0.1:\(server.port)/r",
                                         headers: [(name: "Content-Type", value: "application/json")],
                                         body: [UInt8](repeating: UInt8(ascii: "a"), count: 70_000), timeout: 20)
            redirected.collectsBody = whole
            let written = try await transport.exchange(redirected)
            #expect(written.status == 204, "whole: \(whole)")
            #expect(written.header("X-Got") == "70000", "whole: \(whole)")
            #expect(try await written.body.collect(upTo: 1 << 20).isEmpty)
            var read = HTTPRequest(method: "POST", url: "http://127.0.0.1:\(server.port)/big", body: Array("{}".utf8), timeout: 20)
            read.collectsBody = whole
            let answer = try await transport.exchange(read)
            #expect(answer.status == 200, "whole: \(whole)")
            #expect(answer.header("x-got") == "2", "whole: \(whole)")
            let body = try await answer.body.collect(upTo: 1 << 20)
            #expect(body.count == 300_000 && body.suffix(3) == Array("end".utf8), "whole: \(whole), \(body.count) bytes")
            // A body past the caller's limit fails either way.
            let again = try await transport.exchange(read)
            await #expect(throws: HTTPBody.BodyTooLarge.self) { _ = try await again.body.collect(upTo: 100_000) }
            // Iterated instead of collected, the whole body comes as the same bytes.
            var pieces: [UInt8] = []
            for try await piece in try await transport.exchange(read).body { pieces += piece }
            #expect(pieces == body, "whole: \(whole)")
        }
    }

    @Test("an answer that is not HTTP, a body cut short, no answer in time, a refused port: each a TransportError of its kind, never a crash or a hang", arguments: TransportKind.allCases)
    func answersThatAreNoAnswers(kind: TransportKind) async throws {
        let server = try RedirectingServer()
        defer { server.stop() }
        let transport = try kind.make(timeout: 2)
        let root = "http://127.0.0.1:\(server.port)"
        await #expect(throws: TransportError.self) { _ = try await transport.exchange(HTTPRequest(method: "GET", url: root + "/garbage", timeout: 2)) }
        // The head arrived whole, the body did not: the body's reader meets the break.
        let short = try await transport.exchange(HTTPRequest(method: "GET", url: root + "/short", timeout: 2))
        #expect(short.status == 200)
        let cut = await #expect(throws: TransportError.self) { _ = try await short.body.collect(upTo: 1 << 20) }
        #expect(cut?.kind == .reset, "\(String(describing: cut))")
        let silent = await #expect(throws: TransportError.self) {
            _ = try await transport.exchange(HTTPRequest(method: "POST", url: root + "/silent", body: Array("{}".utf8), timeout: 1))
        }
        #expect(silent?.kind == .timeout, "\(String(describing: silent))")
        // A port nobody listens on (the server's, once stopped).
        let closed = try RedirectingServer()
        let port = closed.port
        closed.stop()
        let refused = await #expect(throws: TransportError.self) {
            _ = try await transport.exchange(HTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)/", timeout: 2))
        }
        #expect(refused?.kind == .refused, "\(String(describing: refused))")
    }

    @Test("a cancelled task ends its exchange as cancelled, without waiting for the answer or the timeout", arguments: TransportKind.allCases)
    func cancelledWhileWaiting(kind: TransportKind) async throws {
        let server = try RedirectingServer()
        defer { server.stop() }
        let transport = try kind.make(timeout: 60)
        let task = Task {
            try await transport.exchange(HTTPRequest(method: "POST", url: "http://127.0.0.1:\(server.port)/silent", body: Array("{}".utf8), timeout: 60))
        }
        try await Task.sleep(nanoseconds: 200_000_000)
        task.cancel()
        let result = await task.result
        guard case .failure(let error) = result else {
            Issue.record("a silent server answered")
            return
        }
        // A timeout would say the cancel was not seen (the test would also take a minute).
        #expect((error as? TransportError)?.kind == .cancelled || error is CancellationError, "\(error)")
    }

    @Test("an answer's body read after its transport was let go arrives whole", arguments: TransportKind.allCases)
    func bodyOutlivesItsTransport(kind: TransportKind) async throws {
        let server = try RedirectingServer()
        defer { server.stop() }
        // The transport lives only for the exchange; the body is read afterwards.
        func fetch() async throws -> HTTPResponse {
            try await kind.make().exchange(HTTPRequest(method: "GET", url: "http://127.0.0.1:\(server.port)/big"))
        }
        let answer = try await fetch()
        let body = try await answer.body.collect(upTo: 1 << 20)
        #expect(body.count == 300_000 && body.suffix(3) == Array("end".utf8), "\(body.count) bytes")
    }

    @Test("exchanges made at once on one transport each get their own whole answer", arguments: TransportKind.allCases)
    func concurrentExchanges(kind: TransportKind) async throws {
        let server = try RedirectingServer()
        defer { server.stop() }
        let transport = try kind.make()
        let root = "http://127.0.0.1:\(server.port)"
        let answers = try await withThrowingTaskGroup(of: (Int, String?, Int).self) { group in
            for i in 0..<16 {
                group.addTask {
                    // Each body has its own length, which the server says back (`X-Got`).
                    let body = [UInt8](repeating: UInt8(ascii: "c"), count: 1_000 + i)
                    var request = HTTPRequest(method: i % 2 == 0 ? "POST" : "PUT", url: root + (i % 4 == 0 ? "/big" : "/t"), body: body)
                    request.collectsBody = i % 3 == 0
                    let answer = try await transport.exchange(request)
                    return (i, answer.header("X-Got"), try await answer.body.collect(upTo: 1 << 20).count)
                }
            }
            var all: [(Int, String?, Int)] = []
            for try await answer in group { all.append(answer) }
            return all
        }
        #expect(answers.count == 16)
        for (i, got, length) in answers {
            #expect(got == String(1_000 + i), "exchange \(i)")
            #expect(length == (i % 4 == 0 ? 300_000 : 0), "exchange \(i)")
        }
    }

    @Test("cookies the back end sets are sent back on the transport's later requests", arguments: TransportKind.allCases)
    func sessionCookies(kind: TransportKind) async throws {
        let server = try RedirectingServer()
        defer { server.stop() }
        let transport = try kind.make()
        let root = "http://127.0.0.1:\(server.port)"
        #expect(try await transport.exchange(HTTPRequest(method: "GET", url: root + "/cookie/set")).status == 204)
        #expect(try await transport.exchange(HTTPRequest(method: "GET", url: root + "/cookie")).header("X-Cookie") == "session=s1")
        // Another transport is another session.
        #expect(try await kind.make().exchange(HTTPRequest(method: "GET", url: root + "/cookie")).header("X-Cookie") == "")
    }

    @Test("a back end whose certificate is not trusted is a TLS failure: nothing is sent to it, nothing it answers is read", .enabled(if: OdatapyServer.available, OdatapyServer.skipReason), arguments: TransportKind.allCases)
    func untrustedCertificate(kind: TransportKind) async throws {
        let process = Process()
        let port = try OdatapyServer.launch(process, script: OdatapyServer.packageRoot + "/Tests/Backends/tls/server.py", arguments: [], name: "tls")
        defer { OdatapyServer.reap(process) }
        let error = await #expect(throws: TransportError.self) {
            _ = try await kind.make(timeout: 10).exchange(HTTPRequest(method: "GET", url: "https://127.0.0.1:\(port)/", timeout: 10))
        }
        // FoundationNetworking reports a failed certificate check as an unknown URL error
        // (-1) with libcurl's text only ("SSL certificate problem: …"), so URLSessionTransport
        // on Linux can only say `other`; libcurl's own code says `tls`.
        var expected = TransportError.Kind.tls
        #if canImport(FoundationNetworking)
        if kind == .urlSession { expected = .other }
        #endif
        #expect(error?.kind == expected, "\(String(describing: error))")
    }

    #if os(Linux)
    @Test("CurlTransport refuses what it cannot send as given: a URL that is not http(s), a header with a line break")
    func curlRefusesMalformedRequests() async throws {
        let transport = try CurlTransport(timeout: 2)
        let scheme = await #expect(throws: TransportError.self) { _ = try await transport.exchange(HTTPRequest(method: "GET", url: "ftp://127.0.0.1/x")) }
        #expect(scheme?.kind == .invalidURL)
        let relative = await #expect(throws: TransportError.self) { _ = try await transport.exchange(HTTPRequest(method: "GET", url: "Orders?$top=1")) }
        #expect(relative?.kind == .invalidURL)
        await #expect(throws: TransportError.self) {
            _ = try await transport.exchange(HTTPRequest(method: "GET", url: "http://127.0.0.1:1/", headers: [(name: "X-A", value: "1\r\nX-Injected: 2")]))
        }
    }
    #endif
}
