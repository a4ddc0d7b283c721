import OfflineODataModel

/// An entity written by a create (deep inserts write several).
struct EntityRef: Hashable, Comparable {
    var set: String
    var keyBytes: [UInt8]

    static func < (a: EntityRef, b: EntityRef) -> Bool {
        a.set != b.set ? a.set < b.set : a.keyBytes.lexicographicallyPrecedes(b.keyBytes)
    }
}

extension ServiceTransaction {
    /// Creates an entity (and the entities expanded in it, linked to it), each marked
    /// `.local`/`.pending` with a local ETag and a "created" image naming `requestID`.
    /// Returns the top entity's key and every entity written.
    /// `mediaCreate`: a media entity created from its stream alone (`POST` with the bytes as
    /// body): the back end assigns its key and fills its properties, so the key is temporary
    /// and nothing else is required.
    mutating func create(_ entity: ODataEntity, in set: String, requestID: Int64,
                         mediaCreate: Bool = false) throws(ODataError) -> (key: [UInt8], written: [EntityRef]) {
        var written: [EntityRef] = []
        let key = try insert(entity, in: set, requestID: requestID, depth: 0, written: &written, mediaCreate: mediaCreate)
        if mediaCreate { return (key, written) }
        for ref in written { try checkComplete(ref.set, ref.keyBytes) }
        return (key, written)
    }

    private mutating func insert(_ entity: ODataEntity, in set: String, requestID: Int64, depth: Int,
                                 written: inout [EntityRef], mediaCreate: Bool = false) throws(ODataError) -> [UInt8] {
        try Self.checkWritable(set, "POST")
        guard depth < 16 else { throw .serviceInvalidBody("deep insert nested more than 16 levels", set) }
        let info = try batch.setInfo(set)
        var flat = entity
        if flat.typeName.isEmpty { flat.typeName = info.typeName }
        var generated = false
        for (name, kind) in zip(info.keyNames, info.keyKinds) {
            if let value = flat[property: name], !value.isNull { continue }
            guard mediaCreate || isComputed(typeName: info.typeName, property: name) else { throw .serviceMissingKey(set, name) }
            flat.properties.removeAll { $0.name == name }
            flat.properties.append(ODataProperty(name, try generateKey(set, name, kind)))
            generated = true
        }
        let expanded = flat.navigation.filter { Self.isExpanded($0.content) }
        flat.navigation = flat.navigation.filter { !Self.isExpanded($0.content) }
        try validate(flat, set: set)
        let keyValues = info.keyNames.map { flat[property: $0] ?? .null }
        let keyBytes = try self.keyBytes(set, keyValues)
        if try batch.storedValue(set, keyBytes: keyBytes) != nil {
            throw .serviceDuplicateKey(set, try keyText(set, keyBytes))
        }
        if try image(set, keyBytes) != nil {
            // Deleted locally but not uploaded yet: creating it again is not supported.
            throw .serviceDuplicateKey(set, try keyText(set, keyBytes))
        }
        let etag = newETag()
        try batch.put(flat, in: set, etag: etag, flags: [.local, .pending])
        try putImage(set, keyBytes, ServerImage(kind: ServiceFormat.kindCreated, firstRequestID: requestID,
                                                keyGenerated: generated, stored: []))
        written.append(EntityRef(set: set, keyBytes: keyBytes))
        for navigation in expanded {
            let plan = try batch.navigationPlan(set, navigation.name)
            let children: [ODataEntity]
            switch navigation.content {
            case .entity(let child?): children = [child]
            case .entities(let list, _, _): children = list
            default: children = []
            }
            for child in children {
                var filled = child
                try prefillForeignKey(&filled, parentSet: set, parentKey: keyBytes, plan: plan)
                let childKey = try insert(filled, in: plan.target, requestID: requestID, depth: depth + 1, written: &written)
                try batch.link(from: set, key: try OrderedKeyEncoding.decode(keyBytes), navigation: navigation.name,
                               to: try OrderedKeyEncoding.decode(childKey))
            }
        }
        return keyBytes
    }

    static func isExpanded(_ content: ODataNavigationContent) -> Bool {
        switch content {
        case .entity(let e): return e != nil
        case .entities: return true
        default: return false
        }
    }

    static func checkWritable(_ set: String, _ method: String) throws(ODataError) {
        if OfflineSystemSets.all.contains(set) { throw .serviceReadOnlySet(set, method) }
    }

    /// The child of a deep insert gets the parent's values for the foreign key that points back
    /// (the key prefix or the navigation index columns) when its payload left them out.
    func prefillForeignKey(_ child: inout ODataEntity, parentSet: String, parentKey: [UInt8],
                                   plan: NavigationPlan) throws(ODataError) {
        guard let (parent, _) = try batch.storedRecord(parentSet, keyBytes: parentKey) else { return }
        var pairs: [(String, IndexColumn)] = []
        switch plan {
        case .byIndex(let target, let sourceColumns, let indexName):
            if let index = batch.resolvedIndex(indexName) {
                pairs = zip(index.columns, sourceColumns).filter { $0.0.path.count == 1 }.map { ($0.0.name, $0.1) }
            }
            _ = target
        case .keyPrefix(let target, let sourceColumns):
            pairs = zip(try batch.setInfo(target).keyNames, sourceColumns).map { ($0, $1) }
        default: break
        }
        for (name, column) in pairs where child[property: name] == nil || child[property: name] == .null {
            child.properties.removeAll { $0.name == name }
            child.properties.append(ODataProperty(name, column.value(in: parent)))
        }
    }

    /// True when the back end computes the property: `Core.Computed`, `Core.Permissions` Read
    /// (read-only), `sap:creatable="false"`, or Entity Framework's `StoreGeneratedPattern`
    /// (`Identity`, `Computed`).
    func isComputed(typeName: String, property: String) -> Bool {
        guard let type = model.entityType(qualifiedName: typeName),
              let declared = model.allProperties(of: type).first(where: { $0.name == property }) else { return false }
        if declared.sapAttributes["creatable"] == "false" { return true }
        if let pattern = declared.storeGeneratedPattern, pattern == "Identity" || pattern == "Computed" { return true }
        return declared.annotations.contains { annotation in
            if annotation.term == "Org.OData.Core.V1.Computed" || annotation.termAsWritten.hasSuffix("Core.Computed") {
                if case .constant(_, let text) = annotation.value { return text != "false" }
                return true
            }
            if annotation.term == "Org.OData.Core.V1.Permissions" || annotation.termAsWritten.hasSuffix("Core.Permissions") {
                // `Permission/Read` alone: the client may not write it.
                if case .constant(_, let text) = annotation.value {
                    let members = text.split(whereSeparator: { $0 == " " || $0 == "," }).map { $0.split(separator: "/").last.map(String.init) ?? "" }
                    return members == ["Read"]
                }
            }
            return false
        }
    }

    /// The back end fills a property left out of a create: computed, or with a default value.
    func backEndFills(typeName: String, property: String) -> Bool {
        if isComputed(typeName: typeName, property: property) { return true }
        guard let type = model.entityType(qualifiedName: typeName) else { return false }
        return model.allProperties(of: type).first { $0.name == property }?.defaultValue != nil
    }

    /// A unique temporary key value of the key's kind (docs/LocalService.md §2.3).
    private mutating func generateKey(_ set: String, _ property: String, _ kind: EdmPrimitiveKind?) throws(ODataError) -> ODataValue {
        let n = nextLocalKey()
        switch kind {
        case .string?: return .string("~\(n)")
        case .int64?: return .int64(-n)
        case .int32?:
            guard let v = Int32(exactly: -n) else { throw .serviceCannotGenerateKey(set, property, "Edm.Int32 (exhausted)") }
            return .int32(v)
        case .int16?:
            guard let v = Int16(exactly: -n) else { throw .serviceCannotGenerateKey(set, property, "Edm.Int16 (exhausted)") }
            return .int16(v)
        case .decimal?: return .decimal(EdmDecimal(-n))
        case .guid?: return .guid(EdmGuid(high: 0x4C4F_4341_4C00_0000, low: UInt64(n)))
        default: throw .serviceCannotGenerateKey(set, property, kind?.rawValue ?? "enum")
        }
    }

    /// Facets and kinds of the given properties (MaxLength, Nullable for given nulls, Precision, Scale).
    func validate(_ entity: ODataEntity, set: String) throws(ODataError) {
        var entity = entity
        // A contained entity's container key properties are the store's, not the type's.
        entity.properties.removeAll { Containment.isContainerKey($0.name) }
        if let issue = validator.validate(entity: entity).first {
            throw .serviceConstraintViolation(set, issue.message, issue.location)
        }
    }

    /// After a create or replace: every non-nullable declared property has a value, and every
    /// foreign key set refers to an entity that exists locally. After an update (`changed`: the
    /// properties it set), only the foreign keys it changed: an order whose customer no defining
    /// query downloads can still have its note edited.
    func checkComplete(_ set: String, _ keyBytes: [UInt8], changed: Set<String>? = nil) throws(ODataError) {
        guard let (record, _) = try batch.storedRecord(set, keyBytes: keyBytes) else { return }
        try checkComplete(set, record: record, changed: changed)
    }

    /// The same for the record as just written.
    func checkComplete(_ set: String, record: EntityRecord, changed: Set<String>? = nil) throws(ODataError) {
        let info = try batch.setInfo(set)
        for (i, property) in info.layout.properties.enumerated() where !property.isNullable {
            let value = i < record.values.count ? record.values[i] : nil
            if value == nil || value == .null, !backEndFills(typeName: info.typeName, property: property.name) {
                throw .serviceConstraintViolation(set, "non-nullable property '\(property.name)' has no value", "\(set)/\(property.name)")
            }
        }
        for (navigation, plan) in batch.navigationPlans(of: set).sorted(by: { $0.key < $1.key }) {
            guard case .toKey(let target, let columns) = plan else { continue }
            if let changed, !columns.contains(where: { changed.contains($0.path.first ?? "") }) { continue }
            let values = columns.map { $0.value(in: record) }
            if values.contains(where: \.isNull) { continue }
            let targetKey = try self.keyBytes(target, values)
            if try batch.storedValue(target, keyBytes: targetKey) == nil {
                throw .serviceMissingPrincipal(set, navigation, target, try keyText(target, targetKey))
            }
        }
    }
}
