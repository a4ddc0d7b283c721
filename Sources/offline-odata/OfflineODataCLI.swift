import ArgumentParser

@main
struct OfflineODataCLI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "offline-odata",
        abstract: "An embeddable, encrypted offline OData store: tools for its stores.",
        subcommands: [
            DemoCommand.self, CheckCommand.self, StatsCommand.self, CompactCommand.self, RekeyCommand.self,
            DumpCommand.self, CrashWorkerCommand.self, EngineProbeCommand.self,
        ]
    )
}
