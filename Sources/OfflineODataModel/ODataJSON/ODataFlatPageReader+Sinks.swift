/// What `ODataFlatPageReader.Scan` makes of each entity of a flat page: records (`read`) or
/// their stored form (`readEncoded`). The scan decides what is flat (controls, annotations,
/// navigation, duplicate and required members); the sink reads each declared property's value.
protocol FlatEntitySink {
    mutating func beginEntity()
    /// Reads the value of property `member` (of the reader's plan) at the scan's position (after
    /// the member's colon); `slot` is its slot in the layout (-1: none). False: the page is not flat.
    mutating func property(member: Int, slot: Int, _ scan: inout ODataFlatPageReader.Scan) -> Bool
    /// The entity is complete; false: the page is not flat.
    mutating func endEntity(etag: String?) -> Bool
    /// Reads the expanded content of navigation `member` at the scan's position (an array or an
    /// object); false: the page is not flat.
    mutating func expanded(member: Int, _ expansion: ODataFlatPageReader.Expansion, _ scan: inout ODataFlatPageReader.Scan) -> Bool
}

extension FlatEntitySink {
    /// Records take no expanded content.
    mutating func expanded(member: Int, _ expansion: ODataFlatPageReader.Expansion, _ scan: inout ODataFlatPageReader.Scan) -> Bool {
        false
    }
}

/// Entities as records: each value decoded as the general reader decodes it.
struct RecordSink: FlatEntitySink {
    let slotCount: Int
    let decoder: ODataEntityDecoder
    /// The entities' nesting depth (the general reader's entity decoder counts it).
    let depth: Int
    var entities: [ODataFlatPageReader.Entity] = []
    private var values: [ODataValue?] = []
    private var dynamic: [ODataProperty] = []

    init(slotCount: Int, decoder: ODataEntityDecoder, depth: Int = 0) {
        self.slotCount = slotCount
        self.decoder = decoder
        self.depth = depth
        entities.reserveCapacity(1024)
    }

    mutating func beginEntity() {
        values = [ODataValue?](repeating: nil, count: slotCount)
        dynamic = []
    }

    mutating func property(member: Int, slot: Int, _ scan: inout ODataFlatPageReader.Scan) -> Bool {
        guard let property = scan.reader.property(member), let value = scan.value(),
              let decoded = try? decoder.decodeProperty(value, property, depth: depth) else { return false }
        if slot >= 0 {
            values[slot] = decoded
        } else {
            dynamic.append(ODataProperty(property.name, decoded))
        }
        return true
    }

    mutating func endEntity(etag: String?) -> Bool {
        entities.append(ODataFlatPageReader.Entity(record: EntityRecord(values: values, dynamicProperties: dynamic), etag: etag))
        return true
    }
}

/// Entities in their stored form (`EntityCodec`, docs/EntityEncoding.md §2), written straight
/// from the JSON: the values of the common kinds are transcoded in place (strings without escapes,
/// integers, booleans, decimals), every other value is decoded as `RecordSink` decodes it and
/// written with `EntityCodec.encode`'s checks. The values are gathered in payload order and
/// put in slot order when the entity ends, so the bytes are those `encode` makes of the record.
struct EncodedSink: FlatEntitySink {
    let codec: EntityCodec
    let decoder: ODataEntityDecoder
    /// Per member of the plan, how its value is read in place.
    let fast: [Fast]
    /// Per member, its complex type when its values are written in place (`ComplexForm`).
    let complexForms: [ComplexForm?]
    /// The JSON reader's limits a complex value read in place must keep (`Scan.nested` reads
    /// one with them): its depth below the entity, and the length of a string or number.
    let complexDepthAllowed: Bool
    let maxTokenSize: Int
    /// The entities' nesting depth (the general reader's entity decoder counts it).
    let depth: Int
    var entities: [ODataFlatPageReader.EncodedEntity] = []
    /// Per navigation member read in place, the sink of its entities.
    var nested: [Int: EncodedSink] = [:]
    /// The current entity's expanded entities.
    private var expandedEntities: [ODataFlatPageReader.ExpandedEntities] = []

    /// The kinds transcoded in place (for a member whose slot declares its kind).
    enum Fast: UInt8 {
        case none, string, boolean, int32, int64, decimal, date, dateTimeOffset

        init(_ kind: EdmPrimitiveKind) {
            switch kind {
            case .string: self = .string
            case .boolean: self = .boolean
            case .int32: self = .int32
            case .int64: self = .int64
            case .decimal: self = .decimal
            case .date: self = .date
            case .dateTimeOffset: self = .dateTimeOffset
            default: self = .none
            }
        }
    }
    /// The current entity's values, in payload order.
    private var data: [UInt8] = []
    /// Per slot, its value's range in `data` (start -1: absent).
    private var starts: [Int]
    private var ends: [Int]
    /// The slots whose values make `EncodedEntity.stringKey`, and per slot whether its value is
    /// a string written in place (its bytes then follow the tag and length in `data`).
    let stringKeySlots: [Int]
    private var plainString: [Bool]

    /// A complex type whose values are written in place: a type that is not open, whose
    /// properties are all single primitives of a kind written in place. A value with anything
    /// else (an annotation, a type name, another or a repeated member, a null where the property
    /// is not nullable, a value of another kind) goes to the decoder.
    struct ComplexForm {
        /// The value's header: tag, flags (type name present), the qualified name.
        let header: [UInt8]
        /// Per member: its name's UTF-8, its kind, whether it takes null; `.none` for a member
        /// that is not a property.
        let names: [[UInt8]]
        let kinds: [Fast]
        let nullable: [Bool]

        init?(_ plan: ODataStructuredPlan) {
            guard !plan.isOpen, plan.members.count < 64 else { return nil }
            var header: [UInt8] = [EntityValueEncoding.tagComplex, 1]
            header.appendLengthPrefixedUTF8(plan.qualifiedName)
            self.header = header
            var names: [[UInt8]] = [], kinds: [Fast] = [], nullable: [Bool] = []
            for member in plan.members {
                names.append(Array(member.name.utf8))
                guard case .property(let property) = member, !property.isCollection, case .primitive(let kind) = property.type else {
                    kinds.append(.none)
                    nullable.append(false)
                    continue
                }
                kinds.append(Fast(kind))
                nullable.append(property.isNullable)
            }
            guard kinds.contains(where: { $0 != .none }) else { return nil }
            self.names = names
            self.kinds = kinds
            self.nullable = nullable
        }
    }

    init(codec: EntityCodec, decoder: ODataEntityDecoder, fast: [Fast], complexForms: [ComplexForm?] = [],
         complexDepthAllowed: Bool = false, maxTokenSize: Int = 0, stringKeySlots: [Int] = [], depth: Int = 0) {
        self.depth = depth
        self.codec = codec
        self.decoder = decoder
        self.fast = fast
        self.complexForms = complexForms
        self.complexDepthAllowed = complexDepthAllowed
        self.maxTokenSize = maxTokenSize
        self.stringKeySlots = stringKeySlots
        let count = codec.layout.properties.count
        plainString = [Bool](repeating: false, count: stringKeySlots.isEmpty ? 0 : count)
        starts = [Int](repeating: -1, count: count)
        ends = [Int](repeating: 0, count: count)
        entities.reserveCapacity(1024)
        data.reserveCapacity(1024)
    }

    mutating func beginEntity() {
        expandedEntities = []
        data.removeAll(keepingCapacity: true)
        for slot in starts.indices { starts[slot] = -1 }
        for slot in stringKeySlots { plainString[slot] = false }
    }

    mutating func property(member: Int, slot: Int, _ scan: inout ODataFlatPageReader.Scan) -> Bool {
        // A property the layout does not name is a dynamic one: the record way keeps it.
        guard slot >= 0 else { return false }
        let start = data.count
        if transcoded(fast[member], &scan) {
            if !plainString.isEmpty, fast[member] == .string { plainString[slot] = true }
        } else if member < complexForms.count, let form = complexForms[member], transcodedComplex(form, &scan) {
            // Written in place.
        } else {
            guard let property = scan.reader.property(member), let value = scan.value(),
                  let decoded = try? decoder.decodeProperty(value, property, depth: depth),
                  codec.append(decoded, asSlot: slot, to: &data) else { return false }
        }
        starts[slot] = start
        ends[slot] = data.count
        return true
    }

    /// Writes the complex value at the scan's position as `EntityValueEncoding` writes the one
    /// the decoder makes of it (its members in payload order, under the declared type's name);
    /// false (the scan not moved, nothing written) leaves it to the decoder.
    private mutating func transcodedComplex(_ form: ComplexForm, _ scan: inout ODataFlatPageReader.Scan) -> Bool {
        guard complexDepthAllowed else { return false }
        let startScan = scan.i, startData = data.count
        func fail(_ scan: inout ODataFlatPageReader.Scan, _ data: inout [UInt8]) -> Bool {
            scan.i = startScan
            data.removeSubrange(startData...)
            return false
        }
        guard scan.take(0x7B) else { return fail(&scan, &data) }
        data.append(contentsOf: form.header)
        let countAt = data.count
        data.append(0)
        var seen: UInt64 = 0
        var count = 0
        var cursor = 0
        if scan.take(0x7D) {
            return true
        }
        while true {
            // A key without escapes: a member's name (members in declaration order cost one
            // comparison each).
            guard scan.take(JSONScanner.quote) else { return fail(&scan, &data) }
            let keyStart = scan.i
            let keyEnd = JSONScanner.skipPlainASCII(scan.buffer, from: keyStart)
            guard keyEnd < scan.buffer.count, scan.buffer[keyEnd] == JSONScanner.quote, keyEnd - keyStart <= maxTokenSize else {
                return fail(&scan, &data)
            }
            let key = UnsafeBufferPointer(rebasing: scan.buffer[keyStart..<keyEnd])
            var member = -1
            if cursor < form.names.count, JSONScanner.bytesEqual(form.names[cursor].withUnsafeBufferPointer { $0 }, key) {
                member = cursor
            } else {
                for m in form.names.indices where form.names[m].withUnsafeBufferPointer({ JSONScanner.bytesEqual($0, key) }) {
                    member = m
                    break
                }
            }
            guard member >= 0, form.kinds[member] != .none, seen & (1 << UInt64(member)) == 0 else { return fail(&scan, &data) }
            seen |= 1 << UInt64(member)
            cursor = member + 1
            scan.i = keyEnd + 1
            guard scan.take(0x3A) else { return fail(&scan, &data) }
            data.appendLEB128(UInt64(key.count))
            data.append(contentsOf: key)
            scan.skipSpace()
            let valueStart = scan.i
            if scan.literal("null", .null) != nil {
                guard form.nullable[member] else { return fail(&scan, &data) }
                data.append(EntityValueEncoding.tagNull)
            } else {
                guard transcoded(form.kinds[member], &scan), scan.i - valueStart <= maxTokenSize else { return fail(&scan, &data) }
            }
            count += 1
            if scan.take(0x2C) { continue }
            guard scan.take(0x7D), count < 128 else { return fail(&scan, &data) }
            data[countAt] = UInt8(count)
            return true
        }
    }

    /// Writes the value at the scan's position when it is of a kind read in place and the slot
    /// declares that kind; false (the scan not moved) leaves it to the decoder.
    private mutating func transcoded(_ kind: Fast, _ scan: inout ODataFlatPageReader.Scan) -> Bool {
        guard kind != .none else { return false }
        scan.skipSpace()
        let buffer = scan.buffer, at = scan.i
        guard at < buffer.count else { return false }
        let first = buffer[at]
        switch kind {
        case .string:
            guard first == JSONScanner.quote else { return false }
            // Without escapes the JSON bytes are the string's UTF-8 (once checked to be UTF-8:
            // an ill-formed one goes to the decoder, which reports it).
            let (end, ascii) = JSONScanner.skipPlainBytes(buffer, from: at + 1)
            guard end < buffer.count, buffer[end] == JSONScanner.quote,
                  ascii || JSONScanner.firstInvalidUTF8(buffer, from: at + 1, to: end) == nil else { return false }
            data.append(EntityValueEncoding.tagString)
            data.appendLEB128(UInt64(end - at - 1))
            data.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[(at + 1)..<end]))
            scan.i = end + 1
            return true
        case .boolean:
            if first == 0x74, scan.literal("true", .bool(true)) != nil {
                data.append(EntityValueEncoding.tagTrue)
                return true
            }
            if first == 0x66, scan.literal("false", .bool(false)) != nil {
                data.append(EntityValueEncoding.tagFalse)
                return true
            }
            return false
        case .int32, .int64:
            guard first == 0x2D || first &- 0x30 < 10, let end = try? JSONScanner.scanNumber(buffer, from: at, isFinal: true),
                  let value = Self.integer(UnsafeBufferPointer(rebasing: buffer[at..<end])) else { return false }
            if kind == .int32 {
                guard let narrow = Int32(exactly: value) else { return false }
                data.append(EntityValueEncoding.tagInt32)
                data.appendZigZagLEB128(Int64(narrow))
            } else {
                data.append(EntityValueEncoding.tagInt64)
                data.appendZigZagLEB128(value)
            }
            scan.i = end
            return true
        case .decimal:
            // A number, or (IEEE754Compatible, V2) a string of plain ASCII that starts like one.
            let text: UnsafeBufferPointer<UInt8>
            let next: Int
            if first == JSONScanner.quote {
                let end = JSONScanner.skipPlainASCII(buffer, from: at + 1)
                guard end < buffer.count, buffer[end] == JSONScanner.quote, end > at + 1 else { return false }
                let lead = buffer[at + 1]
                guard lead == 0x2B || lead == 0x2D || lead &- 0x30 < 10 else { return false }
                text = UnsafeBufferPointer(rebasing: buffer[(at + 1)..<end])
                next = end + 1
            } else {
                guard first == 0x2D || first &- 0x30 < 10, let end = try? JSONScanner.scanNumber(buffer, from: at, isFinal: true) else { return false }
                text = UnsafeBufferPointer(rebasing: buffer[at..<end])
                next = end
            }
            if Self.appendPlainDecimal(text, to: &data) {
                scan.i = next
                return true
            }
            guard let decimal = try? EdmDecimal.parse(text, text: "") else { return false }
            guard (try? EntityValueEncoding.write(.decimal(decimal), into: &data, path: "")) != nil else { return false }
            scan.i = next
            return true
        case .date, .dateTimeOffset:
            // A plain ASCII string that starts like an ISO date (not V2's `/Date(…)/`), read by
            // the parser `ODataValue.fromJSONString` uses, from the page's bytes; anything it
            // does not take (V2's forms among them) is left to the decoder.
            guard first == JSONScanner.quote else { return false }
            let end = JSONScanner.skipPlainASCII(buffer, from: at + 1)
            guard end < buffer.count, buffer[end] == JSONScanner.quote, end > at + 1 else { return false }
            let lead = buffer[at + 1]
            guard lead == 0x2D || lead &- 0x30 < 10 else { return false }
            var scanner = LiteralScanner(bytes: UnsafeBufferPointer(rebasing: buffer[(at + 1)..<end]))
            let value: ODataValue
            do throws(ODataError) {
                if kind == .date {
                    let date = try EdmDate.scan(&scanner)
                    try scanner.requireEnd()
                    value = .date(date)
                } else {
                    value = .dateTimeOffset(try EdmDateTimeOffset.scan(&scanner, offsetOptional: decoder.version == .v2))
                }
            } catch {
                return false
            }
            guard (try? EntityValueEncoding.write(value, into: &data, path: "")) != nil else { return false }
            scan.i = end + 1
            return true
        default:
            return false
        }
    }

    /// Writes a decimal of the plain form `[-]DIGITS[.DIGITS]` that is not zero (the form services
    /// send) as `EntityValueEncoding` writes what `EdmDecimal.parse` makes of it: the digits after
    /// the leading zeros, two to a byte, and the fraction's length as the scale
    /// (docs/EntityEncoding.md §2.3). False for every other text, which `EdmDecimal.parse` reads.
    static func appendPlainDecimal(_ text: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) -> Bool {
        let negative = text.first == 0x2D
        var index = negative ? 1 : 0
        var integerDigits = 0, fractionDigits = 0, leadingZeros = 0
        var significant = false
        while index < text.count, text[index] &- 0x30 < 10 {
            if !significant { if text[index] == 0x30 { leadingZeros += 1 } else { significant = true } }
            integerDigits += 1
            index += 1
        }
        guard integerDigits > 0 else { return false }
        if index < text.count {
            guard text[index] == 0x2E else { return false }
            index += 1
            while index < text.count, text[index] &- 0x30 < 10 {
                if !significant { if text[index] == 0x30 { leadingZeros += 1 } else { significant = true } }
                fractionDigits += 1
                index += 1
            }
            guard fractionDigits > 0, index == text.count else { return false }
        }
        let count = integerDigits + fractionDigits - leadingZeros
        guard significant, count <= EdmDecimal.maxDigits, fractionDigits <= EdmDecimal.maxDigits else { return false }
        out.append(EntityValueEncoding.tagDecimal)
        out.append(negative ? 1 : 0)
        out.appendLEB128(UInt64(fractionDigits))
        out.appendLEB128(UInt64(count))
        // The digits after the leading zeros, skipping the point: high nibble first.
        var high: UInt8?
        var skipped = 0
        for position in (negative ? 1 : 0)..<text.count {
            let byte = text[position]
            guard byte != 0x2E else { continue }
            if skipped < leadingZeros {
                skipped += 1
                continue
            }
            if let first = high {
                out.append(first << 4 | (byte &- 0x30))
                high = nil
            } else {
                high = byte &- 0x30
            }
        }
        if let first = high { out.append(first << 4) }
        return true
    }

    /// The value of a JSON number that is a whole number in `Int64` written without fraction or
    /// exponent (what `Int64(text)` and `Int32(text)` accept of a JSON number); nil otherwise.
    static func integer(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        var index = 0
        let negative = text.first == 0x2D
        if negative { index = 1 }
        guard index < text.count, text.count - index <= 19 else { return nil }
        var magnitude: UInt64 = 0
        while index < text.count {
            let digit = text[index] &- 0x30
            guard digit < 10 else { return nil }
            magnitude = magnitude * 10 + UInt64(digit)
            index += 1
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        return Int64(exactly: magnitude)
    }

    mutating func endEntity(etag: String?) -> Bool {
        let count = starts.count
        var out: [UInt8] = []
        // Room for the stored value's trailer too (`StoredValue` appends the ETag and 6 bytes).
        out.reserveCapacity(8 + 4 * (count + 1) + data.count + (etag?.utf8.count ?? 0) + 8)
        out.append(EntityCodec.formatVersion)
        out.appendLEB128(UInt64(count))
        // The offset table (docs/EntityEncoding.md §2.1): each slot's end, relative to the first.
        var offset = 0
        out.append(contentsOf: repeatElement(0, count: 4))
        for slot in 0..<count {
            if starts[slot] >= 0 { offset += ends[slot] - starts[slot] }
            guard offset <= Int(UInt32.max) else { return false }
            for byte in 0..<4 { out.append(UInt8(truncatingIfNeeded: offset >> (8 * byte))) }
        }
        data.withUnsafeBufferPointer { values in
            // Members in slot order (the usual case): the values are already in place, one copy.
            var next = 0
            var inOrder = true
            for slot in 0..<count where starts[slot] >= 0 {
                if starts[slot] != next { inOrder = false; break }
                next = ends[slot]
            }
            if inOrder && next == values.count {
                out.append(contentsOf: values)
                return
            }
            for slot in 0..<count where starts[slot] >= 0 {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: values[starts[slot]..<ends[slot]]))
            }
        }
        // No dynamic properties.
        out.append(0)
        entities.append(ODataFlatPageReader.EncodedEntity(codec: out, etag: etag, stringKey: stringKey(), expanded: expandedEntities))
        return true
    }

    /// The expanded entities by the navigation's own sink (taken out while it reads, so that
    /// it is not copied).
    mutating func expanded(member: Int, _ expansion: ODataFlatPageReader.Expansion, _ scan: inout ODataFlatPageReader.Scan) -> Bool {
        guard var sink = nested.removeValue(forKey: member) else { return false }
        sink.entities = []
        let ok = scan.expandedEntities(expansion, &sink)
        if ok, !sink.entities.isEmpty {
            expandedEntities.append(ODataFlatPageReader.ExpandedEntities(navigation: expansion.name, entities: sink.entities))
        }
        sink.entities = []
        nested[member] = sink
        return ok
    }

    /// The ordered-key encoding of the key slots' strings (`OrderedKeyEncoding`: tag, the bytes
    /// with 0x00 escaped, 0x00 0x01), when each was written in place: a string without escapes
    /// has no 0x00 (a control character).
    private func stringKey() -> [UInt8]? {
        guard !stringKeySlots.isEmpty else { return nil }
        var key: [UInt8] = []
        key.reserveCapacity(32)
        for slot in stringKeySlots {
            guard plainString[slot], starts[slot] >= 0 else { return nil }
            // The slot holds the string tag, the length (LEB128), then the bytes.
            var at = starts[slot] + 1
            while data[at] & 0x80 != 0 { at += 1 }
            key.append(OrderedKeyEncoding.tagString)
            key.append(contentsOf: data[(at + 1)..<ends[slot]])
            key.append(0x00)
            key.append(0x01)
        }
        return key
    }
}
