/// A tiny JSON reader for GeoJSON only (numbers kept as text).
struct GeoJSONReader {
    indirect enum Value {
        case object([(String, Value)])
        case array([Value])
        case string(String)
        case number(String)
        case literal(String)
    }

    var scanner: LiteralScanner

    private init(_ scanner: LiteralScanner) { self.scanner = scanner }

    /// The JSON value `text` starts with; with `toEnd`, only whitespace may follow it.
    static func read(_ text: String, toEnd: Bool = true) throws(ODataError) -> Value {
        try LiteralScanner.reading(text) { (scanner: inout LiteralScanner) throws(ODataError) in
            var reader = GeoJSONReader(scanner)
            let value = try reader.value(depth: 0)
            if toEnd { try reader.requireEnd() }
            return value
        }
    }

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
            while let next = scanner.peek, next.literalDigit != nil || next | 0x20 >= UInt8(ascii: "a") && next | 0x20 <= UInt8(ascii: "z")
                || [UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: ".")].contains(next) {
                scanner.index += 1
            }
            let token = Array(scanner.bytes[start..<scanner.index])
            let text = String(decoding: token, as: UTF8.self)
            if ["true", "false", "null"].contains(text) { return .literal(text) }
            guard ODataValue.isValidJSONNumberText(token) else { throw scanner.fail("invalid JSON token") }
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
                        guard let digit = scanner.peek?.literalHexDigit else { throw scanner.fail("bad \\u escape") }
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
