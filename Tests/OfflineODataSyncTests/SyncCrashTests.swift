import Foundation
import OfflineODataModel
import OfflineODataStore
import OfflineODataSync
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Power loss during downloads: a child process (`offline-odata sync-crash-worker`) downloads
/// from odatapy again and again (deltas, and a full reconcile every third time) while the test
/// changes the back end between rounds; the test kills it with SIGKILL at a random instant,
/// reopens the store and checks it (`check`), then downloads once more and compares with the
/// back end. A delta link that advanced without its data would lose changes here for good.
/// `OODATA_SYNC_CRASH_KILLS` sets the number of kills (default 30), `OODATA_SYNC_CRASH_SEED` the
/// seed (printed).
@Suite(.enabled(if: OdatapyServer.available, OdatapyServer.skipReason), .serialized)
struct SyncCrashTests {
    static var binary: String? {
        var dir = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = dir.appendingPathComponent("offline-odata").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }

    /// What both crash tests set up: the worker binary, the number of kills (from `envName`),
    /// a printed seed and its generator, a back end and a store folder, removed at the end.
    final class CrashRun {
        let binary: String
        let kills: Int
        var rng: SeededGenerator
        let server: OdatapyServer
        let dir = SyncTempDir()
        var parameters: OfflineODataParameters { SyncCrashWorkerParameters.parameters(path: dir.path) }

        init(_ label: String, envName: String, defaultKills: Int) throws {
            binary = try #require(SyncCrashTests.binary, "offline-odata not built: run `swift build` before `swift test`")
            let env = ProcessInfo.processInfo.environment
            kills = Int(env[envName] ?? "") ?? defaultKills
            let seed = UInt64(env["OODATA_SYNC_CRASH_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64.max / 2)
            print("SyncCrashTests (\(label)): seed \(seed) (OODATA_SYNC_CRASH_SEED=\(seed) replays it)")
            rng = SeededGenerator(seed: seed)
            server = try OdatapyServer()
        }

        deinit {
            server.stop()
            dir.cleanup()
        }
    }

    @Test func killsDuringDownloadsLoseNothing() async throws {
        let run = try CrashRun("download", envName: "OODATA_SYNC_CRASH_KILLS", defaultKills: 30)
        defer { withExtendedLifetime(run) {} }
        let (binary, kills, server, dir, parameters) = (run.binary, run.kills, run.server, run.dir, run.parameters)
        var rng = run.rng
        var interrupted = 0, created = 0
        for round in 0..<kills {
            // Another client changes the back end.
            for _ in 0..<3 {
                let id = String(format: "SO%03d", Int.random(in: 1...24, using: &rng))
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: try await server.send("PATCH", "SalesOrders('\(id)')", json: #"{"Note":"round \#(round)"}"#)
                case 1:
                    created += 1
                    try await server.send("POST", "SalesOrders", json: #"{"SalesOrderID":"N\#(created)","BusinessPartnerID":"BP1","LifecycleStatus":"N","CurrencyCode":"USD","GrossAmount":\#(round)}"#)
                default: try await server.send("DELETE", "SalesOrders('\(id)')")
                }
            }
            let lines = try runUntilKilled(binary, ["sync-crash-worker", dir.path, "--service", server.serviceRoot],
                                           afterFirstLineMs: Int.random(in: 0...250, using: &rng))
            #expect(lines.first == "OPENING", "round \(round): \(lines.prefix(3))")
            if lines.last?.hasPrefix("START") == true || lines.last == "OPENING" { interrupted += 1 }
            let check = try runCheck(binary, dir.path)
            #expect(check.0 == 0, "round \(round): check failed: \(check.1)")
            let provider = try OfflineODataProvider(serviceRoot: server.serviceRoot, parameters: parameters)
            try await provider.open()
            try await provider.download()
            let store = try provider.store
            let expected = try await server.keys("SalesOrders", key: "SalesOrderID").sorted()
            #expect(try store.keys("SalesOrders", key: "SalesOrderID") == expected, "round \(round): SalesOrders differ from the back end")
            for id in expected.prefix(30) {
                let local = try store.execute(.get, "SalesOrders('\(id)')?$select=Note").json()?["Note"]?.stringValue
                let (_, body) = try await server.send("GET", "SalesOrders('\(id)')?$select=Note")
                let remote = (try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["Note"] as? String
                #expect(local == remote, "round \(round): \(id) note \(local ?? "nil") against the back end's \(remote ?? "nil")")
            }
            try provider.close()
        }
        print("SyncCrashTests: \(kills) kills, \(interrupted) of them during an open or a download")
        #expect(interrupted > 0)
    }

    /// Starts the worker, waits for its first line (or the line `waitFor`), sleeps, kills it
    /// with SIGKILL; its lines.
    func runUntilKilled(_ binary: String, _ arguments: [String], afterFirstLineMs: Int, waitFor: String? = nil) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let descriptor = out.fileHandleForReading.fileDescriptor
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        // Until the first line, or the awaited one (or the end: the worker failed).
        func seen() -> Bool {
            guard let waitFor else { return text.contains(0x0A) }
            return String(decoding: text, as: UTF8.self).split(separator: "\n").contains { $0 == waitFor }
        }
        while !seen() {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { text += chunk[0..<count] } else if count < 0 && errno == EINTR { continue } else { break }
        }
        usleep(UInt32(afterFirstLineMs) * 1000)
        kill(process.processIdentifier, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(process.processIdentifier, &status, 0)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { text += chunk[0..<count] } else if count < 0 && errno == EINTR { continue } else { break }
        }
        return String(decoding: text, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    func runCheck(_ binary: String, _ dir: String) throws -> (Int32, String) {
        // Killed before the engine wrote its first manifest: no store yet (the next open creates it).
        let files = (try? FileManager.default.contentsOfDirectory(atPath: dir + "/localstore.oostore")) ?? []
        guard files.contains(where: { $0.hasPrefix("MANIFEST-") }) else { return (0, "no store yet") }
        let keyFile = dir + "/../" + URL(fileURLWithPath: dir).lastPathComponent + ".key"
        try Data(String(repeating: "5a", count: 32).utf8).write(to: URL(fileURLWithPath: keyFile))
        defer { try? FileManager.default.removeItem(atPath: keyFile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["check", dir + "/localstore.oostore", "--key-file", keyFile]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        var status: Int32 = 0
        _ = waitpid(process.processIdentifier, &status, 0)
        let code = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return (code, String(decoding: data, as: UTF8.self))
    }
}

/// The worker's parameters (`SyncCrashWorkerCommand.parameters`), mirrored: the test target
/// does not link the CLI.
enum SyncCrashWorkerParameters {
    static func parameters(path: String) -> OfflineODataParameters {
        OfflineODataParameters(storePath: path, encryption: .key(Array(repeating: 0x5A, count: 32)), definingQueries: [
            DefiningQuery(name: "Orders", url: "SalesOrders"),
            DefiningQuery(name: "USPartners", url: "BusinessPartners?$filter=Country eq 'US'&$expand=SalesOrders($expand=Items)"),
        ], timeout: 20, pageSize: 3, reconcileEvery: 3, durability: .full, keyDerivation: .minimum)
    }
}

/// SplitMix64, seeded: the same seed gives the same rounds.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1330_11EB
        return z ^ (z >> 31)
    }
}

extension SyncCrashTests {
    /// Power loss during uploads: the worker queues a create, an update and a delete per round
    /// and uploads, again and again; the test kills it at a random instant, reopens the store,
    /// uploads what is left and checks that nothing was lost or refused: the queue and the
    /// ErrorArchive are empty (a request whose answer was lost is recognised, not archived as a
    /// conflict) and the back end holds exactly the store's orders and notes.
    /// `OODATA_UPLOAD_CRASH_KILLS` sets the number of kills (default 50). This test found that
    /// odatapy applies a PATCH whose body was cut off by the kill as an empty change
    /// (`UploadIntegrationTests.retriedUpdateAfterEmptyChange`).
    @Test
    func killsDuringUploadsLoseNothing() async throws {
        let run = try CrashRun("upload", envName: "OODATA_UPLOAD_CRASH_KILLS", defaultKills: 50)
        defer { withExtendedLifetime(run) {} }
        let (binary, kills, server, dir, parameters) = (run.binary, run.kills, run.server, run.dir, run.parameters)
        var rng = run.rng
        let first = try OfflineODataProvider(serviceRoot: server.serviceRoot, parameters: parameters)
        try await first.open()
        try first.close()
        var interrupted = 0
        for round in 0..<kills {
            // Every other worker uploads one request at a time (each request's attempt recorded
            // in the commit that settles the one before it), the others in `$batch`.
            let lines = try runUntilKilled(binary, ["sync-crash-worker", dir.path, "--service", server.serviceRoot, "--upload",
                                                    "--round-base", String(round * 1000)] + (round % 2 == 1 ? ["--single"] : []),
                                           afterFirstLineMs: Int.random(in: 0...40, using: &rng), waitFor: "READY")
            #expect(lines.contains("READY"), "round \(round): the worker did not get ready: \(lines.prefix(3))")
            if lines.last?.hasPrefix("QUEUED") == true { interrupted += 1 }
            let provider = try OfflineODataProvider(serviceRoot: server.serviceRoot, parameters: parameters)
            try await provider.open()
            let store = try provider.store
            try await provider.upload()
            let archive = try store.errorArchive()
            #expect(archive.isEmpty, "round \(round): \(archive.map { "\($0.requestMethod) \($0.requestURL) \($0.httpStatusCode) \($0.message ?? "")" })")
            #expect(try store.requestQueue().isEmpty, "round \(round): requests left in the queue")
            let remote = try await server.keys("SalesOrders", key: "SalesOrderID").sorted()
            #expect(try store.keys("SalesOrders", key: "SalesOrderID") == remote, "round \(round): orders differ from the back end")
            for id in remote where id.hasPrefix("SO") {
                let local = try store.execute(.get, "SalesOrders('\(id)')?$select=Note").json()?["Note"]?.stringValue
                let mine = try await Self.remoteNote(server, id)
                #expect(local == mine, "round \(round): \(id) note \(local ?? "nil") against \(mine ?? "nil")")
            }
            if !archive.isEmpty {
                for entry in archive { try store.deleteErrorArchiveEntry(requestID: entry.requestID) }
            }
            try provider.close()
        }
        print("SyncCrashTests: \(kills) kills during uploads, \(interrupted) of them with requests queued and not yet all confirmed")
    }

    static func remoteNote(_ server: OdatapyServer, _ id: String) async throws -> String? {
        let (_, body) = try await server.send("GET", "SalesOrders('\(id)')?$select=Note")
        return (try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["Note"] as? String
    }
}
