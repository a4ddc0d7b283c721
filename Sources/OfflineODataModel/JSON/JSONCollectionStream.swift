/// What `JSONCollectionStream` reports: one element of the collection, or one member of the
/// object(s) around it (control information such as `@odata.nextLink`, `__count`, and any other
/// member), in document order.
public enum JSONCollectionItem: Sendable, Hashable {
    case element(JSONValue)
    case control(name: String, value: JSONValue)
}

/// Reads an OData collection payload incrementally and yields its elements one at a time, with
/// memory bounded by the largest element (plus one chunk).
///
/// Accepted shapes:
/// - OData V4 (and V3 JSON light): `{"@odata.context":…, "value":[…], "@odata.nextLink":…}`,
///   control members before or after `value`;
/// - OData V2: `{"d":{"results":[…], "__count":"…", "__next":…}}`, and V1-style `{"d":[…]}`;
/// - a bare top-level array `[…]`.
/// Every other top-level member (and, in V2, every member of `d` but `results`) is reported as
/// `.control` when it has been read completely. Anything else is `jsonNotACollection` (1213).
public struct JSONCollectionStream: Sendable {
    private enum Level: Sendable, Hashable { case bare, top, d }

    private enum Phase: Sendable {
        case start
        case members(Level)
        case expectArray(Level)
        case expectD
        case collection(Level)
        case control(Level)
        case done
    }

    private var reader: JSONStreamReader
    private var builder = JSONValueBuilder()
    private var phase = Phase.start
    /// The member whose value is being read (`expectArray`, `control`).
    private var memberName = ""
    private var sawCollection = false
    private var topNames: Set<String> = []
    private var dNames: Set<String> = []

    /// Every control member read so far (top level and, in V2, inside `d`).
    public private(set) var controlInformation = JSONObject()
    /// `@odata.count`, `odata.count` or V2 `__count` (a string there), once read.
    public private(set) var count: Int64?
    /// `@odata.nextLink`, `odata.nextLink` or V2 `__next`, once read.
    public private(set) var nextLink: String?
    /// `@odata.deltaLink`, `odata.deltaLink` or V2 `__delta`, once read.
    public private(set) var deltaLink: String?
    /// `@odata.context` or `odata.metadata`, once read.
    public private(set) var context: String?
    /// Elements yielded so far.
    public private(set) var elementCount = 0

    public init(options: JSONReaderOptions = JSONReaderOptions()) {
        reader = JSONStreamReader(options: options)
    }

    /// True once `finish()` was called and the whole payload has been read.
    public var isComplete: Bool { reader.isComplete }

    /// Bytes buffered by the underlying reader.
    public var bufferedByteCount: Int { reader.bufferedByteCount }

    /// Adds the next bytes of the payload.
    public mutating func feed(_ chunk: [UInt8]) throws(ODataError) {
        try reader.feed(chunk)
    }

    /// Adds the next bytes of the payload.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer) throws(ODataError) {
        try reader.feed(chunk)
    }

    /// Marks the end of the payload.
    public mutating func finish() throws(ODataError) {
        try reader.finish()
    }

    /// The next element or control member; nil when more input is needed (before `finish()`)
    /// or the payload is complete (after it; see `isComplete`).
    public mutating func next() throws(ODataError) -> JSONCollectionItem? {
        while let event = try reader.next() {
            switch phase {
            case .start:
                switch event {
                case .startArray:
                    sawCollection = true
                    phase = .collection(.bare)
                case .startObject:
                    phase = .members(.top)
                default:
                    throw notACollection("the payload is a single \(describe(event)), not a collection")
                }
            case .members(let level):
                switch event {
                case .key(let name):
                    let inserted = level == .d ? dNames.insert(name).inserted : topNames.insert(name).inserted
                    guard inserted else {
                        throw JSONErrorKind.duplicateMember.error(
                            "duplicate member \"\(JSONScanner.escapedForMessage(name))\"",
                            location: reader.location(path: reader.path, offset: reader.offset))
                    }
                    memberName = name
                    if (level == .top && name == "value") || (level == .d && name == "results") {
                        phase = .expectArray(level)
                    } else if level == .top && name == "d" {
                        phase = .expectD
                    } else {
                        phase = .control(level)
                    }
                case .endObject:
                    if level == .d {
                        phase = .members(.top)
                    } else {
                        phase = .done
                        guard sawCollection else {
                            throw notACollection("the payload object has no \"value\" array nor \"d\" collection")
                        }
                    }
                default:
                    throw notACollection("unexpected \(describe(event))")
                }
            case .expectArray(let level):
                guard event == .startArray else {
                    throw notACollection("member \"\(memberName)\" is \(describe(event)), not an array")
                }
                sawCollection = true
                phase = .collection(level)
            case .expectD:
                switch event {
                case .startArray:
                    sawCollection = true
                    phase = .collection(.top)
                case .startObject:
                    phase = .members(.d)
                default:
                    throw notACollection("member \"d\" is \(describe(event)), not an object or array")
                }
            case .collection(let level):
                if builder.isIdle && event == .endArray {
                    phase = level == .bare ? .done : .members(level)
                    continue
                }
                if let value = try build(event) {
                    elementCount += 1
                    return .element(value)
                }
            case .control(let level):
                if let value = try build(event) {
                    phase = .members(level)
                    record(memberName, value)
                    return .control(name: memberName, value: value)
                }
            case .done:
                throw notACollection("unexpected \(describe(event)) after the collection")
            }
        }
        return nil
    }

    private mutating func build(_ event: JSONEvent) throws(ODataError) -> JSONValue? {
        do {
            return try builder.add(event)
        } catch {
            // The object just closed holds the duplicate; the location is its closing brace.
            var path = reader.completedValuePath
            JSONPath.append(.key(error.name), to: &path)
            throw JSONErrorKind.duplicateMember.error(
                "duplicate member \"\(JSONScanner.escapedForMessage(error.name))\"",
                location: reader.location(path: path, offset: reader.offset - 1))
        }
    }

    private mutating func record(_ name: String, _ value: JSONValue) {
        controlInformation[name] = value
        switch name {
        case "@odata.count", "odata.count", "__count":
            if let number = value.numberValue?.int64Value {
                count = number
            } else if let text = value.stringValue, let number = Int64(text) {
                count = number
            }
        case "@odata.nextLink", "odata.nextLink", "__next":
            nextLink = value.stringValue
        case "@odata.deltaLink", "odata.deltaLink", "__delta":
            deltaLink = value.stringValue
        case "@odata.context", "odata.metadata":
            context = value.stringValue
        default:
            break
        }
    }

    private func notACollection(_ message: String) -> ODataError {
        JSONErrorKind.notACollection.error(message, location: reader.location(path: reader.path, offset: reader.offset))
    }

    private func describe(_ event: JSONEvent) -> String {
        switch event {
        case .startObject: "an object"
        case .startArray: "an array"
        case .endObject: "'}'"
        case .endArray: "']'"
        case .key(let name): "member \"\(JSONScanner.escapedForMessage(name))\""
        case .string: "a string"
        case .number: "a number"
        case .bool: "a Boolean"
        case .null: "null"
        }
    }
}
