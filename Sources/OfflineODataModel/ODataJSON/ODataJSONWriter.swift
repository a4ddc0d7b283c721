/// How much control information the writer emits (`odata.metadata=minimal|full|none`).
public enum ODataMetadataLevel: String, Sendable, Hashable, CaseIterable {
    /// Control information the entity carries (id, etag, links, context when given),
    /// `@odata.type` for derived entity/complex types and for dynamic properties whose type the
    /// JSON value does not imply.
    case minimal
    /// As minimal, plus `@odata.type` on every entity and complex value.
    case full
    /// No control information (`@odata.type`, ids, etags, links, context); counts and next
    /// links of collections, `@odata.bind` and instance annotations are still written.
    case none
}

/// Writes entities and collections as OData JSON 4.01 payloads (V4 only), the counterpart of
/// `ODataJSONReader`: reading the output back gives entities equal to the input.
public struct ODataJSONWriter: Sendable {
    public let model: ServiceModel
    public let metadata: ODataMetadataLevel
    /// Int64 and Decimal values as JSON strings (`IEEE754Compatible=true`).
    public let ieee754Compatible: Bool
    public let jsonOptions: JSONWriter.Options
    let plans: ODataModelPlans

    public init(model: ServiceModel, metadata: ODataMetadataLevel = .minimal,
                ieee754Compatible: Bool = false, jsonOptions: JSONWriter.Options = JSONWriter.Options()) {
        self.model = model
        self.metadata = metadata
        self.ieee754Compatible = ieee754Compatible
        self.jsonOptions = jsonOptions
        plans = ODataModelPlans(model: model)
    }

    // MARK: Payloads

    /// An entity payload. `@odata.context` is written when `context` or the entity's
    /// `control.context` is set (request payloads do not need one).
    public func writeEntity(_ entity: ODataEntity, entitySet: String, context: String? = nil) throws(ODataError) -> [UInt8] {
        try writeEntity(entity, entityType: try entityTypeName(entitySet), context: context)
    }

    /// An entity payload for an entity of `entityType` (or a type derived from it).
    public func writeEntity(_ entity: ODataEntity, entityType: String, context: String? = nil) throws(ODataError) -> [UInt8] {
        var writer = JSONWriter(options: jsonOptions)
        var copy = entity
        if let context { copy.control.context = context }
        try write(copy, entityType: entityType, to: &writer)
        return try writer.finish()
    }

    /// A collection payload: `@odata.context` (when set), `@odata.count`, annotations, `value`
    /// (entities, then deleted entries as `{"@removed":{…},"@id":…}`), `@odata.nextLink`,
    /// `@odata.deltaLink`.
    public func writeCollection(_ collection: ODataEntityCollection, entitySet: String) throws(ODataError) -> [UInt8] {
        try writeCollection(collection, entityType: try entityTypeName(entitySet))
    }

    public func writeCollection(_ collection: ODataEntityCollection, entityType: String) throws(ODataError) -> [UInt8] {
        let plan = try entityPlan(entityType)
        var writer = JSONWriter(options: jsonOptions, reservingCapacity: 256 * (collection.entities.count + 1))
        writer.beginObject()
        if metadata != .none, let context = collection.context {
            writer.key("@odata.context")
            writer.string(context)
        }
        if let count = collection.count {
            writer.key("@odata.count")
            writer.number(count)
        }
        for annotation in collection.annotations {
            writer.key("@" + annotation.term)
            writer.value(annotation.value)
        }
        writer.key("value")
        writer.beginArray()
        for entity in collection.entities {
            try writeEntityObject(entity, expected: plan, to: &writer)
        }
        for entry in collection.deleted {
            try writeDeleted(entry, plan: plan, to: &writer)
        }
        writer.endArray()
        if let nextLink = collection.nextLink {
            writer.key("@odata.nextLink")
            writer.string(nextLink)
        }
        if let deltaLink = collection.deltaLink {
            writer.key("@odata.deltaLink")
            writer.string(deltaLink)
        }
        writer.endObject()
        return try writer.finish()
    }

    /// Writes one entity object into `writer` (for callers streaming their own envelope).
    public func write(_ entity: ODataEntity, entityType: String, to writer: inout JSONWriter) throws(ODataError) {
        try writeEntityObject(entity, expected: try entityPlan(entityType), to: &writer)
    }

    // MARK: Entities

    func writeEntityObject(_ entity: ODataEntity, expected: ODataStructuredPlan,
                           to writer: inout JSONWriter) throws(ODataError) {
        let plan = plans.plan(entity.typeName) ?? expected
        writer.beginObject()
        if metadata != .none {
            let control = entity.control
            if let context = control.context { writer.key("@odata.context"); writer.string(context) }
            if plan.qualifiedName != expected.qualifiedName || metadata == .full {
                writer.key("@odata.type")
                writer.string("#" + plan.qualifiedName)
            }
            if let id = control.id { writer.key("@odata.id"); writer.string(id) }
            if let etag = control.etag { writer.key("@odata.etag"); writer.string(etag) }
            if let link = control.editLink { writer.key("@odata.editLink"); writer.string(link) }
            if let link = control.readLink { writer.key("@odata.readLink"); writer.string(link) }
            if let link = control.mediaReadLink { writer.key("@odata.mediaReadLink"); writer.string(link) }
            if let link = control.mediaEditLink { writer.key("@odata.mediaEditLink"); writer.string(link) }
            if let type = control.mediaContentType { writer.key("@odata.mediaContentType"); writer.string(type) }
            if let etag = control.mediaETag { writer.key("@odata.mediaEtag"); writer.string(etag) }
        }
        for annotation in entity.annotations {
            writer.key((annotation.target.map { $0 + "@" } ?? "@") + annotation.term)
            writer.value(annotation.value)
        }
        try writeProperties(entity.properties, plan: plan, to: &writer)
        for navigation in entity.navigation {
            try writeNavigation(navigation, plan: plan, to: &writer)
        }
        writer.endObject()
    }

    private func writeNavigation(_ navigation: ODataNavigationValue, plan: ODataStructuredPlan,
                                 to writer: inout JSONWriter) throws(ODataError) {
        let name = navigation.name
        var target = plan
        if let index = plan.index[name], case .navigation(_, let targetType, _) = plan.members[index],
           let found = plans.plan(targetType) {
            target = found
        }
        switch navigation.content {
        case .entity(let entity):
            writer.key(name)
            if let entity { try writeEntityObject(entity, expected: target, to: &writer) } else { writer.null() }
        case .entities(let entities, let count, let nextLink):
            if let count {
                writer.key(name + "@odata.count")
                writer.number(count)
            }
            writer.key(name)
            writer.beginArray()
            for entity in entities { try writeEntityObject(entity, expected: target, to: &writer) }
            writer.endArray()
            if let nextLink {
                writer.key(name + "@odata.nextLink")
                writer.string(nextLink)
            }
        case .bind(let reference):
            writer.key(name + "@odata.bind")
            writer.string(reference)
        case .bindMany(let references):
            writer.key(name + "@odata.bind")
            writer.beginArray()
            for reference in references { writer.string(reference) }
            writer.endArray()
        case .count(let count):
            writer.key(name + "@odata.count")
            writer.number(count)
        case .deferred(let uri):
            if metadata != .none {
                writer.key(name + "@odata.navigationLink")
                writer.string(uri)
            }
        }
    }

    private func writeDeleted(_ entry: ODataDeletedEntity, plan: ODataStructuredPlan,
                              to writer: inout JSONWriter) throws(ODataError) {
        writer.beginObject()
        writer.key("@removed")
        writer.beginObject()
        if let reason = entry.reason { writer.key("reason"); writer.string(reason) }
        writer.endObject()
        if let id = entry.id { writer.key("@id"); writer.string(id) }
        try writeProperties(entry.properties, plan: plan, to: &writer)
        writer.endObject()
    }

    // MARK: Model lookups

    func entityPlan(_ entityType: String) throws(ODataError) -> ODataStructuredPlan {
        guard let plan = plans.plan(entityType), plan.isEntity else {
            throw ODataJSONErrorKind.unknownModelElement.error("the model has no entity type \"\(entityType)\"")
        }
        return plan
    }

    func entityTypeName(_ name: String) throws(ODataError) -> String {
        if let set = model.entitySet(named: name) { return set.entityType }
        if let singleton = model.singleton(named: name) { return singleton.entityType }
        throw ODataJSONErrorKind.unknownModelElement.error("the model has no entity set or singleton \"\(name)\"")
    }
}
