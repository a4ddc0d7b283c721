import ArgumentParser
import Foundation
import OfflineODataStore
import OfflineODataSync

/// The child process of the sync crash test (hidden): opens a provider on a live back end
/// (its initial download the first time) and downloads again and again, printing `OPENING`,
/// `READY`, then `START n` / `DONE n` around each download, until the test kills it.
struct SyncCrashWorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sync-crash-worker", shouldDisplay: false)

    @Argument var path: String
    @Option var service: String
    @Option var pageSize = 3

    /// The parameters the test reopens the store with (same key, full durability).
    static func parameters(path: String, pageSize: Int) -> OfflineODataParameters {
        OfflineODataParameters(storePath: path, encryption: .key(Array(repeating: 0x5A, count: 32)), definingQueries: [
            DefiningQuery(name: "Orders", url: "SalesOrders"),
            DefiningQuery(name: "USPartners", url: "BusinessPartners?$filter=Country eq 'US'&$expand=SalesOrders($expand=Items)"),
        ], timeout: 20, pageSize: pageSize, reconcileEvery: 3, durability: .full, keyDerivation: .minimum)
    }

    func run() async throws {
        say("OPENING")
        do {
            let provider = try OfflineODataProvider(serviceRoot: service, parameters: Self.parameters(path: path, pageSize: pageSize))
            try await provider.open()
            say("READY")
            var round = 0
            while true {
                round += 1
                say("START \(round)")
                try await provider.download()
                say("DONE \(round)")
            }
        } catch {
            failAndExit(error)
        }
    }

    /// One line, flushed at once (the parent reads it before the kill).
    func say(_ line: String) {
        print(line)
        fflush(nil)
    }
}
