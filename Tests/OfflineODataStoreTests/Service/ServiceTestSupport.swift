import Foundation
import OfflineODataFixtures
import OfflineODataModel
import Testing
@testable import OfflineODataStore

/// The generated sales service (.tiny) loaded through `EntityStorage.apply`, with the local
/// service on top.
final class ServiceHarness {
    let model: ServiceModel
    let storage: StorageHarness
    var service: LocalService

    init(individual: Bool = false, load: Bool = true) throws {
        model = try StorageFixtures.salesModel().withOfflineSystemSets()
        storage = try StorageHarness(model: model, label: "service")
        if load {
            for set in SalesEntitySet.allCases {
                let base = try StorageFixtures.salesModel()
                // Downloaded entities carry the back end's ETags.
                let entities = try StorageFixtures.salesEntities(set, model: base).enumerated().map { i, e in
                    var copy = e
                    copy.control.etag = "W/\"srv-\(set.name)-\(i)\""
                    return copy
                }
                try storage.storage.apply(entities: entities, to: set.name)
            }
        }
        service = try LocalService(storage: storage.storage, individualErrorArchiveDeletion: individual, now: { 1_700_000_000 })
    }

    /// A harness over any model (with the built-in sets added).
    init(model base: ServiceModel, individual: Bool = false) throws {
        model = try base.withOfflineSystemSets()
        storage = try StorageHarness(model: model, label: "service")
        service = try LocalService(storage: storage.storage, individualErrorArchiveDeletion: individual, now: { 1_700_000_000 })
    }

    func reader() throws -> EntityReader { try storage.storage.reader() }

    func entity(_ set: String, _ key: [ODataValue]) throws -> StoredEntity? {
        try reader().entity(in: set, key: key)
    }

    func first(_ set: String) throws -> StoredEntity {
        var cursor = try reader().scan(set)
        return try #require(try cursor.next())
    }

    func all(_ set: String) throws -> [StoredEntity] { try reader().all(set) }

    func queue() throws -> [QueuedRequest] { try service.requestQueue() }

    /// Execute from text.
    @discardableResult
    func run(_ method: ODataMethod, _ url: String, _ body: String? = nil, headers: [String: String] = [:],
             options: RequestOptions = RequestOptions()) throws -> ODataResponse {
        try service.execute(ODataRequest(method, url, headers: headers, body: body.map { Array($0.utf8) }, options: options))
    }

    /// Everything stored, for "nothing changed" checks: every set's entities (bytes and trailers)
    /// and the system trees the service writes.
    func fingerprint() throws -> [String] {
        let reader = try self.reader()
        var out: [String] = []
        for set in model.entitySets.map(\.name) {
            for e in try reader.all(set) {
                out.append("\(set) \(e.keyBytes) \(e.etag ?? "-") \(e.flags.rawValue) \(try e.toODataEntity())")
            }
        }
        for tree in [ServiceFormat.imageTree, ServiceFormat.serviceTree] {
            if let handle = try? storage.engine.tree("odata.s." + tree) {
                let snapshot = try storage.engine.snapshot()
                try snapshot.scan(in: handle) { k, v in out.append("\(tree) \(k) \(v)"); return true }
            }
        }
        return out
    }
}

/// Expects a thrown `ODataError` with this name and code, and that nothing changed.
func expectServiceError(_ name: String, _ code: Int, _ harness: ServiceHarness, sourceLocation: SourceLocation = #_sourceLocation,
                        _ body: () throws -> Void) {
    let before = try? harness.fingerprint()
    expectStoreError(name, code, sourceLocation: sourceLocation, body)
    let after = try? harness.fingerprint()
    #expect(before != nil && before == after, "a failed request changed the store", sourceLocation: sourceLocation)
}

func json(_ response: ODataResponse) throws -> JSONValue {
    try JSONReader.parse(try #require(response.body))
}

func newPartner(_ id: String, name: String = "New Partner") -> String {
    """
    {"BusinessPartnerID":"\(id)","CompanyName":"\(name)","EmailAddress":"a@b.c","CurrencyCode":"EUR",
     "BusinessPartnerRole":"01","CreatedAt":"2024-01-01T00:00:00Z",
     "Address":{"City":"Walldorf","PostalCode":"69190","Street":"Dietmar-Hopp-Allee","Building":"16","Country":"DE","AddressType":"02"}}
    """
}
