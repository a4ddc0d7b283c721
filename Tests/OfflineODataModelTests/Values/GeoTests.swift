import PropertyBased
import Testing
@testable import OfflineODataModel

@Suite struct GeoTests {
    static let coordinate = Gen.double(in: -180...180).map { GeoShape.jsonNumberText(($0 * 1000).rounded() / 1000) }
    static let position = coordinate.array(of: 2...4)
    static let line = position.array(of: 2...4)
    static let ring = position.array(of: 1...4)

    static let shape = zip(Gen.int(in: 0...6), position, line, ring.array(of: 1...2), line.array(of: 0...2))
        .map { choice, point, line, polygon, lines -> GeoShape in
            switch choice {
            case 0: return .point(point)
            case 1: return .lineString(line)
            case 2: return .polygon(polygon)
            case 3: return .multiPoint(line)
            case 4: return .multiLineString(lines)
            case 5: return .multiPolygon([polygon, polygon])
            default: return .collection([.point(point), .lineString(line), .collection([.polygon(polygon)])])
            }
        }

    static let geo = zip(shape, Gen.bool, Gen.int(in: 0...99_999)).compactMap { shape, geography, srid in
        try? EdmGeo(kind: shape.kind(geography: geography), geoJSON: shape.geoJSON(srid: srid))
    }

    @Test func specExamples() throws {
        let point = try ODataValue.parseLiteral("geography'SRID=0;Point(142.1 64.1)'", as: .geographyPoint)
        guard case .geo(let geo) = point else { Issue.record("not geo"); return }
        #expect(geo.kind == .geographyPoint && geo.srid == 0)
        #expect(geo.geoJSON == #"{"type":"Point","coordinates":[142.1,64.1],"crs":{"type":"name","properties":{"name":"EPSG:0"}}}"#)
        #expect(try point.literal() == "geography'SRID=0;Point(142.1 64.1)'")
        let polygon = try ODataValue.inferLiteral("geometry'SRID=0;Polygon((1 1,2 2,3 3,1 1))'")
        #expect(polygon.kind == .geometryPolygon)
        let collection = try ODataValue.parseLiteral(
            "geography'srid=4326;Collection(Point(1 2),MultiPoint(),MultiLineString((1 2,3 4)))'", as: .geography)
        #expect(collection.kind == .geographyCollection)
        #expect(try collection.literal() == "geography'SRID=4326;GeometryCollection(Point(1 2),MultiPoint(),MultiLineString((1 2,3 4)))'")
    }

    @Test func geoJSONFromTheJSONLayerFormatsAsALiteral() throws {
        let geo = try EdmGeo(kind: .geographyPoint, geoJSON: #"{ "coordinates" : [ -122.5, 47.6 ], "type" : "Point" }"#)
        #expect(try ODataValue.geo(geo).literal() == "geography'SRID=4326;Point(-122.5 47.6)'")
        let bad = try EdmGeo(kind: .geographyPoint, geoJSON: #"{"type":"Point"}"#)
        #expect(throws: ODataError.self) { try ODataValue.geo(bad).literal() }
    }

    @Test func valuesRoundTripThroughLiteralsKeysAndEntities() async {
        await propertyCheck(count: 200, input: Self.geo) { geo in
            let value = ODataValue.geo(geo)
            let text = try value.literal()
            let parsed = try ODataValue.parseLiteral(text, as: geo.kind)
            #expect(parsed.isIdentical(to: value), "\(text)")
            let key = try OrderedKeyEncoding.decode(try OrderedKeyEncoding.encode([value]))
            #expect(key.first?.isIdentical(to: value) == true)
            let layout = EntityLayout([EntityPropertyDescriptor("Location", geo.kind)])
            let codec = EntityCodec(layout: layout)
            let record = try codec.decode(try codec.encode(EntityRecord(values: [value])))
            #expect(record.values.first??.isIdentical(to: value) == true)
        }
    }

    @Test("exactly the Edm.Geography… and Edm.Geometry… kinds are geo kinds")
    func geoKinds() {
        for kind in EdmPrimitiveKind.allCases {
            #expect(kind.isGeo == (kind.rawValue.hasPrefix("Edm.Geography") || kind.rawValue.hasPrefix("Edm.Geometry")), "\(kind)")
        }
        #expect(EdmPrimitiveKind.allCases.filter(\.isGeo).count == 16)
    }
}
