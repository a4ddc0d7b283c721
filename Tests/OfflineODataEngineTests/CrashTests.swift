import Foundation
import Testing
@testable import OfflineODataEngine

/// SIGKILLs a child process (`offline-odata crash-worker`) at random instants — during
/// commits, flushes and compactions — then reopens and checks that every acknowledged commit
/// is there, that no batch is half-applied, and that `check` is clean.
/// `OODATA_CRASH_KILLS=1000 swift test --filter CrashTests` runs the long mode.
@Suite(.serialized) struct CrashTests {
    static var kills: Int { Int(ProcessInfo.processInfo.environment["OODATA_CRASH_KILLS"] ?? "") ?? 200 }

    /// The CLI binary next to the test bundle in the build folder.
    static var workerPath: String? {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var dir = exe.deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = dir.appendingPathComponent("offline-odata").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }

    static let batchSize = 20

    static var workerOptions: EngineOptions {
        var o = EngineOptions(encryption: .passphrase("crash-test"))
        o.keyDerivation = .minimum
        o.memTableSize = 32 << 10
        o.blockSize = 1024
        return o
    }

    /// Runs the worker until killed after `delay`; returns the highest acknowledged batch.
    static func runAndKill(worker: String, store: String, delay: Double, relaxed: Bool) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: worker)
        process.arguments = ["crash-worker", store, "--batch-size", String(batchSize)] + (relaxed ? ["--relaxed"] : [])
        let pipe = Pipe()
        process.standardOutput = pipe
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        usleep(useconds_t(delay * 1_000_000))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(stderr.isEmpty, "worker reported: \(stderr)")
        var acked = -1
        for line in output.split(separator: "\n") where line.hasPrefix("ACK ") {
            // A line cut by the kill can't be trusted; only complete lines count.
            if let n = Int(line.dropFirst(4)) { acked = max(acked, n) }
        }
        return acked
    }

    /// Verifies the store after a crash; returns the last batch it holds.
    static func verify(store: String, acked: Int) throws -> Int {
        let db = try StorageEngine.open(path: store, options: workerOptions)
        defer { try? db.close() }
        guard let tree = try db.existingTree("crash"), let meta = try db.existingTree("meta") else {
            #expect(acked < 0, "batch \(acked) was acknowledged but the trees are missing")
            return -1
        }
        let last = try db.get(Array("last".utf8), in: meta).flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? -1
        #expect(last >= acked, "acknowledged batch \(acked) lost; store holds up to \(last)")
        var perBatch: [Int: Int] = [:]
        try db.snapshot().scan(in: tree) { k, v in
            let name = String(decoding: k, as: UTF8.self)  // "b<batch>-<j>"
            let parts = name.dropFirst().split(separator: "-")
            guard parts.count == 2, let b = Int(parts[0]), let j = Int(parts[1]) else {
                Issue.record("unexpected key \(name)")
                return false
            }
            #expect(v.allSatisfy { $0 == UInt8(truncatingIfNeeded: b &+ j) } && !v.isEmpty, "value of \(name) damaged")
            perBatch[b, default: 0] += 1
            return true
        }
        for b in 0...max(last, 0) where last >= 0 {
            // Batch b's key 0 is deleted by batch b+1, so every batch but the last has one fewer.
            let expected = b == last ? batchSize : batchSize - 1
            #expect(perBatch[b] == expected, "batch \(b) has \(perBatch[b] ?? 0) of \(expected) keys (half-applied?)")
        }
        #expect(perBatch.keys.allSatisfy { $0 <= last }, "a batch after the last committed one is visible")
        let report = try db.check()
        #expect(report.isClean, "\(report)")
        return last
    }

    @Test func sigkillAtRandomInstantsLosesNoAcknowledgedCommit() throws {
        guard let worker = Self.workerPath else {
            Issue.record("offline-odata binary not found next to the test bundle: run `swift build` before `swift test`")
            return
        }
        var rng = SplitMix(seed: UInt64(ProcessInfo.processInfo.environment["OODATA_CRASH_SEED"] ?? "") ?? UInt64(Date().timeIntervalSince1970))
        print("crash test seed: \(rng.state) (replay with OODATA_CRASH_SEED)")
        var dir = TempDir("crash")
        defer { dir.cleanup() }
        var lastSeen = -1
        var totalBatches = 0
        for kill in 0..<Self.kills {
            if kill % 25 == 0 {
                dir.cleanup()
                dir = TempDir("crash")
                lastSeen = -1
            }
            // Mostly short runs (kills land in open/recovery, commits, flushes), some longer ones
            // (compaction every 25 batches).
            let delay = Double(rng.next() % 1000) / 1000 * (kill % 4 == 0 ? 0.4 : 0.08) + 0.002
            let acked = try Self.runAndKill(worker: worker, store: dir.store, delay: delay, relaxed: kill % 10 == 9)
            let last = try Self.verify(store: dir.store, acked: acked)
            #expect(last >= lastSeen, "the store went back from batch \(lastSeen) to \(last)")
            totalBatches += max(0, last - lastSeen)
            lastSeen = last
        }
        print("crash test: \(Self.kills) kills, \(totalBatches) batches committed and verified")
        #expect(totalBatches > Self.kills / 2, "the worker made too little progress to test anything")
    }
}
