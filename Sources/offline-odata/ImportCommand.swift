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
        abstract: "Create a store from a folder with metadata.xml and one <EntitySet>.json per set.")

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
        let setNames = Set(model.entitySets.map(\.name))
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
                let bytes = try readFileBytes(file.path)
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
