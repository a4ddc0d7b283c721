import Foundation
#if canImport(Glibc)
import Glibc
#endif
import OfflineODataModel
import OfflineODataStore
import OfflineODataSync
import Testing

/// The real OData V4 back end of the integration tests: odatapy (from PyPI, pinned in
/// Tests/Backends/requirements.txt) serving our model and seed data (Tests/Backends/odatapy) on
/// loopback, started per test and killed after it. Its data lives in memory: a new server is a
/// reset. `scripts/test.sh` installs it and sets `OODATA_BACKEND_PYTHON`.
final class OdatapyServer: @unchecked Sendable {
    static let python: String? = {
        if let path = ProcessInfo.processInfo.environment["OODATA_BACKEND_PYTHON"], !path.isEmpty,
           FileManager.default.isExecutableFile(atPath: path) { return path }
        let local = packageRoot + "/.venv-backends/bin/python"
        return FileManager.default.isExecutableFile(atPath: local) ? local : nil
    }()

    static let available = python != nil
    static let skipReason: Comment = "no Python with odatapy (run ./scripts/test.sh, which installs it): sync integration tests skipped"

    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }()

    static let script = packageRoot + "/Tests/Backends/odatapy/server.py"

    let process = Process()
    let port: Int
    var serviceRoot: String { "http://127.0.0.1:\(port)/" }

    /// `port`: reuse a stopped server's port (a restart: delta links the client kept point at it).
    init(port: Int = 0, pageSize: Int? = nil, extraProperties: [String] = [], model: String? = nil) throws {
        var arguments = ["--port", String(port)]
        if let model { arguments += ["--model", Self.packageRoot + "/Tests/Backends/odatapy/" + model] }
        if let pageSize { arguments += ["--page-size", String(pageSize)] }
        for extra in extraProperties { arguments += ["--extra-property", extra] }
        self.port = try Self.launch(process, script: Self.script, arguments: arguments, name: "odatapy")
    }

    /// Starts a back end's launcher script (Tests/Backends/*/server.py) with the test Python and
    /// waits for its first line, `PORT <n>`; the port.
    static func launch(_ process: Process, script: String, arguments: [String], name: String) throws -> Int {
        guard let python = Self.python else { throw ServerError("no Python with the test back ends") }
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line: [UInt8] = []
        let handle = out.fileHandleForReading
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let byte = handle.readData(ofLength: 1)
            guard let b = byte.first else { break }
            if b == 0x0A { break }
            line.append(b)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            process.terminate()
            throw ServerError("\(name) did not start: '\(text)'")
        }
        return port
    }

    /// Kills a launched back end and reaps it (`Process.waitUntilExit` can wait forever on Linux
    /// when called from a task, so the pid is reaped directly).
    static func reap(_ process: Process) {
        let pid = process.processIdentifier
        guard pid > 0 else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
    }

    /// Kills the server and reaps it (`Process.waitUntilExit` can wait forever on Linux when
    /// called from a task, so the pid is reaped directly).
    func stop() {
        guard !stopped else { return }
        stopped = true
        Self.reap(process)
    }

    private var stopped = false

    deinit { stop() }

    /// One request as a second client (curl-like, through URLSession).
    @discardableResult
    func send(_ method: String, _ path: String, json: String? = nil, headers: [String: String] = [:]) async throws -> (Int, [UInt8]) {
        let transport = URLSessionTransport(timeout: 20)
        var all = headers
        if json != nil { all["Content-Type"] = "application/json" }
        if method != "GET", all["If-Match"] == nil { all["If-Match"] = "*" }
        let response = try await transport.exchange(HTTPRequest(method: method, url: serviceRoot + path,
                                                                 headers: all.map { (name: $0.key, value: $0.value) },
                                                                 body: json.map { Array($0.utf8) }))
        let body = try await response.body.collect(upTo: 1 << 26)
        return (response.status, body)
    }

    /// The keys (in the server's order) a GET of `path` returns, following next links.
    func keys(_ path: String, key: String) async throws -> [String] {
        var out: [String] = []
        var next: String? = serviceRoot + path
        while let url = next {
            let transport = URLSessionTransport(timeout: 20)
            let response = try await transport.exchange(HTTPRequest(method: "GET", url: url, headers: [(name: "Prefer", value: "odata.maxpagesize=1000")]))
            let body = try await response.body.collect(upTo: 1 << 26)
            guard response.status == 200, let json = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
                  let value = json["value"] as? [[String: Any]] else { throw ServerError("GET \(url) answered \(response.status)") }
            out += value.compactMap { $0[key].map { "\($0)" } }
            next = json["@odata.nextLink"] as? String
        }
        return out
    }

    struct ServerError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

/// A temporary directory for a provider's store.
struct SyncTempDir {
    let path: String
    init() { path = FileManager.default.temporaryDirectory.path + "/oosync-\(UUID().uuidString)" }
    func cleanup() { try? FileManager.default.removeItem(atPath: path) }
}

extension OfflineODataParameters {
    /// Fast test parameters: unencrypted, relaxed durability.
    static func test(_ dir: SyncTempDir, queries: [DefiningQuery], pageSize: Int = 1000, reconcileEvery: Int = 10,
                     batching: OfflineODataParameters.UploadBatching = .automatic) -> OfflineODataParameters {
        var parameters = OfflineODataParameters(storePath: dir.path, encryption: .unencrypted, definingQueries: queries, timeout: 20,
                                                pageSize: pageSize, reconcileEvery: reconcileEvery, durability: .relaxed, keyDerivation: .minimum)
        parameters.uploadBatching = batching
        return parameters
    }
}

extension OfflineStore {
    /// The sorted keys of a local collection query (all pages).
    func keys(_ url: String, key: String) throws -> [String] {
        let json = try #require(try execute(.get, url).json())
        return (json["value"]?.arrayValue ?? []).compactMap { item -> String? in
            guard let value = item[key] else { return nil }
            if let s = value.stringValue { return s }
            return value.numberValue?.text
        }.sorted()
    }
}

extension ODataResponse {
    func json() throws -> JSONValue? {
        guard let body else { return nil }
        return try JSONReader.parse(body)
    }
}
