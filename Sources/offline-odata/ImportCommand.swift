import ArgumentParser
import Foundation
import OfflineODataModel
import OfflineODataStore

/// Creates an OfflineStore from a folder of downloaded OData: `metadata.xml` plus one
/// `<EntitySet>.json` per set (a V4 `value` or V2 `d.results` collection payload). Each file is
/// applied as the download of a defining query named after its set.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Create a store from a folder with metadata.xml, one <EntitySet>.json per set, and links/<A>-<B>.json key pairs for many-to-many links.")

    @Argument(help: "The folder with metadata.xml and <EntitySet>.json files.")
    var corpus: String

    @OptionGroup var store: StoreOptions

    @Option(help: "An index to declare, as Set:Property[,Property…] (repeatable).")
    var index: [String] = []

    @Flag(help: "Replace an existing store of the same name.")
    var replace = false

    func run() async throws {
        do {
            try await importCorpus()
        } catch {
            failAndExit(error)
        }
    }

    private func importCorpus() async throws {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: corpus, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CLIFailure(message: "no such corpus folder: \(corpus)")
        }
        let metadata = try readFileBytes(corpus + "/metadata.xml")
        let model: ServiceModel
        do { model = try ServiceModel.parse(metadata: metadata) } catch {
            throw CLIFailure(message: "\(corpus)/metadata.xml: \(error)")
        }
        // Singletons too (one entity per file, kept as a set of one).
        let setNames = Set(model.entitySets.map(\.name) + model.singletons.map(\.name))
        let jsonFiles = try fm.contentsOfDirectory(atPath: corpus).filter { $0.hasSuffix(".json") }.sorted()
        var files: [(set: String, path: String, bytes: Int)] = []
        for file in jsonFiles {
            let set = String(file.dropLast(".json".count))
            if setNames.contains(set) {
                let path = corpus + "/" + file
                let size = (try? fm.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
                files.append((set, path, size))
            } else {
                print("skipping \(file): no entity set \(set) in the metadata")
            }
        }
        guard !files.isEmpty else { throw CLIFailure(message: "no <EntitySet>.json files in \(corpus)") }
        let indexes = try index.map(Self.parseIndex)

        let location = store.location
        if fm.fileExists(atPath: location.storePath, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw CLIFailure(message: "not a directory: \(location.storePath)")
        }
        let createdDirectory = !fm.fileExists(atPath: location.storePath)
        try fm.createDirectory(atPath: location.storePath, withIntermediateDirectories: true)
        if location.folderExists {
            guard replace else {
                throw CLIFailure(message: "a store already exists at \(location.engineDirectory) (pass --replace to overwrite)")
            }
            try OfflineStore.clear(storePath: location.storePath, storeName: location.storeName)
            try? fm.removeItem(atPath: location.engineDirectory)
        }
        var parameters = OfflineStoreParameters(storeName: location.storeName, storePath: location.storePath,
                                                encryption: try store.storeEncryption())
        parameters.definingQueries = files.map { DefiningQuery(name: $0.set, url: $0.set) }
        // Declared with the store, so a bad one fails before anything is imported.
        parameters.indexes = indexes
        let start = Date()
        // Whatever fails from here on, no half-made store is left behind (no --replace needed).
        // Only what this import made: the store folder, its metadata file, and the directory
        // when the import created it and nothing else is in it.
        func removeHalfMade() {
            try? OfflineStore.clear(storePath: location.storePath, storeName: location.storeName)
            try? fm.removeItem(atPath: location.metadataFile)
            if createdDirectory, (try? fm.contentsOfDirectory(atPath: location.storePath))?.isEmpty == true {
                try? fm.removeItem(atPath: location.storePath)
            }
        }
        let offline: OfflineStore
        do {
            try Data(metadata).write(to: URL(fileURLWithPath: location.metadataFile))
            offline = try await OfflineStore.open(metadata: metadata, parameters: parameters)
        } catch {
            removeHalfMade()
            throw error
        }
        print("created \(location.engineDirectory) in \(milliseconds(since: start)) (\(files.count) sets)")
        let totalBytes = max(1, files.reduce(0) { $0 + $1.bytes })
        let bar = ProgressBar(label: "importing")
        var doneBytes = 0
        var totalEntities = 0
        do {
            for file in files {
                let t = Date()
                var bytes = try readFileBytes(file.path)
                if model.singleton(named: file.set) != nil {
                    // A singleton's file is its entity: read as a collection of one.
                    bytes = Array(#"{"value":["#.utf8) + bytes + Array("]}".utf8)
                }
                let summary = try await offline.applyDownload(definingQuery: file.set, pages: [bytes])
                totalEntities += summary.entitiesApplied
                doneBytes += file.bytes
                if bar.isEnabled {
                    bar.update(Double(doneBytes) / Double(totalBytes))
                } else {
                    print("\(file.set): \(summary.entitiesApplied) entities in \(milliseconds(since: t))")
                }
            }
            bar.done()
            for (name, count) in try importLinks(into: offline, model: model) {
                print("\(name): \(count) links")
            }
            for definition in indexes {
                print("index \(definition.name) on \(definition.entitySet)(\(definition.properties.joined(separator: ",")))")
            }
            let stats = try offline.stats()
            try offline.close()
            print("imported \(totalEntities) entities into \(files.count) sets in "
                  + String(format: "%.2f s", Date().timeIntervalSince(start)))
            for file in files {
                print("  \(file.set): \(stats.entityCounts[file.set] ?? 0)")
            }
        } catch {
            bar.done()
            try? offline.close()
            removeHalfMade()
            throw error
        }
    }

    /// Many-to-many links that the entity files cannot carry: `links/<A>-<B>.json`, a `value`
    /// array of objects with the key properties of both sides (`{"EmployeeID":1,"TerritoryID":
    /// "06897"}`), linked over A's navigation to B (recorded links, partners mirrored). A file
    /// whose sets or navigation the model lacks is reported and skipped.
    private func importLinks(into offline: OfflineStore, model: ServiceModel) throws -> [(String, Int)] {
        let folder = corpus + "/links"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var done: [(String, Int)] = []
        for file in names.sorted() where file.hasSuffix(".json") {
            let pair = file.dropLast(".json".count).split(separator: "-", maxSplits: 1).map(String.init)
            guard pair.count == 2, let sourceType = model.entityType(ofSet: pair[0]),
                  let navigation = model.allNavigationProperties(of: sourceType).first(where: {
                      model.navigationTarget(set: pair[0], navigation: $0.name)?.name == pair[1]
                  }) else {
                print("skipping links/\(file): no navigation from a set \(pair.first ?? "") to a set \(pair.last ?? "")")
                continue
            }
            let sourceKeys = try offline.keyProperties(of: pair[0]), targetKeys = try offline.keyProperties(of: pair[1])
            guard let json = try JSONSerialization.jsonObject(with: Data(try readFileBytes(folder + "/" + file))) as? [String: Any],
                  let rows = json["value"] as? [[String: Any]] else {
                throw CLIFailure(message: "links/\(file): not a {\"value\":[…]} of key pairs")
            }
            func key(_ row: [String: Any], _ keys: [KeyProperty], _ index: Int) throws -> [ODataValue] {
                try keys.map { property in
                    let literal: String
                    switch row[property.name] {
                    case let text as String: literal = property.kind == .string ? "'" + text.replacingOccurrences(of: "'", with: "''") + "'" : text
                    case let number as NSNumber: literal = number.stringValue
                    default: throw CLIFailure(message: "links/\(file), row \(index + 1): no \(property.name)")
                    }
                    return try ODataValue.parseLiteral(literal, as: property.kind)
                }
            }
            let pairs = try rows.enumerated().map { index, row in (try key(row, sourceKeys, index), try key(row, targetKeys, index)) }
            var start = 0
            while start < pairs.count {
                let chunk = pairs[start..<min(pairs.count, start + 1000)]
                try offline.storage.write { (batch: inout EntityWriteBatch) throws(ODataError) in
                    for (source, target) in chunk {
                        try batch.link(from: pair[0], key: source, navigation: navigation.name, to: target)
                    }
                }
                start += chunk.count
            }
            done.append(("\(pair[0])/\(navigation.name)", pairs.count))
        }
        return done
    }

    /// `Set:Prop,Prop` → an index named `Set_Prop_Prop`.
    static func parseIndex(_ text: String) throws -> IndexDefinition {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty else {
            throw CLIFailure(message: "bad --index '\(text)': expected Set:Property[,Property…]")
        }
        let properties = parts[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !properties.isEmpty else { throw CLIFailure(message: "bad --index '\(text)': no properties") }
        return IndexDefinition(name: ([parts[0]] + properties).joined(separator: "_"), entitySet: parts[0], properties: properties)
    }
}
