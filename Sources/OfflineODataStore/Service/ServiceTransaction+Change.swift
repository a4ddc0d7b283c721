import OfflineODataModel

extension ServiceTransaction {
    /// `If-Match`: `*` matches any existing entity; otherwise one of the listed ETags must equal
    /// the stored one (docs/LocalService.md §2.4).
    func checkIfMatch(_ ifMatch: String?, current: String?, set: String, keyBytes: [UInt8]) throws(ODataError) {
        guard let ifMatch else { return }
        let trimmed = ifMatch.trimmingSpaces
        if trimmed == "*" { return }
        let candidates = Self.splitETags(trimmed)
        if let current, candidates.contains(current) { return }
        throw .servicePreconditionFailed(set, try keyText(set, keyBytes), given: ifMatch, current: current)
    }

    /// Splits `W/"a", "b"` at the commas outside quotes.
    static func splitETags(_ text: String) -> [String] {
        var out: [String] = []
        var current = ""
        var quoted = false
        for c in text {
            if c == "\"" { quoted.toggle() }
            if c == ",", !quoted {
                out.append(current.trimmingSpaces)
                current = ""
            } else {
                current.append(c)
            }
        }
        out.append(current.trimmingSpaces)
        return out.filter { !$0.isEmpty }
    }

    /// PATCH/MERGE (`replace` false: given properties change, others stay) or PUT (`replace`:
    /// properties not given become null). Returns the encoded key and the ETag the back end
    /// knows for the entity (`serverETag` as it was before this change, read from the server
    /// image the change keeps).
    mutating func update(_ changes: ODataEntity, in set: String, key: [ODataValue], replace: Bool, ifMatch: String?,
                         requestID: Int64) throws(ODataError) -> (keyBytes: [UInt8], serverETag: String?) {
        try Self.checkWritable(set, replace ? "PUT" : "PATCH")
        let info = try batch.setInfo(set)
        let keyBytes = try self.keyBytes(set, key)
        guard let (record, meta) = try batch.storedRecord(set, keyBytes: keyBytes) else {
            throw .serviceEntityNotFound(set, try keyText(set, keyBytes))
        }
        try checkIfMatch(ifMatch, current: meta.etag, set: set, keyBytes: keyBytes)
        let keyValues = try OrderedKeyEncoding.decode(keyBytes)
        for (i, name) in info.keyNames.enumerated() {
            guard let given = changes[property: name] else { continue }
            guard KeyValues.normalize(given, to: info.keyKinds[i]) == keyValues[i] else {
                throw .serviceKeyMismatch(set, name, "the body gives \(KeyValues.describe(given)) \(given), the URL \(keyValues[i]); keys cannot change")
            }
        }
        for navigation in changes.navigation where Self.isExpanded(navigation.content) {
            throw .serviceNotSupported("deep update over '\(navigation.name)' is not supported; use @odata.bind or separate requests",
                                       "\(set)/\(navigation.name)")
        }
        var check = changes
        check.navigation = []
        check.typeName = meta.typeName ?? info.typeName
        for (name, value) in zip(info.keyNames, keyValues) where check[property: name] == nil {
            check.properties.append(ODataProperty(name, value))
        }
        try validate(check, set: set)
        let image = try ensureImage(set, keyBytes, requestID: requestID)
        var updated = record
        if replace {
            updated = EntityRecord(values: [ODataValue?](repeating: nil, count: info.layout.properties.count), dynamicProperties: [])
            for (n, i) in info.keyIndices.enumerated() where i < updated.values.count { updated.values[i] = keyValues[n] }
        }
        while updated.values.count < info.layout.properties.count { updated.values.append(nil) }
        for property in changes.properties {
            if let i = info.propertyIndex[property.name] {
                if info.keyIndices.contains(i) { continue }
                updated.values[i] = property.value
            } else {
                updated.dynamicProperties.removeAll { $0.name == property.name }
                updated.dynamicProperties.append(property)
            }
        }
        let etag = newETag()
        _ = try batch.putRecord(updated, in: set, etag: etag, flags: meta.flags.union(.pending), typeName: meta.typeName)
        for navigation in changes.navigation {
            switch navigation.content {
            case .bind(let reference):
                try bind(set, keyValues, navigation.name, reference)
            case .bindMany(let references):
                for reference in references { try bind(set, keyValues, navigation.name, reference) }
            default: continue
            }
        }
        try checkComplete(set, record: updated, changed: replace ? nil : Set(changes.properties.map(\.name)))
        return (keyBytes, try Self.serverETag(of: image, set: set))
    }

    private mutating func bind(_ set: String, _ key: [ODataValue], _ navigation: String, _ reference: String) throws(ODataError) {
        let target = try resolveReference(reference, navigationFrom: set, navigation)
        guard try batch.storedValue(target.set, keyBytes: target.keyBytes) != nil else {
            throw .serviceEntityNotFound(target.set, try keyText(target.set, target.keyBytes))
        }
        try batch.link(from: set, key: key, navigation: navigation, to: try OrderedKeyEncoding.decode(target.keyBytes))
    }

    /// `Set(key)` (or a URL ending in it) as an entity of the navigation's target set.
    func resolveReference(_ reference: String, navigationFrom set: String, _ navigation: String) throws(ODataError) -> EntityRef {
        let plan = try batch.navigationPlan(set, navigation)
        let parsed: (entitySet: String, predicate: String?)
        do {
            parsed = try KeyPredicate.parseEntityReference(reference)
        } catch {
            throw .serviceInvalidBody("entity reference '\(reference)': \(error.message)", "\(set)/\(navigation)")
        }
        guard parsed.entitySet == plan.target, let predicate = parsed.predicate else {
            throw .serviceInvalidBody("entity reference '\(reference)' is not an entity of '\(plan.target)'", "\(set)/\(navigation)")
        }
        do {
            return EntityRef(set: plan.target, keyBytes: try keyBytes(plan.target, predicate: predicate))
        } catch {
            throw .serviceInvalidBody("entity reference '\(reference)': \(error.message)", "\(set)/\(navigation)")
        }
    }

    /// DELETE: removes the entity (its server image keeps the back end's version). Returns the key.
    mutating func delete(in set: String, key: [ODataValue], ifMatch: String?, requestID: Int64) throws(ODataError) -> [UInt8] {
        try Self.checkWritable(set, "DELETE")
        let keyBytes = try self.keyBytes(set, key)
        guard let stored = try batch.storedEntity(set, keyBytes: keyBytes) else {
            throw .serviceEntityNotFound(set, try keyText(set, keyBytes))
        }
        try checkIfMatch(ifMatch, current: stored.etag, set: set, keyBytes: keyBytes)
        try ensureImage(set, keyBytes, requestID: requestID)
        // What it contains goes with it (`EntityWriteBatch.delete`): each keeps an image named by
        // this request, so that undoing the deletion brings them back too.
        for (contained, rest) in try containedEntities(of: set, keyBytes: keyBytes) {
            try ensureImage(contained, keyBytes + rest, requestID: requestID)
        }
        _ = try batch.delete(keyBytes: keyBytes, in: set)
        return keyBytes
    }

    /// Every entity contained below an entity, at every level (docs/StoreFormat.md §2.1): its
    /// contained set and the rest of its key after the container's.
    func containedEntities(of set: String, keyBytes: [UInt8]) throws(ODataError) -> [(set: String, rest: [UInt8])] {
        var found: [(set: String, rest: [UInt8])] = []
        for contained in batch.catalog.setsContained(below: set) {
            for rest in try batch.suffixes(in: try batch.setInfo(contained).tree, prefix: keyBytes) { found.append((contained, rest)) }
        }
        return found
    }

    /// After the back end confirmed the deletion of a container: the images its deletion gave
    /// the entities below it go (the images of their own earlier, failed requests stay).
    mutating func dropContainedImages(of set: String, keyBytes: [UInt8], requestID: Int64) throws(ODataError) {
        let tree = try batch.systemTreeHandle(ServiceFormat.imageTree)
        for contained in batch.catalog.setsContained(below: set) {
            for rest in try batch.suffixes(in: tree, prefix: ServiceFormat.imageKey(contained, keyBytes)) {
                let key = keyBytes + rest
                if let image = try image(contained, key), image.firstRequestID == requestID { try dropImage(contained, key) }
            }
        }
    }

    /// Adds (`remove` false) or removes a relationship; both entities must exist. The entities
    /// whose stored data change get images, a new ETag and `.pending`.
    mutating func relate(_ set: String, key: [ODataValue], navigation: String, target: EntityRef, remove: Bool,
                         requestID: Int64) throws(ODataError) -> [UInt8] {
        try Self.checkWritable(set, remove ? "DELETE" : "POST")
        let keyBytes = try self.keyBytes(set, key)
        guard try batch.storedValue(set, keyBytes: keyBytes) != nil else {
            throw .serviceEntityNotFound(set, try keyText(set, keyBytes))
        }
        guard try batch.storedValue(target.set, keyBytes: target.keyBytes) != nil else {
            throw .serviceEntityNotFound(target.set, try keyText(target.set, target.keyBytes))
        }
        let plan = try batch.navigationPlan(set, navigation)
        var touched = [EntityRef(set: set, keyBytes: keyBytes)]
        if case .byIndex = plan { touched.append(target) }
        for ref in touched { try ensureImage(ref.set, ref.keyBytes, requestID: requestID) }
        let targetKey = try OrderedKeyEncoding.decode(target.keyBytes)
        if remove {
            try batch.unlink(from: set, key: key, navigation: navigation, to: targetKey)
        } else {
            try batch.link(from: set, key: key, navigation: navigation, to: targetKey)
        }
        for ref in touched {
            guard let meta = try batch.storedMeta(ref.set, keyBytes: ref.keyBytes) else { continue }
            try batch.restamp(ref.set, keyBytes: ref.keyBytes, etag: newETag(), flags: meta.flags.union(.pending))
        }
        return keyBytes
    }

    /// The target of a single-valued navigation now (for `DELETE …/Nav/$ref` without `$id`).
    func currentTarget(_ set: String, keyBytes: [UInt8], navigation: String) throws(ODataError) -> EntityRef? {
        let plan = try batch.navigationPlan(set, navigation)
        switch plan {
        case .toKey(let target, let columns):
            guard let (record, _) = try batch.storedRecord(set, keyBytes: keyBytes) else { return nil }
            let values = columns.map { $0.value(in: record) }
            if values.contains(where: \.isNull) { return nil }
            return EntityRef(set: target, keyBytes: try self.keyBytes(target, values))
        case .link(let target, let forward, _, _, _):
            return try batch.suffixes(in: forward, prefix: keyBytes).first.map { EntityRef(set: target, keyBytes: $0) }
        default:
            return nil
        }
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
