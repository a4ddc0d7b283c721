import ArgumentParser
import Foundation
import OfflineODataEngine

/// Used by the crash tests: commits numbered batches forever and prints `ACK n` after each
/// commit returns. The parent kills it with SIGKILL and checks what survived.
struct CrashWorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crash-worker", abstract: "Commit batches until killed (crash tests).", shouldDisplay: false)

    @Argument var path: String
    @Option var seed: UInt64 = 1
    @Option(help: "Records per batch.") var batchSize = 20
    @Option(help: "Compact after every this many batches (0 = never).") var compactEvery = 25
    @Option(help: "Stop after this many batches (0 = never).") var maxBatches = 0
    @Flag var unencrypted = false
    @Flag var relaxed = false

    func run() throws {
        var options = EngineOptions(encryption: unencrypted ? .unencrypted : .passphrase("crash-test"))
        options.keyDerivation = .minimum
        options.memTableSize = 32 << 10
        options.blockSize = 1024
        options.durability = relaxed ? .relaxed : .full
        let db: StorageEngine
        do {
            db = try StorageEngine.open(path: path, options: options)
        } catch {
            reportAndExit(error)
        }
        do {
            let tree = try db.tree("crash")
            let meta = try db.tree("meta")
            var next = 0
            if let v = try db.get(Array("last".utf8), in: meta) { next = (Int(String(decoding: v, as: UTF8.self)) ?? -1) + 1 }
            var rng = SystemRandomNumberGenerator()
            while maxBatches == 0 || next < maxBatches {
                try db.write { b in
                    for j in 0..<batchSize {
                        let size = Int(rng.next() % 300) + 1
                        b.put(Array("b\(next)-\(j)".utf8), [UInt8](repeating: UInt8(truncatingIfNeeded: next &+ j), count: size), in: tree)
                    }
                    // Superseded data gives compaction something to drop.
                    if next > 0 { b.delete(Array("b\(next - 1)-0".utf8), in: tree) }
                    b.put(Array("last".utf8), Array(String(next).utf8), in: meta)
                }
                print("ACK \(next)")
                fflush(nil)
                if compactEvery > 0 && next % compactEvery == compactEvery - 1 { try db.compactNow() }
                next += 1
            }
            try db.close()
        } catch {
            reportAndExit(error)
        }
    }
}
