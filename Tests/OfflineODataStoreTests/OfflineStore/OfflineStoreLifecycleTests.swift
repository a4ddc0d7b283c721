import Foundation
import OfflineODataEngine
import OfflineODataFixtures
import OfflineODataModel
import Testing
@testable import OfflineODataStore

@Suite struct OfflineStoreLifecycleTests {
    @Test("open, write, close, reopen keeps the data; clear removes the folder; a cleared store reopens empty")
    func openCloseReopenClear() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let parameters = OfflineFixtures.parameters(dir)
        let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: parameters)
        #expect(store.folder.hasSuffix("/localstore.oostore"))
        #expect(FileManager.default.fileExists(atPath: store.folder))
        let created = try store.execute(.post, "BusinessPartners", body: #"{"BusinessPartnerID":"BP1","CompanyName":"Acme","EmailAddress":"a@b.c","CurrencyCode":"EUR","BusinessPartnerRole":"01","Address":{"City":"X","PostalCode":"1","Street":"S","Building":"1","Country":"DE","AddressType":"02"},"CreatedAt":"2024-01-01T00:00:00Z"}"#)
        #expect(created.status == 201)
        try store.close()
        expectStoreError("storeClosed", 3252) { _ = try store.query("BusinessPartners") }
        expectStoreError("storeClosed", 3252) { try store.close() }

        let again = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: parameters)
        #expect(try again.count("BusinessPartners/$count") == 1)
        #expect(try again.stats().entityCounts["BusinessPartners"] == 1)
        #expect(try again.stats().queuedRequests == 1)
        expectStoreError("storeIsOpen", 3251) { try OfflineStore.clear(storePath: dir.path) }
        try again.close()
        try OfflineStore.clear(storePath: dir.path)
        #expect(!FileManager.default.fileExists(atPath: again.folder))
        try OfflineStore.clear(storePath: dir.path)  // nothing left: not an error

        let fresh = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: parameters)
        #expect(try fresh.count("BusinessPartners/$count") == 0)
        try fresh.close()
    }

    @Test("two stores in one process are isolated; the same store twice is refused; bad names are refused")
    func isolationAndRegistry() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let a = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: OfflineFixtures.parameters(dir, name: "a"))
        let b = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: OfflineFixtures.parameters(dir, name: "b"))
        try a.addDefiningQuery(DefiningQuery(name: "Orders", url: "SalesOrders"))
        try await a.applyDownload(definingQuery: "Orders", pages: try OfflineFixtures.pages(.salesOrders, range: 0..<1))
        #expect(try a.count("SalesOrders/$count") == 100)
        #expect(try b.count("SalesOrders/$count") == 0)
        #expect(try b.definingQueries().isEmpty)
        // The same folder, spelled differently, is the same store.
        await expectStoreErrorAsync("storeAlreadyOpen", 3250) {
            _ = try await OfflineStore.open(metadata: OfflineFixtures.metadata,
                                            parameters: OfflineFixtures.parameters(OfflineTempDir(path: dir.path + "/./"), name: "a"))
        }
        await expectStoreErrorAsync("invalidStoreParameter", 3253) {
            _ = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: OfflineFixtures.parameters(dir, name: "../x"))
        }
        await expectStoreErrorAsync("invalidStoreParameter", 3253) {
            _ = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: OfflineFixtures.parameters(dir, pageSize: 0))
        }
        await expectStoreErrorAsync("invalidStoreParameter", 3253) {
            var parameters = OfflineFixtures.parameters(dir)
            parameters.removalBatchSize = 0
            _ = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: parameters)
        }
        for readers in [-1, 65] {
            await expectStoreErrorAsync("invalidStoreParameter", 3253) {
                var parameters = OfflineFixtures.parameters(dir)
                parameters.downloadReaders = readers
                _ = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: parameters)
            }
        }
        try a.close()
        try b.close()
        // After close, the folder can be opened again.
        let reopened = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: OfflineFixtures.parameters(dir, name: "a"))
        #expect(try reopened.count("SalesOrders/$count") == 100)
        try reopened.close()
    }

    @Test("wrong passphrase, wrong key and a short key are typed errors")
    func wrongKeys() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata,
                                                parameters: OfflineFixtures.parameters(dir, name: "p", encryption: .passphrase("right")))
        try store.close()
        await expectStoreErrorAsync("wrongEncryptionKey", 3254) {
            _ = try await OfflineStore.open(metadata: OfflineFixtures.metadata,
                                            parameters: OfflineFixtures.parameters(dir, name: "p", encryption: .passphrase("wrong")))
        }
        let reopened = try await OfflineStore.open(metadata: OfflineFixtures.metadata,
                                                   parameters: OfflineFixtures.parameters(dir, name: "p", encryption: .passphrase("right")))
        try reopened.close()

        let key = [UInt8](repeating: 7, count: 32)
        let keyed = try await OfflineStore.open(metadata: OfflineFixtures.metadata,
                                                parameters: OfflineFixtures.parameters(dir, name: "k", encryption: .key(key)))
        try keyed.close()
        await expectStoreErrorAsync("wrongEncryptionKey", 3254) {
            _ = try await OfflineStore.open(metadata: OfflineFixtures.metadata,
                                            parameters: OfflineFixtures.parameters(dir, name: "k", encryption: .key([UInt8](repeating: 8, count: 32))))
        }
        await expectStoreErrorAsync("invalidStoreParameter", 3253) {
            _ = try await OfflineStore.open(metadata: OfflineFixtures.metadata,
                                            parameters: OfflineFixtures.parameters(dir, name: "k", encryption: .key([1, 2, 3])))
        }
        // A failed open leaves the folder free.
        let ok = try await OfflineStore.open(metadata: OfflineFixtures.metadata,
                                             parameters: OfflineFixtures.parameters(dir, name: "k", encryption: .key(key)))
        try ok.close()
    }

    @Test("the key store's default key is generated once (32 bytes), reused, and a lost key does not open the store")
    func keyStore() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let keys = InMemoryStoreKeyStore()
        let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata,
                                                parameters: OfflineFixtures.parameters(dir, encryption: .keyStore(keys)))
        #expect(keys.storeNames == [store.folder])
        let key = try #require(try keys.key(forStore: store.folder))
        #expect(key.count == 32 && Set(key).count > 1)
        try store.close()
        let again = try await OfflineStore.open(metadata: OfflineFixtures.metadata,
                                                parameters: OfflineFixtures.parameters(dir, encryption: .keyStore(keys)))
        #expect(try keys.key(forStore: again.folder) == key)
        try again.close()
        await expectStoreErrorAsync("wrongEncryptionKey", 3254) {
            _ = try await OfflineStore.open(metadata: OfflineFixtures.metadata,
                                            parameters: OfflineFixtures.parameters(dir, encryption: .keyStore(InMemoryStoreKeyStore())))
        }
        // The raw key works too, and the files are not readable without it.
        let raw = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: OfflineFixtures.parameters(dir, encryption: .key(key)))
        try raw.close()
        await expectStoreErrorAsync("wrongEncryptionKey", 3254) {
            _ = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: OfflineFixtures.parameters(dir, encryption: .unencrypted))
        }
    }

    @Test("states: the current state first, downloading around applyDownload, closed ends the stream")
    func states() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineStore.open(metadata: OfflineFixtures.metadata, parameters: OfflineFixtures.parameters(
            dir, definingQueries: [DefiningQuery(name: "Orders", url: "SalesOrders")]))
        let stream = store.states
        let collector = Task { () -> [OfflineStoreState] in
            var seen: [OfflineStoreState] = []
            for await state in stream { seen.append(state) }
            return seen
        }
        try await store.applyDownload(definingQuery: "Orders", pages: try OfflineFixtures.pages(.salesOrders, range: 0..<1))
        try store.close()
        #expect(await collector.value == [.open, .downloading, .open, .closed])
        // A stream asked for after close yields closed and ends.
        var late: [OfflineStoreState] = []
        for await state in store.states { late.append(state) }
        #expect(late == [.closed])
    }

    @Test("metadata: an additive change reopens, a retyped property or a removed set with data is refused")
    func metadataChanges() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let store = try await OfflineFixtures.loaded(dir)
        try store.close()
        let xml = OfflineFixtures.sales.metadataXML()
        let additive = xml.replacingOccurrences(of: #"<Property Name="Note""#,
                                                with: #"<Property Name="Extra" Type="Edm.String" Nullable="true"/><Property Name="Note""#)
        #expect(additive != xml)
        let more = try await OfflineStore.open(metadata: Array(additive.utf8), parameters: OfflineFixtures.parameters(dir))
        #expect(try more.count("SalesOrders/$count?$filter=Extra eq null") == 500)
        try more.close()
        let retyped = additive.replacingOccurrences(of: #"<Property Name="Note" Type="Edm.String""#,
                                                    with: #"<Property Name="Note" Type="Edm.Int32""#)
        #expect(retyped != additive)
        await expectStoreErrorAsync("incompatibleStoreMetadata", 3258) {
            _ = try await OfflineStore.open(metadata: Array(retyped.utf8), parameters: OfflineFixtures.parameters(dir))
        }
        let removed = additive.replacingOccurrences(of: #"<EntitySet Name="SalesOrders""#, with: #"<EntitySet Name="OtherOrders""#)
            .replacingOccurrences(of: #"Target="SalesOrders""#, with: #"Target="OtherOrders""#)
        #expect(removed != additive)
        await expectStoreErrorAsync("incompatibleStoreMetadata", 3258) {
            _ = try await OfflineStore.open(metadata: Array(removed.utf8), parameters: OfflineFixtures.parameters(dir))
        }
        await expectStoreErrorAsync("invalidMetadata", 3257) {
            _ = try await OfflineStore.open(metadata: Array("<nope".utf8), parameters: OfflineFixtures.parameters(dir))
        }
        let back = try await OfflineStore.open(metadata: Array(additive.utf8), parameters: OfflineFixtures.parameters(dir))
        try back.close()
    }

    @Test("two stores of one model whose stored layouts differ (one made before a property was added before the foreign key) each navigate by their own layout, opened in turn in one process")
    func storesOfOneModelWithOtherLayoutsNavigateByTheirOwn() async throws {
        let older = OfflineTempDir(), newer = OfflineTempDir()
        defer {
            older.cleanup()
            newer.cleanup()
        }
        try await OfflineFixtures.loaded(older).close()
        let xml = OfflineFixtures.sales.metadataXML()
        let additive = Array(xml.replacingOccurrences(of: #"<Property Name="Note""#,
                                                      with: #"<Property Name="Extra" Type="Edm.String" Nullable="true"/><Property Name="Note""#).utf8)
        // Made with the new model: `Extra` comes before `Note` and `CustomerID` in its layout; the
        // older store keeps its order and has `Extra` at the end. The navigation to the customer
        // is planned from the column of `CustomerID`, which differs between the two.
        do {
            let store = try await OfflineStore.open(metadata: additive, parameters: OfflineFixtures.parameters(
                newer, definingQueries: [DefiningQuery(name: "Orders", url: "SalesOrders")]))
            try await OfflineFixtures.downloadPartners(store)
            try await store.applyDownload(definingQuery: "Orders", pages: try OfflineFixtures.pages(.salesOrders))
            try store.close()
        }
        for round in 0..<3 {
            for dir in [older, newer, older] {
                let store = try await OfflineStore.open(metadata: additive, parameters: OfflineFixtures.parameters(dir))
                for index in [3, 7, 11] {
                    let id = OfflineFixtures.sales.salesOrderID(index)
                    let order = try #require(try store.query("SalesOrders('\(id)')").entities.first)
                    let customerID = try #require(order[property: "CustomerID"])
                    let customers = try store.query("SalesOrders('\(id)')/ToCustomer").entities
                    #expect(customers.count == 1, "round \(round), order \(id)")
                    #expect(customers.first?[property: "BusinessPartnerID"] == customerID, "round \(round), order \(id) in \(dir.path)")
                }
                try store.close()
            }
        }
    }

    @Test("the stored metadata's digest is written with it: a store without one gains it, changed metadata rewrites both, other bytes are still checked against the stored document")
    func metadataDigest() async throws {
        let dir = OfflineTempDir()
        defer { dir.cleanup() }
        let xml = OfflineFixtures.sales.metadataXML()
        let original = Array(xml.utf8)
        func stored(_ store: OfflineStore) throws -> (document: [UInt8]?, digest: [UInt8]?) {
            let reader = try store.storage.reader()
            let document = try reader.systemValue(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.metadataKey)
            return (document.map { Array($0.dropFirst()) },
                    try reader.systemValue(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.metadataDigestKey))
        }
        var store = try await OfflineFixtures.loaded(dir)
        #expect(try stored(store).document == original)
        #expect(try stored(store).digest == ContentDigest.blake2b256(original))
        #expect(ContentDigest.blake2b256(original).count == 32 && ContentDigest.blake2b256(original) != ContentDigest.blake2b256([]))
        // A store written before the digest existed: it reads the document and gains the digest.
        try store.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
            try batch.deleteSystem(tree: OfflineStoreFormat.storeTree, key: OfflineStoreFormat.metadataDigestKey)
        }
        try store.close()
        store = try await OfflineStore.open(metadata: original, parameters: OfflineFixtures.parameters(dir))
        #expect(try stored(store).digest == ContentDigest.blake2b256(original))
        try store.close()
        // Changed metadata: the document and its digest are rewritten together.
        let additive = Array(xml.replacingOccurrences(of: #"<Property Name="Note""#,
                                                      with: #"<Property Name="Extra" Type="Edm.String" Nullable="true"/><Property Name="Note""#).utf8)
        store = try await OfflineStore.open(metadata: additive, parameters: OfflineFixtures.parameters(dir))
        #expect(try stored(store).document == additive)
        #expect(try stored(store).digest == ContentDigest.blake2b256(additive))
        #expect(try store.count("SalesOrders/$count?$filter=Extra eq null") == 500)
        // Other bytes never pass for the stored ones: a retyped property is checked against the
        // stored document and refused, which stays as it was.
        try store.close()
        let retyped = Array(String(decoding: additive, as: UTF8.self).replacingOccurrences(
            of: #"<Property Name="Note" Type="Edm.String""#, with: #"<Property Name="Note" Type="Edm.Int32""#).utf8)
        await expectStoreErrorAsync("incompatibleStoreMetadata", 3258) {
            _ = try await OfflineStore.open(metadata: retyped, parameters: OfflineFixtures.parameters(dir))
        }
        store = try await OfflineStore.open(metadata: additive, parameters: OfflineFixtures.parameters(dir))
        #expect(try stored(store).document == additive)
        #expect(try stored(store).digest == ContentDigest.blake2b256(additive))
        #expect(try store.count("SalesOrders/$count?$filter=Extra eq null") == 500)
        try store.close()
    }

    /// Opens keep the models of the last documents they parsed (`OfflineStore.parsedModel`):
    /// the model must always be the one of the bytes given, whatever was parsed before, and bad
    /// bytes stay an error (not a kept model).
    @Test("a reopen takes the model parsed from the same metadata bytes, and only from those")
    func parsedModelsMatchTheirBytes() throws {
        let xml = OfflineFixtures.sales.metadataXML()
        func with(_ extra: String) -> [UInt8] {
            Array(xml.replacingOccurrences(of: #"<Property Name="Note""#,
                                           with: #"<Property Name="\#(extra)" Type="Edm.String" Nullable="true"/><Property Name="Note""#).utf8)
        }
        func properties(_ model: ServiceModel) -> [String] {
            (model.entityType(ofSet: "SalesOrders")?.properties.map(\.name) ?? []).filter { $0.hasPrefix("Extra") }
        }
        let documents = (0..<(OfflineStore.parsedModelsKept + 2)).map { with("Extra\($0)") }
        // Same length, one byte apart: a match by size (or a prefix) would take the wrong model.
        #expect(documents[0].count == documents[1].count)
        for round in 0..<2 {
            for (i, document) in documents.enumerated() {
                let model = try OfflineStore.parsedModel(document)
                #expect(properties(model) == ["Extra\(i)"], "round \(round), document \(i)")
                // A copy in another buffer is the same document.
                #expect(properties(try OfflineStore.parsedModel(Array(document[...]))) == ["Extra\(i)"])
                #expect(model.entitySet(named: "RequestQueue") != nil, "the system sets are added")
            }
        }
        var bad = documents[0]
        bad[bad.count / 2] = UInt8(ascii: "<")
        #expect(throws: ODataError.self) { _ = try OfflineStore.parsedModel(bad) }
        #expect(properties(try OfflineStore.parsedModel(documents[0])) == ["Extra0"])
        #expect(OfflineStore.parsedModelCount <= OfflineStore.parsedModelsKept)
        OfflineStore.forgetParsedMetadata()
        // Other tests open stores at the same time, so only the model's correctness is checked
        // after forgetting (the count may grow again at once).
        #expect(properties(try OfflineStore.parsedModel(documents[1])) == ["Extra1"])
    }
}

extension OfflineTempDir {
    init(path: String) { self.path = path }
}
