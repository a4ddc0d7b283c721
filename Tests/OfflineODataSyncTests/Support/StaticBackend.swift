import Foundation
import OfflineODataStore
import OfflineODataSync
import Synchronization

/// An in-process server double for what no real server does on demand (faults at a chosen
/// exchange): it serves our model's `$metadata` and the seed data's `SalesOrders` from memory, in
/// pages of `pageSize` with next links, a delta link on the first page, and a canned delta.
/// Tests that need a real back end use `OdatapyServer`; this one needs no Python.
final class StaticBackend: Transport, @unchecked Sendable {
    static let root = "http://backend.invalid/service/"
    let pageSize: Int
    private let lock = NSLock()
    private var orders: [[String: Any]] = []
    private var log: [HTTPRequest] = []

    init(pageSize: Int = 10) throws {
        self.pageSize = pageSize
        let seed = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: OdatapyServer.packageRoot + "/Tests/Backends/odatapy/seed.json")))
        let orders = ((seed as? [String: Any])?["SalesOrders"] as? [[String: Any]]) ?? []
        self.orders = orders
    }

    var requests: [HTTPRequest] { lock.withLock { log } }

    /// Changes one order (as another client would), for the next full read.
    func setNote(_ id: String, _ note: String) {
        lock.withLock {
            for i in orders.indices where orders[i]["SalesOrderID"] as? String == id { orders[i]["Note"] = note }
        }
    }

    func exchange(_ request: HTTPRequest) async throws -> HTTPResponse {
        lock.withLock { log.append(request) }
        guard request.url.hasPrefix(Self.root) else { return HTTPResponse(status: 404, body: Array("no such service".utf8)) }
        let path = String(request.url.dropFirst(Self.root.count))
        if path == "$metadata" {
            let xml = try Data(contentsOf: URL(fileURLWithPath: OdatapyServer.packageRoot + "/Tests/Backends/odatapy/model.xml"))
            return HTTPResponse(status: 200, headers: [(name: "Content-Type", value: "application/xml")], body: [UInt8](xml))
        }
        guard path.hasPrefix("SalesOrders") else { return HTTPResponse(status: 404, body: Array(#"{"error":{"code":"404","message":"unknown"}}"#.utf8)) }
        if path.contains("$deltatoken=1") {
            let body = #"{"@odata.context":"$metadata#SalesOrders/$delta","value":[{"SalesOrderID":"SO001","BusinessPartnerID":"BP1","LifecycleStatus":"P","CurrencyCode":"USD","GrossAmount":147.5,"Note":"delta note"},{"@removed":{"reason":"deleted"},"@id":"SalesOrders('SO002')"}],"@odata.deltaLink":"SalesOrders?$deltatoken=2"}"#
            return HTTPResponse(status: 200, body: Array(body.utf8))
        }
        if path.contains("$deltatoken=2") {
            return HTTPResponse(status: 200, body: Array(#"{"value":[],"@odata.deltaLink":"SalesOrders?$deltatoken=2"}"#.utf8))
        }
        var skip = 0
        if let range = path.range(of: "$skiptoken=") { skip = Int(path[range.upperBound...]) ?? 0 }
        let (page, total) = lock.withLock { (Array(orders.dropFirst(skip).prefix(pageSize)), orders.count) }
        var object: [String: Any] = ["@odata.context": "$metadata#SalesOrders", "value": page]
        if skip + pageSize < total { object["@odata.nextLink"] = "SalesOrders?$skiptoken=\(skip + pageSize)" }
        if request.header("Prefer")?.contains("odata.track-changes") == true { object["@odata.deltaLink"] = "SalesOrders?$deltatoken=1" }
        let body = try JSONSerialization.data(withJSONObject: object)
        return HTTPResponse(status: 200, headers: [(name: "Content-Type", value: "application/json")], body: [UInt8](body))
    }
}

/// Wraps a transport and breaks chosen exchanges: the `n`-th request whose URL contains `match`.
final class FaultInjectingTransport: Transport, @unchecked Sendable {
    enum Fault: Sendable {
        /// The connection is dropped after half the body arrived.
        case dropMidBody
        /// The body ends halfway, without an error (a proxy that cut it).
        case truncate
        /// This status with this body and headers, instead of the real answer.
        case status(Int, String, [(String, String)])
        /// No answer: the exchange fails with this transport error.
        case fail(TransportError.Kind)
        /// Non-JSON text with status 200.
        case garbage
        /// The answer comes after this many seconds (a cancellable wait: a slow link).
        case delay(Double)
        /// The back end applies the request, then the connection drops before the answer arrives.
        case applyThenDrop
        /// Status 200 with this body instead of the real answer.
        case body(String)
    }

    let inner: any Transport
    private let rules = Mutex<[(match: String, method: String?, nth: Int, fault: Fault, seen: Int)]>([])

    init(_ inner: any Transport) { self.inner = inner }

    func inject(_ fault: Fault, whenURLContains match: String, method: String? = nil, nth: Int = 1) {
        rules.withLock { $0.append((match, method, nth, fault, 0)) }
    }

    func exchange(_ request: HTTPRequest) async throws -> HTTPResponse {
        let fault = rules.withLock { rules -> Fault? in
            for i in rules.indices where request.url.contains(rules[i].match) && (rules[i].method.map { $0 == request.method } ?? true) {
                rules[i].seen += 1
                if rules[i].seen == rules[i].nth { return rules[i].fault }
            }
            return nil
        }
        guard let fault else { return try await inner.exchange(request) }
        switch fault {
        case .fail(let kind):
            throw TransportError(kind, "injected \(kind.rawValue)")
        case .status(let status, let body, let headers):
            return HTTPResponse(status: status, headers: headers.map { (name: $0.0, value: $0.1) }, body: Array(body.utf8))
        case .garbage:
            return HTTPResponse(status: 200, body: Array("<html><body>Service Unavailable</body></html>".utf8))
        case .body(let text):
            return HTTPResponse(status: 200, body: Array(text.utf8))
        case .applyThenDrop:
            let real = try await inner.exchange(request)
            _ = try await real.body.collect(upTo: 1 << 28)
            throw TransportError(.reset, "injected: the answer was lost after the back end applied the request")
        case .delay(let seconds):
            try await Task.sleep(for: .seconds(seconds))
            return try await inner.exchange(request)
        case .truncate, .dropMidBody:
            let real = try await inner.exchange(request)
            let bytes = try await real.body.collect(upTo: 1 << 28)
            let half = Array(bytes.prefix(bytes.count / 2))
            if case .truncate = fault { return HTTPResponse(status: real.status, headers: real.headers, body: half) }
            let stream = AsyncThrowingStream<[UInt8], any Error> { continuation in
                continuation.yield(half)
                continuation.finish(throwing: TransportError(.reset, "injected: connection reset mid-body"))
            }
            return HTTPResponse(status: real.status, headers: real.headers, body: HTTPBody(stream))
        }
    }
}

/// A server double that honours OASIS Repeatable Requests in front of a real back end (which
/// does not): the first answer to each `Repeatability-Request-ID` is kept and replayed, with
/// `Repeatability-Result: accepted`, to every repeat, which does not reach the back end again.
/// 5xx answers are not kept (the spec lets a client retry them). Counts what reached the back end.
final class RepeatableDouble: Transport, @unchecked Sendable {
    let inner: any Transport
    let lock = NSLock()
    var answers: [String: (status: Int, headers: [(name: String, value: String)], body: [UInt8])] = [:]
    private var forwarded: [String] = []

    init(_ inner: any Transport) { self.inner = inner }

    /// "METHOD url" of every request that reached the back end.
    var reachedBackEnd: [String] { lock.withLock { forwarded } }

    func exchange(_ request: HTTPRequest) async throws -> HTTPResponse {
        let id = request.header("Repeatability-Request-ID")
        if let id, let kept = lock.withLock({ answers[id] }) {
            return HTTPResponse(status: kept.status, headers: kept.headers + [(name: "Repeatability-Result", value: "accepted")], body: kept.body)
        }
        lock.withLock { forwarded.append("\(request.method) \(request.url)") }
        let response = try await inner.exchange(request)
        let body = try await response.body.collect(upTo: 1 << 28)
        if let id, response.status < 500 {
            lock.withLock { answers[id] = (response.status, response.headers, body) }
        }
        if request.url.hasSuffix("$batch"), response.status < 500 { keepPartAnswers(request, response, body) }
        var headers = response.headers
        if id != nil { headers.append((name: "Repeatability-Result", value: "accepted")) }
        return HTTPResponse(status: response.status, headers: headers, body: body)
    }
}

extension RepeatableDouble {
    /// The requests of a multipart `$batch` carry their own repeatability IDs: each part's answer
    /// (matched by Content-ID) is kept under its part's ID, so that the request sent again alone
    /// (after a lost batch answer) gets it back without reaching the back end again.
    func keepPartAnswers(_ request: HTTPRequest, _ response: HTTPResponse, _ body: [UInt8]) {
        guard let sent = try? MultipartBatchRequest.parse(request.body ?? [], contentType: request.header("Content-Type") ?? ""),
              let answer = try? MultipartBatchResponse.parse(body, contentType: response.header("Content-Type") ?? "") else { return }
        var idsByContentID: [String: String] = [:]
        for item in sent.items {
            let parts: [MultipartBatchRequest.Part]
            switch item {
            case .request(let part): parts = [part]
            case .changeSet(_, let inner): parts = inner
            }
            for part in parts {
                if let contentID = part.contentID, let id = part.request.header("Repeatability-Request-ID") { idsByContentID[contentID] = id }
            }
        }
        for part in answer.parts where part.response.status < 500 {
            guard let contentID = part.contentID, let id = idsByContentID[contentID] else { continue }
            let headers = part.response.headers.map { (name: $0.key, value: $0.value) }
            lock.withLock { answers[id] = (part.response.status, headers, part.response.body ?? []) }
        }
    }
}

/// Passes every exchange on and records "METHOD url" of each, and the bodies of `$batch` requests.
final class RecordingTransport: Transport, @unchecked Sendable {
    let inner: any Transport
    private let log = Mutex<[(line: String, body: [UInt8]?)]>([])

    init(_ inner: any Transport) { self.inner = inner }

    var requests: [String] { log.withLock { $0.map(\.line) } }
    var batchBodies: [String] { log.withLock { $0.filter { $0.line.hasSuffix("$batch") }.map { String(decoding: $0.body ?? [], as: UTF8.self) } } }

    func exchange(_ request: HTTPRequest) async throws -> HTTPResponse {
        log.withLock { $0.append(("\(request.method) \(request.url)", request.body)) }
        return try await inner.exchange(request)
    }
}
