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
    /// Upload instead: each round queues a create, an update and a delete, then uploads.
    @Flag var upload = false
    /// First round number (keys of created orders are `U<round>`).
    @Option var roundBase = 0
    /// Uploads one request at a time (`uploadBatching = .never`) instead of in `$batch`.
    @Flag var single = false

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
            var parameters = Self.parameters(path: path, pageSize: pageSize)
            if single { parameters.uploadBatching = .never }
            let provider = try OfflineODataProvider(serviceRoot: service, parameters: parameters)
            try await provider.open()
            say("READY")
            if upload {
                let store = try provider.store
                var round = roundBase
                while true {
                    round += 1
                    _ = try store.execute(.post, "SalesOrders", body: #"{"SalesOrderID":"U\#(round)","BusinessPartnerID":"BP1","LifecycleStatus":"N","CurrencyCode":"USD","GrossAmount":\#(round)}"#)
                    _ = try store.execute(.patch, "SalesOrders('SO\(String(format: "%03d", round % 24 + 1))')", body: #"{"Note":"round \#(round)"}"#)
                    if round - roundBase > 2 { _ = try store.execute(.delete, "SalesOrders('U\(round - 2)')") }
                    say("QUEUED \(round)")
                    try await provider.upload()
                    say("UPLOADED \(round)")
                }
            }
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
