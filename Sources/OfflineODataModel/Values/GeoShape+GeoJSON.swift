/// Reads the GeoJSON text kept in `EdmGeo` (any member order, insignificant whitespace).
extension GeoShape {
    /// Parses GeoJSON; the SRID comes from a `crs` member (`EPSG:4326`,
    /// `urn:ogc:def:crs:EPSG::4326`) or is nil.
    static func parseGeoJSON(_ text: String) throws(ODataError) -> (srid: Int?, shape: GeoShape) {
        try geometry(try GeoJSONReader.read(text), text, depth: 0)
    }

    private static func geometry(_ value: GeoJSONReader.Value, _ text: String, depth: Int) throws(ODataError) -> (srid: Int?, shape: GeoShape) {
        guard depth <= maxDepth, case .object(let members) = value else {
            throw .valueInvalidLiteral(text, "GeoJSON geometry must be an object")
        }
        func member(_ name: String) -> GeoJSONReader.Value? { members.first { $0.0 == name }?.1 }
        guard case .string(let type)? = member("type") else { throw .valueInvalidLiteral(text, "GeoJSON without \"type\"") }
        var srid: Int?
        if case .object(let crs)? = member("crs"), case .object(let properties)? = crs.first(where: { $0.0 == "properties" })?.1,
           case .string(let name)? = properties.first(where: { $0.0 == "name" })?.1,
           let digits = name.split(separator: ":").last, let number = Int(digits), (0...99_999).contains(number) {
            srid = number
        }
        if type == "GeometryCollection" {
            guard case .array(let items)? = member("geometries") else { throw .valueInvalidLiteral(text, "collection without geometries") }
            var shapes: [GeoShape] = []
            for item in items { shapes.append(try geometry(item, text, depth: depth + 1).shape) }
            return (srid, .collection(shapes))
        }
        guard let coordinates = member("coordinates") else { throw .valueInvalidLiteral(text, "GeoJSON without coordinates") }
        func position(_ value: GeoJSONReader.Value) throws(ODataError) -> [String] {
            guard case .array(let items) = value, (2...4).contains(items.count) else {
                throw .valueInvalidLiteral(text, "a GeoJSON position has 2 to 4 numbers")
            }
            var numbers: [String] = []
            for item in items {
                guard case .number(let number) = item else { throw .valueInvalidLiteral(text, "coordinate is not a number") }
                numbers.append(number)
            }
            return numbers
        }
        func array(_ value: GeoJSONReader.Value) throws(ODataError) -> [GeoJSONReader.Value] {
            guard case .array(let items) = value else { throw .valueInvalidLiteral(text, "expected a coordinate array") }
            return items
        }
        func positions(_ value: GeoJSONReader.Value) throws(ODataError) -> [[String]] {
            var out: [[String]] = []
            for item in try array(value) { out.append(try position(item)) }
            return out
        }
        func rings(_ value: GeoJSONReader.Value) throws(ODataError) -> [[[String]]] {
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
        default: throw .valueInvalidLiteral(text, "unknown GeoJSON type '\(type)'")
        }
    }
}
