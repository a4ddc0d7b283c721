import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The benchmarks' loopback HTTP/1.1 servers (sync-bench's page server, media-bench's upload
/// sink) share this: a listener on 127.0.0.1 with a thread per connection, and a connection that
/// reads request heads and bodies (by `Content-Length`) and writes answers.
public enum LoopbackHTTP {
    /// Listens on 127.0.0.1 (a free port, returned) and serves each connection on a thread of
    /// its own, closing it when `serve` returns.
    public static func listen(_ serve: @escaping @Sendable (inout Connection) -> Void) throws -> Int {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw BenchError("socket") }
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(listener, 64) == 0 else { throw BenchError("bind/listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        Thread {
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { continue }
                Thread {
                    var connection = Connection(fd: client)
                    serve(&connection)
                    close(client)
                }.start()
            }
        }.start()
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// One accepted connection: bytes read ahead are kept for the next request.
    public struct Connection {
        public let fd: Int32
        private var buffer: [UInt8] = []
        private var chunk = [UInt8](repeating: 0, count: 65_536)

        init(fd: Int32) {
            self.fd = fd
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        }

        /// The next request head (request line and header lines), nil once the client is gone.
        public mutating func readHead() -> Head? {
            while true {
                if buffer.count >= 4, let end = (0...(buffer.count - 4)).first(where: {
                    buffer[$0] == 13 && buffer[$0 + 1] == 10 && buffer[$0 + 2] == 13 && buffer[$0 + 3] == 10 }) {
                    let head = Head(String(decoding: buffer[0..<end], as: UTF8.self))
                    buffer.removeFirst(end + 4)
                    return head
                }
                guard fill() else { return nil }
            }
        }

        /// The body of `length` bytes: kept (`keep`) or read and dropped as it comes (then
        /// empty); nil once the client is gone.
        public mutating func readBody(_ length: Int, keep: Bool = true) -> [UInt8]? {
            if keep {
                while buffer.count < length { guard fill() else { return nil } }
                defer { buffer.removeFirst(length) }
                return Array(buffer[0..<length])
            }
            var left = length
            while left > 0 {
                if buffer.isEmpty { guard fill() else { return nil } }
                let taken = min(left, buffer.count)
                buffer.removeFirst(taken)
                left -= taken
            }
            return []
        }

        /// Writes all of `bytes`; false once the client is gone.
        public func write(_ bytes: [UInt8]) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                if n <= 0 { return false }
                offset += n
            }
            return true
        }

        private mutating func fill() -> Bool {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { return false }
            buffer += chunk[0..<n]
            return true
        }
    }

    /// A request head: its method, target (`%24` read as `$`) and header fields.
    public struct Head {
        public let text: String
        public let method: String
        public let target: String
        let lines: [Substring]

        init(_ text: String) {
            self.text = text
            lines = text.split(separator: "\r\n")
            let parts = (lines.first ?? "").split(separator: " ")
            method = parts.first.map(String.init) ?? ""
            target = parts.count > 1 ? String(parts[1]).replacingOccurrences(of: "%24", with: "$") : ""
        }

        /// The value of header `name` (case-insensitive), trimmed.
        public func header(_ name: String) -> String? {
            let prefix = name.lowercased() + ":"
            return lines.first { $0.lowercased().hasPrefix(prefix) }
                .map { String($0.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces) }
        }

        public var contentLength: Int { Int(header("content-length") ?? "") ?? 0 }
    }
}
