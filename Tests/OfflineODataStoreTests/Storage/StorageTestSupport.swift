import Foundation
import OfflineODataEngine
import OfflineODataFixtures
import OfflineODataModel
import Testing
@testable import OfflineODataStore

/// A fresh engine directory under the system temp folder.
struct StorageTempDir {
    let path: String

    init(_ label: String = "storage") {
        path = FileManager.default.temporaryDirectory.path + "/oodata-\(label)-\(UUID().uuidString)"
    }

    func cleanup() { try? FileManager.default.removeItem(atPath: path) }
}

extension EngineOptions {
    /// Unencrypted, relaxed durability, small memtables so flushes and merges happen in tests.
    static var storageTest: EngineOptions {
        var o = EngineOptions(encryption: .unencrypted)
        o.durability = .relaxed
        o.keyDerivation = .minimum
        o.memTableSize = 64 << 10
        o.blockSize = 2048
        o.cacheSize = 1 << 20
        return o
    }
}

/// An engine + storage opened on a temp directory; `reopen` closes and opens again.
final class StorageHarness {
    let dir: StorageTempDir
    var engine: StorageEngine
    var storage: EntityStorage

    init(model: ServiceModel, label: String = "storage") throws {
        dir = StorageTempDir(label)
        engine = try StorageEngine.open(path: dir.path, options: .storageTest)
        storage = try EntityStorage(engine: engine, model: model)
    }

    func reopen(model: ServiceModel) throws {
        try engine.close()
        engine = try StorageEngine.open(path: dir.path, options: .storageTest)
        storage = try EntityStorage(engine: engine, model: model)
    }

    /// Reads every page of every set of `generator` as OData JSON, stores the entities, and
    /// returns them by set name (the expectations of tests that check results against the data).
    func loadSales(_ generator: SalesServiceGenerator, model: ServiceModel) throws -> [String: [ODataEntity]] {
        let reader = ODataJSONReader(model: model)
        var data: [String: [ODataEntity]] = [:]
        for set in SalesEntitySet.allCases {
            var all: [ODataEntity] = []
            for index in 0..<(try generator.pageCount(of: set, pageSize: 500)) {
                all += try reader.readCollection(try generator.page(set: set, index: index, pageSize: 500), entitySet: set.name).entities
            }
            try storage.apply(entities: all, to: set.name)
            data[set.name] = all
        }
        return data
    }

    deinit {
        try? engine.close()
        dir.cleanup()
    }
}

enum StorageFixtures {
    static let sales = SalesServiceGenerator(seed: 42, scale: .tiny)

    static func salesModel() throws -> ServiceModel {
        try ServiceModel.parse(metadata: Array(sales.metadataXML().utf8))
    }

    /// Every entity of a generated set, read with the model.
    static func salesEntities(_ set: SalesEntitySet, model: ServiceModel) throws -> [ODataEntity] {
        let reader = ODataJSONReader(model: model)
        var all: [ODataEntity] = []
        let pages = try sales.pageCount(of: set, pageSize: 100)
        for index in 0..<pages {
            let page = try sales.page(set: set, index: index, pageSize: 100)
            all += try reader.readCollection(page, entitySet: set.name).entities
        }
        return all
    }

    /// A V4 model with one schema `T` and a container `C`.
    static func model(_ body: String, container: String) throws -> ServiceModel {
        try ServiceModel.parse(metadata: Array("""
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
          <edmx:DataServices>
            <Schema Namespace="T" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              \(body)
              <EntityContainer Name="C">\(container)</EntityContainer>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """.utf8))
    }
}

/// Entities compared by property name → identical value (order of declared vs. dynamic
/// properties may differ after storage), plus type name and ETag.
func expectSameEntity(_ a: ODataEntity, _ b: ODataEntity, _ context: String,
                      sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(a.typeName == b.typeName, "\(context): type \(a.typeName) vs \(b.typeName)", sourceLocation: sourceLocation)
    #expect(a.control.etag == b.control.etag, "\(context): etag", sourceLocation: sourceLocation)
    let left = Dictionary(a.properties.map { ($0.name, $0.value) }, uniquingKeysWith: { x, _ in x })
    let right = Dictionary(b.properties.map { ($0.name, $0.value) }, uniquingKeysWith: { x, _ in x })
    #expect(Set(left.keys) == Set(right.keys), "\(context): property names differ: \(Set(left.keys).symmetricDifference(Set(right.keys)))",
            sourceLocation: sourceLocation)
    for (name, value) in left {
        guard let other = right[name] else { continue }
        #expect(value.isIdentical(to: other), "\(context): \(name) = \(value) vs \(other)", sourceLocation: sourceLocation)
    }
}

/// Expects an `ODataError` with this name and code.
func expectStoreError(_ name: String, _ code: Int, sourceLocation: SourceLocation = #_sourceLocation,
                      _ body: () throws -> Void) {
    do {
        try body()
        Issue.record("expected \(name) (\(code)), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as ODataError {
        #expect(error.name == name && error.code == code, "got \(error)", sourceLocation: sourceLocation)
        #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected ODataError \(name), got \(error)", sourceLocation: sourceLocation)
    }
}

extension EntityReader {
    /// Every entity of a set, via the streaming cursor.
    func all(_ set: String, reverse: Bool = false) throws -> [StoredEntity] {
        var cursor = try scan(set, reverse: reverse)
        var out: [StoredEntity] = []
        while let e = try cursor.next() { out.append(e) }
        return out
    }

    /// Primary keys (decoded) of an index range.
    func indexKeys(_ index: String, lower: IndexBound? = nil, upper: IndexBound? = nil, reverse: Bool = false) throws -> [[ODataValue]] {
        var cursor = try indexScan(index, lower: lower, upper: upper, reverse: reverse)
        var out: [[ODataValue]] = []
        while let e = try cursor.next() { out.append(try e.primaryKey()) }
        return out
    }

    func targets(_ set: String, _ key: [ODataValue], _ navigation: String) throws -> [[ODataValue]] {
        var cursor = try navigationTargets(from: set, key: key, navigation: navigation)
        var out: [[ODataValue]] = []
        while let k = try cursor.next() { out.append(try OrderedKeyEncoding.decode(k)) }
        return out
    }
}
