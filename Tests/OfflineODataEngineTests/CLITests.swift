import Foundation
import Testing
@testable import OfflineODataEngine

/// Runs the `offline-odata` binary the way a user does.
@Suite struct CLITests {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Output {
        let worker = try #require(CrashTests.workerPath, "offline-odata not built: run `swift build` first")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: worker)
        p.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["OFFLINE_ODATA_PASSPHRASE"] = nil
        for (k, v) in environment { env[k] = v }
        p.environment = env
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Output(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    func makeStore(_ dir: TempDir) throws {
        var o = EngineOptions(encryption: .passphrase("cli pass"))
        o.keyDerivation = .minimum
        o.memTableSize = 8 << 10
        let db = try StorageEngine.open(path: dir.store, options: o)
        let t = try db.tree("Orders")
        for i in 0..<30 { try db.write { $0.put(key(i), bytes("order \(i) " + String(repeating: "x", count: 300)), in: t) } }
        try db.close()
    }

    @Test func checkStatsCompactAndDumpAHealthyStore() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        try makeStore(dir)
        let env = ["OFFLINE_ODATA_PASSPHRASE": "cli pass"]
        let check = try run(["check", dir.store], environment: env)
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout.contains(": clean"))
        let stats = try run(["stats", dir.store], environment: env)
        #expect(stats.status == 0)
        #expect(stats.stdout.contains("Orders: 30 entries"))
        let compact = try run(["compact", dir.store], environment: env)
        #expect(compact.status == 0, "\(compact.stderr)")
        #expect(compact.stdout.contains("→ 1 runs"))
        let run0 = try #require(files(in: dir.store).first { $0.hasSuffix(".oorun") })
        let dump = try run(["dump", dir.store, run0], environment: env)
        #expect(dump.status == 0)
        #expect(dump.stdout.contains("31 entries"))  // 30 orders + the catalog entry
    }

    @Test func wrongPassphraseAndMissingStoreAreClearErrors() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        try makeStore(dir)
        let wrong = try run(["check", dir.store, "--passphrase", "nope"])
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("wrongEncryptionKey (3254)"))   // one name in every command
        let none = try run(["stats", dir.store])
        #expect(none.status != 0)
        #expect(none.stderr.contains("--passphrase"))
        let missing = try run(["check", dir.path + "/nothing-here", "--passphrase", "x"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("notAStore"))
    }

    @Test func rekeyThenOldPassphraseFails() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        try makeStore(dir)
        let rekey = try run(["rekey", dir.store, "--passphrase", "cli pass", "--new-passphrase", "second"])
        #expect(rekey.status == 0, "\(rekey.stderr)")
        #expect(try run(["check", dir.store, "--passphrase", "cli pass"]).status == 2)
        #expect(try run(["check", dir.store, "--passphrase", "second"]).status == 0)
    }

    @Test func damagedStoreMakesCheckFail() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        try makeStore(dir)
        let runName = try #require(files(in: dir.store).first { $0.hasSuffix(".oorun") })
        let path = dir.store + "/" + runName
        var data = [UInt8](try #require(FileManager.default.contents(atPath: path)))
        data[Format.fileHeaderSize + Format.frameHeaderSize + 5] ^= 0x40  // inside the first leaf's payload
        try Data(data).write(to: URL(fileURLWithPath: path))
        let check = try run(["check", dir.store, "--passphrase", "cli pass"])
        #expect(check.status != 0)
        #expect((check.stdout + check.stderr).contains("storeCorrupted"))
        #expect((check.stdout + check.stderr).contains(runName))
    }
}

extension CLITests {
    /// Regression: a fresh process that opens an AES-256-GCM store with a raw key made no other
    /// libsodium call before checking the cipher, so CPU detection had not run and the store was
    /// refused as "not supported on this CPU".
    @Test func rawKeyStoreOpensInAFreshProcess() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let key = [UInt8](repeating: 0x42, count: 32)
        var o = EngineOptions(encryption: .key(key))
        o.cipher = .preferred
        let db = try StorageEngine.open(path: dir.store, options: o)
        try db.write { $0.put(bytes("k"), bytes("v"), in: try db.tree("T")) }
        try db.close()
        let keyFile = dir.path + "/key.bin"
        #expect(FileManager.default.createFile(atPath: keyFile, contents: Data(key)))
        let check = try run(["check", dir.store, "--key-file", keyFile])
        #expect(check.status == 0, "\(check.stderr)")
    }
}
