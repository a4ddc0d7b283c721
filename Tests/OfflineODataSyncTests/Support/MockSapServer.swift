import Foundation
import OfflineODataSync
import Testing

/// The SAP Gateway (OData V2) back end of the integration tests: mock-sap (from PyPI, pinned in
/// Tests/Backends/requirements.txt) on loopback with its own seeded S/4HANA-shaped data, started
/// per test and killed after it (Tests/Backends/mocksap/server.py). CSRF is on, as on Gateway.
/// Its control plane injects faults (`/_mock/faults`) and lists what the client sent
/// (`/_mock/requests`).
final class MockSapServer: @unchecked Sendable {
    static let script = OdatapyServer.packageRoot + "/Tests/Backends/mocksap/server.py"
    static let available: Bool = {
        guard let python = OdatapyServer.python else { return false }
        let site = URL(fileURLWithPath: python).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("lib").path
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: site)) ?? []
        return versions.contains { FileManager.default.fileExists(atPath: site + "/" + $0 + "/site-packages/mocksap") }
    }()
    static let skipReason: Comment = "no Python with mock-sap (run ./scripts/test.sh, which installs it): SAP Gateway tests skipped"

    let process = Process()
    let port: Int
    /// Its sales order service (API_SALES_ORDER_SRV).
    var serviceRoot: String { base + "/sap/opu/odata/sap/API_SALES_ORDER_SRV/" }
    var base: String { "http://127.0.0.1:\(port)" }
    /// A second client (its own session and CSRF token).
    private let client = URLSessionTransport(timeout: 20)
    private var token: String?

    init(arguments: [String] = []) throws {
        port = try OdatapyServer.launch(process, script: Self.script, arguments: ["--port", "0"] + arguments, name: "mock-sap")
    }

    func stop() { OdatapyServer.reap(process) }
    deinit { stop() }

    /// One request to the service as a second client; writes carry its CSRF token.
    @discardableResult
    func send(_ method: String, _ path: String, json: String? = nil, headers: [String: String] = [:]) async throws -> (Int, [UInt8]) {
        var all = headers
        if method != "GET" {
            if token == nil {
                let fetch = try await client.exchange(HTTPRequest(method: "GET", url: serviceRoot, headers: [(name: "X-CSRF-Token", value: "Fetch")]))
                token = fetch.header("x-csrf-token")
                _ = try await fetch.body.collect(upTo: 1 << 20)
            }
            all["X-CSRF-Token"] = token
        }
        if json != nil { all["Content-Type"] = "application/json" }
        all["Accept"] = "application/json"
        let response = try await client.exchange(HTTPRequest(method: method, url: serviceRoot + path,
                                                             headers: all.map { (name: $0.key, value: $0.value) },
                                                             body: json.map { Array($0.utf8) }))
        return (response.status, try await response.body.collect(upTo: 1 << 26))
    }

    /// `d` (V2) of a GET, or nil when it is not 200.
    func get(_ path: String) async throws -> [String: Any]? {
        let (status, body) = try await send("GET", path)
        guard status == 200 else { return nil }
        return (try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["d"] as? [String: Any]
    }

    /// The values of `key` in a V2 collection GET.
    func keys(_ path: String, key: String) async throws -> [String] {
        let results = try await get(path)?["results"] as? [[String: Any]] ?? []
        return results.compactMap { $0[key] as? String }
    }

    /// A fault rule (`POST /_mock/faults`): `match` a path regex, `scenario` (busy, lock, auth,
    /// error, timeout, csrf) or `status`, `count` times (0: always).
    func fault(match: String, method: String? = nil, scenario: String? = nil, status: Int? = nil, count: Int = 1) async throws {
        var rule: [String: Any] = ["match": match, "count": count]
        if let method { rule["method"] = method }
        if let scenario { rule["scenario"] = scenario }
        if let status { rule["status"] = status }
        let body = try JSONSerialization.data(withJSONObject: rule)
        let response = try await client.exchange(HTTPRequest(method: "POST", url: base + "/_mock/faults",
                                                             headers: [(name: "Content-Type", value: "application/json")], body: [UInt8](body)))
        _ = try await response.body.collect(upTo: 1 << 20)
        guard response.status == 201 || response.status == 200 else { throw OdatapyServer.ServerError("fault rule refused: \(response.status)") }
    }

    /// What reached the mock, newest first (`GET /_mock/requests?verbose=1`).
    func requests(limit: Int = 50) async throws -> [[String: Any]] {
        let response = try await client.exchange(HTTPRequest(method: "GET", url: base + "/_mock/requests?limit=\(limit)&verbose=1"))
        let body = try await response.body.collect(upTo: 1 << 26)
        return (try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["results"] as? [[String: Any]] ?? []
    }
}
