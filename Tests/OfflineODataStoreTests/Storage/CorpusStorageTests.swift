import Foundation
import OfflineODataModel
import Testing
@testable import OfflineODataStore

/// The shared corpora (`<repo>/../shared/corpora`), found from this file's path.
enum StorageCorpora {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Storage
        .deletingLastPathComponent()  // OfflineODataStoreTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repo root
        .deletingLastPathComponent()
        .appendingPathComponent("shared/corpora")

    static var available: Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent("northwind/metadata.xml").path)
    }

    static func bytes(_ relativePath: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(relativePath)))
    }

    static func model(_ folder: String) throws -> ServiceModel {
        try ServiceModel.parse(metadata: try bytes(folder + "/metadata.xml"))
    }

    struct Folder: Sendable, CustomStringConvertible {
        let path: String
        let version: ODataVersion
        var description: String { path }
    }

    static let folders = [
        Folder(path: "northwind", version: .v4), Folder(path: "trippin", version: .v4),
        Folder(path: "epm_salesorder_v4", version: .v4), Folder(path: "gwsample_basic", version: .v2),
        Folder(path: "gwsample_basic/store-overview", version: .v2), Folder(path: "sepmra_prod_man", version: .v2),
    ]

    /// `<Set>.json` files of a folder whose name is an entity set of the model.
    static func dataFiles(_ folder: Folder, model: ServiceModel) throws -> [(set: String, path: String)] {
        let names = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder.path).path)
        let sets = Set(model.entitySets.map(\.name))
        return names.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.filter { sets.contains($0) }.sorted()
            .map { ($0, folder.path + "/" + $0 + ".json") }
    }
}

@Suite(.enabled(if: StorageCorpora.available, "../shared/corpora not found: corpus storage tests skipped"))
struct CorpusStorageTests {
    @Test("every corpus entity is stored and reads back identical; counts and key order hold",
          arguments: StorageCorpora.folders)
    func roundTrip(_ folder: StorageCorpora.Folder) throws {
        let model = try StorageCorpora.model(folder.path)
        let harness = try StorageHarness(model: model, label: "corpus")
        let reader = ODataJSONReader(model: model, version: folder.version)
        var expected: [String: [ODataEntity]] = [:]
        let files = try StorageCorpora.dataFiles(folder, model: model)
        #expect(!files.isEmpty)
        for (set, path) in files {
            let entities = try reader.readCollection(try StorageCorpora.bytes(path), entitySet: set).entities
            expected[set] = entities
            #expect(try harness.storage.apply(entities: entities, to: set, chunkSize: 500) == entities.count)
        }
        for round in 0..<2 {
            let snapshot = try harness.storage.reader()
            for (set, entities) in expected {
                let keys = try harness.storage.keyProperties(of: set)
                #expect(try snapshot.count(set) == entities.count, "\(folder) \(set)")
                for entity in entities {
                    let key = keys.map { entity[property: $0] ?? .null }
                    guard let stored = try snapshot.entity(in: set, key: key) else {
                        Issue.record("\(folder) \(set) \(key) not found")
                        continue
                    }
                    // Navigation content is stored apart (links, foreign keys); compare the rest.
                    var plain = entity
                    plain.navigation = []
                    plain.control = ODataControlInformation(etag: entity.control.etag)
                    plain.annotations = []
                    expectSameEntity(try stored.toODataEntity(), plain, "\(folder) \(set) \(key)")
                }
                let scanned = try snapshot.all(set).map(\.keyBytes)
                #expect(scanned == scanned.sorted { $0.lexicographicallyPrecedes($1) })
            }
            if round == 0 { try harness.reopen(model: model) }
        }
    }

    @Test("TripPin: @odata.bind links are recorded and read as navigation targets")
    func tripPinLinks() throws {
        let model = try StorageCorpora.model("trippin")
        let harness = try StorageHarness(model: model, label: "trippin")
        let reader = ODataJSONReader(model: model)
        for set in ["Photos", "Airlines", "Airports"] {
            try harness.storage.apply(entities: try reader.readCollection(try StorageCorpora.bytes("trippin/\(set).json"),
                                                                         entitySet: set).entities, to: set)
        }
        let people = try reader.readCollection(try StorageCorpora.bytes("trippin/People-deep.json"), entitySet: "People").entities
        try harness.storage.apply(entities: people, to: "People")
        let snapshot = try harness.storage.reader()
        var friendLinks = 0
        for person in people {
            let name = try #require(person[property: "UserName"])
            if case .bindMany(let refs)? = person.navigation("Friends")?.content {
                let expected = Set(refs.map { ref -> [ODataValue] in
                    let inner = ref.split(separator: "'")[1]
                    return [.string(String(inner))]
                })
                #expect(Set(try snapshot.targets("People", [name], "Friends")) == expected, "\(name)")
                friendLinks += refs.count
            }
            if case .bind(let photo)? = person.navigation("Photo")?.content {
                let id = Int64(photo.dropFirst("Photos(".count).dropLast()) ?? -1
                #expect(try snapshot.targets("People", [name], "Photo") == [[.int64(id)]])
            }
        }
        #expect(friendLinks > 0)
        // Deleting a person drops its links both ways.
        let russell = ODataValue.string("russellwhyte")
        let friendsOfRussellBefore = try snapshot.targets("People", [russell], "Friends")
        #expect(!friendsOfRussellBefore.isEmpty)
        let pointingAtRussell = try people.compactMap { p -> ODataValue? in
            let n = try #require(p[property: "UserName"])
            return try snapshot.targets("People", [n], "Friends").contains([russell]) ? n : nil
        }
        try harness.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
            #expect(try batch.delete(key: [russell], in: "People"))
        }
        let after = try harness.storage.reader()
        #expect(try after.targets("People", [russell], "Friends").isEmpty)
        for n in pointingAtRussell {
            #expect(try !after.targets("People", [n], "Friends").contains([russell]))
        }
    }

    @Test("GWSAMPLE_BASIC (V2): association constraints give navigation in both directions")
    func v2Navigation() throws {
        let model = try StorageCorpora.model("gwsample_basic")
        let harness = try StorageHarness(model: model, label: "gwsample")
        let reader = ODataJSONReader(model: model, version: .v2)
        var products: [ODataEntity] = []
        for set in ["BusinessPartnerSet", "ProductSet"] {
            let entities = try reader.readCollection(try StorageCorpora.bytes("gwsample_basic/\(set).json"), entitySet: set).entities
            if set == "ProductSet" { products = entities }
            try harness.storage.apply(entities: entities, to: set)
        }
        let snapshot = try harness.storage.reader()
        var checked = 0
        for partner in try snapshot.all("BusinessPartnerSet") {
            let id = try #require(try partner.value(named: "BusinessPartnerID"))
            let expected = products.filter { $0[property: "SupplierID"] == id }.map { [$0[property: "ProductID"] ?? .null] }
            #expect(Set(try snapshot.targets("BusinessPartnerSet", [id], "ToProducts")) == Set(expected), "\(id)")
            checked += expected.count
        }
        #expect(checked > 0)
        for product in products.prefix(20) {
            let key = [product[property: "ProductID"] ?? .null]
            let supplier = try snapshot.targets("ProductSet", key, "ToSupplier")
            let exists = try snapshot.entity(in: "BusinessPartnerSet", key: [product[property: "SupplierID"] ?? .null]) != nil
            #expect(supplier == (exists ? [[product[property: "SupplierID"] ?? .null]] : []))
        }
    }

    @Test("Northwind: many-to-many links mirror into the partner; constraint navigations use keys and indexes")
    func northwindNavigation() throws {
        let model = try StorageCorpora.model("northwind")
        let harness = try StorageHarness(model: model, label: "northwind")
        let reader = ODataJSONReader(model: model)
        for set in ["Employees", "Territories", "Orders", "Customers", "Order_Details"] {
            try harness.storage.apply(entities: try reader.readCollection(try StorageCorpora.bytes("northwind/\(set).json"),
                                                                         entitySet: set).entities, to: set)
        }
        let json = try JSONSerialization.jsonObject(with: Data(try StorageCorpora.bytes("northwind/links/Employees-Territories.json")))
        let rows = ((json as? [String: Any])?["value"] as? [[String: Any]]) ?? []
        #expect(rows.count == 49)
        try harness.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
            for row in rows {
                guard let e = row["EmployeeID"] as? Int, let t = row["TerritoryID"] as? String else { continue }
                try batch.link(from: "Employees", key: [.int32(Int32(e))], navigation: "Territories", to: [.string(t)])
            }
        }
        let snapshot = try harness.storage.reader()
        var mirrored = 0
        for row in rows {
            guard let e = row["EmployeeID"] as? Int, let t = row["TerritoryID"] as? String else { continue }
            #expect(try snapshot.targets("Employees", [.int32(Int32(e))], "Territories").contains([.string(t)]))
            if try snapshot.targets("Territories", [.string(t)], "Employees").contains([.int32(Int32(e))]) { mirrored += 1 }
        }
        #expect(mirrored == rows.count)
        // Keys given as Int64 are normalized to the declared Int32.
        #expect(try snapshot.targets("Employees", [.int64(1)], "Territories").count == 2)
        // Customer.Orders through the partner's constraint (navigation index on Orders.CustomerID).
        let orders = try snapshot.targets("Customers", [.string("ALFKI")], "Orders")
        #expect(orders.count == 6)
        for order in orders {
            #expect(try snapshot.targets("Orders", order, "Customer") == [[.string("ALFKI")]])
        }
        // Order 10248 has 3 details.
        #expect(try snapshot.targets("Orders", [.int32(10248)], "Order_Details").count == 3)
    }
}
