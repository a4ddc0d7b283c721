import Foundation
import OfflineODataModel
import OfflineODataStore
import OfflineODataSync
import PropertyBased
import Testing

/// Two devices on one back end (odatapy): random offline updates, creates and deletes of orders
/// on two stores, uploads and downloads interleaved. A model of the back end predicts each
/// upload exactly: a request goes through when the ETag it is based on (the version its store had
/// when the first local change of the entity was made, carried forward by its own confirmed
/// requests) is the back end's, and is archived otherwise (with every later request of that entity
/// in the upload). After every upload the test resolves its conflicts (deletes the archive
/// entries, which reverts the local changes), as an app would. Checked: each upload's counts,
/// the back end against the model after every step that changes it, and at the end both stores
/// against the back end. So no change is lost silently, none is applied twice, and every conflict
/// lands in exactly one ErrorArchive. The seed is printed on failure (swift-property-based).
@Suite(.enabled(if: OdatapyServer.available, OdatapyServer.skipReason), .serialized)
struct TwoStorePropertyTests {
    static let queries = [DefiningQuery(name: "Partners", url: "BusinessPartners"), DefiningQuery(name: "Orders", url: "SalesOrders")]

    /// One step: store (0, 1), kind, target, a second number.
    static let step = zip(Gen.int(in: 0...1), Gen.int(in: 0...6), Gen.int(in: 0...40), Gen.int(in: 0...1))

    enum Change { case create, update(String), delete }

    /// What the test knows of the back end and of each store.
    struct Model {
        /// Order → its version (ETag W/"version+1" on odatapy) and Note; absent: no such order.
        var version: [String: Int] = [:]
        var note: [String: String?] = [:]
        /// Per store: the version of each order as the store last had it from the back end.
        var known: [[String: Int]] = [[:], [:]]
        /// Per store: the base version of each entity with local changes (nil: created locally).
        var base: [[String: Int?]] = [[:], [:]]
        /// Per store: the queued changes, in order.
        var queued: [[(order: String, change: Change)]] = [[], []]
    }

    @Test("two stores, one back end (one uploading in $batch, one a request at a time): every upload goes through or conflicts exactly as predicted; both stores end equal to the back end")
    func twoDevices() async throws {
        await propertyCheck(count: 12, input: Self.step.array(of: 4...24)) { steps in
            let server = try OdatapyServer()
            defer { server.stop() }
            let dirs = [SyncTempDir(), SyncTempDir()]
            defer { dirs.forEach { $0.cleanup() } }
            var providers: [OfflineODataProvider] = []
            for (device, dir) in dirs.enumerated() {
                // The first device uploads in `$batch`, the second one request at a time (each
                // request's attempt recorded with the previous one's outcome).
                var parameters = OfflineODataParameters.test(dir, queries: Self.queries)
                if device == 1 { parameters.uploadBatching = .never }
                let provider = try OfflineODataProvider(serviceRoot: server.serviceRoot, parameters: parameters)
                try await provider.open()
                providers.append(provider)
            }
            var model = Model()
            for order in try await server.keys("SalesOrders", key: "SalesOrderID") {
                model.version[order] = 0
                model.note[order] = try await UploadIntegrationTests.note(server, order)
            }
            model.known = [model.version, model.version]
            var created = 0
            for (index, (who, kind, target, extra)) in steps.enumerated() {
                let store = try providers[who].store
                switch kind {
                case 0, 1, 2, 3:
                    // A local change on one of the store's orders (not one it deleted).
                    let local = try store.keys("SalesOrders", key: "SalesOrderID")
                    if kind == 3 || local.isEmpty {
                        created += 1
                        let id = "N\(who)\(created)"
                        #expect(try store.execute(.post, "SalesOrders", body: #"{"SalesOrderID":"\#(id)","BusinessPartnerID":"BP1","LifecycleStatus":"N","CurrencyCode":"EUR","GrossAmount":1}"#).status == 201)
                        model.base[who][id] = .some(nil)
                        model.queued[who].append((id, .create))
                        continue
                    }
                    let order = local[target % local.count]
                    if model.base[who][order] == nil { model.base[who][order] = .some(model.known[who][order]) }
                    let createdHere = model.base[who][order] == .some(nil)
                    if kind == 2 && extra == 1 && !createdHere {
                        #expect(try store.execute(.delete, "SalesOrders('\(order)')").status == 204)
                        model.queued[who].append((order, .delete))
                    } else {
                        let note = "s\(who) step \(index)"
                        #expect(try store.execute(.patch, "SalesOrders('\(order)')", body: #"{"Note":"\#(note)"}"#).status == 204)
                        model.queued[who].append((order, .update(note)))
                    }
                case 4, 5:
                    try await Self.upload(who, providers[who], &model, "step \(index)")
                    try await Self.compareBackEnd(server, model, "after step \(index)")
                default:
                    try await providers[who].download()
                    for (order, version) in model.version where model.base[who][order] == nil { model.known[who][order] = version }
                }
            }
            // Both upload what is left, then both download: both equal the back end.
            for who in 0...1 { try await Self.upload(who, providers[who], &model, "at the end") }
            try await Self.compareBackEnd(server, model, "at the end")
            for who in 0...1 {
                try await providers[who].download()
                let store = try providers[who].store
                let orders = model.version.keys.sorted()
                let have = try store.keys("SalesOrders", key: "SalesOrderID")
                #expect(have == orders, "store \(who): orders; extra \(Set(have).subtracting(orders).sorted()), missing \(Set(orders).subtracting(have).sorted())")
                for order in orders {
                    let local = try store.execute(.get, "SalesOrders('\(order)')?$select=Note").json()?["Note"]?.stringValue
                    #expect(local == model.note[order] ?? nil, "store \(who): \(order) Note")
                }
                #expect(try store.requestQueue().isEmpty && store.errorArchive().isEmpty)
                try providers[who].close()
            }
        }
    }

    /// Uploads store `who` and checks its counts against the model's prediction; then resolves
    /// the conflicts as an app would (deleting the archive entries reverts the local changes).
    static func upload(_ who: Int, _ provider: OfflineODataProvider, _ model: inout Model, _ when: String) async throws {
        var failed = Set<String>()
        var etag: [String: Int?] = model.base[who]
        var expectedFailures = 0
        for (order, change) in model.queued[who] {
            if failed.contains(order) {
                expectedFailures += 1
                continue
            }
            switch change {
            case .create:
                model.version[order] = 0
                model.note[order] = .some(nil)
                etag[order] = .some(0)
                model.known[who][order] = 0
            case .update(let note):
                if let current = model.version[order], etag[order] == .some(current) {
                    model.version[order] = current + 1
                    model.note[order] = note
                    etag[order] = .some(current + 1)
                    model.known[who][order] = current + 1
                } else {
                    failed.insert(order)
                    expectedFailures += 1
                }
            case .delete:
                if let current = model.version[order], etag[order] == .some(current) {
                    model.version[order] = nil
                    model.note[order] = nil
                    model.known[who][order] = nil
                } else {
                    failed.insert(order)
                    expectedFailures += 1
                }
            }
        }
        let sent = model.queued[who].count
        let store = try provider.store
        let summary = try await provider.upload()
        let archive = try store.errorArchive()
        #expect(summary == UploadSummary(succeeded: sent - expectedFailures, failed: expectedFailures, remaining: 0),
                "\(when), store \(who): \(archive.map { "\($0.requestMethod) \($0.requestURL) \($0.httpStatusCode)" })")
        #expect(Set(archive.map { $0.affectedEntityKey }) == Set(failed.map { "('\($0)')" }), "\(when), store \(who): archived entities")
        for entry in archive { try? store.deleteErrorArchiveEntry(requestID: entry.requestID) }
        #expect(try store.errorArchive().isEmpty && store.requestQueue().isEmpty)
        model.queued[who] = []
        model.base[who] = [:]
    }

    static func compareBackEnd(_ server: OdatapyServer, _ model: Model, _ when: String) async throws {
        #expect(try await server.keys("SalesOrders", key: "SalesOrderID").sorted() == model.version.keys.sorted(), "\(when): back-end orders")
        for order in model.version.keys.sorted() {
            let remote = try await UploadIntegrationTests.note(server, order)
            #expect(remote == model.note[order] ?? nil, "\(when): back-end \(order) Note")
        }
    }
}
