/// Options of `ODataJSONReader` and `ODataCollectionReader`.
public struct ODataJSONReaderOptions: Sendable, Hashable {
    /// Skip members that are not declared on a type that is not open, instead of throwing
    /// `unknownProperty` (1250).
    public var ignoreUnknownProperties: Bool
    /// Throw `missingKeyProperty` (1252) for an entity without one of its key properties.
    public var requireKeyProperties: Bool
    /// Entities and complex values nested deeper than this throw `nestingTooDeep` (1257).
    public var maxNesting: Int
    /// Options of the underlying JSON reader (depth, sizes, BOM).
    public var json: JSONReaderOptions

    public init(ignoreUnknownProperties: Bool = false, requireKeyProperties: Bool = true,
                maxNesting: Int = 64, json: JSONReaderOptions = JSONReaderOptions()) {
        self.ignoreUnknownProperties = ignoreUnknownProperties
        self.requireKeyProperties = requireKeyProperties
        self.maxNesting = maxNesting
        self.json = json
    }
}

/// Reads OData JSON payloads (V4 JSON format 4.0/4.01, or V2 verbose JSON) into typed
/// entities, using a service model. See docs/ODataJSON.md.
///
/// Property lists are resolved once per type when the reader is made; reading converts each
/// member in one pass without dictionary lookups when members come in declaration order.
public struct ODataJSONReader: Sendable {
    public let model: ServiceModel
    public let version: ODataVersion
    public let options: ODataJSONReaderOptions
    let decoder: ODataEntityDecoder

    public init(model: ServiceModel, version: ODataVersion = .v4,
                options: ODataJSONReaderOptions = ODataJSONReaderOptions()) {
        self.model = model
        self.version = version
        self.options = options
        decoder = ODataEntityDecoder(plans: ODataModelPlans(model: model), version: version, options: options)
    }

    // MARK: Entities

    /// One entity of an entity set or singleton: V4 `{…}`, V2 `{"d":{…}}` or a bare V2 object.
    public func readEntity(_ bytes: [UInt8], entitySet: String) throws(ODataError) -> ODataEntity {
        try readEntity(bytes, entityType: try entityTypeName(ofSetOrSingleton: entitySet))
    }

    /// One entity of the given (namespace- or alias-qualified) entity type or a type derived from it.
    public func readEntity(_ bytes: [UInt8], entityType: String) throws(ODataError) -> ODataEntity {
        let json = try JSONReader.parse(bytes, options: options.json)
        return try entity(from: json, entityType: entityType)
    }

    /// Converts an already parsed entity (same shapes as `readEntity`).
    public func entity(from json: JSONValue, entityType: String) throws(ODataError) -> ODataEntity {
        let plan = try entityPlan(entityType)
        var prefix: [JSONPathComponent] = []
        var body = json
        if case .object(let object) = json, object.count == 1, plan.index["d"] == nil, let inner = object["d"] {
            prefix = [.key("d")]
            body = inner
            if case .object(let wrapped) = inner, wrapped.count == 1, let result = wrapped["results"],
               case .object = result {
                prefix.append(.key("results"))
                body = result
            }
        }
        do throws(ODataJSONFailure) {
            return try decoder.decodeEntity(body, plan: plan, depth: 0)
        } catch {
            throw error.error(prefix: prefix)
        }
    }

    // MARK: Collections

    /// A whole collection payload: V4 `{"value":[…],…}`, V2 `{"d":{"results":[…]}}`, `{"d":[…]}`,
    /// or a bare array. Delta payloads' deleted entries go to `deleted`.
    public func readCollection(_ bytes: [UInt8], entitySet: String) throws(ODataError) -> ODataEntityCollection {
        try readCollection(bytes, entityType: try entityTypeName(ofSetOrSingleton: entitySet))
    }

    /// A whole collection payload of the given entity type.
    public func readCollection(_ bytes: [UInt8], entityType: String) throws(ODataError) -> ODataEntityCollection {
        let json = try JSONReader.parse(bytes, options: options.json)
        return try collection(from: json, entityType: entityType)
    }

    /// Converts an already parsed collection payload.
    public func collection(from json: JSONValue, entityType: String) throws(ODataError) -> ODataEntityCollection {
        let plan = try entityPlan(entityType)
        var result = ODataEntityCollection()
        var prefix: [JSONPathComponent] = []
        var elements: [JSONValue]?
        var controls: [(String, JSONValue, [JSONPathComponent])] = []
        switch json {
        case .array(let array):
            elements = array
        case .object(let top):
            for (key, value) in top {
                if key == "value", case .array(let array) = value {
                    elements = array
                    prefix = [.key("value")]
                } else if key == "d" {
                    switch value {
                    case .array(let array):
                        elements = array
                        prefix = [.key("d")]
                    case .object(let d):
                        for (inner, innerValue) in d {
                            if inner == "results", case .array(let array) = innerValue {
                                elements = array
                                prefix = [.key("d"), .key("results")]
                            } else {
                                controls.append((inner, innerValue, [.key("d"), .key(inner)]))
                            }
                        }
                    default: break
                    }
                } else {
                    controls.append((key, value, [.key(key)]))
                }
            }
        default: break
        }
        guard let elements else {
            throw ODataJSONErrorKind.invalidPayloadShape.error(
                "expected a collection ({\"value\":[…]}, {\"d\":{\"results\":[…]}} or an array), found \(ODataJSONText.describe(json))",
                location: "$")
        }
        for (name, value, path) in controls {
            do throws(ODataJSONFailure) {
                try applyCollectionControl(name, value, to: &result)
            } catch {
                throw error.error(prefix: path)
            }
        }
        result.entities.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            do throws(ODataJSONFailure) {
                switch try decodeElement(element, plan: plan) {
                case .entity(let entity): result.entities.append(entity)
                case .deleted(let deleted): result.deleted.append(deleted)
                }
            } catch {
                throw error.error(prefix: prefix + [.index(index)])
            }
        }
        return result
    }

    // MARK: Shared

    func applyCollectionControl(_ name: String, _ value: JSONValue,
                                to result: inout ODataEntityCollection) throws(ODataJSONFailure) {
        switch name {
        case "@odata.count", "@count", "odata.count", "__count": result.count = try decoder.controlCount(value)
        case "@odata.nextLink", "@nextLink", "odata.nextLink", "__next": result.nextLink = try decoder.controlString(value)
        case "@odata.deltaLink", "@deltaLink", "odata.deltaLink", "__delta": result.deltaLink = try decoder.controlString(value)
        case "@odata.context", "@context", "odata.metadata": result.context = try decoder.controlString(value)
        default:
            if name.utf8.first == ODataEntityDecoder.at {
                result.annotations.append(ODataAnnotation(term: String(name.dropFirst()), value: value))
            }
        }
    }

    func decodeElement(_ element: JSONValue, plan: ODataStructuredPlan) throws(ODataJSONFailure) -> ODataCollectionElement {
        if case .object(let object) = element {
            for (i, key) in object.keys.enumerated() where key.utf8.first == ODataEntityDecoder.at {
                if key == "@removed" || key == "@odata.removed" {
                    return .deleted(try decodeDeleted(object, removedIndex: i, plan: plan))
                }
            }
            // V2 (SAP Gateway): `{"__metadata":{"id":…,"uri":…,"deleted":true}}`.
            if let metadata = object["__metadata"]?.objectValue, metadata["deleted"]?.boolValue == true {
                var deleted = try decodeDeleted(object, removedIndex: nil, plan: plan)
                deleted.reason = "deleted"
                do throws(ODataJSONFailure) {
                    if let id = metadata["id"] ?? metadata["uri"] { deleted.id = try decoder.controlString(id) }
                } catch {
                    throw error.adding(.key("id")).adding(.key("__metadata"))
                }
                return .deleted(deleted)
            }
        }
        return .entity(try decoder.decodeEntity(element, plan: plan, depth: 0))
    }

    private func decodeDeleted(_ object: JSONObject, removedIndex: Int?, plan: ODataStructuredPlan) throws(ODataJSONFailure) -> ODataDeletedEntity {
        var deleted = ODataDeletedEntity()
        if let removedIndex, case .object(let removed) = object.values[removedIndex], let reason = removed["reason"] {
            do throws(ODataJSONFailure) {
                deleted.reason = try decoder.controlString(reason)
            } catch {
                throw error.adding(.key("reason")).adding(.key(object.keys[removedIndex]))
            }
        }
        var cursor = 0
        for (key, value) in object {
            do throws(ODataJSONFailure) {
                if key == "@id" || key == "@odata.id" {
                    deleted.id = try decoder.controlString(value)
                } else if key.utf8.contains(ODataEntityDecoder.at) || key == "__metadata" {
                    continue
                } else if let m = plan.member(named: key, cursor: &cursor), case .property(let property) = plan.members[m] {
                    deleted.properties.append(ODataProperty(key, try decoder.decodeProperty(value, property, depth: 0)))
                } else {
                    deleted.properties.append(ODataProperty(key, try decoder.decodeInferred(value, depth: 0)))
                }
            } catch {
                throw error.adding(.key(key))
            }
        }
        return deleted
    }

    func entityPlan(_ entityType: String) throws(ODataError) -> ODataStructuredPlan {
        guard let plan = decoder.plans.plan(entityType), plan.isEntity else {
            throw ODataJSONErrorKind.unknownModelElement.error("the model has no entity type \"\(entityType)\"")
        }
        return plan
    }

    func entityTypeName(ofSetOrSingleton name: String) throws(ODataError) -> String {
        if let set = model.entitySet(named: name) { return set.entityType }
        if let singleton = model.singleton(named: name) { return singleton.entityType }
        throw ODataJSONErrorKind.unknownModelElement.error("the model has no entity set or singleton \"\(name)\"")
    }
}

/// One element of a collection payload: an entity or (in a delta payload) a deleted entry.
public enum ODataCollectionElement: Sendable, Hashable {
    case entity(ODataEntity)
    case deleted(ODataDeletedEntity)
}
