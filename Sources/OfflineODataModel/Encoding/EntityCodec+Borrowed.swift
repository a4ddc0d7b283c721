/// Reading entity bytes that are only borrowed (an engine page, valid during a callback),
/// without copying them into an array first (docs/EntityEncoding.md §2.5). A scan evaluates
/// its filter on the borrowed bytes and copies only the entities it keeps.
extension EntityCodec {
    /// The byte range of declared property `index` in borrowed entity bytes, with exactly the
    /// checks the array form (`slotBounds`, which calls this) makes: nil when the property is absent.
    public static func slotRange(_ index: Int, in bytes: UnsafeRawBufferPointer) throws(ODataError) -> Range<Int>? {
        guard index >= 0 else { return nil }
        guard let version = bytes.first else { throw .encodingTruncated("entity header", offset: 0) }
        guard version == formatVersion else { throw .encodingUnsupportedVersion(version, offset: 0) }
        var position = 1
        var count: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < bytes.count else { throw .encodingTruncated("entity header", offset: position) }
            let byte = bytes[position]
            position += 1
            guard shift < 63 else { throw .encodingInvalid("entity header: property count too long", offset: position) }
            count |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { break }
            shift += 7
        }
        guard count <= UInt64(bytes.count / 4) else { throw .encodingTruncated("entity header", offset: position) }
        let declared = Int(count)
        guard index < declared else { return nil }
        let dataStart = position + 4 * (declared + 1)
        guard dataStart <= bytes.count else { throw .encodingTruncated("entity header", offset: bytes.count) }
        let first = littleEndian32(bytes, position + 4 * index)
        let second = littleEndian32(bytes, position + 4 * (index + 1))
        let last = littleEndian32(bytes, position + 4 * declared)
        guard first <= second, second <= last else {
            throw .encodingInvalid("entity: offsets decrease at property \(index)", offset: dataStart)
        }
        guard dataStart + last < bytes.count else { throw .encodingTruncated("entity", offset: bytes.count) }
        let start = dataStart + first, end = dataStart + second
        return end > start ? start..<end : nil
    }

    @inline(__always)
    static func littleEndian32(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> Int {
        Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
    }

    /// Declared property `index` as an `EncodedScalar` read in place (no allocation), checked
    /// against the layout like `readProperty(at:from:)`: nil when absent; `.other` for values
    /// this reader leaves to `readProperty` (kinds it does not read in place, non-finite
    /// decimals, and anything malformed or of another shape than declared, for which
    /// `readProperty` throws the precise error).
    public func scalar(at index: Int, from bytes: UnsafeRawBufferPointer) throws(ODataError) -> EncodedScalar? {
        guard let expectation = expectation(at: index) else {
            throw .encodingLayoutMismatch("property index \(index) is outside the layout's \(layout.properties.count)", path: "$")
        }
        return try Self.scalar(at: index, from: bytes, expecting: expectation)
    }

    /// What the layout declares for slot `index` (nil outside the layout), prepared once for
    /// repeated `scalar(at:from:expecting:)` calls.
    public func expectation(at index: Int) -> SlotExpectation? {
        guard index >= 0, index < layout.properties.count else { return nil }
        switch layout.properties[index].shape {
        case .primitive(.untyped): return .any
        case .primitive(let kind): return .primitive(kind)
        default: return .structured
        }
    }

    /// `scalar(at:from:)` with the layout's declaration of the slot given (no layout access).
    public static func scalar(at index: Int, from bytes: UnsafeRawBufferPointer,
                              expecting expectation: SlotExpectation) throws(ODataError) -> EncodedScalar? {
        guard let range = try slotRange(index, in: bytes) else { return nil }
        let scalar = EncodedScalar.read(UnsafeRawBufferPointer(rebasing: bytes[range]))
        switch (scalar, expectation) {
        case (.null, _), (.other, _), (_, .any): return scalar
        case (_, .primitive(let kind)) where scalar.fits(kind): return scalar
        default: return .other
        }
    }

    /// Declared property `index` of borrowed bytes, decoded (the bytes are copied once; the
    /// result and every error are those of `readProperty(at:from:)` on the same bytes).
    public func readProperty(at index: Int, from bytes: UnsafeRawBufferPointer) throws(ODataError) -> ODataValue? {
        try readProperty(at: index, from: Array(bytes))
    }
}

/// The declaration of one layout slot as the in-place reader checks it.
public enum SlotExpectation: Sendable, Hashable {
    /// A primitive property of this kind.
    case primitive(EdmPrimitiveKind)
    /// An untyped property: any value.
    case any
    /// An enum, complex or collection property: only null is read in place.
    case structured
}
