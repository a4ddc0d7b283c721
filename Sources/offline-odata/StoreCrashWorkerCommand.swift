import ArgumentParser
import Foundation
import OfflineODataEngine
import OfflineODataFixtures
import OfflineODataModel
import OfflineODataStore

/// Used by the store-level crash test: opens an offline store of the generated sales service
/// (downloading it on first open), then makes local changes and re-applies downloads until it
/// is killed, printing one line per acknowledged (durably committed) operation:
///
///     READY
///     ACK <requestID> PATCH <orderID> <note>
///     ACK <requestID> POST <orderID>
///     ACK <requestID> DELETE <orderID>
///     DL <round>
///
/// The parent kills it with SIGKILL at a random instant and checks that data and request queue
/// agree after reopening (Tests/OfflineODataStoreTests/Crash/StoreCrashTests.swift).
struct StoreCrashWorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store-crash-worker", abstract: "Change an offline store until killed (crash tests).", shouldDisplay: false)

    @Argument var path: String
    @Option var seed: UInt64 = 1
    @Option(help: "Sales orders in the generated service.") var orders = 60

    static let key = [UInt8](repeating: 0x37, count: 32)

    static func parameters(path: String) -> OfflineStoreParameters {
        OfflineStoreParameters(storeName: "crash", storePath: path, encryption: .key(key),
                               definingQueries: [DefiningQuery(name: "BusinessPartners", url: "BusinessPartners"),
                                                 DefiningQuery(name: "SalesOrders", url: "SalesOrders")],
                               durability: .full, keyDerivation: .minimum)
    }

    func run() async throws {
        let generator = SalesServiceGenerator(seed: 7, scale: .entities(salesOrders: orders))
        let store: OfflineStore
        do {
            store = try await OfflineStore.open(metadata: Array(generator.metadataXML().utf8), parameters: Self.parameters(path: path))
        } catch {
            reportAndExit(error)
        }
        do {
            if try store.stats().entityCounts["SalesOrders", default: 0] == 0 {
                try await store.applyDownload(definingQuery: "BusinessPartners", pages: try pages(generator, .businessPartners))
                try await store.applyDownload(definingQuery: "SalesOrders", pages: try pages(generator, .salesOrders))
            }
            print("READY")
            fflush(nil)
            var rng = SplitMix64(state: seed)
            var created: [String] = []
            var step = 0
            while true {
                step += 1
                let choice = rng.next() % 10
                if choice < 6 {
                    let id = String(format: "05%08d", Int(rng.next() % UInt64(orders)))
                    let note = "crash \(seed)-\(step)"
                    let response = try store.execute(.patch, "SalesOrders('\(id)')", body: #"{"Note":"\#(note)"}"#)
                    if let requestID = response.requestID { print("ACK \(requestID) PATCH \(id) \(note)") }
                } else if choice < 8 {
                    let id = String(format: "CR%08d", step)
                    let body = #"{"SalesOrderID":"\#(id)","CustomerID":"0100000000","CustomerName":"Crash","CurrencyCode":"EUR","GrossAmount":1,"NetAmount":1,"TaxAmount":0,"LifecycleStatus":"N","BillingStatus":"N","DeliveryStatus":"N","CreatedAt":"2026-01-01T00:00:00Z","ChangedAt":"2026-01-01T00:00:00Z","DeliveryDate":"2026-02-01"}"#
                    let response = try store.execute(.post, "SalesOrders", body: body)
                    if let requestID = response.requestID { print("ACK \(requestID) POST \(id)"); created.append(id) }
                } else if choice < 9, let id = created.popLast() {
                    let response = try store.execute(.delete, "SalesOrders('\(id)')")
                    if let requestID = response.requestID { print("ACK \(requestID) DELETE \(id)") }
                } else {
                    let fresh = SalesServiceGenerator(seed: 7 + rng.next() % 3, scale: .entities(salesOrders: orders))
                    try await store.applyDownload(definingQuery: "SalesOrders", pages: try pages(fresh, .salesOrders))
                    print("DL \(step)")
                }
                fflush(nil)
            }
        } catch {
            reportAndExit(error)
        }
    }

    func pages(_ generator: SalesServiceGenerator, _ set: SalesEntitySet) throws -> [[UInt8]] {
        let count = try generator.pageCount(of: set, pageSize: 25)
        return try (0..<count).map { try generator.page(set: set, index: $0, pageSize: 25) }
    }
}
