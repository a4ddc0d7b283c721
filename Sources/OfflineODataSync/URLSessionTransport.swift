import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default transport: one `URLSession` (FoundationNetworking on Linux) with its own cookie
/// storage, so session cookies (an SAP session, a load balancer's affinity) last as long as the
/// transport. The body is handed over as one chunk once it has arrived; a page is bounded by the
/// page size sync asks for.
///
/// An authentication challenge (a `401` with `WWW-Authenticate`) is answered with `credential`
/// when one is given, once; otherwise the exchange ends with that `401` (status and
/// `WWW-Authenticate`, no body). FoundationNetworking's own default handling of a challenge
/// never returns (observed with mock-sap's `auth` scenario), so the transport does not leave
/// it to it.
public final class URLSessionTransport: Transport, @unchecked Sendable {  // URLSession is thread-safe
    private let session: URLSession
    private let challenges: ChallengeDelegate
    /// Seconds an exchange may take when the request sets no timeout.
    public let defaultTimeout: Double

    public init(timeout: Double = 60, configuration: URLSessionConfiguration = .ephemeral, credential: URLCredential? = nil) {
        defaultTimeout = timeout
        configuration.httpCookieAcceptPolicy = .always
        configuration.httpShouldSetCookies = true
        configuration.timeoutIntervalForRequest = timeout
        configuration.urlCache = nil
        challenges = ChallengeDelegate(credential: credential)
        session = URLSession(configuration: configuration, delegate: challenges, delegateQueue: nil)
    }

    deinit { session.finishTasksAndInvalidate() }

    public func exchange(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let url = URL(string: request.url), url.scheme != nil, url.host != nil else {
            throw TransportError(.invalidURL, "'\(request.url)' is not an absolute URL")
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        urlRequest.timeoutInterval = request.timeout ?? defaultTimeout
        for (name, value) in request.headers { urlRequest.addValue(value, forHTTPHeaderField: name) }
        if let body = request.body { urlRequest.httpBody = Data(body) }
        let holder = TaskHolder()
        let (data, response, error): (Data?, URLResponse?, (any Error)?) = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let task = session.dataTask(with: urlRequest) { data, response, error in
                    continuation.resume(returning: (data, response, error))
                }
                holder.set(task)
                task.resume()
            }
        } onCancel: {
            holder.cancel()
        }
        let identifier = holder.identifier
        let challenge = challenges.take(identifier)
        if let error {
            if let challenge {
                // The challenge was refused (no credential, or the credential failed): the 401.
                return HTTPResponse(status: 401, headers: challenge, body: [])
            }
            if Task.isCancelled { throw TransportError(.cancelled, "the exchange was cancelled") }
            if let urlError = error as? URLError { throw Self.map(urlError) }
            throw TransportError(.other, "\(error)")
        }
        guard let http = response as? HTTPURLResponse else {
            throw TransportError(.other, "the answer to \(request.method) \(request.url) is not HTTP")
        }
        var headers: [(name: String, value: String)] = []
        for (name, value) in http.allHeaderFields {
            headers.append((name: "\(name)", value: "\(value)"))
        }
        return HTTPResponse(status: http.statusCode, headers: headers, body: [UInt8](data ?? Data()))
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

    var identifier: Int { lock.withLock { task?.taskIdentifier ?? -1 } }
}

/// Answers authentication challenges: the credential once per task, else cancels the task and
/// keeps what the back end asked (`WWW-Authenticate`) for the exchange to report as a 401.
private final class ChallengeDelegate: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    let credential: URLCredential?
    private let lock = NSLock()
    private var refused: [Int: [(name: String, value: String)]] = [:]
    private var answered: Set<Int> = []

    init(credential: URLCredential?) { self.credential = credential }

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
        let first = lock.withLock { answered.insert(id).inserted }
        if let credential, first, challenge.previousFailureCount == 0 {
            completionHandler(.useCredential, credential)
            return
        }
        var asked = "Basic"
        if space.authenticationMethod == NSURLAuthenticationMethodHTTPDigest { asked = "Digest" }
        if let realm = space.realm { asked += " realm=\"\(realm)\"" }
        lock.withLock { refused[id] = [(name: "WWW-Authenticate", value: asked)] }
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    /// The refused challenge of a finished task (removed).
    func take(_ id: Int) -> [(name: String, value: String)]? {
        lock.withLock {
            answered.remove(id)
            return refused.removeValue(forKey: id)
        }
    }
}
