import ArgumentParser
import Foundation
import OfflineODataStore

/// `offline-odata index <path> list | add Set:Prop[,Prop…] | drop NAME`: the secondary indexes of
/// an existing store, declared (and built for the data it holds) or dropped.
struct IndexCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index", abstract: "List, add (Set:Property[,Property…]) or drop (NAME) the secondary indexes of a store.")

    @OptionGroup var store: StoreOptions

    @Argument(help: "list, add or drop.")
    var action: String

    @Argument(help: "add: Set:Property[,Property…]; drop: the index name (as list shows it).")
    var target: String?

    @Option(help: "The service metadata file (default: <store-path>/<name>.metadata.xml, written by import).")
    var metadata: String?

    func run() async throws {
        do {
            let offline = try await store.openOfflineStore(metadata: metadata, pageSize: nil)
            defer { try? offline.close() }
            switch (action, target) {
            case ("list", nil):
                let reader = try offline.storage.reader()
                for set in offline.model.entitySets.map(\.name).sorted() {
                    for status in try reader.indexes(of: set) {
                        let definition = status.definition
                        let kind = status.isNavigationIndex ? " (navigation, by the store)" : ""
                        print("\(definition.name): \(definition.entitySet)(\(definition.properties.joined(separator: ",")))\(kind)"
                              + (status.isReady ? "" : " — not ready"))
                    }
                }
            case ("add", let text?):
                let definition = try ImportCommand.parseIndex(text)
                let start = Date()
                try await offline.declareIndex(definition)
                print("index \(definition.name) on \(definition.entitySet)(\(definition.properties.joined(separator: ","))) in \(milliseconds(since: start))")
            case ("drop", let name?):
                try offline.storage.dropIndex(named: name)
                print("dropped index \(name)")
            default:
                throw CLIFailure(message: "index takes: list | add Set:Property[,Property…] | drop NAME")
            }
        } catch {
            failAndExit(error)
        }
    }
}
