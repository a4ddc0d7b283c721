import ArgumentParser
import Foundation
import OfflineODataModel
import OfflineODataStore
import OfflineODataSync

/// An interactive OData console on a store (like SAP's ILOData).
struct ShellCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shell",
        abstract: "Interactive OData console on a store: GET/POST/PATCH/PUT/DELETE lines, explain, help, quit.",
        discussion: ShellLine.helpText)

    @OptionGroup var store: StoreOptions

    @Option(name: [.customShort("c"), .customLong("command")],
            help: "Run this line and exit (repeatable); exits non-zero when a line fails.")
    var commands: [String] = []

    @Option(help: "The service metadata file (default: <store-path>/<name>.metadata.xml, written by import).")
    var metadata: String?

    @Option(help: "Server-driven page size for GET results.")
    var pageSize: Int?

    func run() async throws {
        do {
            var offline = try await store.openOfflineStore(metadata: metadata, pageSize: pageSize)
            defer { try? offline.close() }
            var failures = 0
            if !commands.isEmpty {
                for line in commands {
                    print("> \(line)")
                    switch await perform(line, on: &offline) {
                    case .failed: failures += 1
                    case .quit: break
                    case .ok: continue
                    }
                }
            } else {
                let interactive = isatty(STDIN_FILENO) == 1
                if interactive { print("offline-odata shell on \(store.location.engineDirectory) — type help, quit to leave") }
                // On a terminal: line editing, and history across sessions (↑/↓).
                let editor = interactive ? TerminalLineEditor(historyFile: TerminalLineEditor.defaultHistoryFile) : nil
                func nextLine(_ prompt: String) -> String? {
                    if let editor {
                        fflush(nil)
                        return editor.readLine(prompt: prompt)
                    }
                    if interactive {
                        print(prompt, terminator: "")
                        fflush(nil)
                    }
                    return readLine()
                }
                var history: [String] = []
                while true {
                    guard var line = nextLine("oodata> ") else { break }
                    // A JSON body left open goes on with the next lines.
                    while ShellLine.unfinishedBody(line) {
                        guard let more = nextLine("   ...> ") else { break }
                        line += "\n" + more
                    }
                    let trimmed = line.trimmingCharacters(in: .whitespaces)
                    if trimmed.hasPrefix("!"), let n = Int(trimmed.dropFirst()) {
                        guard n >= 1, n <= history.count else {
                            FileHandle.standardError.write(Data("error: no line \(n) in this session's history (\(history.count) lines)\n".utf8))
                            failures += 1
                            continue
                        }
                        line = history[n - 1]
                        print("> \(line)")
                    }
                    // ↑ recalls every line typed, `history` too.
                    editor?.remember(line)
                    if (try? ShellLine.parse(line)) == .history {
                        for (i, entry) in history.enumerated() { print("\(i + 1)  \(entry)") }
                        continue
                    }
                    if !trimmed.isEmpty { history.append(line) }
                    let outcome = await perform(line, on: &offline)
                    if outcome == .quit { break }
                    if outcome == .failed { failures += 1 }
                }
            }
            try offline.close()
            // A scripted session (-c, or lines piped in) tells its caller that a line failed.
            if failures > 0 && (!commands.isEmpty || isatty(STDIN_FILENO) != 1) { throw CLIFailure(message: "\(failures) line(s) failed", exitCode: 4) }
        } catch {
            failAndExit(error)
        }
    }

    enum Outcome { case ok, failed, quit }

    /// `Set(key)`, `Set(key)/$value` or `Set(key)/Prop` as set, key and stream property.
    func mediaAddress(_ url: String, _ offline: OfflineStore) throws -> (String, [ODataValue], String) {
        var parts = url.split(separator: "/", maxSplits: 1).map(String.init)
        let (set, predicate) = try KeyPredicate.parseEntityReference(parts.removeFirst())
        guard let predicate else { throw CLIFailure(message: "a stream needs an entity with its key, e.g. Photos(1)") }
        let key = try KeyPredicate.parse(predicate, keys: try offline.keyProperties(of: set), version: offline.model.urlVersion)
        let property = parts.first.map { $0 == "$value" ? "" : $0 } ?? ""
        return (set, key, property)
    }

    /// A media type from a file name's extension (application/octet-stream when unknown).
    static func mediaType(of file: String) -> String {
        switch (file as NSString).pathExtension.lowercased() {
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "heic": "image/heic"
        case "pdf": "application/pdf"
        case "mp4": "video/mp4"
        case "mov": "video/quicktime"
        case "txt": "text/plain"
        case "json": "application/json"
        default: "application/octet-stream"
        }
    }

    /// Runs `body` with a provider on the store (its service root kept in the store). The
    /// provider owns the store while it works: the shell's handle is closed, then opened again
    /// whatever happened.
    func withProvider(reopening offline: inout OfflineStore, _ body: (OfflineODataProvider) async throws -> Void) async throws {
        try offline.close()
        var failure: (any Error)?
        do {
            let parameters = try syncParameters(store, queries: [], pageSize: 1000)
            let provider = try OfflineODataProvider(serviceRoot: try await resolveServiceRoot(nil, parameters), parameters: parameters)
            try await provider.open()
            do { try await body(provider) } catch { failure = error }
            try provider.close()
        } catch {
            failure = failure ?? error
        }
        offline = try await store.openOfflineStore(metadata: metadata, pageSize: pageSize)
        if let failure { throw failure }
    }

    /// Runs one line and prints what happened. Errors are printed on one line (stderr) and the
    /// console goes on.
    func perform(_ line: String, on offline: inout OfflineStore) async -> Outcome {
        do {
            switch try ShellLine.parse(line) {
            case .errors:
                let entries = try offline.errorArchive()
                if entries.isEmpty { print("ErrorArchive: empty") }
                for entry in entries {
                    print("\(entry.requestID): \(entry.requestMethod) \(entry.requestURL) → \(entry.httpStatusCode) \(entry.message ?? "")")
                }
                return .ok
            case .undo(let reference):
                // Any path to one entity: `SalesOrders('SO001')`, `Me`, `People('x')/Trips(0)`.
                let (set, key) = try offline.storedAddress(of: reference)
                let undone = try offline.undoPendingChanges(set: set, key: key)
                print(undone ? "undone: \(reference) is back to the back end's version; its queued requests are gone"
                             : "\(reference) has no pending changes")
                return .ok
            case .upload(let categories):
                try await withProvider(reopening: &offline) { provider in
                    let start = Date()
                    let summary = try await provider.upload(categories: categories.isEmpty ? nil : categories)
                    print("uploaded (\(milliseconds(since: start))): \(summary.succeeded) applied, \(summary.failed) failed, \(summary.remaining) left")
                }
                return .ok
            case .download(let names):
                try await withProvider(reopening: &offline) { provider in
                    let start = Date()
                    let summaries = try await provider.download(subset: names.isEmpty ? nil : names)
                    print("downloaded (\(milliseconds(since: start))): " + summaries.map {
                        "\($0.definingQuery) \($0.entitiesApplied) applied, \($0.entitiesRemoved) removed"
                    }.joined(separator: "; "))
                }
                return .ok
            case .putMedia(let url, let file, let type):
                let (set, key, property) = try mediaAddress(url, offline)
                let response = try await offline.writeMedia(set: set, key: key, property: property,
                                                            contentType: type ?? Self.mediaType(of: file), fromFile: file)
                print("\(ResponsePrinter.statusLine(response)): \(url) replaced from \(file), request \(response.requestID.map(String.init) ?? "-") queued")
                return .ok
            case .getMedia(let url, let file):
                let (set, key, property) = try mediaAddress(url, offline)
                guard let info = try offline.mediaInfo(set: set, key: key, property: property) else {
                    throw CLIFailure(message: "\(url) has no stored stream")
                }
                let written = try await offline.readMedia(set: set, key: key, property: property, toFile: file)
                print("\(written) bytes of \(info.contentType) written to \(file)\(info.isLocal ? " (written locally, not uploaded yet)" : "")")
                return .ok
            case .newMedia(let set, let file, let type):
                let response = try await offline.createMedia(in: set, contentType: type ?? Self.mediaType(of: file),
                                                             slug: (file as NSString).lastPathComponent, from: try FileChunks(path: file))
                print("\(ResponsePrinter.statusLine(response)): \(response.headers["Location"] ?? set) created from \(file)")
                return .ok
            case .empty: return .ok
            case .withdraw(let id):
                try offline.withdrawAction(requestID: id)
                print("withdrawn: request \(id) will not be uploaded")
                return .ok
            case .history:
                // Kept by the interactive loop; a -c line has none.
                print("history: only in an interactive or piped session")
                return .ok
            case .quit: return .quit
            case .help:
                print(ShellLine.helpText)
                return .ok
            case .explain(let url):
                print(try offline.explain(url))
                return .ok
            case .request(let method, let url, let headers, let body):
                let start = Date()
                let response: ODataResponse
                do {
                    response = try offline.execute(method, url, body: body, headers: headers)
                } catch {
                    response = ODataResponse.error(error)   // shown like a server's error response
                }
                print(ResponsePrinter.statusLine(response) + "  (\(milliseconds(since: start)))")
                if let text = ResponsePrinter.body(response) { print(text) }
                return response.status >= 400 ? .failed : .ok
            }
        } catch {
            let text = (error as? CLIFailure)?.message ?? "\(error)"
            FileHandle.standardError.write(Data("error: \(text.split(whereSeparator: \.isNewline).joined(separator: " "))\n".utf8))
            fflush(nil)
            return .failed
        }
    }
}
