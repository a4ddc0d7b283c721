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
    @Flag(help: "Only re-apply SalesOrders downloads, alternating two versions of the back end (staged-download crash test).")
    var downloads = false
    @Option(help: "downloadBatchBytes of the store (small: every download is staged).") var batchBytes = OfflineStoreParameters.defaultDownloadBatchBytes
    @Flag(help: "Only add, download and remove the defining query Items, over and over (removal crash test).")
    var removals = false
    @Option(help: "removalBatchSize of the store (small: a removal takes many commits).") var removalBatch = 7
    @Flag(help: "With --removals: download the last page of Items twice (a bulk load then stops at the repeated page).")
    var repeatLastPage = false
    @Flag(help: "With --removals: Items is Products?$expand=ToSalesOrderItems (a staged download loads both sets in bulk).")
    var expanded = false
    @Flag(help: "Only replace the stream of Photos(1) of a media model, over and over (media crash test).")
    var media = false

    static let key = [UInt8](repeating: 0x37, count: 32)

    static func parameters(path: String, batchBytes: Int = OfflineStoreParameters.defaultDownloadBatchBytes,
                           removalBatchSize: Int = OfflineStoreParameters.defaultRemovalBatchSize) -> OfflineStoreParameters {
        OfflineStoreParameters(storeName: "crash", storePath: path, encryption: .key(key),
                               definingQueries: [DefiningQuery(name: "BusinessPartners", url: "BusinessPartners"),
                                                 DefiningQuery(name: "SalesOrders", url: "SalesOrders")],
                               durability: .full, keyDerivation: .minimum, downloadBatchBytes: batchBytes,
                               removalBatchSize: removalBatchSize)
    }

    /// The defining query the `--removals` mode adds and removes: SalesOrderItems, which no
    /// other defining query of the worker covers, so removing it removes every item.
    static let items = DefiningQuery(name: "Items", url: "SalesOrderItems")
    /// `--expanded`: the same name for the products with their items expanded (neither set is
    /// covered by another defining query of the worker).
    static let expandedItems = DefiningQuery(name: "Items", url: "Products?$expand=ToSalesOrderItems")

    /// Pages of 10 products, each with every item that names it expanded under
    /// `ToSalesOrderItems` (the generator's JSON, put together).
    static func expandedPages(_ generator: SalesServiceGenerator) throws -> [[UInt8]] {
        let reader = ODataJSONReader(model: try ServiceModel.parse(metadata: Array(generator.metadataXML().utf8)))
        var itemsOf: [String: [[UInt8]]] = [:]
        for index in 0..<generator.count(of: .salesOrderItems) {
            guard let body = generator.entityProperties(set: .salesOrderItems, index: index) else { continue }
            guard case .string(let product)? = try reader.readEntity(body, entitySet: "SalesOrderItems")[property: "ProductID"] else { continue }
            itemsOf[product, default: []].append(body)
        }
        var pages: [[UInt8]] = []
        let products = generator.count(of: .products)
        for start in stride(from: 0, to: products, by: 10) {
            var page = Array(#"{"value":["#.utf8)
            for index in start..<min(products, start + 10) {
                guard var body = generator.entityProperties(set: .products, index: index) else { continue }
                if index > start { page.append(UInt8(ascii: ",")) }
                let product = try reader.readEntity(body, entitySet: "Products")
                guard case .string(let id)? = product[property: "ProductID"] else { continue }
                body.removeLast()
                page += body + Array(#","ToSalesOrderItems":["#.utf8)
                for (n, item) in (itemsOf[id] ?? []).enumerated() {
                    if n > 0 { page.append(UInt8(ascii: ",")) }
                    page += item
                }
                page += Array("]}".utf8)
            }
            pages.append(page + Array("]}".utf8))
        }
        return pages
    }

    /// The two versions of the back end the `--downloads` mode alternates: version 0 is the
    /// generator with seed 7 (every order), version 1 seed 8 without the last page (so a
    /// download also removes orders).
    static func downloadPages(version: Int, orders: Int) throws -> [[UInt8]] {
        let generator = SalesServiceGenerator(seed: version == 0 ? 7 : 8, scale: .entities(salesOrders: orders))
        let count = try generator.pageCount(of: .salesOrders, pageSize: 25)
        return try (0..<(version == 0 ? count : max(1, count - 1))).map { try generator.page(set: .salesOrders, index: $0, pageSize: 25) }
    }

    func run() async throws {
        if media { try await mediaForever() }
        let generator = SalesServiceGenerator(seed: 7, scale: .entities(salesOrders: orders))
        let store: OfflineStore
        do {
            store = try await OfflineStore.open(metadata: Array(generator.metadataXML().utf8),
                                                parameters: Self.parameters(path: path, batchBytes: batchBytes,
                                                                            removalBatchSize: removalBatch))
        } catch {
            reportAndExit(error)
        }
        do {
            if try store.stats().entityCounts["SalesOrders", default: 0] == 0 {
                try await store.applyDownload(definingQuery: "BusinessPartners", pages: try pages(generator, .businessPartners))
                try await store.applyDownload(definingQuery: "SalesOrders", pages: try pages(generator, .salesOrders))
            }
            if downloads { try await downloadForever(store) }
            if removals { try await removeForever(store, generator) }
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

    /// `--downloads`: one local change (kept pending across every download), then downloads of
    /// alternating back-end versions until killed:
    ///
    ///     READY
    ///     START <n> <version>
    ///     DONE <n> <version>
    func downloadForever(_ store: OfflineStore) async throws -> Never {
        let pending = String(format: "05%08d", 3)
        if try store.service.requestQueue().isEmpty {
            _ = try store.execute(.patch, "SalesOrders('\(pending)')", body: #"{"Note":"local"}"#)
        }
        let versions = [try Self.downloadPages(version: 0, orders: orders), try Self.downloadPages(version: 1, orders: orders)]
        print("READY")
        fflush(nil)
        var n = 0
        while true {
            let version = Int((seed &+ UInt64(n)) % 2)
            print("START \(n) \(version)")
            fflush(nil)
            try await store.applyDownload(definingQuery: "SalesOrders", pages: versions[version])
            print("DONE \(n) \(version)")
            fflush(nil)
            n += 1
        }
    }

    /// `--removals`: adds the defining query Items, applies its download (one commit) and
    /// removes it (a commit that unregisters it, then commits of `--removal-batch` members)
    /// until killed:
    ///
    ///     READY
    ///     ADDING <n>
    ///     ADDED <n>
    ///     REMOVING <n>
    ///     REMOVED <n>
    ///
    /// ADDING comes before the first commit of a round, so after REMOVED the query is surely
    /// gone. A kill between `addDefiningQuery` and the download's commit leaves the query
    /// registered without entities; the next worker then only downloads it.
    func removeForever(_ store: OfflineStore, _ generator: SalesServiceGenerator) async throws -> Never {
        var items = expanded ? try Self.expandedPages(generator) : try pages(generator, .salesOrderItems)
        if repeatLastPage, let last = items.last { items.append(last) }
        let query = expanded ? Self.expandedItems : Self.items
        print("READY")
        fflush(nil)
        var n = 0
        while true {
            print("ADDING \(n)")
            fflush(nil)
            if try !store.definingQueries().contains(where: { $0.name == query.name }) {
                try store.addDefiningQuery(query)
            }
            try await store.applyDownload(definingQuery: query.name, pages: items)
            print("ADDED \(n)")
            fflush(nil)
            print("REMOVING \(n)")
            fflush(nil)
            try store.removeDefiningQuery(named: query.name)
            print("REMOVED \(n)")
            fflush(nil)
            n += 1
        }
    }

    func pages(_ generator: SalesServiceGenerator, _ set: SalesEntitySet) throws -> [[UInt8]] {
        let count = try generator.pageCount(of: set, pageSize: 25)
        return try (0..<count).map { try generator.page(set: set, index: $0, pageSize: 25) }
    }
}

// MARK: media crash test

extension StoreCrashWorkerCommand {
    /// Replaces the stream of Photos(1) with versions `seed`×1000 + 1, + 2, … (content type
    /// `application/x-v<n>`), printing `ACK <n>` after each write returned. Until killed.
    func mediaForever() async throws -> Never {
        let parameters = OfflineStoreParameters(storeName: "media", storePath: path, encryption: .key(Self.key), durability: .full,
                                                keyDerivation: .minimum)
        let store: OfflineStore
        do {
            store = try await OfflineStore.open(metadata: MediaFixtures.photosMetadata, parameters: parameters)
            if (try? store.execute(.get, "Photos(1)"))?.status != 200 { _ = try store.execute(.post, "Photos", body: #"{"ID":1}"#) }
        } catch {
            reportAndExit(error)
        }
        // Each run starts its own series (`--seed` × 1000), so the three sizes all get killed midway.
        var version = Int(seed % 1_000_000) * 1000
        print("READY")
        fflush(nil)
        while true {
            version += 1
            let bytes = MediaFixtures.version(version)
            let pieces = AsyncStream<[UInt8]> { continuation in
                var offset = 0
                while offset < bytes.count {
                    continuation.yield(Array(bytes[offset..<min(offset + 64 << 10, bytes.count)]))
                    offset += 64 << 10
                }
                continuation.finish()
            }
            do {
                try await store.writeMedia(set: "Photos", key: [.int32(1)], contentType: "application/x-v\(version)", from: pieces)
            } catch {
                reportAndExit(error)
            }
            print("ACK \(version)")
            fflush(nil)
        }
    }
}
