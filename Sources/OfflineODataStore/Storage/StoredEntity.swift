import OfflineODataModel

/// An entity as stored, read lazily: single properties are decoded on demand from the stored
/// bytes (`EntityCodec.readProperty(at:)`), the whole record only when asked.
public struct StoredEntity: Sendable {
    /// The entity set it belongs to.
    public var entitySet: String { info.name }
    /// The encoded key (OrderedKeyEncoding of the normalized key values).
    public let keyBytes: [UInt8]
    public let etag: String?
    public let flags: EntityFlags
    /// The stored type name when it is a type derived from the set's type, else nil.
    public let derivedTypeName: String?
    /// EntityCodec bytes.
    let bytes: [UInt8]
    let info: SetInfo

    /// Takes the value over: the trailer is cut off in place, the codec bytes are not copied.
    init(keyBytes: [UInt8], value: consuming [UInt8], info: SetInfo) throws(ODataError) {
        var bytes = consume value
        let meta = try StoredValue.split(&bytes, what: "entity of set '\(info.name)'")
        self.keyBytes = keyBytes
        self.etag = meta.etag
        self.flags = meta.flags
        self.derivedTypeName = meta.typeName
        self.bytes = bytes
        self.info = info
    }

    /// The entity's type: the derived type it was stored with, else the set's type.
    public var typeName: String { derivedTypeName ?? info.typeName }

    /// The layout its declared indexes refer to.
    public var layout: EntityLayout { info.layout }

    /// Key values in key order (normalized: see docs/StoreFormat.md §6).
    public func key() throws(ODataError) -> [ODataValue] {
        try OrderedKeyEncoding.decode(keyBytes)
    }

    /// The declared property at `index` of the set's layout; nil when absent.
    public func value(atDeclaredIndex index: Int) throws(ODataError) -> ODataValue? {
        try info.codec.readProperty(at: index, from: bytes)
    }

    /// A declared property by name, else a dynamic property (decodes the record); nil when absent.
    public func value(named name: String) throws(ODataError) -> ODataValue? {
        if let i = info.propertyIndex[name] { return try value(atDeclaredIndex: i) }
        return try record().dynamicProperties.first { $0.name == name }?.value
    }

    /// Every property.
    public func record() throws(ODataError) -> EntityRecord {
        try info.codec.decode(bytes)
    }

    /// The entity with its properties (declared ones in layout order, then dynamic ones) and ETag.
    public func toODataEntity() throws(ODataError) -> ODataEntity {
        let entity = ODataEntity(typeName: typeName, properties: try info.codec.decodeProperties(bytes),
                                 control: ODataControlInformation(etag: etag))
        return info.containment == nil ? entity : try Self.showingContained(entity, keyBytes: keyBytes, info: info)
    }

    /// A contained entity as the app sees it: without its container key properties, with its
    /// canonical URL as `@odata.id` (`People('russellwhyte')/Trips(0)`: its key alone does not
    /// name it).
    static func showingContained(_ entity: ODataEntity, keyBytes: some Collection<UInt8>, info: SetInfo) throws(ODataError) -> ODataEntity {
        guard let containment = info.containment else { return entity }
        var shown = entity
        shown.properties.removeAll { Containment.isContainerKey($0.name) }
        shown.control.id = try containment.path(try OrderedKeyEncoding.decode(Array(keyBytes)), set: info.name, version: .v4)
        return shown
    }
}
