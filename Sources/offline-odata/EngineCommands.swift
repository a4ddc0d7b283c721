import ArgumentParser
import Foundation
import OfflineODataEngine

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check", abstract: "Verify every checksum, tag, key order and index of a store.")
    @OptionGroup var store: StoreOptions

    func run() throws {
        do {
            let db = try store.open()
            let report = try db.check()
            try db.close()
            print("\(store.location.engineDirectory): \(report)")
            if !report.isClean { throw ExitCode(3) }
        } catch let e as ExitCode {
            throw e
        } catch {
            reportAndExit(error)
        }
    }
}

struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Live and garbage bytes, runs, tree heights and entry counts; entities per set and queue length of an OfflineStore.")
    @OptionGroup var store: StoreOptions
    @Option(help: "The service metadata file of an OfflineStore (default: <store-path>/<name>.metadata.xml).")
    var metadata: String?

    func run() async throws {
        do {
            let db = try store.open()
            print(try db.stats())
            try db.close()
            let location = store.location
            guard location.isOfflineStore, metadata != nil || FileManager.default.fileExists(atPath: location.metadataFile) else { return }
            let offline = try await store.openOfflineStore(metadata: metadata)
            defer { try? offline.close() }
            let stats = try offline.stats()
            print("OfflineStore \(location.storeName): \(stats.entityCounts.values.reduce(0, +)) entities")
            let width = (stats.entityCounts.keys.map(\.count).max() ?? 0) + 2
            for (set, count) in stats.entityCounts.sorted(by: { $0.key < $1.key }) {
                print("  " + set + String(repeating: " ", count: max(1, width - set.count)) + "\(count)")
            }
            print("request queue: \(stats.queuedRequests) request(s); ErrorArchive: \(stats.failedRequests) entr(ies)")
        } catch {
            failAndExit(error)
        }
    }
}

struct CompactCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact", abstract: "Merge everything into one run, dropping superseded data.")
    @OptionGroup var store: StoreOptions

    func run() async throws {
        do {
            let db = try store.open()
            let before = try db.stats()
            let start = Date()
            let bar = ProgressBar(label: "compacting")
            try await db.compact { bar.update($0.fraction) }
            bar.done()
            let after = try db.stats()
            try db.close()
            print("compacted in \(String(format: "%.2f", Date().timeIntervalSince(start))) s: "
                  + "\(before.fileBytes) → \(after.fileBytes) bytes on disk, \(before.runs.count) → \(after.runs.count) runs")
        } catch {
            reportAndExit(error)
        }
    }
}

struct RekeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey", abstract: "Protect the store with a new passphrase or key (no data is rewritten).")
    @OptionGroup var store: StoreOptions
    @Option(help: "The new passphrase (or set OFFLINE_ODATA_NEW_PASSPHRASE).")
    var newPassphrase: String?
    @Option(help: "A file holding the new 32-byte key (binary or 64 hex digits).")
    var newKeyFile: String?

    func run() throws {
        do {
            let target: EngineOptions.Encryption
            if let newKeyFile {
                target = try StoreOptions(path: store.path, keyFile: newKeyFile).encryption()
            } else if let p = newPassphrase ?? ProcessInfo.processInfo.environment["OFFLINE_ODATA_NEW_PASSPHRASE"] {
                target = .passphrase(p)
            } else {
                throw ValidationError("give --new-passphrase, --new-key-file or OFFLINE_ODATA_NEW_PASSPHRASE")
            }
            let db = try store.open()
            try db.rekey(to: target)
            try db.close()
            print("rekeyed \(store.path)")
        } catch let e as ValidationError {
            throw e
        } catch {
            reportAndExit(error)
        }
    }
}

extension StoreOptions {
    init(path: String, keyFile: String) {
        self.init()
        self.path = path
        self.keyFile = keyFile
    }
}

struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump", abstract: "List the records of one log or run file of a store (for debugging).")
    @OptionGroup var store: StoreOptions
    @Argument(help: "A file name inside the store, e.g. log-00000007.oolog or run-00000012.oorun.")
    var file: String
    @Option(help: "At most this many lines.")
    var limit = 1000

    func run() throws {
        do {
            let db = try store.open()
            for line in try EngineDump.describe(db, file: file, limit: limit) { print(line) }
            try db.close()
        } catch {
            reportAndExit(error)
        }
    }
}

/// A one-line progress bar on a terminal; silent when stdout is not a terminal.
final class ProgressBar: @unchecked Sendable {
    private let label: String
    let isEnabled = isatty(STDOUT_FILENO) == 1
    private let lock = NSLock()
    private var last = -1

    init(label: String) { self.label = label }

    func update(_ fraction: Double) {
        guard isEnabled else { return }
        let pct = Int(fraction * 100)
        lock.lock()
        defer { lock.unlock() }
        guard pct != last else { return }
        last = pct
        let filled = pct * 30 / 100
        print("\r\(label) [\(String(repeating: "#", count: filled))\(String(repeating: ".", count: 30 - filled))] \(pct)%",
              terminator: "")
        fflush(nil)
    }

    func done() {
        guard isEnabled else { return }
        print("")
    }
}
