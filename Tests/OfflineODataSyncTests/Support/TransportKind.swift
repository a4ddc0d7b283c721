import Foundation
import Testing
@testable import OfflineODataSync
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The transports this package ships, for tests that hold every one of them to the same
/// behaviour: `URLSessionTransport` everywhere, `CurlTransport` (the default) on Linux.
enum TransportKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case urlSession
    #if os(Linux)
    case curl
    #endif

    func make(timeout: Double = 20, credential: URLCredential? = nil) throws -> any Transport {
        switch self {
        case .urlSession: return URLSessionTransport(timeout: timeout, credential: credential)
        #if os(Linux)
        case .curl: return try CurlTransport(timeout: timeout, credential: credential)
        #endif
        }
    }

    /// Those that send a stored stream as they read it.
    static var streaming: [TransportKind] { allCases.filter { (try? $0.make(timeout: 1))?.acceptsStreamedBodies == true } }

    var testDescription: String { rawValue }
}
