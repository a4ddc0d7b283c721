/// Reads the OData ABNF geo literal body `SRID=n;Point(1 2)` (the text inside
/// `geography'…'` / `geometry'…'`).
extension GeoShape {
    static let maxDepth = 32

    static func parseWKT(_ text: String) throws(ODataError) -> (srid: Int, shape: GeoShape) {
        try LiteralScanner.reading(text) { (scanner: inout LiteralScanner) throws(ODataError) -> (srid: Int, shape: GeoShape) in
            for char in "SRID" {
                guard let byte = scanner.peek, byte | 0x20 == (char.asciiValue ?? 0) | 0x20 else {
                    throw scanner.fail("expected SRID=")
                }
                scanner.index += 1
            }
            try scanner.expect("=")
            let start = scanner.index
            let srid = try scanner.digits(upTo: 99_999, "SRID")
            guard scanner.index - start <= 5 else { throw scanner.fail("SRID has more than 5 digits") }
            try scanner.expect(";")
            let shape = try literal(&scanner, depth: 0)
            try scanner.requireEnd()
            return (Int(srid), shape)
        }
    }

    private static func literal(_ scanner: inout LiteralScanner, depth: Int) throws(ODataError) -> GeoShape {
        guard depth <= maxDepth else { throw scanner.fail("geo collections nested deeper than \(maxDepth)") }
        let nameStart = scanner.index
        while let byte = scanner.peek, byte | 0x20 >= UInt8(ascii: "a"), byte | 0x20 <= UInt8(ascii: "z") { scanner.index += 1 }
        let name = String(decoding: scanner.bytes[nameStart..<scanner.index], as: UTF8.self).lowercased()
        switch name {
        case "point": return .point(try pointData(&scanner))
        case "linestring": return .lineString(try positions(&scanner, minimum: 2))
        case "polygon": return .polygon(try polygonData(&scanner))
        case "multipoint": return .multiPoint(try list(&scanner) { (s: inout LiteralScanner) throws(ODataError) in try pointData(&s) })
        case "multilinestring":
            return .multiLineString(try list(&scanner) { (s: inout LiteralScanner) throws(ODataError) in try positions(&s, minimum: 2) })
        case "multipolygon": return .multiPolygon(try list(&scanner) { (s: inout LiteralScanner) throws(ODataError) in try polygonData(&s) })
        case "geometrycollection", "collection": // 4.01 ABNF: GeometryCollection; 4.0: Collection
            return .collection(try list(&scanner, allowEmpty: false) { (s: inout LiteralScanner) throws(ODataError) in
                try literal(&s, depth: depth + 1)
            })
        default: throw scanner.fail("unknown geo type '\(name)'")
        }
    }

    /// `( item *( , item ) )`, or `()` when empty lists are allowed.
    private static func list<T>(
        _ scanner: inout LiteralScanner, allowEmpty: Bool = true, _ item: (inout LiteralScanner) throws(ODataError) -> T
    ) throws(ODataError) -> [T] {
        try scanner.expect("(")
        var items: [T] = []
        if allowEmpty, scanner.consume(")") { return items }
        repeat { items.append(try item(&scanner)) } while scanner.consume(",")
        try scanner.expect(")")
        return items
    }

    private static func pointData(_ scanner: inout LiteralScanner) throws(ODataError) -> [String] {
        try scanner.expect("(")
        let point = try position(&scanner)
        try scanner.expect(")")
        return point
    }

    private static func positions(_ scanner: inout LiteralScanner, minimum: Int) throws(ODataError) -> [[String]] {
        let items = try list(&scanner, allowEmpty: false) { (s: inout LiteralScanner) throws(ODataError) in try position(&s) }
        guard items.count >= minimum else { throw scanner.fail("needs at least \(minimum) positions") }
        return items
    }

    private static func polygonData(_ scanner: inout LiteralScanner) throws(ODataError) -> [[[String]]] {
        try list(&scanner, allowEmpty: false) { (s: inout LiteralScanner) throws(ODataError) in try positions(&s, minimum: 1) }
    }

    /// `x SP y [SP z [SP m]]`.
    private static func position(_ scanner: inout LiteralScanner) throws(ODataError) -> [String] {
        var coordinates = [try number(&scanner)]
        while coordinates.count < 4, scanner.consume(" ") { coordinates.append(try number(&scanner)) }
        guard coordinates.count >= 2 else { throw scanner.fail("a position needs two coordinates") }
        return coordinates
    }

    private static func number(_ scanner: inout LiteralScanner) throws(ODataError) -> String {
        let start = scanner.index
        while let byte = scanner.peek, byte.literalDigit != nil || [UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
                                                                  UInt8(ascii: "e"), UInt8(ascii: "E")].contains(byte) {
            scanner.index += 1
        }
        let text = String(decoding: scanner.bytes[start..<scanner.index], as: UTF8.self)
        guard !text.isEmpty else { throw scanner.fail("expected a coordinate") }
        let value = try ODataValue.parseFloatingLiteral(text, suffixes: "", Double.self, .double)
        return jsonNumberText(value)
    }

    /// JSON number text of a double: whole numbers below 2^53 without a fraction, else the
    /// shortest round-trip form.
    static func jsonNumberText(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return String(Int64(value)) }
        return value.description
    }
}
