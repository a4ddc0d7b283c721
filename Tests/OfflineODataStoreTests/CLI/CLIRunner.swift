import Foundation
import OfflineODataFixtures
import Testing

/// Runs the built `offline-odata` binary (found next to the test bundle, as the engine's crash
/// tests do) the way a user does, and makes scratch folders for it.
struct CLIRunner {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
        var errorLines: [Substring] { stderr.split(separator: "\n") }
    }

    static var binary: String? {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var dir = exe.deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = dir.appendingPathComponent("offline-odata").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }

    static let passphrase = "cli test passphrase"

    /// Runs with `OFFLINE_ODATA_PASSPHRASE` set to `passphrase` unless `environment` says otherwise.
    static func run(_ arguments: [String], passphrase: String? = CLIRunner.passphrase, stdin: String? = nil) throws -> Output {
        let binary = try #require(binary, "offline-odata not built: run `swift build` before `swift test`")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["OFFLINE_ODATA_PASSPHRASE"] = passphrase
        p.environment = env
        let out = Pipe(), err = Pipe(), input = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = input
        try p.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        // stderr is read on another thread so that neither pipe can fill up and block the child.
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let o = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        return Output(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }

    /// A fresh scratch directory, removed by `cleanup()`.
    struct Scratch {
        let path: String
        init() {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("oodata-cli-\(UUID().uuidString)").path
            try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        func cleanup() { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Writes a corpus folder generated from the fixtures (metadata.xml and one single-page
    /// `<Set>.json` per set, with ETags): `import` works on it without ../shared/corpora.
    static func writeGeneratedCorpus(to folder: String, orders: Int = 20) throws -> SalesServiceGenerator {
        let generator = SalesServiceGenerator(seed: 7, scale: .entities(salesOrders: orders))
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(generator.metadataXML().utf8).write(to: URL(fileURLWithPath: folder + "/metadata.xml"))
        for set in SalesEntitySet.allCases {
            let page = try generator.page(set: set, index: 0, pageSize: max(1, generator.count(of: set)),
                                          options: PageOptions(includeETags: true))
            try Data(page).write(to: URL(fileURLWithPath: folder + "/\(set.name).json"))
        }
        return generator
    }

    /// `<repo>/../shared/corpora`, resolved from this file.
    static let corpora: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/corpora")

    static var corporaAvailable: Bool {
        FileManager.default.fileExists(atPath: corpora.appendingPathComponent("northwind/metadata.xml").path)
    }
}
