import ArgumentParser
import Foundation
import OfflineODataStore

/// One GET against a store, printed as indented JSON (or its plan).
struct QueryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query", abstract: "Run one GET on a store and print the JSON result (or --explain the plan).")

    @OptionGroup var store: StoreOptions

    @Argument(help: "A URL relative to the service root, e.g. \"SalesOrders?$top=3\" or \"Orders/$count\".")
    var url: String

    @Flag(help: "Print the query plan instead of running the query.")
    var explain = false

    @Option(help: "The service metadata file (default: <store-path>/<name>.metadata.xml, written by import).")
    var metadata: String?

    @Option(help: "Server-driven page size.")
    var pageSize: Int?

    func run() async throws {
        do {
            let offline = try await store.openOfflineStore(metadata: metadata, pageSize: pageSize)
            defer { try? offline.close() }
            var relative = url
            while relative.hasPrefix("/") { relative.removeFirst() }
            if explain {
                print(try offline.explain(relative))
                return
            }
            let response = try offline.execute(.get, relative)
            if response.status >= 400 {
                let text = response.body.map { ResponsePrinter.pretty($0) } ?? ""
                throw CLIFailure(message: "\(response.status) \(ResponsePrinter.reason(response.status)): "
                                 + text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " "),
                                 exitCode: 4)
            }
            if let text = ResponsePrinter.body(response) { print(text) }
        } catch {
            failAndExit(error)
        }
    }
}
