/// Compact binary form of one entity (format version 1, described byte by byte in
/// docs/EntityEncoding.md §2): a header with an offset table, so one declared property can be
/// read without decoding the others, then the declared values, then dynamic properties by name.
///
/// - Additive metadata: bytes written with an older (shorter) layout decode with a newer layout
///   that appended properties; the new properties read as absent (nil).
/// - Round trips are exact (`EntityRecord.isIdentical`): decimal scale, offsets, -0.0, NaN.
/// - Malformed or truncated bytes always throw `truncatedEncoding`/`invalidEncoding`/
///   `unsupportedEncodingVersion`; every read is bounds-checked.
public struct EntityCodec: Sendable {
    /// docs/EntityEncoding.md §2.1.
    public static let formatVersion: UInt8 = 1

    public let layout: EntityLayout
    /// Per declared slot its primitive kind, nil for enum, complex and collection slots: checked
    /// on every decoded value without copying the descriptor.
    let primitiveKinds: [EdmPrimitiveKind?]
    /// Per declared slot whether it takes null: with `primitiveKinds`, the check of every written
    /// value without copying the descriptor (a retain of its name and shape each).
    let nullable: [Bool]
    /// Per declared slot its property name: decoding names each value without copying the
    /// descriptor (which retained and released its name and shape per value).
    let names: [String]
    /// Per declared slot the tag (docs/EntityEncoding.md §3) that a value of its primitive kind
    /// is written with, when one tag alone says that kind (0xFF otherwise): a slot starting with
    /// it, or with null, needs no further shape check.
    let kindTags: [UInt8]

    public init(layout: EntityLayout) {
        self.layout = layout
        self.names = layout.properties.map(\.name)
        self.primitiveKinds = layout.properties.map { descriptor in
            if case .primitive(let kind) = descriptor.shape { return kind }
            return nil
        }
        self.nullable = layout.properties.map(\.isNullable)
        self.kindTags = primitiveKinds.map { kind in
            switch kind {
            case .string?: EntityValueEncoding.tagString
            case .int32?: EntityValueEncoding.tagInt32
            case .int64?: EntityValueEncoding.tagInt64
            case .decimal?: EntityValueEncoding.tagDecimal
            case .date?: EntityValueEncoding.tagDate
            case .dateTimeOffset?: EntityValueEncoding.tagDateTimeOffset
            default: 0xFF
            }
        }
    }

    /// The primitive kind declared for slot `index`; nil for enum, complex and collection slots
    /// and past the layout.
    public func declaredKind(at index: Int) -> EdmPrimitiveKind? {
        index < primitiveKinds.count ? primitiveKinds[index] : nil
    }

    /// Encodes the record; throws `layoutMismatch` when a value does not fit its declaration
    /// (wrong kind, null in a non-nullable property, more values than declared, a dynamic
    /// property named like a declared one).
    public func encode(_ record: EntityRecord) throws(ODataError) -> [UInt8] {
        let declared = layout.properties
        guard record.values.count <= declared.count else {
            throw .encodingLayoutMismatch("record has \(record.values.count) values for \(declared.count) declared properties", path: "$")
        }
        // One buffer: the header with its offset table zeroed, patched as each slot ends (every
        // entity written by a download or a change passes here, so no second array and no copy).
        var out: [UInt8] = []
        out.reserveCapacity(16 + declared.count * 16)
        out.append(Self.formatVersion)
        out.appendLEB128(UInt64(declared.count))
        let table = out.count
        out.append(contentsOf: repeatElement(0, count: 4 * (declared.count + 1)))
        let dataStart = out.count
        for index in 0..<declared.count {
            if index < record.values.count, let value = record.values[index] {
                if !fits(value, index) { try check(value, against: declared[index]) }
                try EntityValueEncoding.write(value, into: &out, path: "$." + declared[index].name)
            }
            Self.patchOffset(&out, at: table + 4 * (index + 1), UInt64(out.count - dataStart))
        }
        out.appendLEB128(UInt64(record.dynamicProperties.count))
        if !record.dynamicProperties.isEmpty {
            var seen = Set(declared.map(\.name))
            for property in record.dynamicProperties {
                guard seen.insert(property.name).inserted else {
                    throw .encodingLayoutMismatch("dynamic property '\(property.name)' repeats a property name", path: "$." + property.name)
                }
                out.appendLengthPrefixedUTF8(property.name)
                try EntityValueEncoding.write(property.value, into: &out, path: "$." + property.name)
            }
        }
        guard out.count - dataStart <= Int(UInt32.max) else { throw .encodingLayoutMismatch("entity larger than 4 GiB", path: "$") }
        return out
    }

    /// Appends `value` as `encode` writes it into slot `index`, with the same checks; false
    /// where `encode` would throw (a value written straight from JSON, `EncodedSink`).
    func append(_ value: ODataValue, asSlot index: Int, to out: inout [UInt8]) -> Bool {
        guard index < layout.properties.count else { return false }
        do throws(ODataError) {
            if !fits(value, index) { try check(value, against: layout.properties[index]) }
            try EntityValueEncoding.write(value, into: &out, path: "")
        } catch {
            return false
        }
        return true
    }

    /// Writes a slot's end offset (4 bytes, little-endian, relative to the first slot) into the
    /// header's table (docs/EntityEncoding.md §2.1).
    private static func patchOffset(_ out: inout [UInt8], at position: Int, _ offset: UInt64) {
        for byte in 0..<4 { out[position + byte] = UInt8(truncatingIfNeeded: offset >> UInt64(8 * byte)) }
    }

    /// Decodes every property. The result has one slot per property of `layout`.
    public func decode(_ bytes: [UInt8]) throws(ODataError) -> EntityRecord {
        let header = try Self.readHeader(bytes)
        guard header.count <= layout.properties.count else {
            throw .encodingInvalid("entity has \(header.count) declared properties, layout only \(layout.properties.count)", offset: 1)
        }
        var values: [ODataValue?] = []
        values.reserveCapacity(layout.properties.count)
        for index in 0..<layout.properties.count {
            if index < header.count {
                let value = try Self.readSlot(index, header, bytes)
                if let value { try verify(value, at: index, header.slotStart(index, bytes)) }
                values.append(value)
            } else {
                values.append(nil)
            }
        }
        let dynamic = try Self.readDynamic(header, bytes, into: [])
        return EntityRecord(values: values, dynamicProperties: dynamic)
    }

    /// Every property as name and value: the declared ones present in the bytes, in layout
    /// order, then the dynamic ones. The same properties, order and errors as `decode` followed
    /// by dropping the absent slots, without building the record in between (the read path of
    /// every query result).
    public func decodeProperties(_ bytes: [UInt8]) throws(ODataError) -> [ODataProperty] {
        try bytes.withUnsafeBufferPointer { (buffer) throws(ODataError) in try decodeProperties(buffer, owned: bytes) }
    }

    /// The same on borrowed bytes (a cursor's current value, valid during the call): the bytes
    /// are copied only when a value, the header or dynamic properties need the checked readers.
    public func decodeProperties(borrowing bytes: UnsafeRawBufferPointer) throws(ODataError) -> [ODataProperty] {
        try decodeProperties(bytes.assumingMemoryBound(to: UInt8.self), owned: nil)
    }

    private func decodeProperties(_ buffer: UnsafeBufferPointer<UInt8>, owned: [UInt8]?) throws(ODataError) -> [ODataProperty] {
        // The array form of the bytes, for the checked readers (made at most once). A plain
        // variable, not one a nested function captures: that cost a box and an exclusivity
        // check per entity.
        var array = owned
        let header: Header
        if let fast = Self.wellFormedHeader(buffer) {
            header = fast
        } else {
            header = try Self.readHeader(Self.arrayForm(buffer, &array))
        }
        let names = self.names
        guard header.count <= names.count else {
            throw .encodingInvalid("entity has \(header.count) declared properties, layout only \(names.count)", offset: 1)
        }
        var properties: [ODataProperty] = []
        properties.reserveCapacity(header.count)
        // One reader moved from slot to slot (a reader per slot costs a retain and release of
        // the bytes each), for the values `readCommon` leaves to it.
        var reader: EncodedBytesReader?
        // The offsets are read in place: the header was checked (the table fits, the offsets
        // never decrease and stay inside the data).
        var start = header.dataStart
        for index in 0..<header.count {
            let at = header.table + 4 * (index + 1)
            let end = header.dataStart + (Int(buffer[at]) | Int(buffer[at + 1]) << 8 | Int(buffer[at + 2]) << 16 | Int(buffer[at + 3]) << 24)
            defer { start = end }
            guard end > start else { continue }
            let value: ODataValue
            if let common = EntityValueEncoding.readCommon(buffer, start, end) {
                value = common
            } else {
                var checked = reader ?? EncodedBytesReader(Self.arrayForm(buffer, &array), what: "entity property")
                checked.position = start
                checked.end = end
                value = try EntityValueEncoding.read(&checked)
                guard checked.atEnd else { throw checked.invalid("value shorter than its slot") }
                reader = checked
            }
            let tag = buffer[start]
            if tag != kindTags[index] && tag != EntityValueEncoding.tagNull { try verify(value, at: index, start) }
            // Moved, not copied: a copy costs a retain and a release of the value's storage.
            properties.append(ODataProperty(names[index], consume value))
        }
        // No dynamic properties: their count, 0, is the last byte.
        if start == buffer.count - 1 && buffer[start] == 0 { return properties }
        return try Self.readDynamic(header, Self.arrayForm(buffer, &array), into: properties)
    }

    /// `array`, made from `buffer` the first time it is needed.
    private static func arrayForm(_ buffer: UnsafeBufferPointer<UInt8>, _ array: inout [UInt8]?) -> [UInt8] {
        if let array { return array }
        let copy = Array(buffer)
        array = copy
        return copy
    }

    /// The header read in place when it is well formed (version, a one-byte property count, an
    /// offset table inside the bytes starting at 0 and never decreasing, data after the last
    /// slot); nil otherwise, and `readHeader` then decides with its checks and errors.
    static func wellFormedHeader(_ b: UnsafeBufferPointer<UInt8>) -> Header? {
        guard b.count >= 2, b[0] == formatVersion, b[1] < 0x80 else { return nil }
        let count = Int(b[1])
        let header = Header(count: count, table: 2, dataStart: 2 + 4 * (count + 1))
        guard header.dataStart <= b.count else { return nil }
        func offset(_ index: Int) -> Int {
            let at = 2 + 4 * index
            return Int(b[at]) | Int(b[at + 1]) << 8 | Int(b[at + 2]) << 16 | Int(b[at + 3]) << 24
        }
        guard offset(0) == 0 else { return nil }
        var previous = 0
        for index in 0..<count {
            let next = offset(index + 1)
            guard previous <= next else { return nil }
            previous = next
        }
        return previous < b.count - header.dataStart ? header : nil
    }

    /// Appends the dynamic properties that follow the declared slots.
    static func readDynamic(_ header: Header, _ bytes: [UInt8], into properties: consuming [ODataProperty]) throws(ODataError) -> [ODataProperty] {
        var reader = EncodedBytesReader(bytes, from: header.slotStart(header.count, bytes), what: "entity")
        let count = try reader.count(minimumItemSize: 2)
        var result = properties
        for _ in 0..<count {
            let name = try reader.utf8String()
            result.append(ODataProperty(name, try EntityValueEncoding.read(&reader)))
        }
        guard reader.atEnd else { throw reader.invalid("\(reader.remaining) bytes after the last property") }
        return result
    }

    /// Reads only the declared property at `index` (checked against the layout). Returns nil
    /// when it is absent, including properties appended to the layout after the bytes were written.
    public func readProperty(at index: Int, from bytes: [UInt8]) throws(ODataError) -> ODataValue? {
        guard index >= 0, index < layout.properties.count else {
            throw .encodingLayoutMismatch("property index \(index) is outside the layout's \(layout.properties.count)", path: "$")
        }
        guard let (start, end) = try Self.slotBounds(index, bytes) else { return nil }
        let value = try Self.readSlot(start, end, bytes)
        if let value { try verify(value, at: index, start) }
        return value
    }

    /// Reads one declared property by index without a layout (no shape check).
    public static func readProperty(at index: Int, from bytes: [UInt8]) throws(ODataError) -> ODataValue? {
        guard index >= 0, let (start, end) = try slotBounds(index, bytes) else { return nil }
        return try readSlot(start, end, bytes)
    }

    /// The byte range of declared property `index`, read straight from the offset table
    /// (docs/EntityEncoding.md §2.2) without decoding the whole header: O(1), no allocation.
    /// Nil when the property is absent. The checks are those of the borrowed form
    /// (`slotRange(_:in:)`), which does the work.
    static func slotBounds(_ index: Int, _ bytes: [UInt8]) throws(ODataError) -> (Int, Int)? {
        let range = bytes.withUnsafeBytes { buffer in
            Result { () throws(ODataError) in try slotRange(index, in: buffer) }
        }
        return try range.get().map { ($0.lowerBound, $0.upperBound) }
    }

    @inline(__always)
    static func littleEndian32(_ bytes: [UInt8], _ at: Int) -> Int {
        Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
    }

    // MARK: internals

    /// The header of entity bytes, validated; the offset table is read in place
    /// (docs/EntityEncoding.md §2.1).
    struct Header {
        var count: Int
        /// Where the offset table starts (count + 1 little-endian u32).
        var table: Int
        var dataStart: Int
        func offset(_ index: Int, _ bytes: [UInt8]) -> Int { EntityCodec.littleEndian32(bytes, table + 4 * index) }
        func slotStart(_ index: Int, _ bytes: [UInt8]) -> Int { dataStart + offset(index, bytes) }
    }

    static func readHeader(_ bytes: [UInt8]) throws(ODataError) -> Header {
        var reader = EncodedBytesReader(bytes, what: "entity header")
        let version = try reader.byte()
        guard version == formatVersion else { throw .encodingUnsupportedVersion(version, offset: 0) }
        let count = try reader.count(minimumItemSize: 4)
        let table = reader.position
        // count + 1 offsets; `count` ≤ remaining / 4 leaves room for all but the last one.
        guard table + 4 * (count + 1) <= bytes.count else {
            throw .encodingTruncated("entity header", offset: table + 4 * ((bytes.count - table) / 4))
        }
        let header = Header(count: count, table: table, dataStart: table + 4 * (count + 1))
        let dataLength = bytes.count - header.dataStart
        guard header.offset(0, bytes) == 0 else { throw .encodingInvalid("entity: first offset is not 0", offset: header.dataStart) }
        var previous = 0
        for index in 0..<count {
            let next = header.offset(index + 1, bytes)
            guard previous <= next else {
                throw .encodingInvalid("entity: offsets decrease at property \(index)", offset: header.dataStart)
            }
            previous = next
        }
        guard previous < dataLength else { throw .encodingTruncated("entity", offset: bytes.count) }
        return header
    }

    static func readSlot(_ index: Int, _ header: Header, _ bytes: [UInt8]) throws(ODataError) -> ODataValue? {
        let start = header.slotStart(index, bytes)
        let end = header.slotStart(index + 1, bytes)
        guard end > start else { return nil }
        return try readSlot(start, end, bytes)
    }

    static func readSlot(_ start: Int, _ end: Int, _ bytes: [UInt8]) throws(ODataError) -> ODataValue? {
        var reader = EncodedBytesReader(bytes, from: start, to: end, what: "entity property")
        let value = try EntityValueEncoding.read(&reader)
        guard reader.atEnd else { throw reader.invalid("value shorter than its slot") }
        return value
    }

    /// The common cases of `check` from the per-slot tables: a primitive of the declared kind,
    /// or null where null is allowed. False sends the value through `check`.
    @inline(__always)
    private func fits(_ value: ODataValue, _ index: Int) -> Bool {
        if value.isNull { return nullable[index] }
        guard let kind = primitiveKinds[index] else { return false }
        return kind == .untyped || value.kind == kind
    }

    private func check(_ value: ODataValue, against descriptor: EntityPropertyDescriptor) throws(ODataError) {
        if value.isNull {
            guard descriptor.isNullable else {
                throw .encodingLayoutMismatch("null in non-nullable property '\(descriptor.name)'", path: "$." + descriptor.name)
            }
            return
        }
        guard descriptor.shape.accepts(value) else {
            throw .encodingLayoutMismatch("value of property '\(descriptor.name)' does not have its declared shape \(descriptor.shape)", path: "$." + descriptor.name)
        }
    }

    private func verify(_ value: ODataValue, at index: Int, _ offset: Int) throws(ODataError) {
        if let kind = primitiveKinds[index], kind == .untyped || value.kind == kind || value.isNull { return }
        let descriptor = layout.properties[index]
        guard value.isNull || descriptor.shape.accepts(value) else {
            throw .encodingInvalid("property '\(descriptor.name)' holds a value of another shape", offset: offset)
        }
    }
}
