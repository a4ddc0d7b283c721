import Foundation
import OfflineODataEngine
import OfflineODataFixtures
import OfflineODataModel
import Testing
@testable import OfflineODataStore

/// A temp directory for store folders; removed by `cleanup`.
struct OfflineTempDir {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.path + "/oostore-\(UUID().uuidString)"
    }

    func cleanup() { try? FileManager.default.removeItem(atPath: path) }
}

enum OfflineFixtures {
    static let sales = SalesServiceGenerator(seed: 7, scale: .small)
    static let salesNext = SalesServiceGenerator(seed: 8, scale: .small)
    static let metadata = Array(sales.metadataXML().utf8)

    /// Fast test parameters: unencrypted unless given, relaxed durability, small cache.
    static func parameters(_ dir: OfflineTempDir, name: String = "localstore", encryption: StoreEncryption = .unencrypted,
                           pageSize: Int? = nil, definingQueries: [DefiningQuery] = [],
                           downloadBatchBytes: Int = 4 << 20, downloadReaders: Int? = nil) -> OfflineStoreParameters {
        OfflineStoreParameters(storeName: name, storePath: dir.path, encryption: encryption, pageSize: pageSize,
                               definingQueries: definingQueries, durability: .relaxed, cacheSize: 1 << 20,
                               keyDerivation: .minimum, downloadBatchBytes: downloadBatchBytes, downloadReaders: downloadReaders)
    }

    /// Every page of a generated set (relative next links, server ETags).
    static func pages(_ set: SalesEntitySet, from generator: SalesServiceGenerator = sales, pageSize: Int = 100,
                      range: Range<Int>? = nil) throws -> [[UInt8]] {
        let count = try generator.pageCount(of: set, pageSize: pageSize)
        return try (range ?? 0..<count).map { index in
            try generator.page(set: set, index: index, pageSize: pageSize, options: PageOptions(includeETags: true))
        }
    }

    /// A store with the sales model, the defining queries `Partners` (`BusinessPartners`, the
    /// orders' customers) and `Orders` (`SalesOrders`) downloaded.
    static func loaded(_ dir: OfflineTempDir, pageSize: Int? = nil) async throws -> OfflineStore {
        let store = try await OfflineStore.open(metadata: metadata, parameters: parameters(
            dir, pageSize: pageSize, definingQueries: [DefiningQuery(name: "Orders", url: "SalesOrders")]))
        try await downloadPartners(store)
        try await store.applyDownload(definingQuery: "Orders", pages: try pages(.salesOrders))
        return store
    }

    static func downloadPartners(_ store: OfflineStore) async throws {
        try store.addDefiningQuery(DefiningQuery(name: "Partners", url: "BusinessPartners"))
        try await store.applyDownload(definingQuery: "Partners", pages: try pages(.businessPartners))
    }
}

/// Expects `body` to throw an `ODataError` with this name and code.
func expectStoreErrorAsync(_ name: String, _ code: Int, sourceLocation: SourceLocation = #_sourceLocation,
                           _ body: () async throws -> Void) async {
    do {
        try await body()
        Issue.record("expected \(name) (\(code)), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as ODataError {
        #expect(error.name == name && error.code == code, "got \(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(name) (\(code)), got \(error)", sourceLocation: sourceLocation)
    }
}

extension ODataResponse {
    /// The body parsed as JSON (nil when there is none).
    func json() throws -> JSONValue? {
        guard let body else { return nil }
        return try JSONReader.parse(body)
    }
}

extension OfflineStore {
    func count(_ url: String) throws -> Int {
        guard case .count(let n) = try query(url).payload else { return -1 }
        return n
    }
}
