import OfflineODataModel

/// The persisted layout of an entity set (catalog record `set:<Set>`, docs/StoreFormat.md §3)
/// and its derivation from the model.
enum LayoutRecord {
    static let maxDepth = 16

    // MARK: model -> layout

    /// The layout of an entity type: `model.allProperties(of:)` in that order.
    static func layout(of type: CSDLEntityType, model: ServiceModel) -> EntityLayout {
        EntityLayout(model.allProperties(of: type).map { descriptor($0, model: model, depth: 0) })
    }

    static func descriptor(_ property: CSDLProperty, model: ServiceModel, depth: Int) -> EntityPropertyDescriptor {
        var shape = elementShape(property.type, model: model, depth: depth)
        if property.type.isCollection { shape = .collection(shape) }
        return EntityPropertyDescriptor(name: property.name, shape: shape, isNullable: property.isNullable)
    }

    static func elementShape(_ type: CSDLTypeReference, model: ServiceModel, depth: Int) -> EntityValueShape {
        switch type.kind {
        case .primitive(let kind): return .primitive(kind)
        case .enumeration(let name): return .enumType(name)
        case .typeDefinition(let name):
            return .primitive(model.typeDefinition(qualifiedName: name)?.underlyingType ?? .untyped)
        case .entity: return .primitive(.untyped)
        case .complex(let name):
            guard depth < maxDepth, let complex = model.complexType(qualifiedName: name) else {
                return .complex(typeName: name, properties: [])
            }
            let properties = model.allProperties(ofComplex: complex).map { descriptor($0, model: model, depth: depth + 1) }
            return .complex(typeName: complex.qualifiedName, properties: properties)
        }
    }

    // MARK: additive merge

    /// The stored layout extended by the model's new properties (appended, in model order).
    /// A stored property that the model no longer declares, or declares with another shape,
    /// makes the metadata incompatible.
    static func merge(stored: EntityLayout, model: EntityLayout, set: String) throws(ODataError) -> EntityLayout {
        var result = stored
        var byName: [String: EntityPropertyDescriptor] = [:]
        for p in model.properties { byName[p.name] = p }
        for p in stored.properties {
            guard let now = byName[p.name] else {
                throw .storeIncompatibleMetadata(set, "property '\(p.name)' was removed")
            }
            guard compatible(p.shape, now.shape) else {
                throw .storeIncompatibleMetadata(set, "property '\(p.name)' changed from \(describe(p.shape)) to \(describe(now.shape))")
            }
        }
        let known = Set(stored.properties.map(\.name))
        for p in model.properties where !known.contains(p.name) { result.properties.append(p) }
        // Nullability follows the model (only the shape decides whether old bytes are readable).
        for i in result.properties.indices {
            if let now = byName[result.properties[i].name] { result.properties[i].isNullable = now.isNullable }
        }
        return result
    }

    static func compatible(_ old: EntityValueShape, _ new: EntityValueShape) -> Bool {
        switch (old, new) {
        case let (.primitive(a), .primitive(b)): return a == b
        case let (.enumType(a), .enumType(b)): return a == b
        // Complex values are self-describing (named properties): new members are additive.
        case let (.complex(a, _), .complex(b, _)): return a == b
        case let (.collection(a), .collection(b)): return compatible(a, b)
        default: return false
        }
    }

    static func describe(_ shape: EntityValueShape) -> String {
        switch shape {
        case .primitive(let kind): return kind.rawValue
        case .enumType(let name): return name
        case .complex(let name, _): return name
        case .collection(let inner): return "Collection(\(describe(inner)))"
        }
    }

    // MARK: bytes (docs/StoreFormat.md §3)

    static func encode(typeName: String, layout: EntityLayout) -> [UInt8] {
        var sink = ByteSink()
        sink.u8(StoreFormat.layoutRecordVersion)
        sink.string(typeName)
        sink.leb(layout.properties.count)
        for p in layout.properties { write(p, &sink) }
        return sink.bytes
    }

    private static func write(_ p: EntityPropertyDescriptor, _ sink: inout ByteSink) {
        sink.string(p.name)
        sink.u8(p.isNullable ? 1 : 0)
        write(p.shape, &sink)
    }

    private static func write(_ shape: EntityValueShape, _ sink: inout ByteSink) {
        switch shape {
        case .primitive(let kind): sink.u8(1); sink.string(kind.rawValue)
        case .enumType(let name): sink.u8(2); sink.string(name)
        case .complex(let name, let properties):
            sink.u8(3)
            sink.string(name)
            sink.leb(properties.count)
            for p in properties { write(p, &sink) }
        case .collection(let inner): sink.u8(4); write(inner, &sink)
        }
    }

    static func decode(_ bytes: [UInt8], set: String) throws(ODataError) -> (typeName: String, layout: EntityLayout) {
        var source = ByteSource(bytes, what: "layout of set '\(set)'")
        let version = try source.u8()
        guard version == StoreFormat.layoutRecordVersion else {
            throw .storeCorrupted(source.what, "layout record version \(version)")
        }
        let typeName = try source.string()
        let count = try source.leb()
        var properties: [EntityPropertyDescriptor] = []
        for _ in 0..<count { properties.append(try readDescriptor(&source, depth: 0)) }
        guard source.atEnd else { throw .storeCorrupted(source.what, "bytes after the last property") }
        return (typeName, EntityLayout(properties))
    }

    private static func readDescriptor(_ source: inout ByteSource, depth: Int) throws(ODataError) -> EntityPropertyDescriptor {
        let name = try source.string()
        let nullable = try source.u8()
        guard nullable <= 1 else { throw .storeCorrupted(source.what, "nullable flag \(nullable)") }
        return EntityPropertyDescriptor(name: name, shape: try readShape(&source, depth: depth), isNullable: nullable == 1)
    }

    private static func readShape(_ source: inout ByteSource, depth: Int) throws(ODataError) -> EntityValueShape {
        guard depth <= maxDepth * 2 else { throw .storeCorrupted(source.what, "shapes nested too deep") }
        switch try source.u8() {
        case 1:
            let name = try source.string()
            guard let kind = EdmPrimitiveKind(rawValue: name) else { throw .storeCorrupted(source.what, "unknown kind '\(name)'") }
            return .primitive(kind)
        case 2: return .enumType(try source.string())
        case 3:
            let name = try source.string()
            let count = try source.leb()
            var properties: [EntityPropertyDescriptor] = []
            for _ in 0..<count { properties.append(try readDescriptor(&source, depth: depth + 1)) }
            return .complex(typeName: name, properties: properties)
        case 4: return .collection(try readShape(&source, depth: depth + 1))
        case let tag: throw .storeCorrupted(source.what, "unknown shape tag \(tag)")
        }
    }
}
