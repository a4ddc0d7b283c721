import ArgumentParser
import Foundation

@main
struct OfflineODataCLI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "offline-odata",
        abstract: "An embeddable, encrypted offline OData store: tools for its stores.",
        subcommands: [
            DemoCommand.self, ShellCommand.self, ImportCommand.self, QueryCommand.self, CheckCommand.self,
            StatsCommand.self, CompactCommand.self, RekeyCommand.self, DumpCommand.self, EngineDemoCommand.self,
            OpenCommand.self, DownloadCommand.self, UploadCommand.self, DefiningQueryCommand.self, IndexCommand.self, SyncCrashWorkerCommand.self,
            CrashWorkerCommand.self, StoreCrashWorkerCommand.self, EngineProbeCommand.self,
        ]
    )

    /// Like the default, but a usage error is one line (`error: …`) instead of the usage text.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .success || error is ExitCode || error is CleanExit {
                exit(withError: error)
            }
            let message = self.message(for: error).split(whereSeparator: \.isNewline).first.map(String.init) ?? "\(error)"
            FileHandle.standardError.write(Data("error: \(message) (see offline-odata --help)\n".utf8))
            Foundation.exit(code.rawValue)
        }
    }
}
