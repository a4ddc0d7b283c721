/// Reads the GeoJSON text kept in `EdmGeo` (any member order, insignificant whitespace).
extension GeoShape {
    /// Parses GeoJSON; the SRID comes from a `crs` member (`EPSG:4326`,
    /// `urn:ogc:def:crs:EPSG::4326`) or is nil.
    static func parseGeoJSON(_ text: String) throws(ODataError) -> (srid: Int?, shape: GeoShape) {
        var reader = MiniJSON(text)
        let value = try reader.value(depth: 0)
        try reader.requireEnd()
        return try geometry(value, text, depth: 0)
    }

    private static func geometry(_ value: MiniJSON.Value, _ text: String, depth: Int) throws(ODataError) -> (srid: Int?, shape: GeoShape) {
        guard depth <= maxDepth, case .object(let members) = value else {
            throw .invalidLiteral(text, "GeoJSON geometry must be an object")
        }
        func member(_ name: String) -> MiniJSON.Value? { members.first { $0.0 == name }?.1 }
        guard case .string(let type)? = member("type") else { throw .invalidLiteral(text, "GeoJSON without \"type\"") }
        var srid: Int?
        if case .object(let crs)? = member("crs"), case .object(let properties)? = crs.first(where: { $0.0 == "properties" })?.1,
           case .string(let name)? = properties.first(where: { $0.0 == "name" })?.1,
           let digits = name.split(separator: ":").last, let number = Int(digits), (0...99_999).contains(number) {
            srid = number
        }
        if type == "GeometryCollection" {
            guard case .array(let items)? = member("geometries") else { throw .invalidLiteral(text, "collection without geometries") }
            var shapes: [GeoShape] = []
            for item in items { shapes.append(try geometry(item, text, depth: depth + 1).shape) }
            return (srid, .collection(shapes))
        }
        guard let coordinates = member("coordinates") else { throw .invalidLiteral(text, "GeoJSON without coordinates") }
        func position(_ value: MiniJSON.Value) throws(ODataError) -> [String] {
            guard case .array(let items) = value, (2...4).contains(items.count) else {
                throw .invalidLiteral(text, "a GeoJSON position has 2 to 4 numbers")
            }
            var numbers: [String] = []
            for item in items {
                guard case .number(let number) = item else { throw .invalidLiteral(text, "coordinate is not a number") }
                numbers.append(number)
            }
            return numbers
        }
        func array(_ value: MiniJSON.Value) throws(ODataError) -> [MiniJSON.Value] {
            guard case .array(let items) = value else { throw .invalidLiteral(text, "expected a coordinate array") }
            return items
        }
        func positions(_ value: MiniJSON.Value) throws(ODataError) -> [[String]] {
            var out: [[String]] = []
            for item in try array(value) { out.append(try position(item)) }
            return out
        }
        func rings(_ value: MiniJSON.Value) throws(ODataError) -> [[[String]]] {
            var out: [[[String]]] = []
            for item in try array(value) { out.append(try positions(item)) }
            return out
        }
        switch type {
        case "Point": return (srid, .point(try position(coordinates)))
        case "LineString": return (srid, .lineString(try positions(coordinates)))
        case "Polygon": return (srid, .polygon(try rings(coordinates)))
        case "MultiPoint": return (srid, .multiPoint(try positions(coordinates)))
        case "MultiLineString": return (srid, .multiLineString(try rings(coordinates)))
        case "MultiPolygon":
            var polygons: [[[[String]]]] = []
            for item in try array(coordinates) { polygons.append(try rings(item)) }
            return (srid, .multiPolygon(polygons))
        default: throw .invalidLiteral(text, "unknown GeoJSON type '\(type)'")
        }
    }
}

/// A tiny JSON reader for GeoJSON only (numbers kept as text).
struct MiniJSON {
    indirect enum Value {
        case object([(String, Value)])
        case array([Value])
        case string(String)
        case number(String)
        case literal(String)
    }

    var scanner: TextScanner

    init(_ text: String) { scanner = TextScanner(text) }

    mutating func skipSpace() {
        while let byte = scanner.peek, [0x20, 0x09, 0x0A, 0x0D].contains(byte) { scanner.index += 1 }
    }

    mutating func requireEnd() throws(ODataError) {
        skipSpace()
        try scanner.requireEnd()
    }

    mutating func value(depth: Int) throws(ODataError) -> Value {
        guard depth <= 64 else { throw scanner.fail("JSON nested too deeply") }
        skipSpace()
        guard let byte = scanner.peek else { throw scanner.fail("unexpected end of JSON") }
        switch byte {
        case UInt8(ascii: "{"):
            scanner.index += 1
            var members: [(String, Value)] = []
            skipSpace()
            if scanner.consume("}") { return .object(members) }
            repeat {
                skipSpace()
                let name = try string()
                skipSpace()
                try scanner.expect(":")
                members.append((name, try value(depth: depth + 1)))
                skipSpace()
            } while scanner.consume(",")
            try scanner.expect("}")
            return .object(members)
        case UInt8(ascii: "["):
            scanner.index += 1
            var items: [Value] = []
            skipSpace()
            if scanner.consume("]") { return .array(items) }
            repeat {
                items.append(try value(depth: depth + 1))
                skipSpace()
            } while scanner.consume(",")
            try scanner.expect("]")
            return .array(items)
        case UInt8(ascii: "\""): return .string(try string())
        default:
            let start = scanner.index
            while let next = scanner.peek, next.asciiDigit != nil || next | 0x20 >= UInt8(ascii: "a") && next | 0x20 <= UInt8(ascii: "z")
                || [UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: ".")].contains(next) {
                scanner.index += 1
            }
            let token = Array(scanner.bytes[start..<scanner.index])
            let text = String(decoding: token, as: UTF8.self)
            if ["true", "false", "null"].contains(text) { return .literal(text) }
            guard ODataValue.isJSONNumber(token) else { throw scanner.fail("invalid JSON token") }
            return .number(text)
        }
    }

    mutating func string() throws(ODataError) -> String {
        try scanner.expect("\"")
        var out: [UInt8] = []
        while true {
            guard let byte = scanner.peek else { throw scanner.fail("unterminated JSON string") }
            scanner.index += 1
            switch byte {
            case UInt8(ascii: "\""): return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escape = scanner.peek else { throw scanner.fail("unterminated escape") }
                scanner.index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var code: UInt32 = 0
                    for _ in 0..<4 {
                        guard let digit = scanner.peek?.hexDigit else { throw scanner.fail("bad \\u escape") }
                        code = code << 4 | UInt32(digit)
                        scanner.index += 1
                    }
                    out += Array(String(Unicode.Scalar(code).map(Character.init) ?? "\u{FFFD}").utf8)
                default: throw scanner.fail("bad escape")
                }
            default:
                guard byte >= 0x20 else { throw scanner.fail("control character in JSON string") }
                out.append(byte)
            }
        }
    }
}
