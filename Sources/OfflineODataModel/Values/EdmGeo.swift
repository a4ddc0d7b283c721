/// A geography or geometry value, kept as its GeoJSON text exactly as the JSON layer produced it
/// (canonical JSON text), with its kind.
public struct EdmGeo: Sendable, Hashable, CustomStringConvertible {
    /// One of the `Edm.Geography*` / `Edm.Geometry*` kinds.
    public let kind: EdmPrimitiveKind
    /// The GeoJSON object as canonical JSON text.
    public let geoJSON: String

    public init(kind: EdmPrimitiveKind, geoJSON: String) throws(ODataError) {
        guard kind.isGeo else { throw .valueInvalidFields("\(kind.rawValue) is not a geography or geometry kind") }
        self.kind = kind
        self.geoJSON = geoJSON
    }

    public var description: String { "\(kind.rawValue)(\(geoJSON))" }
}

extension EdmGeo {
    /// True for the `Edm.Geography*` kinds, false for `Edm.Geometry*`.
    public var isGeography: Bool { kind.rawValue.hasPrefix("Edm.Geography") }

    /// Parses a geo URL literal (`geography'SRID=4326;Point(142.1 64.1)'`,
    /// `geometry'SRID=0;Collection(Point(1 2),LineString(1 2,3 4))'`) for a property of `kind`
    /// (`Edm.Geography`/`Edm.Geometry` accept any shape). The GeoJSON text is canonical:
    /// `{"type":…,"coordinates":…,"crs":{"type":"name","properties":{"name":"EPSG:<srid>"}}}`.
    public init(literal text: String, as kind: EdmPrimitiveKind) throws(ODataError) {
        guard kind.isGeo else { throw .valueInvalidFields("\(kind.rawValue) is not a geography or geometry kind") }
        let geography = kind.rawValue.hasPrefix("Edm.Geography")
        guard let quoted = try ODataValue.splitQuotedLiteral(text),
              quoted.prefix.lowercased() == (geography ? "geography" : "geometry") else {
            throw .valueInvalidLiteral(text, "expected \(geography ? "geography" : "geometry")'SRID=…;…'")
        }
        let parsed: (srid: Int, shape: GeoShape)
        do {
            parsed = try GeoShape.parseWKT(quoted.body)
        } catch {
            throw .valueInvalidLiteral(text, error.message)
        }
        let shapeKind = parsed.shape.kind(geography: geography)
        guard kind == shapeKind || kind == .geography || kind == .geometry else {
            throw .valueInvalidLiteral(text, "a \(parsed.shape.geoJSONType) is not a \(kind.rawValue)")
        }
        try self.init(kind: shapeKind, geoJSON: parsed.shape.geoJSON(srid: parsed.srid))
    }

    /// The SRID named by the GeoJSON `crs` member, if any.
    public var srid: Int? { (try? GeoShape.parseGeoJSON(geoJSON))?.srid }

    /// The URL literal; the SRID defaults to 4326 for geography and 0 for geometry.
    public func literal() throws(ODataError) -> String {
        let parsed = try GeoShape.parseGeoJSON(geoJSON)
        let srid = parsed.srid ?? (isGeography ? 4326 : 0)
        return (isGeography ? "geography'" : "geometry'") + "SRID=\(srid);" + parsed.shape.wkt + "'"
    }
}
