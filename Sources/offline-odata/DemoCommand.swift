import ArgumentParser
import Foundation

/// The README's main job (`./scripts/demo.sh`): a tour of the OfflineStore with timings —
/// download, indexes, queries, local changes, the request queue, conflicts, the ErrorArchive,
/// undo, reopen. `--engine` runs the storage engine's own tour instead.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo", abstract: "End-to-end tour of an encrypted offline OData store, with timings.")

    @Option(help: "Sales orders to generate (partners = orders/10, products = orders/5, items ≈ 4 per order).")
    var orders = 2_000

    @Option(help: "Server-driven page size of the store (and of the generated download pages).")
    var pageSize = 500

    @Option(help: "Directory for the store (default: a fresh temporary directory, removed afterwards).")
    var path: String?

    @Option(help: "Generator seed.")
    var seed: UInt64 = 42

    @Flag(help: "Run the storage engine's tour instead (records, snapshots, compaction, rekey).")
    var engine = false

    @Option(help: "With --engine: how many records to write.")
    var records = 100_000

    @Option(help: "A live OData service (our test model, as scripts/demo.sh starts it) for the sync part of the tour.")
    var service: String?

    @Option(help: "Why there is no live service (printed as the one line that says the sync part is skipped).")
    var noServiceReason: String?

    func validate() throws {
        guard orders >= 1, orders <= 4_000_000 else { throw ValidationError("--orders must be in 1...4000000") }
        guard pageSize >= 1 else { throw ValidationError("--page-size must be at least 1") }
        guard records >= 1 else { throw ValidationError("--records must be at least 1") }
    }

    func run() async throws {
        if engine {
            var arguments = ["--records", String(records), "--seed", String(seed)]
            if let path { arguments += ["--path", path] }
            try EngineDemoCommand.parse(arguments).run()
            return
        }
        do {
            if let service {
                try await SyncTour(serviceRoot: service.hasSuffix("/") ? service : service + "/", path: path.map { $0 + "/sync" }).run()
            } else {
                print("== Sync with a live back end skipped: \(noServiceReason ?? "no --service given"); the local tour follows.")
                print()
            }
            try await StoreTour(orders: orders, pageSize: pageSize, path: path, seed: seed).run()
        } catch {
            failAndExit(error)
        }
    }
}
