import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default transport: one `URLSession` (FoundationNetworking on Linux) with its own cookie
/// storage, so session cookies (an SAP session, a load balancer's affinity) last as long as the
/// transport. The body is handed over as one chunk once it has arrived; a page is bounded by the
/// page size sync asks for.
public final class URLSessionTransport: Transport, @unchecked Sendable {  // URLSession is thread-safe
    private let session: URLSession
    /// Seconds an exchange may take when the request sets no timeout.
    public let defaultTimeout: Double

    public init(timeout: Double = 60, configuration: URLSessionConfiguration = .ephemeral) {
        defaultTimeout = timeout
        configuration.httpCookieAcceptPolicy = .always
        configuration.httpShouldSetCookies = true
        configuration.timeoutIntervalForRequest = timeout
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
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
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: urlRequest)
        } catch let error as URLError {
            throw Self.map(error)
        } catch is CancellationError {
            throw TransportError(.cancelled, "the exchange was cancelled")
        } catch {
            throw TransportError(.other, "\(error)")
        }
        guard let http = response as? HTTPURLResponse else {
            throw TransportError(.other, "the answer to \(request.method) \(request.url) is not HTTP")
        }
        var headers: [(name: String, value: String)] = []
        for (name, value) in http.allHeaderFields {
            headers.append((name: "\(name)", value: "\(value)"))
        }
        return HTTPResponse(status: http.statusCode, headers: headers, body: [UInt8](data))
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
