import Foundation
import OfflineODataModel
import Testing
@testable import OfflineODataStore

/// Every corpus service with metadata and data: each `<Set>.json` is downloaded as the defining
/// query `<Set>`, counts are queried back, one entity is changed, the store is reopened.
@Suite(.enabled(if: StorageCorpora.available, "../shared/corpora not found: offline store corpus tests skipped"))
struct OfflineStoreCorpusTests {
    @Test("corpus end to end through OfflineStore", arguments: StorageCorpora.folders)
    func endToEnd(_ folder: StorageCorpora.Folder) async throws {
        let metadata = try StorageCorpora.bytes(folder.path + "/metadata.xml")
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let parameters = OfflineFixtures.parameters(dir)
        let store = try await OfflineStore.open(metadata: metadata, parameters: parameters)
        let files = try StorageCorpora.dataFiles(folder, model: store.model)
        #expect(!files.isEmpty)
        let reader = ODataJSONReader(model: store.model, version: folder.version)
        var expected: [(set: String, entities: [ODataEntity])] = []
        for (set, path) in files {
            let bytes = try StorageCorpora.bytes(path)
            let entities = try reader.readCollection(bytes, entitySet: set).entities
            try store.addDefiningQuery(DefiningQuery(name: set, url: set))
            let summary = try await store.applyDownload(definingQuery: set, pages: [bytes])
            #expect(summary.entitiesApplied >= entities.count, "\(folder) \(set)")
            expected.append((set, entities))
        }
        for (set, entities) in expected {
            #expect(try store.count("\(set)/$count") >= Set(try entities.map { try keyOf($0, set, store) }).count, "\(folder) \(set)")
        }
        // Change one entity: the first string property that is not a key.
        guard let (set, key, property) = try changeable(expected, store) else {
            Issue.record("\(folder): no entity with a changeable string property")
            try store.close()
            return
        }
        let typeName = try #require(store.model.entityType(ofSet: set)?.qualifiedName)
        try store.service.update(ODataEntity(typeName: typeName, properties: [ODataProperty(property, .string("x"))]), in: set, key: key)
        try store.close()
        let again = try await OfflineStore.open(metadata: metadata, parameters: parameters)
        defer { try? again.close() }
        let stored = try #require(try again.storage.reader().entity(in: set, key: key))
        #expect(try stored.value(named: property) == .string("x"), "\(folder) \(set)")
        #expect(stored.localState.hasPendingChanges)
        #expect(try again.stats().queuedRequests == 1)
        #expect(try again.count("\(set)/$count?$filter=sap.islocal()") == 1, "\(folder) \(set)")
        for (set, entities) in expected {
            #expect(try again.count("\(set)/$count") >= Set(try entities.map { try keyOf($0, set, again) }).count)
        }
        #expect(try again.definingQueries().map(\.name) == expected.map(\.set).sorted())
    }

    @Test("V2 (GWSAMPLE_BASIC): d.results pages with __metadata.etag; a MERGE survives a re-download")
    func v2Download() async throws {
        let metadata = try StorageCorpora.bytes("gwsample_basic/metadata.xml")
        let text = String(decoding: try StorageCorpora.bytes("gwsample_basic/ProductSet.json"), as: UTF8.self)
        let lines = text.split(separator: "\n").filter { $0.hasPrefix("{\"ProductID\"") }.prefix(3)
        #expect(lines.count == 3)
        func page(_ tag: String) -> [UInt8] {
            let entities = lines.map { line -> String in
                let object = line.hasSuffix(",") ? String(line.dropLast()) : String(line)
                return #"{"__metadata":{"etag":"W/\"\#(tag)\""},"# + object.dropFirst()
            }
            return Array(#"{"d":{"results":["#.utf8) + Array(entities.joined(separator: ",").utf8) + Array("]}}".utf8)
        }
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineStore.open(metadata: metadata, parameters: OfflineFixtures.parameters(
            dir, definingQueries: [DefiningQuery(name: "Products", url: "ProductSet"), DefiningQuery(name: "Partners", url: "BusinessPartnerSet")]))
        defer { try? store.close() }
        try await store.applyDownload(definingQuery: "Partners", pages: [try StorageCorpora.bytes("gwsample_basic/BusinessPartnerSet.json")])
        #expect(try await store.applyDownload(definingQuery: "Products", pages: [page("one")]).entitiesApplied == 3)
        let products = try store.storage.reader().all("ProductSet")
        #expect(products.map(\.etag) == Array(repeating: #"W/"one""#, count: 3))
        let id = try #require(try products.first?.key().first)
        guard case .string(let productID) = id else { return }
        #expect(try store.execute(.merge, "ProductSet('\(productID)')", body: #"{"Name":"Local name"}"#).status == 204)
        let summary = try await store.applyDownload(definingQuery: "Products", pages: [page("two")])
        #expect(summary.pendingChangesKept == 1 && summary.entitiesRemoved == 0)
        let after = try store.storage.reader().all("ProductSet")
        #expect(after.filter { $0.etag == #"W/"two""# }.count == 2)
        let local = try #require(after.first { (try? $0.key()) == [id] })
        #expect(try local.value(named: "Name") == .string("Local name"))
        #expect(try store.service.requestQueue().map(\.method) == ["MERGE"])
    }

    func keyOf(_ entity: ODataEntity, _ set: String, _ store: OfflineStore) throws -> [ODataValue] {
        try store.storage.keyProperties(of: set).map { entity[property: $0] ?? .null }
    }

    func changeable(_ expected: [(set: String, entities: [ODataEntity])], _ store: OfflineStore) throws
        -> (String, [ODataValue], String)? {
        for (set, entities) in expected {
            guard let first = entities.first, let type = store.model.entityType(ofSet: set) else { continue }
            let keys = Set(try store.storage.keyProperties(of: set))
            let property = type.properties.first {
                !keys.contains($0.name) && !$0.type.isCollection && $0.type.primitiveKind == .string
            }
            guard let property else { continue }
            return (set, try keyOf(first, set, store), property.name)
        }
        return nil
    }
}
