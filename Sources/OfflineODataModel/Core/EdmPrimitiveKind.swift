/// The EDM primitive types (OData CSDL 4.01 §4.4), plus V2's `Edm.DateTime` and `Edm.Time`
/// which readers of V2 metadata map onto `dateTimeOffset` and `timeOfDay`/`duration`.
public enum EdmPrimitiveKind: String, Sendable, Hashable, CaseIterable {
    case binary = "Edm.Binary"
    case boolean = "Edm.Boolean"
    case byte = "Edm.Byte"
    case date = "Edm.Date"
    case dateTimeOffset = "Edm.DateTimeOffset"
    case decimal = "Edm.Decimal"
    case double = "Edm.Double"
    case duration = "Edm.Duration"
    case guid = "Edm.Guid"
    case int16 = "Edm.Int16"
    case int32 = "Edm.Int32"
    case int64 = "Edm.Int64"
    case sbyte = "Edm.SByte"
    case single = "Edm.Single"
    case stream = "Edm.Stream"
    case string = "Edm.String"
    case timeOfDay = "Edm.TimeOfDay"
    case geography = "Edm.Geography"
    case geographyPoint = "Edm.GeographyPoint"
    case geographyLineString = "Edm.GeographyLineString"
    case geographyPolygon = "Edm.GeographyPolygon"
    case geographyMultiPoint = "Edm.GeographyMultiPoint"
    case geographyMultiLineString = "Edm.GeographyMultiLineString"
    case geographyMultiPolygon = "Edm.GeographyMultiPolygon"
    case geographyCollection = "Edm.GeographyCollection"
    case geometry = "Edm.Geometry"
    case geometryPoint = "Edm.GeometryPoint"
    case geometryLineString = "Edm.GeometryLineString"
    case geometryPolygon = "Edm.GeometryPolygon"
    case geometryMultiPoint = "Edm.GeometryMultiPoint"
    case geometryMultiLineString = "Edm.GeometryMultiLineString"
    case geometryMultiPolygon = "Edm.GeometryMultiPolygon"
    case geometryCollection = "Edm.GeometryCollection"
    /// Abstract `Edm.PrimitiveType` / `Edm.Untyped` (dynamic properties of open types).
    case untyped = "Edm.Untyped"

    /// Maps a qualified type name, including V2's `Edm.DateTime` (→ dateTimeOffset) and
    /// `Edm.Time` (→ timeOfDay), onto a kind; nil for a non-primitive name.
    public init?(qualifiedName: String) {
        switch qualifiedName {
        case "Edm.DateTime": self = .dateTimeOffset
        case "Edm.Time": self = .timeOfDay
        case "Edm.PrimitiveType": self = .untyped
        default: self.init(rawValue: qualifiedName)
        }
    }

    /// Geography and geometry kinds (`Edm.Geo…`). A switch, not a look at the name: it is
    /// asked for every value an entity write checks.
    public var isGeo: Bool {
        switch self {
        case .geography, .geographyPoint, .geographyLineString, .geographyPolygon, .geographyMultiPoint,
             .geographyMultiLineString, .geographyMultiPolygon, .geographyCollection,
             .geometry, .geometryPoint, .geometryLineString, .geometryPolygon, .geometryMultiPoint,
             .geometryMultiLineString, .geometryMultiPolygon, .geometryCollection:
            return true
        case .binary, .boolean, .byte, .date, .dateTimeOffset, .decimal, .double, .duration, .guid, .int16, .int32,
             .int64, .sbyte, .single, .stream, .string, .timeOfDay, .untyped:
            return false
        }
    }
}
