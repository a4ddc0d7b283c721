extension OrderedKeyEncoding {
    static func decodeComponent(_ reader: inout EncodedBytesReader) throws(ODataError) -> ODataValue {
        let tagOffset = reader.position
        let tag = try reader.byte()
        switch tag {
        case tagNull: return .null
        case tagBoolean:
            switch try reader.byte() {
            case 0: return .boolean(false)
            case 1: return .boolean(true)
            default: throw reader.invalid("boolean byte is not 0 or 1")
            }
        case tagNumber: return try OrderedNumber.decode(&reader)
        case tagString: return .string(try readEscapedString(&reader))
        case tagBinary: return .binary(try readEscaped(&reader))
        case tagGuid: return .guid(try EdmGuid(bytes: try reader.take(16)))
        case tagDate:
            let year = unflip(try reader.bigEndian(4), bits: 32)
            let month = Int(try reader.byte())
            let day = Int(try reader.byte())
            return .date(try wrap(reader) { () throws(ODataError) in try EdmDate(year: Int(year), month: month, day: day) })
        case tagDateTimeOffset:
            let seconds = unflip(try reader.bigEndian(8), bits: 64)
            let leap = try reader.byte()
            guard leap <= 1 else { throw reader.invalid("leap-second flag") }
            let picos = Int64(try reader.bigEndian(5))
            let offset = unflip(try reader.bigEndian(2), bits: 16)
            return .dateTimeOffset(try wrap(reader) { () throws(ODataError) in
                try EdmDateTimeOffset(utcSeconds: seconds, picoseconds: picos, offsetMinutes: Int(offset), leapSecond: leap == 1)
            })
        case tagTimeOfDay:
            let seconds = Int64(try reader.bigEndian(3))
            let leap = try reader.byte()
            guard leap <= 1 else { throw reader.invalid("leap-second flag") }
            let picos = Int64(try reader.bigEndian(5))
            return .timeOfDay(try wrap(reader) { () throws(ODataError) in
                try EdmTimeOfDay(secondsSinceMidnight: seconds, picoseconds: picos, leapSecond: leap == 1)
            })
        case tagDuration:
            let signByte = try reader.byte()
            guard signByte <= 1 else { throw reader.invalid("duration sign byte") }
            var body = try reader.take(13)
            if signByte == 0 { body = body.map { ~$0 } }
            var inner = EncodedBytesReader(body, what: "duration")
            let seconds = try inner.bigEndian(8)
            let picos = Int64(try inner.bigEndian(5))
            let duration = try wrap(reader) { () throws(ODataError) in
                try EdmDuration(isNegative: signByte == 0, seconds: seconds, picoseconds: picos)
            }
            guard duration.isNegative == (signByte == 0) else { throw reader.invalid("negative zero duration") }
            return .duration(duration)
        case tagEnum:
            let numberFlag = try reader.byte()
            var number: Int64?
            switch numberFlag {
            case 0x01: number = unflip(try reader.bigEndian(8), bits: 64)
            case 0x02: number = nil
            default: throw reader.invalid("enum number flag")
            }
            let typeFlag = try reader.byte()
            guard typeFlag <= 1 else { throw reader.invalid("enum type flag") }
            let typeName = typeFlag == 1 ? try readEscapedString(&reader) : nil
            let members = try readEscapedString(&reader)
            return .enumValue(try wrap(reader) { () throws(ODataError) in
                try EdmEnumValue(typeName: typeName, memberText: members, numericValue: number)
            })
        case tagGeo:
            let kindName = try readEscapedString(&reader)
            let json = try readEscapedString(&reader)
            guard let kind = EdmPrimitiveKind(rawValue: kindName) else { throw reader.invalid("geo kind '\(kindName)'") }
            return .geo(try wrap(reader) { () throws(ODataError) in try EdmGeo(kind: kind, geoJSON: json) })
        default:
            throw .encodingInvalid("ordered key: unknown type tag 0x\(ValueText.hexByte(tag, uppercase: false))", offset: tagOffset)
        }
    }

    /// Turns a value-construction error from decoded fields into an encoding error at the
    /// reader's position.
    static func wrap<T>(_ reader: EncodedBytesReader, _ body: () throws(ODataError) -> T) throws(ODataError) -> T {
        do {
            return try body()
        } catch {
            throw .encodingInvalid("\(reader.what): \(error.message)", offset: reader.position)
        }
    }
}
