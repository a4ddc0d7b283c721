/// Reads a collection payload fed in chunks and yields one entity at a time, so memory stays
/// bounded by the largest entity plus one chunk (built on `JSONCollectionStream`).
///
/// ```swift
/// var reader = try ODataJSONReader(model: model).collectionReader(entitySet: "SalesOrders")
/// for chunk in chunks {
///     try reader.feed(chunk)
///     while let entity = try reader.next() { store(entity) }
/// }
/// try reader.finish()
/// while let entity = try reader.next() { store(entity) }
/// reader.nextLink   // surfaced once read
/// ```
public struct ODataCollectionReader: Sendable {
    private var stream: JSONCollectionStream
    private let reader: ODataJSONReader
    private let plan: ODataStructuredPlan
    private var elementPath: [JSONPathComponent]
    private var sniffed = false
    private var annotationsRead = ODataEntityCollection()

    /// Deleted entries met by `next()` (which yields only entities); `nextElement()` yields both.
    public private(set) var deleted: [ODataDeletedEntity] = []
    /// Entities and deleted entries yielded so far.
    public private(set) var elementCount = 0

    init(reader: ODataJSONReader, plan: ODataStructuredPlan) {
        self.reader = reader
        self.plan = plan
        stream = JSONCollectionStream(options: reader.options.json)
        elementPath = reader.version == .v2 ? [.key("d"), .key("results")] : [.key("value")]
    }

    /// `@odata.count` / `__count`, once read.
    public var count: Int64? { stream.count }
    /// `@odata.nextLink` / `__next`, once read (it often follows the entities).
    public var nextLink: String? { stream.nextLink }
    /// `@odata.deltaLink` / `__delta`, once read.
    public var deltaLink: String? { stream.deltaLink }
    /// `@odata.context`, once read.
    public var context: String? { stream.context }
    /// Top-level instance annotations (`@Namespace.term`) read so far.
    public var annotations: [ODataAnnotation] { annotationsRead.annotations }
    /// True once `finish()` was called and everything was read.
    public var isComplete: Bool { stream.isComplete }

    public mutating func feed(_ chunk: [UInt8]) throws(ODataError) {
        if !sniffed { chunk.withUnsafeBytes { sniff($0) } }
        try stream.feed(chunk)
    }

    public mutating func feed(_ chunk: UnsafeRawBufferPointer) throws(ODataError) {
        if !sniffed { sniff(chunk) }
        try stream.feed(chunk)
    }

    /// A bare top-level array names its elements `$[i]` in error locations.
    private mutating func sniff(_ chunk: UnsafeRawBufferPointer) {
        for byte in chunk where !(byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0xEF
                                  || byte == 0xBB || byte == 0xBF) {
            sniffed = true
            if byte == UInt8(ascii: "[") { elementPath = [] }
            return
        }
    }

    /// Marks the end of the payload.
    public mutating func finish() throws(ODataError) {
        try stream.finish()
    }

    /// The next entity; nil when more input is needed (or, after `finish()`, at the end).
    /// Deleted entries of delta payloads are collected in `deleted`.
    public mutating func next() throws(ODataError) -> ODataEntity? {
        while let element = try nextElement() {
            switch element {
            case .entity(let entity): return entity
            case .deleted(let entry): deleted.append(entry)
            }
        }
        return nil
    }

    /// The next entity or deleted entry; nil when more input is needed or at the end.
    public mutating func nextElement() throws(ODataError) -> ODataCollectionElement? {
        while let item = try stream.next() {
            switch item {
            case .element(let json):
                let index = elementCount
                elementCount += 1
                do throws(ODataJSONFailure) {
                    return try reader.decodeElement(json, plan: plan)
                } catch {
                    throw error.error(prefix: elementPath + [.index(index)])
                }
            case .control(let name, let value):
                do throws(ODataJSONFailure) {
                    try reader.applyCollectionControl(name, value, to: &annotationsRead)
                } catch {
                    throw error.error(prefix: [.key(name)])
                }
            }
        }
        return nil
    }
}

extension ODataJSONReader {
    /// A streaming reader for a collection of the entity set's type.
    public func collectionReader(entitySet: String) throws(ODataError) -> ODataCollectionReader {
        try collectionReader(entityType: try entityTypeName(ofSetOrSingleton: entitySet))
    }

    /// A streaming reader for a collection of the given entity type.
    public func collectionReader(entityType: String) throws(ODataError) -> ODataCollectionReader {
        ODataCollectionReader(reader: self, plan: try entityPlan(entityType))
    }
}
