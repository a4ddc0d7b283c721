import OfflineODataModel
import PropertyBased
import Testing
@testable import OfflineODataStore

/// Random sequences of creates, updates, replaces, deletes, undos and failures, checked after
/// every step against a model: the queue and ErrorArchive hold exactly each entity's
/// requests, in order, and the data and flags agree with them.
@Suite struct LocalServicePropertyTests {
    static let ops = zip(Gen.int(in: 0...5), Gen.int(in: 1...7), Gen.int(in: 0...99)).array(of: 1...30)

    static func model() throws -> ServiceModel {
        try StorageFixtures.model("""
            <EntityType Name="Order">
              <Key><PropertyRef Name="ID"/></Key>
              <Property Name="ID" Type="Edm.Int32" Nullable="false"/>
              <Property Name="Note" Type="Edm.String" MaxLength="20"/>
            </EntityType>
            """, container: #"<EntitySet Name="Orders" EntityType="T.Order"/>"#)
    }

    struct Expected {
        struct Request: Equatable { var id: Int64; var method: String; var entity: Int }
        var exists: [Int: String?] = [:]   // id → Note (present key: exists)
        var queue: [Request] = []
        var archive: [Request] = []
        var nextID: Int64 = 1
        let original: [Int: String]

        func hasRequests(_ id: Int) -> Bool { (queue + archive).contains { $0.entity == id } }
    }

    @Test("queue, archive, data and flags agree with a model after every step")
    func randomSequences() async throws {
        let base = try Self.model()
        await propertyCheck(count: 40, input: Self.ops) { ops in
            let h = try ServiceHarness(model: base)
            let reader = ODataJSONReader(model: h.model)
            var seed: [ODataEntity] = []
            for id in 1...4 {
                seed.append(try reader.readEntity(Array(#"{"ID":\#(id),"Note":"server \#(id)","@odata.etag":"W/\"s\#(id)\""}"#.utf8),
                                                  entitySet: "Orders"))
            }
            try h.storage.storage.apply(entities: seed, to: "Orders")
            var expected = Expected(original: Dictionary(uniqueKeysWithValues: (1...4).map { ($0, "server \($0)") }))
            for id in 1...4 { expected.exists[id] = "server \(id)" }
            for (step, (kind, id, value)) in ops.enumerated() {
                let url = "Orders(\(id))"
                let exists = expected.exists[id] != nil
                switch kind {
                case 0:
                    let valid = !exists && !expected.hasRequests(id)
                    let ok = (try? h.run(.post, "Orders", #"{"ID":\#(id),"Note":"c\#(value)"}"#)) != nil
                    #expect(ok == valid, "step \(step): create \(id)")
                    if valid {
                        expected.exists[id] = "c\(value)"
                        expected.queue.append(.init(id: expected.nextID, method: "POST", entity: id))
                        expected.nextID += 1
                    }
                case 1, 5:
                    let method: ODataMethod = kind == 1 ? .patch : .put
                    let note = (kind == 1 ? "n" : "p") + String(value)
                    let ok = (try? h.run(method, url, #"{"Note":"\#(note)"}"#)) != nil
                    #expect(ok == exists, "step \(step): \(method) \(id)")
                    if exists {
                        expected.exists[id] = note
                        expected.queue.append(.init(id: expected.nextID, method: method.rawValue, entity: id))
                        expected.nextID += 1
                    }
                case 2:
                    let ok = (try? h.run(.delete, url)) != nil
                    #expect(ok == exists, "step \(step): delete \(id)")
                    if exists {
                        expected.exists[id] = nil
                        expected.queue.append(.init(id: expected.nextID, method: "DELETE", entity: id))
                        expected.nextID += 1
                    }
                case 3:
                    let changed = try h.service.undoPendingChanges(set: "Orders", key: [.int32(Int32(id))])
                    #expect(changed == expected.hasRequests(id), "step \(step): undo \(id)")
                    expected.queue.removeAll { $0.entity == id }
                    expected.archive.removeAll { $0.entity == id }
                    expected.exists[id] = expected.original[id].map { Optional($0) } ?? nil
                    if expected.original[id] == nil { expected.exists.removeValue(forKey: id) }
                default:
                    guard !expected.queue.isEmpty else { continue }
                    let request = expected.queue.remove(at: value % expected.queue.count)
                    try h.service.markFailed(requestID: request.id, httpStatus: 400 + value)
                    expected.archive.append(request)
                    expected.archive.sort { $0.id < $1.id }
                }
                // The queue and archive hold exactly the expected requests, in RequestID order.
                let queue = try h.queue()
                #expect(queue.map { Expected.Request(id: $0.requestID, method: $0.method, entity: Int($0.affectedEntityKey.dropFirst().dropLast()) ?? -1) }
                        == expected.queue, "step \(step): queue")
                #expect(try h.service.errorArchive().map(\.requestID) == expected.archive.map(\.id), "step \(step): archive")
                #expect(queue.allSatisfy { $0.url == ($0.method == "POST" ? "Orders" : "Orders" + $0.affectedEntityKey) })
                for other in 1...7 {
                    let stored = try h.entity("Orders", [.int32(Int32(other))])
                    #expect((stored != nil) == (expected.exists[other] != nil), "step \(step): \(other) exists")
                    guard let stored, let note = expected.exists[other] else { continue }
                    #expect(try stored.value(named: "Note") == note.map(ODataValue.string), "step \(step): \(other) note")
                    let state = stored.localState
                    #expect(state.hasPendingChanges == expected.queue.contains { $0.entity == other }, "step \(step): \(other) pending")
                    #expect(state.inErrorState == expected.archive.contains { $0.entity == other }, "step \(step): \(other) error")
                    #expect(stored.flags.contains(.local) == (expected.original[other] == nil), "step \(step): \(other) local")
                    #expect(state.isLocal == expected.hasRequests(other) || expected.original[other] == nil, "step \(step): \(other) isLocal")
                    if !expected.hasRequests(other) { #expect(stored.etag == "W/\"s\(other)\"", "step \(step): \(other) etag") }
                }
            }
        }
    }
}
