/// Reads the common shape of a downloaded page straight into entity records: a V4 collection
/// (`{"@odata.context":…,"value":[…],"@odata.nextLink":…}`) whose entities hold only
/// properties (complex and collection values included), `@odata.etag` and the other control
/// strings, and annotations. It skips what `ODataJSONReader.readCollection` builds on the way (the document
/// tree, each entity's property list) and converts every value with the same code, so for a
/// page it accepts it gives exactly the records the general reader's entities convert to.
///
/// V2's verbose form (`{"d":{"results":[…]}}`, `__metadata`, deferred links) is read the same
/// way. Everything else (navigation content, `@odata.type`, property annotations, deleted entries,
/// a member the type does not declare, any error) makes `read` answer nil: the caller reads
/// the page with `ODataJSONReader`, which also names the error of a bad page. So this reader
/// never throws and never decides what is valid on its own; a page it refuses costs one
/// scan more (docs/OfflineStore.md §7.2).
public struct ODataFlatPageReader: Sendable {
    /// One entity read: its record (one slot per name of the layout, properties the layout does
    /// not name as dynamic ones, in payload order, as `EntityConversion` arranges them) and its
    /// ETag (`@odata.etag`).
    public struct Entity: Sendable {
        public var record: EntityRecord
        public var etag: String?
    }

    /// The entity type's qualified name (what the general reader gives each entity).
    public let typeName: String
    private let plan: ODataStructuredPlan
    let decoder: ODataEntityDecoder
    private let maxDocumentSize: Int
    /// `ODataJSONReaderOptions.maxNesting`.
    private let maxNesting: Int
    /// The JSON limits, for values inside an entity (with the entity's depth taken off).
    private let jsonOptions: JSONReaderOptions
    /// Per member of the plan: its name's UTF-8, and its slot in the layout (-1: none).
    private let memberBytes: [[UInt8]]
    private let memberSlots: [Int]
    /// Per member: its property plan (nil: a navigation property). Read only for values that
    /// are not transcoded in place.
    private let properties: [ODataPropertyPlan?]
    /// The members' names back to back, where each ends, and per member whether it is a
    /// property: plain arrays that a scan reads in place (an array of arrays or of class
    /// references cost a retain and a release per member read).
    private let names: [UInt8]
    private let nameEnds: [Int]
    private let isProperty: [Bool]
    private let slotCount: Int
    /// The layout's names, as given: an encoded read needs a codec of this very layout.
    private let slotNames: [String]
    /// Member indices of the key properties, when entities must have them.
    private let requiredMembers: [Int]
    /// Navigation members whose expanded content is read in place (`expanding`), by member
    /// index; any other expanded content makes the page not flat.
    private var expansions: [Int: Expansion] = [:]
    /// The JSON nesting limit left to the general reader's entity decoder at this reader's
    /// entities: 0 for a page's entities, 1 for entities expanded inside them.
    private var nesting = 0

    /// An expanded navigation read in place: the reader of its entities.
    struct Expansion: Sendable {
        let name: String
        let isCollection: Bool
        let reader: ODataFlatPageReader
    }

    /// A reader for entities of `entitySet`, stored by a layout naming `slots`; nil when the
    /// general reader must read every page (limits below a flat page's depth, an unknown set).
    public init?(reader: ODataJSONReader, entitySet: String, slots: [String]) {
        guard reader.options.json.maxDepth >= 3, reader.options.maxNesting >= 1,
              let type = try? reader.entityTypeName(ofSetOrSingleton: entitySet),
              let plan = try? reader.entityPlan(type) else { return nil }
        self.plan = plan
        typeName = plan.qualifiedName
        decoder = reader.decoder
        maxDocumentSize = reader.options.json.maxDocumentSize
        var nested = reader.options.json
        nested.allowsByteOrderMark = false
        jsonOptions = nested
        var slotIndex: [String: Int] = [:]
        for (i, name) in slots.enumerated() where slotIndex[name] == nil { slotIndex[name] = i }
        memberBytes = plan.memberNames.map { Array($0.utf8) }
        memberSlots = plan.memberNames.map { slotIndex[$0] ?? -1 }
        properties = plan.members.map { member in
            if case .property(let property) = member { return property }
            return nil
        }
        names = memberBytes.flatMap { $0 }
        nameEnds = memberBytes.reduce(into: [Int]()) { ends, name in ends.append((ends.last ?? 0) + name.count) }
        isProperty = properties.map { $0 != nil }
        slotCount = slots.count
        slotNames = slots
        maxNesting = reader.options.maxNesting
        requiredMembers = reader.options.requireKeyProperties ? plan.keyNames.map { plan.index[$0] ?? -1 } : []
        if requiredMembers.contains(-1) { return nil }
    }

    /// This reader, also reading the expanded content of `navigation` in place (a collection:
    /// an array of entities; a single navigation: an entity object), as `target` reads the
    /// entities of the navigation's target type. Nil when `navigation` is not a navigation
    /// property of this type, `target` reads another type or expands content itself (one
    /// level), or the reader's limits leave no room for the nested entities.
    public func expanding(_ navigation: String, with target: ODataFlatPageReader) -> ODataFlatPageReader? {
        guard nesting == 0, target.nesting == 0, target.expansions.isEmpty, let member = plan.index[navigation],
              case .navigation(_, let targetType, let isCollection) = plan.members[member], targetType == target.typeName,
              jsonOptions.maxDepth >= 5, target.maxNesting >= 2 else { return nil }
        var nested = target
        nested.nesting = 1
        var copy = self
        copy.expansions[member] = Expansion(name: navigation, isCollection: isCollection, reader: nested)
        return copy
    }

    /// The names of the navigations read in place.
    public var expandedNavigations: [String] { expansions.values.map(\.name).sorted() }

    /// The page's entities, or nil when the general reader must read it.
    public func read(_ bytes: [UInt8]) -> [Entity]? {
        var sink = RecordSink(slotCount: slotCount, decoder: decoder, depth: nesting)
        return scan(bytes, &sink) ? sink.entities : nil
    }

    /// One entity read in its stored form: the bytes `codec.encode` makes of the record `read`
    /// gives (docs/EntityEncoding.md §2), and its ETag.
    public struct EncodedEntity: Sendable {
        public var codec: [UInt8]
        public var etag: String?
        /// With `stringKeySlots`: the `OrderedKeyEncoding` of those slots' values, in that
        /// order, when each is a string read in place (no escapes); nil otherwise.
        public var stringKey: [UInt8]?
        /// The entities of each navigation read in place (`expanding`), in payload order; an
        /// expanded navigation with no entity (an empty array, null) is left out.
        public var expanded: [ExpandedEntities] = []
    }

    /// The entities expanded under one navigation of an entity.
    public struct ExpandedEntities: Sendable {
        public var navigation: String
        public var entities: [EncodedEntity]
    }

    /// The stored form of the entities of an expanded navigation (`readEncoded`): their set's
    /// codec and the slots of a key of strings.
    public struct NestedForm: Sendable {
        public var codec: EntityCodec
        public var stringKeySlots: [Int]
        public init(codec: EntityCodec, stringKeySlots: [Int] = []) {
            self.codec = codec
            self.stringKeySlots = stringKeySlots
        }
    }

    /// The page's entities encoded by `codec` (the codec of the layout this reader was made for)
    /// straight from the JSON, without a record in between: byte for byte what `codec.encode`
    /// makes of the records `read` gives. Nil where `read` gives nil, where an entity has a
    /// property the layout does not name, and where `encode` would throw: the caller then takes
    /// the record way, which reports the entity (docs/OfflineStore.md §7.2).
    ///
    /// `stringKeySlots`: slots (of a key whose properties are all strings) whose ordered-key
    /// encoding each entity also gets (`EncodedEntity.stringKey`), made from the same bytes.
    ///
    /// `expanded`: per navigation read in place, the stored form of its entities; a page with
    /// expanded content of a navigation not named there is not flat.
    public func readEncoded(_ bytes: [UInt8], codec: EntityCodec, stringKeySlots: [Int] = [],
                            expanded: [String: NestedForm] = [:]) -> [EncodedEntity]? {
        guard var sink = encodedSink(codec: codec, stringKeySlots: stringKeySlots) else { return nil }
        for (member, expansion) in expansions {
            guard let form = expanded[expansion.name],
                  let nested = expansion.reader.encodedSink(codec: form.codec, stringKeySlots: form.stringKeySlots) else { continue }
            sink.nested[member] = nested
        }
        return scan(bytes, &sink) ? sink.entities : nil
    }

    /// The sink that encodes this reader's entities by `codec` (nil: another layout's codec).
    private func encodedSink(codec: EntityCodec, stringKeySlots: [Int]) -> EncodedSink? {
        guard codec.names == slotNames else { return nil }
        // Per member, how its value is transcoded in place (`EncodedSink.Fast`): only where the
        // slot declares the property's own primitive kind.
        let fast = properties.indices.map { member -> EncodedSink.Fast in
            guard let property = properties[member], !property.isCollection, case .primitive(let kind) = property.type,
                  memberSlots[member] >= 0, codec.declaredKind(at: memberSlots[member]) == kind else { return .none }
            return EncodedSink.Fast(kind)
        }
        // Per member, its complex type's form when its values are written in place: a single
        // complex property whose slot is declared complex.
        let complexForms = properties.indices.map { member -> EncodedSink.ComplexForm? in
            guard let property = properties[member], !property.isCollection, case .complex(let name) = property.type,
                  memberSlots[member] >= 0, codec.declaredKind(at: memberSlots[member]) == nil,
                  let plan = decoder.plans.plan(name), !plan.isEntity else { return nil }
            return EncodedSink.ComplexForm(plan)
        }
        // A complex value in place sits one level below its entity (3 on a page, 5 expanded).
        return EncodedSink(codec: codec, decoder: decoder, fast: fast, complexForms: complexForms,
                           complexDepthAllowed: jsonOptions.maxDepth - (nesting == 0 ? 4 : 6) > 0,
                           maxTokenSize: jsonOptions.maxTokenSize,
                           stringKeySlots: stringKeySlots.allSatisfy { $0 >= 0 && $0 < slotCount } ? stringKeySlots : [],
                           depth: nesting)
    }

    /// The plan of member `member` when it is a property.
    func property(_ member: Int) -> ODataPropertyPlan? { properties[member] }

    private func scan<Sink: FlatEntitySink>(_ bytes: [UInt8], _ sink: inout Sink) -> Bool {
        guard bytes.count <= maxDocumentSize else { return false }
        return bytes.withUnsafeBufferPointer { buffer in
            withScan(buffer) { scan in scan.page(&sink) }
        }
    }

    /// `body` with a scan of `buffer` by this reader (its member tables borrowed for it).
    func withScan<R>(_ buffer: UnsafeBufferPointer<UInt8>, _ body: (inout Scan) -> R) -> R {
        names.withUnsafeBufferPointer { names in
            nameEnds.withUnsafeBufferPointer { nameEnds in
                memberSlots.withUnsafeBufferPointer { slots in
                    isProperty.withUnsafeBufferPointer { isProperty in
                        var scan = Scan(buffer: buffer, reader: self,
                                        members: Scan.Members(names: names, nameEnds: nameEnds, slots: slots, isProperty: isProperty))
                        return body(&scan)
                    }
                }
            }
        }
    }

    /// One pass over a page. Every method returns nil (or false) where the page leaves the
    /// flat shape or is not valid JSON; nothing is thrown.
    struct Scan {
        let buffer: UnsafeBufferPointer<UInt8>
        let reader: ODataFlatPageReader
        /// The reader's per-member tables, borrowed for the scan.
        struct Members {
            let names: UnsafeBufferPointer<UInt8>
            let nameEnds: UnsafeBufferPointer<Int>
            let slots: UnsafeBufferPointer<Int>
            let isProperty: UnsafeBufferPointer<Bool>
        }
        let members: Members
        var i = 0
        var scratch: [UInt8] = []
        /// Per member, the number of the entity that last had it (duplicate names), for types of
        /// more than 64 members; a bit per member in `entity` otherwise.
        var seen: [Int]
        var entityNumber = 0
        /// The nesting depth of the entities' objects: 3 in `{"value":[…]}` and `{"d":[…]}`,
        /// 4 in V2's `{"d":{"results":[…]}}`.
        var entityDepth = 3

        init(buffer: UnsafeBufferPointer<UInt8>, reader: ODataFlatPageReader, members: Members) {
            self.buffer = buffer
            self.reader = reader
            self.members = members
            // Types of at most 64 members use a bit mask per entity instead (`entity`).
            seen = reader.memberBytes.count > 64 ? [Int](repeating: -1, count: reader.memberBytes.count) : []
        }

        mutating func skipSpace() {
            while i < buffer.count {
                let b = buffer[i]
                guard b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 else { return }
                i += 1
            }
        }

        /// Consumes `byte` (after white space).
        mutating func take(_ byte: UInt8) -> Bool {
            skipSpace()
            guard i < buffer.count, buffer[i] == byte else { return false }
            i += 1
            return true
        }

        mutating func string() -> String? {
            guard take(0x22) else { return nil }
            guard let (text, next) = try? JSONScanner.scanString(buffer, from: i, scratch: &scratch) else { return nil }
            i = next
            return text
        }

        /// A value: scalars read in place, objects and arrays by `nested`.
        mutating func value() -> JSONValue? {
            skipSpace()
            guard i < buffer.count else { return nil }
            switch buffer[i] {
            case 0x22:
                return string().map(JSONValue.string)
            case 0x2D, 0x30...0x39:
                let start = i
                guard let end = try? JSONScanner.scanNumber(buffer, from: i, isFinal: true) else { return nil }
                i = end
                return .number(JSONNumber(unchecked: String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<end]), as: UTF8.self)))
            case 0x7B, 0x5B: return nested()
            case 0x74: return literal("true", .bool(true))
            case 0x66: return literal("false", .bool(false))
            case 0x6E: return literal("null", .null)
            default: return nil
            }
        }

        /// An object or array value (a complex value, a collection, an annotation's value) read
        /// by `JSONReader` from its own bytes, with the depth left below the entity.
        mutating func nested() -> JSONValue? {
            let start = i
            var depth = 0
            while i < buffer.count {
                switch buffer[i] {
                case 0x22:
                    guard let end = JSONScanner.findStringEnd(buffer, from: i + 1).end else { return nil }
                    i = end
                case 0x7B, 0x5B:
                    depth += 1
                case 0x7D, 0x5D:
                    depth -= 1
                default:
                    break
                }
                i += 1
                if depth == 0 { break }
            }
            var options = reader.jsonOptions
            options.maxDepth -= entityDepth
            guard depth == 0, options.maxDepth > 0 else { return nil }
            return try? JSONReader.parse(UnsafeBufferPointer(rebasing: buffer[start..<i]), options: options)
        }

        mutating func literal(_ text: StaticString, _ value: JSONValue) -> JSONValue? {
            let count = text.utf8CodeUnitCount
            guard i + count <= buffer.count else { return nil }
            let expected = UnsafeBufferPointer(start: text.utf8Start, count: count)
            for k in 0..<count where buffer[i + k] != expected[k] { return nil }
            i += count
            return value
        }

        /// After a member: true when another follows (`,`), false at `}`; nil otherwise.
        mutating func memberEnd() -> Bool? {
            skipSpace()
            guard i < buffer.count else { return nil }
            switch buffer[i] {
            case 0x2C: i += 1; return true
            case 0x7D: i += 1; return false
            default: return nil
            }
        }

        /// The page into `sink`; false where it is not flat.
        mutating func page<Sink: FlatEntitySink>(_ sink: inout Sink) -> Bool {
            if buffer.count >= 3, buffer[0] == 0xEF { return false }
            guard take(0x7B) else { return false }
            var collections = 0
            var keys: [String] = []
            skipSpace()
            if i < buffer.count, buffer[i] == 0x7D {
                return false
            }
            while true {
                guard let key = string(), !keys.contains(key), take(0x3A) else { return false }
                keys.append(key)
                if key == "value" || key == "d" {
                    // One collection per page: the general reader would keep the later one.
                    collections += 1
                    guard collections == 1, key == "value" ? elements(&sink) : verbose(&sink) else { return false }
                } else {
                    guard let value = value(), control(key, value) else { return false }
                }
                guard let more = memberEnd() else { return false }
                if !more { break }
            }
            skipSpace()
            return i == buffer.count && collections == 1
        }

        /// V2's `d`: the entities as an array, or an object with them in `results` and the
        /// `__count`, `__next` and `__delta` controls.
        mutating func verbose<Sink: FlatEntitySink>(_ sink: inout Sink) -> Bool {
            skipSpace()
            guard i < buffer.count else { return false }
            if buffer[i] == 0x5B { return elements(&sink) }
            guard take(0x7B) else { return false }
            guard reader.jsonOptions.maxDepth >= 4 else { return false }
            entityDepth = 4
            var results = false
            var keys: [String] = []
            while true {
                guard let key = string(), !keys.contains(key), take(0x3A) else { return false }
                keys.append(key)
                if key == "results" {
                    guard elements(&sink) else { return false }
                    results = true
                } else {
                    guard ["__count", "__next", "__delta"].contains(key), let value = value(), control(key, value) else { return false }
                }
                guard let more = memberEnd() else { return false }
                if !more { break }
            }
            return results
        }

        /// A top-level control member the general reader accepts as it is.
        func control(_ name: String, _ value: JSONValue) -> Bool {
            let decoder = reader.decoder
            switch name {
            case "@odata.count", "@count", "odata.count", "__count":
                do { _ = try decoder.controlCount(value) } catch { return false }
                return true
            case "@odata.nextLink", "@nextLink", "odata.nextLink", "__next",
                 "@odata.deltaLink", "@deltaLink", "odata.deltaLink", "__delta",
                 "@odata.context", "@context", "odata.metadata":
                return Self.isControlString(value)
            default:
                // An annotation (`@Namespace.term`) is kept apart from the entities; another
                // name may be V2's `d` or a member the general reader skips.
                return name.utf8.first == ODataEntityDecoder.at
            }
        }

        /// What `controlString` accepts: a string or null.
        static func isControlString(_ value: JSONValue) -> Bool {
            switch value {
            case .string, .null: return true
            default: return false
            }
        }

        mutating func elements<Sink: FlatEntitySink>(_ sink: inout Sink) -> Bool {
            guard take(0x5B) else { return false }
            skipSpace()
            if i < buffer.count, buffer[i] == 0x5D {
                i += 1
                return true
            }
            while true {
                guard entity(&sink) else { return false }
                skipSpace()
                guard i < buffer.count else { return false }
                if buffer[i] == 0x2C { i += 1; continue }
                if buffer[i] == 0x5D { i += 1; return true }
                return false
            }
        }

        /// The member a key names; reads a plain ASCII key in place.
        mutating func key(cursor: inout Int) -> (member: Int?, text: String?)? {
            guard take(0x22) else { return nil }
            let start = i
            let end = JSONScanner.skipPlainASCII(buffer, from: start)
            let text: String
            if end < buffer.count, buffer[end] == 0x22 {
                let plain = UnsafeBufferPointer(rebasing: buffer[start..<end])
                i = end + 1
                if cursor < members.nameEnds.count {
                    let nameStart = cursor == 0 ? 0 : members.nameEnds[cursor - 1]
                    let name = UnsafeBufferPointer(rebasing: members.names[nameStart..<members.nameEnds[cursor]])
                    if JSONScanner.bytesEqual(name, plain) {
                        cursor += 1
                        return (cursor - 1, nil)
                    }
                }
                // Plain ASCII (no escape, no control character): the bytes are the name.
                text = String(decoding: plain, as: UTF8.self)
            } else {
                i = start - 1
                guard let decoded = string() else { return nil }
                text = decoded
            }
            if text.utf8.first != ODataEntityDecoder.at, let found = reader.plan.index[text] {
                cursor = found + 1
                return (found, text)
            }
            return (nil, text)
        }

        mutating func entity<Sink: FlatEntitySink>(_ sink: inout Sink) -> Bool {
            guard take(0x7B) else { return false }
            let number = entityNumber
            entityNumber += 1
            sink.beginEntity()
            var etag: String?
            // The control members seen (duplicates): the first one (`@odata.etag`, mostly) held
            // apart, so that an entity with one needs no array.
            var firstControl: String?
            var controls: [String] = []
            var mask: UInt64 = 0
            let small = seen.isEmpty
            var cursor = 0
            /// Whether a member not starting with `@` came already: the general reader takes the
            /// type of a `__metadata` only before those.
            var pastProperties = false
            skipSpace()
            if i < buffer.count, buffer[i] == 0x7D {
                i += 1
            } else {
                while true {
                    guard let (member, text) = key(cursor: &cursor), take(0x3A) else { return false }
                    defer { if member != nil || text?.utf8.first != ODataEntityDecoder.at { pastProperties = true } }
                    if let member {
                        if small {
                            let bit: UInt64 = 1 << UInt64(member)
                            guard mask & bit == 0 else { return false }
                            mask |= bit
                        } else {
                            guard seen[member] != number else { return false }
                            seen[member] = number
                        }
                        if members.isProperty[member] {
                            guard sink.property(member: member, slot: members.slots[member], &self) else { return false }
                        } else if let expansion = reader.expansions[member], startsContent(), !startsDeferred() {
                            guard sink.expanded(member: member, expansion, &self) else { return false }
                        } else {
                            // Only what leaves nothing to store: null, or V2's deferred link.
                            guard case .navigation(_, let target, _) = reader.plan.members[member], let value = value(),
                                  reader.decoder.plans.plan(target) != nil, Self.isDeferred(value) else { return false }
                        }
                    } else {
                        guard let value = value(), let text, firstControl != text, !controls.contains(text) else { return false }
                        if text == "__metadata" {
                            guard metadata(value, etag: &etag, typed: !pastProperties) else { return false }
                        } else {
                            guard annotation(text, value, etag: &etag) else { return false }
                        }
                        if firstControl == nil { firstControl = text } else { controls.append(text) }
                    }
                    guard let more = memberEnd() else { return false }
                    if !more { break }
                }
            }
            for member in reader.requiredMembers where small ? mask & (1 << UInt64(member)) == 0 : seen[member] != number { return false }
            return sink.endEntity(etag: etag)
        }

        /// Whether the value at the scan's position is an array or an object (expanded content,
        /// or V2's deferred link, which the expansion's reader refuses).
        mutating func startsContent() -> Bool {
            skipSpace()
            return i < buffer.count && (buffer[i] == 0x5B || buffer[i] == 0x7B)
        }

        /// Whether the object at the scan's position starts with V2's `"__deferred"` member (a
        /// deferred link, read as no content as without an expansion).
        func startsDeferred() -> Bool {
            var at = i
            guard at < buffer.count, buffer[at] == 0x7B else { return false }
            at += 1
            while at < buffer.count, buffer[at] == 0x20 || buffer[at] == 0x0A || buffer[at] == 0x0D || buffer[at] == 0x09 { at += 1 }
            let name: StaticString = "\"__deferred\""
            let count = name.utf8CodeUnitCount
            guard at + count <= buffer.count else { return false }
            let expected = UnsafeBufferPointer(start: name.utf8Start, count: count)
            for k in 0..<count where buffer[at + k] != expected[k] { return false }
            return true
        }

        /// The expanded content at the scan's position (after `startsContent`), read by the
        /// expansion's reader into `sink`: an array of entities for a collection, one entity
        /// object for a single navigation. False: not flat.
        mutating func expandedEntities<Sink: FlatEntitySink>(_ expansion: Expansion, _ sink: inout Sink) -> Bool {
            let depth = entityDepth + (expansion.isCollection ? 2 : 1)
            guard depth <= reader.jsonOptions.maxDepth, buffer[i] == (expansion.isCollection ? 0x5B : 0x7B) else { return false }
            let start = i
            let (ok, end) = expansion.reader.withScan(buffer) { nested -> (Bool, Int) in
                nested.i = start
                nested.entityDepth = depth
                let ok = expansion.isCollection ? nested.elements(&sink) : nested.entity(&sink)
                return (ok, nested.i)
            }
            i = end
            return ok
        }

        /// A navigation value that the general reader reads as no content (null) or as a
        /// deferred link (`{"__deferred":{"uri":…}}`).
        static func isDeferred(_ value: JSONValue) -> Bool {
            switch value {
            case .null: return true
            case .object(let object):
                guard case .object(let inner)? = object["__deferred"], case .string? = inner["uri"] else { return false }
                return true
            default: return false
            }
        }

        /// V2's `__metadata`: control strings as the general reader takes them (the ETag kept),
        /// and, when it comes before the properties (`typed`), a type only when it names the
        /// entity type itself.
        func metadata(_ value: JSONValue, etag: inout String?, typed: Bool) -> Bool {
            guard case .object(let object) = value else { return false }
            for (key, member) in object {
                switch key {
                case "uri", "id", "media_src", "edit_media", "content_type", "media_etag":
                    guard Self.isControlString(member) else { return false }
                case "etag":
                    switch member {
                    case .string(let text): etag = text
                    case .null: etag = nil
                    default: return false
                    }
                case "type":
                    guard typed else { continue }
                    guard case .string(let name) = member, name == reader.typeName else { return false }
                default:
                    continue
                }
            }
            return true
        }

        /// An entity's instance annotation (`@…`) that the general reader takes as control
        /// information or keeps as an annotation; false for everything that changes the entity
        /// read (`@odata.type`, `@removed`) and for members the type does not declare.
        func annotation(_ key: String, _ value: JSONValue, etag: inout String?) -> Bool {
            guard key.utf8.first == ODataEntityDecoder.at else { return false }
            let term = String(key.dropFirst())
            if term.utf8.contains(ODataEntityDecoder.at) { return false }
            switch ODataEntityDecoder.odataTerm(term) {
            case "type", "removed": return false
            case "etag":
                switch value {
                case .string(let text): etag = text
                case .null: etag = nil
                default: return false
                }
                return true
            case "context", "id", "editLink", "readLink", "mediaReadLink", "mediaEditLink", "mediaContentType", "mediaEtag":
                return Self.isControlString(value)
            default:
                // `@Namespace.term` or another short 4.01 term: an annotation, which the
                // store does not keep.
                return true
            }
        }
    }
}
