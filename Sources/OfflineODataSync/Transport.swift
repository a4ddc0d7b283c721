import Foundation
/// One HTTP request, as sync sends it to the back end.
public struct HTTPRequest: Sendable, Hashable {
    public var method: String
    /// Absolute URL.
    public var url: String
    /// Header fields in the order they are sent; names as given (HTTP names are case-insensitive).
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?
    /// A body read piece by piece instead (a stored stream being uploaded), sent only through
    /// a transport whose `acceptsStreamedBodies` is true; `body` is nil then.
    public var streamedBody: HTTPStreamedBody?
    /// Seconds before the exchange fails with `timeout` (nil: the transport's default).
    public var timeout: Double?
    /// A hint: the caller reads the answer's body whole into memory (a page, `$metadata`, a
    /// `$batch` answer), so a transport may gather it before answering instead of streaming
    /// it. `URLSessionTransport` then takes the body in one piece: on Linux each streamed piece
    /// of 16 KiB cost a hop to the session delegate's queue, about a third of the client's CPU
    /// per page received (measured on 1.4 MB pages). `CurlTransport` gathers it in one buffer
    /// sized by its `Content-Length`. Nothing else changes: a body past the caller's limit still
    /// fails, only after it has arrived.
    public var collectsBody = false

    public init(method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil,
                timeout: Double? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }

    public static func == (a: HTTPRequest, b: HTTPRequest) -> Bool {
        a.method == b.method && a.url == b.url && a.body == b.body && a.timeout == b.timeout && a.collectsBody == b.collectsBody
            && a.headers.map(\.name) == b.headers.map(\.name) && a.headers.map(\.value) == b.headers.map(\.value)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(url)
        hasher.combine(body)
    }
}

/// The answer to one `HTTPRequest`: status, headers and the body as it arrives, in chunks.
public struct HTTPResponse: Sendable {
    public var status: Int
    /// Header fields; look them up with `header(_:)` (case-insensitive).
    public var headers: [(name: String, value: String)]
    public var body: HTTPBody

    public init(status: Int, headers: [(name: String, value: String)] = [], body: HTTPBody) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8]) {
        self.init(status: status, headers: headers, body: HTTPBody(body))
    }

    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }
}

/// A response body: an asynchronous sequence of byte chunks (a transport may stream them, or
/// hand the whole body as one chunk). A failure while reading (connection reset mid-body) is
/// thrown by the iteration.
public struct HTTPBody: AsyncSequence, Sendable {
    public typealias Element = [UInt8]
    public typealias Failure = any Error
    private let stream: AsyncThrowingStream<[UInt8], any Error>
    /// A body a transport received whole as `Data` (`URLSessionTransport` for a request that
    /// `collectsBody`): `collect` copies it straight into its buffer, with no array in between.
    private let whole: Data?

    public init(_ stream: AsyncThrowingStream<[UInt8], any Error>) {
        self.stream = stream
        whole = nil
    }

    /// A body of one chunk, received as `Data`.
    init(data: Data) {
        whole = data
        stream = AsyncThrowingStream { $0.finish() }   // unused: iterating makes one chunk of `whole` then
    }

    /// A body of one chunk.
    public init(_ bytes: [UInt8]) {
        stream = AsyncThrowingStream { continuation in
            if !bytes.isEmpty { continuation.yield(bytes) }
            continuation.finish()
        }
        whole = nil
    }

    public func makeAsyncIterator() -> AsyncThrowingStream<[UInt8], any Error>.AsyncIterator {
        guard let whole else { return stream.makeAsyncIterator() }
        return AsyncThrowingStream { continuation in
            if !whole.isEmpty { continuation.yield([UInt8](whole)) }
            continuation.finish()
        }.makeAsyncIterator()
    }

    /// The whole body, failing with `tooLarge` past `limit` bytes (a page is bounded by the page
    /// size asked for; a body past the limit is not an OData page of that size).
    /// `expectedLength` (the answer's `Content-Length`) sizes the buffer once, instead of
    /// growing it by doubling: a page is then held in exactly its own bytes, not copied on the
    /// way (at 1M entities the growing buffers were half of a download's peak heap, heaptrack).
    /// What is reserved is at most `maxReserved`: a `Content-Length` is the back end's word, and
    /// a body larger than that grows as it arrives.
    public func collect(upTo limit: Int, expectedLength: Int? = nil) async throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(Self.reservation(expectedLength, limit: limit))
        try await collect(upTo: limit, into: &out)
        return out
    }

    /// The most a `Content-Length` makes `collect` reserve before the bytes arrive.
    public static let maxReserved = 32 << 20

    /// The bytes to reserve for a body announced as `expectedLength` (0 when unknown).
    static func reservation(_ expectedLength: Int?, limit: Int) -> Int {
        guard let expectedLength, expectedLength > 0 else { return 0 }
        return Swift.min(expectedLength, limit, maxReserved)
    }

    /// The whole body appended to `out` (a buffer kept from an earlier page), as `collect`.
    func collect(upTo limit: Int, into out: inout [UInt8]) async throws {
        if let whole {
            guard out.count + whole.count <= limit else { throw BodyTooLarge(limit: limit) }
            out.append(contentsOf: whole)
            return
        }
        for try await chunk in self {
            guard out.count + chunk.count <= limit else { throw BodyTooLarge(limit: limit) }
            out += chunk
        }
    }

    public struct BodyTooLarge: Error, Sendable { public let limit: Int }
}

/// The one seam between sync and the network: one HTTP exchange. The default is
/// `URLSessionTransport`; an app brings its own for its authentication, certificates or
/// corporate session, and tests put a fault-injecting transport or a server double here.
///
/// A transport throws for exchanges that got no HTTP answer (refused, reset, timeout, TLS);
/// sync reports them as `communicationError`. Every HTTP answer, whatever its status, is
/// returned, not thrown.
public protocol Transport: Sendable {
    func exchange(_ request: HTTPRequest) async throws -> HTTPResponse
    /// Whether `exchange` sends `HTTPRequest.streamedBody`. False by default: sync then hands
    /// such a body over whole, as `body`.
    var acceptsStreamedBodies: Bool { get }
}

extension Transport {
    public var acceptsStreamedBodies: Bool { false }
}

/// A request body of known length read piece by piece (a stored stream being uploaded), so
/// that it is never held whole. `makeReader` starts a fresh pass over the bytes (called again
/// when the request must be sent again, after an authentication challenge).
public struct HTTPStreamedBody: Sendable {
    public let length: Int64
    public let makeReader: @Sendable () throws -> any HTTPBodyReader

    public init(length: Int64, makeReader: @escaping @Sendable () throws -> any HTTPBodyReader) {
        self.length = length
        self.makeReader = makeReader
    }

    /// The whole body in memory (for a transport that does not accept streamed bodies).
    public func collect() throws -> [UInt8] {
        let reader = try makeReader()
        var out: [UInt8] = []
        out.reserveCapacity(Int(clamping: length))
        while let piece = try reader.next() { out += piece }
        return out
    }
}

/// One pass over a streamed body: the next piece, nil at the end. Called from one thread at a
/// time (the transport's).
public protocol HTTPBodyReader: AnyObject, Sendable {
    func next() throws -> [UInt8]?
}

/// What a transport reports when an exchange got no HTTP answer.
public struct TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        case refused, reset, timeout, tls, invalidURL, cancelled, other
    }
    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}

/// The hosts that asked one transport for Basic authentication, and the header to send them:
/// both shipped transports answer a Basic challenge once, then send the credential to that
/// host up front.
final class BasicAuthHosts: @unchecked Sendable {  // `hosts` behind `lock`
    private let lock = NSLock()
    private var hosts: Set<String> = []

    /// `host:port`, the port the scheme's default when the URL names none.
    static func key(host: String, port: Int) -> String { "\(host.lowercased()):\(port)" }
    static func key(_ url: URL) -> String {
        key(host: url.host ?? "", port: url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80))
    }

    /// Remembers that `host:port` asked for Basic.
    func insert(host: String, port: Int) {
        let key = Self.key(host: host, port: port)
        lock.withLock { _ = hosts.insert(key) }
    }

    /// `Basic …` for a request to `url` when its host asked for Basic before (or `asked`: it
    /// just did); nil otherwise.
    func authorization(for url: URL, user: String, password: String, asked: Bool = false) -> String? {
        let key = Self.key(url)
        let known = lock.withLock { () -> Bool in
            if asked { hosts.insert(key) }
            return hosts.contains(key)
        }
        guard known else { return nil }
        return "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }
}
