import ArgumentParser

struct OfflineODataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "offline-odata",
        abstract: "An embeddable, encrypted offline OData store."
    )
}
OfflineODataCommand.main()
