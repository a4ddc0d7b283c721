/// A geography or geometry value, kept as its GeoJSON text exactly as the JSON layer produced it
/// (canonical JSON text), with its kind.
public struct EdmGeo: Sendable, Hashable, CustomStringConvertible {
    /// One of the `Edm.Geography*` / `Edm.Geometry*` kinds.
    public let kind: EdmPrimitiveKind
    /// The GeoJSON object as canonical JSON text.
    public let geoJSON: String

    public init(kind: EdmPrimitiveKind, geoJSON: String) throws(ODataError) {
        guard kind.isGeo else { throw .invalidValue("\(kind.rawValue) is not a geography or geometry kind") }
        self.kind = kind
        self.geoJSON = geoJSON
    }

    public var description: String { "\(kind.rawValue)(\(geoJSON))" }
}
