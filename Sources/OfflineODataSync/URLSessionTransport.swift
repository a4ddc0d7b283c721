import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default transport: one `URLSession` (FoundationNetworking on Linux) with its own cookie
/// storage, so session cookies (an SAP session, a load balancer's affinity) last as long as the
/// transport. The answer is returned as soon as its status and headers are in; its body follows
/// as the chunks arrive (a 200 MB stream is never held whole: the store takes it piece by
/// piece). The chunks are buffered until read: a reader slower than the network holds what it
/// has not read yet (FoundationNetworking offers no way to pause a task's reads on Linux:
/// `suspend()` and `resume()` there restarted the transfer, the body arriving twice — observed).
///
/// An authentication challenge (a `401` with `WWW-Authenticate`) is answered with `credential`
/// when one is given, once; otherwise the exchange ends with that `401` (status and
/// `WWW-Authenticate`, no body). FoundationNetworking's own default handling of a challenge
/// never returns (observed with mock-sap's `auth` scenario), so the transport does not leave
/// it to it.
public final class URLSessionTransport: Transport, @unchecked Sendable {  // URLSession is thread-safe
    private let session: URLSession
    private let delegate: SessionDelegate
    /// Seconds an exchange may take when the request sets no timeout.
    public let defaultTimeout: Double

    public init(timeout: Double = 60, configuration: URLSessionConfiguration = .ephemeral, credential: URLCredential? = nil) {
        defaultTimeout = timeout
        configuration.httpCookieAcceptPolicy = .always
        configuration.httpShouldSetCookies = true
        configuration.timeoutIntervalForRequest = timeout
        configuration.urlCache = nil
        delegate = SessionDelegate(credential: credential)
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit { session.finishTasksAndInvalidate() }

    /// On Linux, yes: a stored stream is read from the store as libcurl sends it, with its
    /// `Content-Length` and no chunked transfer coding (see `exchange`). On Apple platforms not
    /// yet (untested there): the stream is handed over whole (`HTTPStreamedBody.collect`).
    public var acceptsStreamedBodies: Bool {
        #if canImport(FoundationNetworking)
        return true
        #else
        return false
        #endif
    }

    public func exchange(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard var url = URL(string: request.url), url.scheme != nil, url.host != nil else {
            throw TransportError(.invalidURL, "'\(request.url)' is not an absolute URL")
        }
        guard request.streamedBody != nil, acceptsStreamedBodies else {
            // A 307 or 308 to a request with a body is followed here, the body sent again:
            // FoundationNetworking follows it without the body (observed: the new location read
            // `Content-Length: 0`), so the session's delegate declines those redirects.
            let answer = try await send(request, url: url)
            guard request.body != nil else { return answer }
            var again = request
            return try await followingRedirects(answer, of: &again, at: &url)
        }
        // A streamed body cannot be sent again by FoundationNetworking after an authentication
        // challenge (its second attempt found the stream read to its end, and the back end
        // waited for bytes until the timeout: observed against mock-sap's basic authentication).
        // So a streamed request answers no challenge itself: with a credential, a host known to
        // ask for Basic gets it up front; after a 401 that asks for Basic the request is sent
        // once more with it and a fresh stream; any other scheme gets the body whole, which
        // FoundationNetworking sends again as it does every body.
        var streamed = request
        if let authorization = delegate.basicAuthorization(for: url) {
            streamed.headers.append((name: "Authorization", value: authorization))
        }
        // Redirects likewise: a 307 or 308 (method and body kept) is followed here with a fresh
        // reader; other redirects of a write come back as they are.
        let answer = try await followingRedirects(try await send(streamed, url: url), of: &streamed, at: &url)
        guard answer.status == 401, delegate.credential != nil,
              !streamed.headers.contains(where: { $0.name.lowercased() == "authorization" }) else { return answer }
        _ = try? await answer.body.collect(upTo: 1 << 20)
        if answer.header("WWW-Authenticate")?.lowercased().hasPrefix("basic") == true,
           let authorization = delegate.basicAuthorization(for: url, asked: true) {
            streamed.headers.append((name: "Authorization", value: authorization))
            return try await send(streamed, url: url)
        }
        var whole = streamed
        whole.streamedBody = nil
        whole.body = try request.streamedBody?.collect()
        return try await send(whole, url: url)
    }

    /// `answer` to `request` at `url`, or, when it is a 307 or 308 (which keep the method and
    /// the body), the answer of the request sent again, whole, to its `Location`: at most 5
    /// times. `request` and `url` end as the last ones sent.
    private func followingRedirects(_ answer: HTTPResponse, of request: inout HTTPRequest, at url: inout URL) async throws -> HTTPResponse {
        var answer = answer
        var hops = 0
        while answer.status == 307 || answer.status == 308, hops < 5,
              let location = answer.header("Location"), let next = URL(string: location, relativeTo: url)?.absoluteURL {
            _ = try? await answer.body.collect(upTo: 1 << 20)
            hops += 1
            url = next
            request.url = next.absoluteString
            answer = try await send(request, url: url)
        }
        return answer
    }

    private func send(_ request: HTTPRequest, url: URL) async throws -> HTTPResponse {
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        urlRequest.timeoutInterval = request.timeout ?? defaultTimeout
        for (name, value) in request.headers { urlRequest.addValue(value, forHTTPHeaderField: name) }
        if let body = request.body { urlRequest.httpBody = Data(body) }
        var newBodyStream: (@Sendable () throws -> InputStream)?
        #if canImport(FoundationNetworking)
        if let streamed = request.streamedBody {
            // FoundationNetworking hands a body stream to libcurl as of unknown length, which
            // libcurl sends chunked whatever `Content-Length` says (observed; odatapy's wsgiref
            // server then stored the raw chunks). A `Transfer-Encoding` header of blanks only
            // is libcurl's documented way to turn its chunked coding off, and libcurl sends no
            // such header (observed on the wire: `Content-Length` alone, the bytes as they are).
            let make: @Sendable () throws -> InputStream = {
                BodyInputStream(reader: try streamed.makeReader(), length: streamed.length)
            }
            do { urlRequest.httpBodyStream = try make() } catch {
                throw TransportError(.other, "the body of \(request.method) \(request.url) could not be read: \(error)")
            }
            urlRequest.setValue(String(streamed.length), forHTTPHeaderField: "Content-Length")
            urlRequest.setValue(" ", forHTTPHeaderField: "Transfer-Encoding")
            newBodyStream = make
        }
        #endif
        let holder = TaskHolder()
        let delegate = self.delegate
        let session = self.session
        let description = "\(request.method) \(request.url)"
        if request.collectsBody, newBodyStream == nil {
            // The body in one piece (`HTTPRequest.collectsBody`): FoundationNetworking gathers
            // it on its own queue and calls back once, where a data delegate is called on the
            // delegate's queue for every piece libcurl delivers. Challenges and redirects still
            // go to the session's delegate (a task without a delegate of its own uses it).
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                    let task = session.dataTask(with: urlRequest) { data, response, error in
                        continuation.resume(with: delegate.wholeAnswer(id: holder.taskIdentifier ?? -1, data: data, response: response,
                                                                      error: error, description: description))
                    }
                    holder.set(task)
                    task.resume()
                }
            } onCancel: {
                holder.cancel()
            }
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                let task = session.dataTask(with: urlRequest)
                delegate.register(task, continuation: continuation, description: description, newBodyStream: newBodyStream)
                holder.set(task)
                task.resume()
            }
        } onCancel: {
            holder.cancel()
        }
    }

    static func map(_ error: URLError) -> TransportError {
        switch error.code {
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet:
            return TransportError(.refused, error.localizedDescription)
        case .networkConnectionLost:
            return TransportError(.reset, error.localizedDescription)
        case .timedOut:
            return TransportError(.timeout, error.localizedDescription)
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
             .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
             .clientCertificateRequired:
            return TransportError(.tls, error.localizedDescription)
        case .cancelled:
            return TransportError(.cancelled, error.localizedDescription)
        case .badURL, .unsupportedURL:
            return TransportError(.invalidURL, error.localizedDescription)
        default:
            return TransportError(.other, "\(error.code.rawValue): \(error.localizedDescription)")
        }
    }
}

/// The data task of one exchange, for cancelling it from the task's cancellation handler.
private final class TaskHolder: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var cancelled = false

    func set(_ task: URLSessionDataTask) {
        let cancel = lock.withLock { () -> Bool in
            self.task = task
            return cancelled
        }
        if cancel { task.cancel() }
    }

    func cancel() {
        let task = lock.withLock { () -> URLSessionDataTask? in
            cancelled = true
            return self.task
        }
        task?.cancel()
    }

    /// The task's identifier once it is set.
    var taskIdentifier: Int? { lock.withLock { task?.taskIdentifier } }

}

/// The session's delegate: answers authentication challenges (the credential once per task,
/// else it cancels the task and keeps what the back end asked, `WWW-Authenticate`, for the
/// exchange to report as a 401), and turns each data task's events into its exchange's answer:
/// the response once its headers are in, then the body's chunks as they arrive.
private final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let credential: URLCredential?
    private let lock = NSLock()
    private var refused: [Int: [(name: String, value: String)]] = [:]
    private var answered: Set<Int> = []
    private var exchanges: [Int: Exchange] = [:]

    /// One exchange in flight.
    final class Exchange {
        var continuation: CheckedContinuation<HTTPResponse, any Error>?
        var body: AsyncThrowingStream<[UInt8], any Error>.Continuation?
        /// Body bytes not yet handed to the reader: libcurl delivers at most 16 KiB at a time,
        /// and each piece handed over wakes the reading task, so pieces are gathered up to
        /// `SessionDelegate.pieceBytes` first (a 1.4 MB page: about 6 wake-ups, not 90).
        var pending: [UInt8] = []
        /// A 401 that asks for authentication is held back: FoundationNetworking reads its body,
        /// then asks the challenge, and with a credential sends the request again on the same
        /// task (a second response follows). Its status, headers and body, until then.
        var held: (status: Int, headers: [(name: String, value: String)], body: [UInt8])?
        let description: String
        /// A fresh pass over a streamed request body, for sending the request again (after an
        /// authentication challenge).
        let newBodyStream: (@Sendable () throws -> InputStream)?
        init(continuation: CheckedContinuation<HTTPResponse, any Error>, description: String,
             newBodyStream: (@Sendable () throws -> InputStream)?) {
            self.continuation = continuation
            self.description = description
            self.newBodyStream = newBodyStream
        }
    }

    init(credential: URLCredential?) { self.credential = credential }

    /// Hosts that asked for Basic authentication in this session.
    private let basicHosts = BasicAuthHosts()

    /// `Authorization: Basic …` for a request to `url` when there is a user and password and the
    /// host asked for Basic before in this session (or `asked`: it just did); nil otherwise.
    func basicAuthorization(for url: URL, asked: Bool = false) -> String? {
        guard let credential, let user = credential.user, let password = credential.password else { return nil }
        return basicHosts.authorization(for: url, user: user, password: password, asked: asked)
    }

    func register(_ task: URLSessionDataTask, continuation: CheckedContinuation<HTTPResponse, any Error>, description: String,
                  newBodyStream: (@Sendable () throws -> InputStream)?) {
        lock.withLock {
            exchanges[task.taskIdentifier] = Exchange(continuation: continuation, description: description, newBodyStream: newBodyStream)
        }
    }

    /// A task with a streamed body does not follow redirects: its stream cannot be read again;
    /// nor does one with a body redirected by 307 or 308, which FoundationNetworking would send
    /// to the new location without its body (the transport follows both itself, `exchange`).
    /// The others follow as usual.
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        let streamed = lock.withLock { exchanges[task.taskIdentifier]?.newBodyStream != nil }
        let keepsBody = response.statusCode == 307 || response.statusCode == 308
        let hasBody = task.originalRequest?.httpBody != nil || task.originalRequest?.httpBodyStream != nil
        completionHandler(streamed || (keepsBody && hasBody) ? nil : request)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping (InputStream?) -> Void) {
        let make = lock.withLock { exchanges[task.taskIdentifier]?.newBodyStream }
        completionHandler(make.flatMap { try? $0() })
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        let space = challenge.protectionSpace
        #if canImport(Darwin)
        if space.authenticationMethod == NSURLAuthenticationMethodServerTrust {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        #endif
        let id = task.taskIdentifier
        if space.authenticationMethod == NSURLAuthenticationMethodHTTPBasic { basicHosts.insert(host: space.host, port: space.port) }
        let (first, streamed) = lock.withLock { () -> (Bool, Bool) in
            (answered.insert(id).inserted, exchanges[id]?.newBodyStream != nil)
        }
        // A streamed body is not answered here: the transport sends it again itself (`exchange`).
        if let credential, first, !streamed, challenge.previousFailureCount == 0 {
            completionHandler(.useCredential, credential)
            return
        }
        var asked = "Basic"
        if space.authenticationMethod == NSURLAuthenticationMethodHTTPDigest { asked = "Digest" }
        if let realm = space.realm { asked += " realm=\"\(realm)\"" }
        lock.withLock { refused[id] = [(name: "WWW-Authenticate", value: asked)] }
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let id = dataTask.taskIdentifier
        guard let exchange = lock.withLock({ exchanges[id] }), let continuation = exchange.continuation else {
            completionHandler(.cancel)
            return
        }
        guard let http = response as? HTTPURLResponse else {
            exchange.continuation = nil
            continuation.resume(throwing: TransportError(.other, "the answer to \(exchange.description) is not HTTP"))
            completionHandler(.cancel)
            return
        }
        var headers: [(name: String, value: String)] = []
        for (name, value) in http.allHeaderFields { headers.append((name: "\(name)", value: "\(value)")) }
        if http.statusCode == 401, headers.contains(where: { $0.name.lowercased() == "www-authenticate" }) {
            lock.withLock { exchange.held = (401, headers, []) }
            completionHandler(.allow)
            return
        }
        lock.withLock { exchange.held = nil }
        let (stream, body) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        // A reader that stops early (a body past its limit, a cancelled download) stops the task.
        body.onTermination = { termination in
            if case .cancelled = termination { dataTask.cancel() }
        }
        lock.withLock {
            exchange.continuation = nil
            exchange.body = body
        }
        continuation.resume(returning: HTTPResponse(status: http.statusCode, headers: headers, body: HTTPBody(stream)))
        completionHandler(.allow)
    }

    /// The size of the pieces a body is handed over in (the last one may be shorter).
    static let pieceBytes = 256 << 10

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let (body, piece) = lock.withLock { () -> (AsyncThrowingStream<[UInt8], any Error>.Continuation?, [UInt8]?) in
            guard let exchange = exchanges[dataTask.taskIdentifier] else { return (nil, nil) }
            if exchange.held != nil {
                exchange.held?.body += [UInt8](data)
                return (nil, nil)
            }
            if exchange.pending.isEmpty { exchange.pending.reserveCapacity(Self.pieceBytes + data.count) }
            exchange.pending.append(contentsOf: data)
            guard exchange.pending.count >= Self.pieceBytes else { return (nil, nil) }
            var piece: [UInt8] = []
            swap(&piece, &exchange.pending)
            return (exchange.body, piece)
        }
        if let body, let piece { body.yield(piece) }
    }

    /// The end of an exchange made with a completion handler (`HTTPRequest.collectsBody`), as
    /// `urlSession(_:task:didCompleteWithError:)` ends one made through this delegate: a
    /// refused challenge is the 401 that asked it, an error that got no answer is thrown.
    func wholeAnswer(id: Int, data: Data?, response: URLResponse?, error: (any Error)?, description: String) -> Result<HTTPResponse, any Error> {
        let challenge = lock.withLock { () -> [(name: String, value: String)]? in
            answered.remove(id)
            return refused.removeValue(forKey: id)
        }
        if let challenge { return .success(HTTPResponse(status: 401, headers: challenge, body: [])) }
        if let error {
            if let urlError = error as? URLError { return .failure(URLSessionTransport.map(urlError)) }
            return .failure(TransportError(.other, "\(description): \(error)"))
        }
        guard let http = response as? HTTPURLResponse else {
            return .failure(TransportError(.other, "the answer to \(description) is not HTTP"))
        }
        var headers: [(name: String, value: String)] = []
        for (name, value) in http.allHeaderFields { headers.append((name: "\(name)", value: "\(value)")) }
        return .success(HTTPResponse(status: http.statusCode, headers: headers, body: HTTPBody(data: data ?? Data())))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let id = task.taskIdentifier
        let (exchange, challenge) = lock.withLock { () -> (Exchange?, [(name: String, value: String)]?) in
            answered.remove(id)
            return (exchanges.removeValue(forKey: id), refused.removeValue(forKey: id))
        }
        guard let exchange else { return }
        if let continuation = exchange.continuation {
            // No answer came.
            if let challenge {
                // The challenge was refused (no credential, or the credential failed): the 401.
                continuation.resume(returning: HTTPResponse(status: 401, headers: challenge, body: []))
            } else if error == nil, let held = exchange.held {
                // A 401 that no challenge followed: as it came.
                continuation.resume(returning: HTTPResponse(status: held.status, headers: held.headers, body: held.body))
            } else if let urlError = error as? URLError {
                continuation.resume(throwing: URLSessionTransport.map(urlError))
            } else {
                continuation.resume(throwing: TransportError(.other, error.map { "\($0)" } ?? "\(exchange.description) ended without an answer"))
            }
            return
        }
        // The answer came; its body ends here, whole or broken off.
        if !exchange.pending.isEmpty {
            let rest = exchange.pending
            exchange.pending = []
            exchange.body?.yield(rest)
        }
        if let error {
            let mapped = (error as? URLError).map(URLSessionTransport.map) ?? TransportError(.reset, "\(error)")
            exchange.body?.finish(throwing: mapped.kind == .cancelled ? mapped : TransportError(.reset, "\(exchange.description): \(mapped.message)"))
        } else {
            exchange.body?.finish()
        }
    }
}

#if canImport(FoundationNetworking)
/// A streamed request body as the `InputStream` FoundationNetworking reads (on its own thread,
/// one read at a time): each read takes the next piece from the store's reader when the last
/// one is used up, so at most one piece (64 KiB) is held. Exactly `length` bytes or a failed
/// read: a body that ends short or runs long would leave the back end waiting for bytes that
/// never come, or take a truncated stream as the whole.
final class BodyInputStream: InputStream {
    private let reader: any HTTPBodyReader
    private let length: Int64
    private var piece: [UInt8] = []
    private var offset = 0
    private var sent: Int64 = 0
    private var ended = false
    private var status: Stream.Status = .notOpen
    private var failure: (any Error)?

    init(reader: any HTTPBodyReader, length: Int64) {
        self.reader = reader
        self.length = length
        super.init(data: Data())
    }

    override func open() { if status == .notOpen { status = .open } }
    override func close() { status = .closed }
    override var streamStatus: Stream.Status { status }
    override var streamError: (any Error)? { failure }
    override var hasBytesAvailable: Bool { status != .error && (!ended || offset < piece.count) }
    override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>) -> Bool { false }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        guard status != .error, len > 0 else { return status == .error ? -1 : 0 }
        while offset >= piece.count {
            if ended { return 0 }
            do {
                if let next = try reader.next() {
                    piece = next
                    offset = 0
                    guard sent + Int64(next.count) <= length else {
                        return fail(TransportError(.other, "the request body runs past its length of \(length) bytes"))
                    }
                } else {
                    ended = true
                    guard sent == length else {
                        return fail(TransportError(.other, "the request body ended after \(sent) of its \(length) bytes"))
                    }
                    status = .atEnd
                    return 0
                }
            } catch {
                return fail(error)
            }
        }
        let n = min(len, piece.count - offset)
        piece.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { buffer.update(from: base + offset, count: n) }
        }
        offset += n
        sent += Int64(n)
        return n
    }

    private func fail(_ error: any Error) -> Int {
        failure = error
        status = .error
        return -1
    }
}
#endif
