import ArgumentParser
import Foundation
import OfflineODataModel
import OfflineODataStore
import OfflineODataSync

/// `offline-odata open`: creates a store from a live back end (initial download, with a progress
/// line on a terminal) or opens the existing one, as ILOData does.
struct OpenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Create a store from a live OData service (initial download), or open the existing one.")

    @OptionGroup var store: StoreOptions

    @Option(help: "The service root URL (kept in the store; needed only the first time).")
    var service: String?

    @Option(name: .customLong("defining-query"), help: "NAME=QUERY, e.g. Orders=SalesOrders?$filter=... (repeatable).")
    var definingQueries: [String] = []

    @Option(help: "Page size asked of the back end (Prefer: odata.maxpagesize).")
    var pageSize = 1000

    @OptionGroup var backEnd: BackEndOptions

    func run() async throws {
        do {
            let queries = try definingQueries.map(parseDefiningQuery)
            let parameters = try syncParameters(store, queries: queries, pageSize: pageSize, backEnd: backEnd)
            let root = try await resolveServiceRoot(service, parameters)
            let provider = try OfflineODataProvider(serviceRoot: root, parameters: parameters)
            let started = Date()
            let watcher = ProgressPrinter.watch(provider)
            try await provider.open()
            watcher.cancel()
            ProgressPrinter.finish()
            let opened = try provider.store
            let stats = try opened.stats()
            let counts = stats.entityCounts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            print("opened \(store.location.storePath)/\(store.location.storeName).oostore for \(root) in "
                  + String(format: "%.2f s", Date().timeIntervalSince(started)) + ": \(counts)")
            for query in try provider.definingQueries { print("  \(query.name) = \(query.url)") }
            try provider.close()
        } catch {
            failAndExit(error)
        }
    }
}

/// `offline-odata download`: downloads every defining query (or a subset) from the back end.
struct DownloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download", abstract: "Download the store's defining queries from its back end (delta where it can).")

    @OptionGroup var store: StoreOptions

    @Option(name: .customLong("subset"), help: "Download only this defining query (repeatable).")
    var subset: [String] = []

    @Option(help: "The service root URL (default: the one kept in the store).")
    var service: String?

    @Option(help: "Page size asked of the back end.")
    var pageSize = 1000

    @OptionGroup var backEnd: BackEndOptions

    func run() async throws {
        do {
            let parameters = try syncParameters(store, queries: [], pageSize: pageSize, backEnd: backEnd)
            let root = try await resolveServiceRoot(service, parameters)
            let provider = try OfflineODataProvider(serviceRoot: root, parameters: parameters)
            try await provider.open()
            defer { try? provider.close() }
            let started = Date()
            let watcher = ProgressPrinter.watch(provider)
            let summaries = try await provider.download(subset: subset.isEmpty ? nil : subset)
            watcher.cancel()
            ProgressPrinter.finish()
            print("downloaded in " + String(format: "%.2f s", Date().timeIntervalSince(started)))
            for summary in summaries {
                print("  \(summary.definingQuery): \(summary.entitiesApplied) applied, \(summary.entitiesRemoved) removed, "
                      + "\(summary.pendingChangesKept) with pending changes kept")
            }
        } catch {
            failAndExit(error)
        }
    }
}

/// `offline-odata upload`: sends the request queue to the back end.
struct UploadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload", abstract: "Send the store's queued requests to its back end (failures go to the ErrorArchive).")

    @OptionGroup var store: StoreOptions

    @Option(name: .customLong("category"), help: "Send only requests of this upload category (repeatable).")
    var categories: [String] = []

    @Option(help: "The service root URL (default: the one kept in the store).")
    var service: String?

    @OptionGroup var backEnd: BackEndOptions

    func run() async throws {
        do {
            let parameters = try syncParameters(store, queries: [], pageSize: 1000, backEnd: backEnd)
            let root = try await resolveServiceRoot(service, parameters)
            let provider = try OfflineODataProvider(serviceRoot: root, parameters: parameters)
            try await provider.open()
            defer { try? provider.close() }
            let started = Date()
            let summary = try await provider.upload(categories: categories.isEmpty ? nil : categories)
            print("uploaded in " + String(format: "%.2f s", Date().timeIntervalSince(started))
                  + ": \(summary.succeeded) applied, \(summary.failed) failed (see ErrorArchive), \(summary.remaining) left in the queue")
            for entry in try provider.store.errorArchive() {
                print("  ErrorArchive \(entry.requestID): \(entry.requestMethod) \(entry.requestURL) → \(entry.httpStatusCode) \(entry.message ?? "")")
            }
        } catch {
            failAndExit(error)
        }
    }
}

/// `offline-odata defining-query <path> list|add NAME=QUERY|remove NAME`.
struct DefiningQueryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "defining-query", abstract: "List, add or remove a store's defining queries (the next download applies them).")

    @OptionGroup var store: StoreOptions

    @Argument(help: "list, add NAME=QUERY, update NAME=QUERY or remove NAME.")
    var action: String

    @Argument(help: "NAME=QUERY (add, update) or NAME (remove).")
    var value: String?

    func run() async throws {
        do {
            let offline = try await store.openOfflineStore()
            defer { try? offline.close() }
            switch action {
            case "list":
                for query in try offline.definingQueries() {
                    let state = try offline.syncState(of: query.name)
                    let note = state == nil ? "not downloaded yet" : (state?.deltaLink == nil ? "full downloads" : "delta link kept")
                    print("\(query.name) = \(query.url)  (\(note))")
                }
            case "add", "update":
                guard let value else { throw CLIFailure(message: "\(action) needs NAME=QUERY") }
                let query = try parseDefiningQuery(value)
                if action == "add" { try offline.addDefiningQuery(query) } else { try offline.replaceDefiningQuery(query) }
                print("\(action == "add" ? "added" : "updated") \(query.name); the next download fetches it")
            case "remove":
                guard let value else { throw CLIFailure(message: "remove needs the defining query's NAME") }
                try offline.removeDefiningQuery(named: value)
                print("removed \(value) and the entities only it covered")
            default:
                throw CLIFailure(message: "unknown action '\(action)': use list, add, update or remove")
            }
        } catch {
            failAndExit(error)
        }
    }
}

func parseDefiningQuery(_ text: String) throws -> DefiningQuery {
    guard let equals = text.firstIndex(of: "="), equals != text.startIndex, text.index(after: equals) != text.endIndex else {
        throw CLIFailure(message: "a defining query is NAME=QUERY, e.g. Orders=SalesOrders, not '\(text)'")
    }
    var url = String(text[text.index(after: equals)...])
    while url.hasPrefix("/") { url.removeFirst() }
    return DefiningQuery(name: String(text[..<equals]), url: url)
}

/// How the CLI reaches a back end: custom headers and SAP's client.
struct BackEndOptions: ParsableArguments {
    @Option(name: .customLong("header"), help: "NAME:VALUE sent with every request (repeatable).")
    var headers: [String] = []

    @Option(name: .customLong("sap-client"), help: "SAP client (sap-client) of an SAP Gateway service, e.g. 100.")
    var sapClient: String?
}

func syncParameters(_ store: StoreOptions, queries: [DefiningQuery], pageSize: Int, backEnd: BackEndOptions? = nil) throws -> OfflineODataParameters {
    var custom: [String: String] = [:]
    for header in backEnd?.headers ?? [] {
        guard let colon = header.firstIndex(of: ":"), colon != header.startIndex else {
            throw CLIFailure(message: "a header is NAME:VALUE, not '\(header)'")
        }
        custom[String(header[..<colon])] = String(header[header.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
    }
    let location = store.location
    var parameters = OfflineODataParameters(storeName: location.storeName, storePath: location.storePath, encryption: try store.storeEncryption(),
                                            definingQueries: queries, customHeaders: custom, pageSize: pageSize)
    parameters.sapClient = backEnd?.sapClient
    return parameters
}

func resolveServiceRoot(_ given: String?, _ parameters: OfflineODataParameters) async throws -> String {
    if let given { return given }
    if let kept = try await OfflineODataProvider.storedServiceRoot(parameters: parameters) { return kept }
    throw CLIFailure(message: "no store with a service root at \(parameters.storePath): pass --service URL")
}

/// A progress line on a terminal (nothing when stderr is not one).
enum ProgressPrinter {
    static let isTerminal = isatty(2) != 0

    static func watch(_ provider: OfflineODataProvider) -> Task<Void, Never> {
        guard isTerminal else { return Task {} }
        let stream = provider.progress()
        return Task {
            for await progress in stream {
                var line = "\r\u{1B}[2K\(progress.step.rawValue)"
                if let query = progress.definingQuery { line += " \(query)" }
                if progress.pagesReceived > 0 { line += ": \(progress.pagesReceived) pages" }
                if progress.bytesReceived > 0 { line += ", \(progress.bytesReceived / 1024) KiB" }
                if progress.entitiesApplied > 0 { line += ", \(progress.entitiesApplied) entities applied" }
                FileHandle.standardError.write(Data(line.utf8))
            }
        }
    }

    static func finish() {
        if isTerminal { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
    }
}
