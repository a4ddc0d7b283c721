/// A parsed geography/geometry value (the subset of GeoJSON and WKT that OData uses), with
/// coordinates kept as number text so nothing is rounded.
indirect enum GeoShape: Equatable {
    case point([String])
    case lineString([[String]])
    case polygon([[[String]]])
    case multiPoint([[String]])
    case multiLineString([[[String]]])
    case multiPolygon([[[[String]]]])
    case collection([GeoShape])

    /// The GeoJSON / WKT type names.
    var geoJSONType: String {
        switch self {
        case .point: return "Point"
        case .lineString: return "LineString"
        case .polygon: return "Polygon"
        case .multiPoint: return "MultiPoint"
        case .multiLineString: return "MultiLineString"
        case .multiPolygon: return "MultiPolygon"
        case .collection: return "GeometryCollection"
        }
    }

    /// The `Edm.Geography*` / `Edm.Geometry*` kind of this shape.
    func kind(geography: Bool) -> EdmPrimitiveKind {
        switch self {
        case .point: return geography ? .geographyPoint : .geometryPoint
        case .lineString: return geography ? .geographyLineString : .geometryLineString
        case .polygon: return geography ? .geographyPolygon : .geometryPolygon
        case .multiPoint: return geography ? .geographyMultiPoint : .geometryMultiPoint
        case .multiLineString: return geography ? .geographyMultiLineString : .geometryMultiLineString
        case .multiPolygon: return geography ? .geographyMultiPolygon : .geometryMultiPolygon
        case .collection: return geography ? .geographyCollection : .geometryCollection
        }
    }

    // MARK: GeoJSON text

    /// Canonical GeoJSON: `{"type":…,"coordinates":…}` (or `"geometries"`), then
    /// `"crs":{"type":"name","properties":{"name":"EPSG:<srid>"}}` when `srid` is given.
    func geoJSON(srid: Int?) -> String {
        var text = "{\"type\":\"\(geoJSONType)\","
        switch self {
        case .point(let p): text += "\"coordinates\":" + Self.json(p)
        case .lineString(let l), .multiPoint(let l): text += "\"coordinates\":[" + l.map(Self.json).joined(separator: ",") + "]"
        case .polygon(let rings), .multiLineString(let rings):
            text += "\"coordinates\":[" + rings.map { "[" + $0.map(Self.json).joined(separator: ",") + "]" }.joined(separator: ",") + "]"
        case .multiPolygon(let polygons):
            text += "\"coordinates\":[" + polygons.map { polygon in
                "[" + polygon.map { "[" + $0.map(Self.json).joined(separator: ",") + "]" }.joined(separator: ",") + "]"
            }.joined(separator: ",") + "]"
        case .collection(let shapes): text += "\"geometries\":[" + shapes.map { $0.geoJSON(srid: nil) }.joined(separator: ",") + "]"
        }
        if let srid { text += ",\"crs\":{\"type\":\"name\",\"properties\":{\"name\":\"EPSG:\(srid)\"}}" }
        return text + "}"
    }

    private static func json(_ position: [String]) -> String { "[" + position.joined(separator: ",") + "]" }

    // MARK: WKT text (OData ABNF geo literals, without the SRID prefix)

    var wkt: String {
        switch self {
        case .point(let p): return "Point(" + Self.wkt(p) + ")"
        case .lineString(let l): return "LineString(" + l.map(Self.wkt).joined(separator: ",") + ")"
        case .polygon(let rings): return "Polygon(" + Self.wktRings(rings) + ")"
        case .multiPoint(let points): return "MultiPoint(" + points.map { "(" + Self.wkt($0) + ")" }.joined(separator: ",") + ")"
        case .multiLineString(let lines):
            return "MultiLineString(" + lines.map { "(" + $0.map(Self.wkt).joined(separator: ",") + ")" }.joined(separator: ",") + ")"
        case .multiPolygon(let polygons):
            return "MultiPolygon(" + polygons.map { "(" + Self.wktRings($0) + ")" }.joined(separator: ",") + ")"
        case .collection(let shapes): return "GeometryCollection(" + shapes.map(\.wkt).joined(separator: ",") + ")"
        }
    }

    private static func wkt(_ position: [String]) -> String { position.joined(separator: " ") }

    private static func wktRings(_ rings: [[[String]]]) -> String {
        rings.map { "(" + $0.map(wkt).joined(separator: ",") + ")" }.joined(separator: ",")
    }
}
