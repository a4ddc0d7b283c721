/// The self-describing value encoding used inside entity bytes (docs/EntityEncoding.md §2.3):
/// one tag byte, then a payload whose length follows from the tag and its varints.
enum EntityValueEncoding {
    /// Deepest nesting of complex/collection values accepted when reading or writing.
    static let maxDepth = 64

    static let tagNull: UInt8 = 0x00, tagFalse: UInt8 = 0x01, tagTrue: UInt8 = 0x02
    static let tagByte: UInt8 = 0x03, tagSByte: UInt8 = 0x04, tagInt16: UInt8 = 0x05
    static let tagInt32: UInt8 = 0x06, tagInt64: UInt8 = 0x07, tagDecimal: UInt8 = 0x08
    static let tagSingle: UInt8 = 0x09, tagDouble: UInt8 = 0x0A, tagString: UInt8 = 0x0B
    static let tagBinary: UInt8 = 0x0C, tagGuid: UInt8 = 0x0D, tagDate: UInt8 = 0x0E
    static let tagDateTimeOffset: UInt8 = 0x0F, tagTimeOfDay: UInt8 = 0x10, tagDuration: UInt8 = 0x11
    static let tagEnum: UInt8 = 0x12, tagGeo: UInt8 = 0x13, tagComplex: UInt8 = 0x14
    static let tagCollection: UInt8 = 0x15

    /// `path` names the value in an error only; built when one is thrown (encoding runs for every
    /// stored entity, and a path string per property would cost an allocation each).
    static func write(_ value: ODataValue, into out: inout [UInt8], depth: Int = 0,
                      path: @autoclosure () -> String) throws(ODataError) {
        guard depth <= maxDepth else { throw .encodingLayoutMismatch("values nested deeper than \(maxDepth) levels", path: path()) }
        switch value {
        case .null: out.append(tagNull)
        case .boolean(let v): out.append(v ? tagTrue : tagFalse)
        case .byte(let v): out.append(tagByte); out.append(v)
        case .sbyte(let v): out.append(tagSByte); out.append(UInt8(bitPattern: v))
        case .int16(let v): out.append(tagInt16); out.appendLittleEndianUInt(UInt64(UInt16(bitPattern: v)), 2)
        case .int32(let v): out.append(tagInt32); out.appendZigZagLEB128(Int64(v))
        case .int64(let v): out.append(tagInt64); out.appendZigZagLEB128(v)
        case .decimal(let v):
            out.append(tagDecimal)
            switch v.nonFinite {
            case .positiveInfinity: out.append(2); return
            case .negativeInfinity: out.append(3); return
            case .nan: out.append(4); return
            case nil: out.append(v.isNegative ? 1 : 0)
            }
            out.appendLEB128(UInt64(v.scale))
            v.withDigits { digits in
                out.appendLEB128(UInt64(digits.count))
                var index = 0
                while index < digits.count {
                    let low = index + 1 < digits.count ? digits[index + 1] : 0
                    out.append(digits[index] << 4 | low)
                    index += 2
                }
            }
        case .single(let v): out.append(tagSingle); out.appendLittleEndianUInt(UInt64(v.bitPattern), 4)
        case .double(let v): out.append(tagDouble); out.appendLittleEndianUInt(v.bitPattern, 8)
        case .string(let v): out.append(tagString); out.appendLengthPrefixedUTF8(v)
        case .binary(let v): out.append(tagBinary); out.appendLEB128(UInt64(v.count)); out += v
        case .guid(let v): out.append(tagGuid); out += v.bytes
        case .date(let v):
            out.append(tagDate); out.appendZigZagLEB128(Int64(v.year)); out.append(UInt8(v.month)); out.append(UInt8(v.day))
        case .dateTimeOffset(let v):
            out.append(tagDateTimeOffset)
            out.appendZigZagLEB128(v.utcSeconds)
            out.appendLEB128(UInt64(v.picoseconds) << 1 | (v.isLeapSecond ? 1 : 0))
            out.appendZigZagLEB128(Int64(v.offsetMinutes))
        case .timeOfDay(let v):
            out.append(tagTimeOfDay); out.appendLEB128(UInt64(v.secondsSinceMidnight))
            out.appendLEB128(UInt64(v.picoseconds) << 1 | (v.isLeapSecond ? 1 : 0))
        case .duration(let v):
            out.append(tagDuration); out.append(v.isNegative ? 1 : 0)
            out.appendLEB128(v.seconds); out.appendLEB128(UInt64(v.picoseconds))
        case .enumValue(let v):
            out.append(tagEnum)
            out.append((v.typeName == nil ? 0 : 1) | (v.numericValue == nil ? 0 : 2))
            if let typeName = v.typeName { out.appendLengthPrefixedUTF8(typeName) }
            if let number = v.numericValue { out.appendZigZagLEB128(number) }
            out.appendLengthPrefixedUTF8(v.memberText)
        case .geo(let v):
            out.append(tagGeo); out.appendLengthPrefixedUTF8(v.kind.rawValue); out.appendLengthPrefixedUTF8(v.geoJSON)
        case .complex(let v):
            out.append(tagComplex)
            out.append(v.typeName == nil ? 0 : 1)
            if let typeName = v.typeName { out.appendLengthPrefixedUTF8(typeName) }
            out.appendLEB128(UInt64(v.properties.count))
            for property in v.properties {
                out.appendLengthPrefixedUTF8(property.name)
                try write(property.value, into: &out, depth: depth + 1, path: path() + "." + property.name)
            }
        case .collection(let items):
            out.append(tagCollection)
            out.appendLEB128(UInt64(items.count))
            for (index, item) in items.enumerated() {
                try write(item, into: &out, depth: depth + 1, path: path() + "[\(index)]")
            }
        }
    }

    /// The common values of a slot `start..<end` (null, booleans, integers, ASCII strings,
    /// decimals of at most `EdmDecimal.smallDigitLimit` digits, dates, date/time offsets) read on
    /// borrowed bytes, when they fill the slot exactly; nil leaves the slot to `read`, which
    /// then decides, with every check and error. The same values as `read` (a query result's
    /// entities pass here: the checked reader's per-byte bounds checks and calls were about a
    /// third of decoding a SalesOrder). Slots outside `b` read as nil.
    static func readCommon(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> ODataValue? {
        guard start >= 0, start < end, end <= b.count else { return nil }
        var p = start + 1
        /// An unsigned LEB128 of at most 9 bytes inside the slot (longer ones go to `read`).
        func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while p < end, shift < 63 {
                let byte = b[p]
                p += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
            return nil
        }
        func zigzag() -> Int64? {
            guard let raw = varint() else { return nil }
            return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
        }
        let value: ODataValue
        switch b[start] {
        case tagNull: value = .null
        case tagFalse: value = .boolean(false)
        case tagTrue: value = .boolean(true)
        case tagInt32:
            guard let raw = zigzag(), let v = Int32(exactly: raw) else { return nil }
            value = .int32(v)
        case tagInt64:
            guard let raw = zigzag() else { return nil }
            value = .int64(raw)
        case tagString:
            guard let length = varint(), length <= UInt64(end - p), p + Int(length) == end else { return nil }
            // Invalid UTF-8 is left to `read`, which throws.
            guard let text = validString(UnsafeBufferPointer(rebasing: b[p..<end])) else { return nil }
            p = end
            value = .string(text)
        case tagDecimal:
            guard p < end else { return nil }
            let sign = b[p]
            p += 1
            guard sign <= 1, let scale = varint(), let count = varint(),
                  scale <= UInt64(EdmDecimal.maxDigits), count <= UInt64(EdmDecimal.smallDigitLimit) else { return nil }
            let digits = Int(count)
            guard (digits + 1) / 2 <= end - p else { return nil }
            // Two digits a byte, high nibble first; an odd count leaves the last low nibble unused.
            guard digits == 0 || b[p] >> 4 != 0 else { return nil }  // no leading zero
            var coefficient: UInt64 = 0
            for i in 0..<(digits / 2) {
                let byte = b[p + i]
                let high = byte >> 4, low = byte & 0x0F
                guard high <= 9, low <= 9 else { return nil }
                coefficient = coefficient &* 100 &+ UInt64(high &* 10 &+ low)
            }
            if digits & 1 == 1 {
                let high = b[p + digits / 2] >> 4
                guard high <= 9 else { return nil }
                coefficient = coefficient &* 10 &+ UInt64(high)
            }
            p += (digits + 1) / 2
            value = .decimal(EdmDecimal(unchecked: sign == 1, small: coefficient, count: digits, Int(scale)))
        case tagDate:
            guard let year = zigzag(), p + 2 <= end, year.magnitude <= UInt64(EdmDate.maxYear),
                  let v = try? EdmDate(year: Int(year), month: Int(b[p]), day: Int(b[p + 1])) else { return nil }
            p += 2
            value = .date(v)
        case tagDateTimeOffset:
            guard let seconds = zigzag(), let picosAndLeap = varint(), let offset = zigzag() else { return nil }
            let picos = picosAndLeap >> 1
            guard picos < 1_000_000_000_000, offset.magnitude < 1440,
                  let v = try? EdmDateTimeOffset(utcSeconds: seconds, picoseconds: Int64(picos), offsetMinutes: Int(offset),
                                                 leapSecond: picosAndLeap & 1 == 1) else { return nil }
            value = .dateTimeOffset(v)
        default:
            return nil
        }
        return p == end ? value : nil
    }

    /// The text of UTF-8 bytes; nil when they are not valid UTF-8. ASCII takes the standard
    /// library's fast path as it is. Other text is decoded with repair (specialized, fast) and
    /// compared with its bytes: a repair replaces an invalid sequence, so the result differs
    /// exactly when the bytes were invalid. `String(validating:as:)` runs the generic validator,
    /// about 1,400 instructions for a 40-byte name (profiled: 5 % of an indexed query whose
    /// customer names are partly non-ASCII).
    static func validString(_ text: UnsafeBufferPointer<UInt8>) -> String? {
        // One ASCII character (status codes, flags: three of a SalesOrder's eight strings) is
        // copied from a table instead of being built and checked (about 170 instructions).
        if text.count == 1, let base = text.baseAddress, base[0] < 0x80 { return asciiCharacters[Int(base[0])] }
        if isASCII(text) { return String(decoding: text, as: UTF8.self) }
        var decoded = String(decoding: text, as: UTF8.self)
        let same = decoded.withUTF8 { utf8 -> Bool in
            guard utf8.count == text.count else { return false }
            guard let a = utf8.baseAddress, let b = text.baseAddress else { return true }
            // A plain loop: the generic elementsEqual cost about 1,000 instructions a name.
            for i in 0..<text.count where a[i] != b[i] { return false }
            return true
        }
        return same ? decoded : nil
    }

    /// The strings of one ASCII character, by code.
    static let asciiCharacters: [String] = (0..<128).map { String(Character(Unicode.Scalar(UInt8($0)))) }

    /// True when every byte is below 0x80, tested eight bytes at a time.
    @inline(__always)
    static func isASCII(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = text.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        let count = text.count
        var i = 0
        while i + 8 <= count {
            if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < count {
            if base[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    static func read(_ reader: inout EncodedBytesReader, depth: Int = 0) throws(ODataError) -> ODataValue {
        guard depth <= maxDepth else { throw .encodingNestingTooDeep(maxDepth, offset: reader.position) }
        let tagOffset = reader.position
        let tag = try reader.byte()
        switch tag {
        case tagNull: return .null
        case tagFalse: return .boolean(false)
        case tagTrue: return .boolean(true)
        case tagByte: return .byte(try reader.byte())
        case tagSByte: return .sbyte(Int8(bitPattern: try reader.byte()))
        case tagInt16: return .int16(Int16(bitPattern: UInt16(try reader.littleEndian(2))))
        case tagInt32:
            guard let v = Int32(exactly: try reader.zigzag()) else { throw reader.invalid("Int32 out of range") }
            return .int32(v)
        case tagInt64: return .int64(try reader.zigzag())
        case tagDecimal:
            let sign = try reader.byte()
            switch sign {
            case 0, 1: break
            case 2: return .decimal(.infinity)
            case 3: return .decimal(.negativeInfinity)
            case 4: return .decimal(.nan)
            default: throw reader.invalid("decimal sign byte")
            }
            let scale = try reader.varint()
            let count = try reader.varint()
            guard scale <= UInt64(EdmDecimal.maxDigits), count <= UInt64(EdmDecimal.maxDigits) else {
                throw reader.invalid("decimal beyond \(EdmDecimal.maxDigits) digits")
            }
            if count <= UInt64(EdmDecimal.smallDigitLimit) {
                let value = try reader.packedCoefficient(Int(count))
                return .decimal(EdmDecimal(unchecked: sign == 1, small: value, count: Int(count), Int(scale)))
            }
            return .decimal(EdmDecimal(unchecked: sign == 1, try reader.packedDigits(Int(count)), Int(scale)))
        case tagSingle: return .single(Float(bitPattern: UInt32(try reader.littleEndian(4))))
        case tagDouble: return .double(Double(bitPattern: try reader.littleEndian(8)))
        case tagString: return .string(try reader.utf8String())
        case tagBinary:
            let count = try reader.count()
            return .binary(try reader.take(count))
        case tagGuid: return .guid(try EdmGuid(bytes: try reader.take(16)))
        case tagDate:
            let year = try reader.zigzag()
            let month = Int(try reader.byte())
            let day = Int(try reader.byte())
            guard year.magnitude <= UInt64(EdmDate.maxYear) else { throw reader.invalid("year out of range") }
            return .date(try OrderedKeyEncoding.wrap(reader) { () throws(ODataError) in
                try EdmDate(year: Int(year), month: month, day: day)
            })
        case tagDateTimeOffset:
            let seconds = try reader.zigzag()
            let picosAndLeap = try reader.varint()
            let offset = try reader.zigzag()
            let picos = picosAndLeap >> 1
            guard picos < 1_000_000_000_000, offset.magnitude < 1440 else { throw reader.invalid("date/time fields") }
            return .dateTimeOffset(try OrderedKeyEncoding.wrap(reader) { () throws(ODataError) in
                try EdmDateTimeOffset(utcSeconds: seconds, picoseconds: Int64(picos), offsetMinutes: Int(offset),
                                      leapSecond: picosAndLeap & 1 == 1)
            })
        case tagTimeOfDay:
            let seconds = try reader.varint()
            let picosAndLeap = try reader.varint()
            let picos = picosAndLeap >> 1
            guard seconds < 86_400, picos < 1_000_000_000_000 else { throw reader.invalid("time fields") }
            return .timeOfDay(try OrderedKeyEncoding.wrap(reader) { () throws(ODataError) in
                try EdmTimeOfDay(secondsSinceMidnight: Int64(seconds), picoseconds: Int64(picos), leapSecond: picosAndLeap & 1 == 1)
            })
        case tagDuration:
            let sign = try reader.byte()
            let seconds = try reader.varint()
            let picos = try reader.varint()
            guard sign <= 1, picos < 1_000_000_000_000 else { throw reader.invalid("duration fields") }
            return .duration(try OrderedKeyEncoding.wrap(reader) { () throws(ODataError) in
                try EdmDuration(isNegative: sign == 1, seconds: seconds, picoseconds: Int64(picos))
            })
        case tagEnum:
            let flags = try reader.byte()
            guard flags <= 3 else { throw reader.invalid("enum flags") }
            let typeName = flags & 1 != 0 ? try reader.utf8String() : nil
            let number = flags & 2 != 0 ? try reader.zigzag() : nil
            let members = try reader.utf8String()
            return .enumValue(try OrderedKeyEncoding.wrap(reader) { () throws(ODataError) in
                try EdmEnumValue(typeName: typeName, memberText: members, numericValue: number)
            })
        case tagGeo:
            let kindName = try reader.utf8String()
            let json = try reader.utf8String()
            guard let kind = EdmPrimitiveKind(rawValue: kindName), kind.isGeo else { throw reader.invalid("geo kind") }
            return .geo(try OrderedKeyEncoding.wrap(reader) { () throws(ODataError) in try EdmGeo(kind: kind, geoJSON: json) })
        case tagComplex:
            let flags = try reader.byte()
            guard flags <= 1 else { throw reader.invalid("complex flags") }
            let typeName = flags == 1 ? try reader.utf8String() : nil
            let count = try reader.count(minimumItemSize: 2)
            var properties: [ODataProperty] = []
            properties.reserveCapacity(count)
            for _ in 0..<count {
                let name = try reader.utf8String()
                properties.append(ODataProperty(name, try read(&reader, depth: depth + 1)))
            }
            return .complex(ODataComplexValue(typeName: typeName, properties: properties))
        case tagCollection:
            let count = try reader.count(minimumItemSize: 1)
            var items: [ODataValue] = []
            items.reserveCapacity(count)
            for _ in 0..<count { items.append(try read(&reader, depth: depth + 1)) }
            return .collection(items)
        default:
            throw .encodingInvalid("\(reader.what): unknown value tag 0x\(ValueText.hexByte(tag, uppercase: false))", offset: tagOffset)
        }
    }
}

/// The text of UTF-8 bytes, nil when they are not valid UTF-8 (`EntityValueEncoding.validString`):
/// for the store's reads of stored text on borrowed bytes.
package func validUTF8String(_ bytes: UnsafeRawBufferPointer) -> String? {
    EntityValueEncoding.validString(bytes.assumingMemoryBound(to: UInt8.self))
}
