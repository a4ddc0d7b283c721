import Foundation
import Testing
@testable import OfflineODataEngine

/// The writer lock against processes spawned by the embedding app: a child shares every open
/// descriptor between its fork and its exec, so a store closed and reopened at that moment finds
/// its own `flock` still held for an instant. `open` waits that out (`EngineOptions.lockWait`).
@Suite struct EngineLockTests {
    final class StopFlag: @unchecked Sendable {
        private let lock = NSLock()
        private var stopped = false
        var isSet: Bool { lock.withLock { stopped } }
        func set() { lock.withLock { stopped = true } }
    }

    /// Spawns `/bin/true` over and over on another thread while `body` runs.
    func whileSpawning(_ body: () throws -> Void) rethrows {
        let stop = StopFlag()
        let done = DispatchSemaphore(value: 0)
        Thread {
            while !stop.isSet {
                let p = Process()
                p.executableURL = URL(fileURLWithPath: "/bin/true")
                if (try? p.run()) != nil { p.waitUntilExit() }
            }
            done.signal()
        }.start()
        defer {
            stop.set()
            done.wait()
        }
        try body()
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/true"), "needs /bin/true to spawn"))
    func reopeningWhileTheAppSpawnsProcessesNeverReportsALockedStore() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        var options = EngineOptions.quick(.unencrypted)
        options.autoCompaction = false
        try whileSpawning {
            for i in 0..<300 {
                let db = try StorageEngine.open(path: dir.store, options: options)
                let t = try db.tree("t")
                try db.write { $0.put(bytes("k\(i)"), bytes("v"), in: t) }
                try db.close()
            }
        }
        let db = try StorageEngine.open(path: dir.store, options: options)
        #expect(try db.snapshot().count(in: try db.tree("t")) == 300)
        try db.close()
    }

    @Test func aStoreReallyHeldIsReportedAfterTheWait() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let db = try StorageEngine.open(path: dir.store, options: .quick())
        for wait in [Duration.zero, .milliseconds(30)] {
            var o = EngineOptions.quick()
            o.lockWait = wait
            #expect {
                _ = try StorageEngine.open(path: dir.store, options: o)
            } throws: { ($0 as? EngineError)?.kind == .storeLocked }
        }
        var negative = EngineOptions.quick()
        negative.lockWait = .milliseconds(-1)
        #expect { _ = try StorageEngine.open(path: dir.store, options: negative) } throws: { ($0 as? EngineError)?.kind == .invalidArgument }
        try db.close()
    }
}
