/// A defining query: what part of the back end's data the store holds (docs/OfflineStore.md §5).
/// `url` is relative to the service root: an entity set or a navigation path, with options
/// (`SalesOrders?$expand=ToItems&$filter=…`).
public struct DefiningQuery: Sendable, Hashable {
    public var name: String
    public var url: String
    public var automaticallyRetrievesStreams: Bool

    public init(name: String, url: String, automaticallyRetrievesStreams: Bool = false) {
        self.name = name
        self.url = url
        self.automaticallyRetrievesStreams = automaticallyRetrievesStreams
    }
}
