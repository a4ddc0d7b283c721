/// What `ODataFlatPageReader.Scan` makes of each entity of a flat page: records (`read`) or
/// their stored form (`readEncoded`). The scan decides what is flat (controls, annotations,
/// navigation, duplicate and required members); the sink reads each declared property's value.
protocol FlatEntitySink {
    mutating func beginEntity()
    /// Reads the value of `property` at the scan's position (after the member's colon); `slot`
    /// is its slot in the layout (-1: none). False: the page is not flat.
    mutating func property(_ property: ODataPropertyPlan, slot: Int, _ scan: inout ODataFlatPageReader.Scan) -> Bool
    /// The entity is complete; false: the page is not flat.
    mutating func endEntity(etag: String?) -> Bool
}

/// Entities as records: each value decoded as the general reader decodes it.
struct RecordSink: FlatEntitySink {
    let slotCount: Int
    let decoder: ODataEntityDecoder
    var entities: [ODataFlatPageReader.Entity] = []
    private var values: [ODataValue?] = []
    private var dynamic: [ODataProperty] = []

    init(slotCount: Int, decoder: ODataEntityDecoder) {
        self.slotCount = slotCount
        self.decoder = decoder
        entities.reserveCapacity(1024)
    }

    mutating func beginEntity() {
        values = [ODataValue?](repeating: nil, count: slotCount)
        dynamic = []
    }

    mutating func property(_ property: ODataPropertyPlan, slot: Int, _ scan: inout ODataFlatPageReader.Scan) -> Bool {
        guard let value = scan.value(), let decoded = try? decoder.decodeProperty(value, property, depth: 0) else { return false }
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
/// from the JSON: the values of the common kinds are transcoded in place (plain ASCII strings,
/// integers, booleans, decimals), every other value is decoded as `RecordSink` decodes it and
/// written with `EntityCodec.encode`'s checks. The values are gathered in payload order and
/// put in slot order when the entity ends, so the bytes are those `encode` makes of the record.
struct EncodedSink: FlatEntitySink {
    let codec: EntityCodec
    let decoder: ODataEntityDecoder
    var entities: [ODataFlatPageReader.EncodedEntity] = []
    /// The current entity's values, in payload order.
    private var data: [UInt8] = []
    /// Per slot, its value's range in `data` (start -1: absent).
    private var starts: [Int]
    private var ends: [Int]

    init(codec: EntityCodec, decoder: ODataEntityDecoder) {
        self.codec = codec
        self.decoder = decoder
        let count = codec.layout.properties.count
        starts = [Int](repeating: -1, count: count)
        ends = [Int](repeating: 0, count: count)
        entities.reserveCapacity(1024)
        data.reserveCapacity(1024)
    }

    mutating func beginEntity() {
        data.removeAll(keepingCapacity: true)
        for slot in starts.indices { starts[slot] = -1 }
    }

    mutating func property(_ property: ODataPropertyPlan, slot: Int, _ scan: inout ODataFlatPageReader.Scan) -> Bool {
        // A property the layout does not name is a dynamic one: the record way keeps it.
        guard slot >= 0 else { return false }
        let start = data.count
        if !transcoded(property, slot, &scan) {
            guard let value = scan.value(), let decoded = try? decoder.decodeProperty(value, property, depth: 0),
                  codec.append(decoded, asSlot: slot, to: &data) else { return false }
        }
        starts[slot] = start
        ends[slot] = data.count
        return true
    }

    /// Writes the value at the scan's position when it is of a kind read in place and the slot
    /// declares that kind; false (the scan not moved) leaves it to the decoder.
    private mutating func transcoded(_ property: ODataPropertyPlan, _ slot: Int, _ scan: inout ODataFlatPageReader.Scan) -> Bool {
        guard !property.isCollection, case .primitive(let kind) = property.type, codec.declaredKind(at: slot) == kind else { return false }
        scan.skipSpace()
        let buffer = scan.buffer, at = scan.i
        guard at < buffer.count else { return false }
        let first = buffer[at]
        switch kind {
        case .string:
            guard first == JSONScanner.quote else { return false }
            let end = JSONScanner.skipPlainASCII(buffer, from: at + 1)
            guard end < buffer.count, buffer[end] == JSONScanner.quote else { return false }
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
            guard let decimal = try? EdmDecimal.parse(text, text: "") else { return false }
            guard (try? EntityValueEncoding.write(.decimal(decimal), into: &data, path: "")) != nil else { return false }
            scan.i = next
            return true
        default:
            return false
        }
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
            for slot in 0..<count where starts[slot] >= 0 {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: values[starts[slot]..<ends[slot]]))
            }
        }
        // No dynamic properties.
        out.append(0)
        entities.append(ODataFlatPageReader.EncodedEntity(codec: out, etag: etag))
        return true
    }
}
