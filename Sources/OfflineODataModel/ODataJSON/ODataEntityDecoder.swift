/// Converts parsed JSON (entities, complex values, primitives) into typed OData values using the
/// model's resolved plans. Errors carry the path from the converted value outwards.
struct ODataEntityDecoder: Sendable {
    let plans: ODataModelPlans
    let version: ODataVersion
    let options: ODataJSONReaderOptions

    typealias Failure = ODataJSONFailure

    static let at: UInt8 = 0x40

    // MARK: Entities

    func decodeEntity(_ json: JSONValue, plan: ODataStructuredPlan, depth: Int) throws(Failure) -> ODataEntity {
        guard case .object(let object) = json else {
            throw Failure(.invalidPayloadShape,
                          "expected an entity of type \(plan.qualifiedName) (a JSON object), found \(ODataJSONText.describe(json))")
        }
        return try decodeEntity(object, plan: plan, depth: depth)
    }

    func decodeEntity(_ object: JSONObject, plan expected: ODataStructuredPlan, depth: Int) throws(Failure) -> ODataEntity {
        guard depth < options.maxNesting else {
            throw Failure(.nestingTooDeep, "entities and complex values nested deeper than \(options.maxNesting) levels")
        }
        let keys = object.keys
        let values = object.values
        // The type is control information that precedes the properties.
        var plan = expected
        var typeIndex: Int?
        var i = 0
        while i < keys.count {
            let key = keys[i]
            if key.utf8.first == Self.at {
                if key == "@odata.type" || key == "@type" { typeIndex = i; break }
            } else if key != "__metadata" {
                break
            } else if case .object(let metadata) = values[i], let type = metadata["type"] {
                plan = try derivedPlan(type, expected: expected, path: .key("__metadata"), inner: "type")
                break
            }
            i += 1
        }
        if let typeIndex {
            plan = try derivedPlan(values[typeIndex], expected: expected, path: .key(keys[typeIndex]), inner: nil)
        }
        return try decodeMembers(keys, values, plan: plan, expected: expected, typeIndex: typeIndex, depth: depth)
    }

    private func derivedPlan(_ value: JSONValue, expected: ODataStructuredPlan, path: JSONPathComponent,
                             inner: String?) throws(Failure) -> ODataStructuredPlan {
        do throws(Failure) {
            guard case .string(let text) = value else {
                throw Failure(.invalidControlInformation, "a type name must be a string, found \(ODataJSONText.describe(value))")
            }
            let name = text.hasPrefix("#") ? String(text.dropFirst()) : text
            guard let found = plans.plan(name), found.isEntity == expected.isEntity else {
                throw Failure(.invalidTypeAnnotation,
                              "\"\(ODataJSONText.clip(text))\" names no \(expected.isEntity ? "entity" : "complex") type of the model")
            }
            guard found.lineage.contains(expected.qualifiedName) else {
                throw Failure(.invalidTypeAnnotation,
                              "\"\(ODataJSONText.clip(text))\" does not derive from \(expected.qualifiedName)")
            }
            return found
        } catch {
            var failure = error
            if let inner { failure = failure.adding(.key(inner)) }
            throw failure.adding(path)
        }
    }

    private func decodeMembers(_ keys: [String], _ values: [JSONValue], plan: ODataStructuredPlan,
                               expected: ODataStructuredPlan, typeIndex: Int?,
                               depth: Int) throws(Failure) -> ODataEntity {
        var properties: [ODataProperty] = []
        properties.reserveCapacity(plan.members.count)
        var control = ODataControlInformation()
        var navigation: [ODataNavigationValue] = []
        var annotations: [ODataAnnotation] = []
        var pendingNavigationInfo: [(name: String, term: String, value: JSONValue)] = []
        var cursor = 0
        var i = 0
        while i < keys.count {
            let key = keys[i]
            let value = values[i]
            defer { i += 1 }
            do throws(Failure) {
                if let m = plan.member(named: key, cursor: &cursor) {
                    switch plan.members[m] {
                    case .property(let property):
                        properties.append(ODataProperty(key, try decodeProperty(value, property, depth: depth)))
                    case .navigation(_, let target, let isCollection):
                        if let content = try decodeNavigation(value, target: target, isCollection: isCollection, depth: depth) {
                            navigation.append(ODataNavigationValue(key, content))
                        }
                    }
                    continue
                }
                let utf8 = key.utf8
                if utf8.first == Self.at {
                    if i == typeIndex { continue }
                    let term = String(key.dropFirst())
                    switch Self.odataTerm(term) ?? "" {
                    case "type":
                        // A type after the properties: read again with the derived type.
                        let derived = try derivedPlan(value, expected: expected, path: .key(key), inner: nil)
                        if derived.qualifiedName != plan.qualifiedName {
                            return try decodeMembers(keys, values, plan: derived, expected: expected, typeIndex: i, depth: depth)
                        }
                    case "context": control.context = try controlString(value)
                    case "id": control.id = try controlString(value)
                    case "etag": control.etag = try controlString(value)
                    case "editLink": control.editLink = try controlString(value)
                    case "readLink": control.readLink = try controlString(value)
                    case "mediaReadLink": control.mediaReadLink = try controlString(value)
                    case "mediaEditLink": control.mediaEditLink = try controlString(value)
                    case "mediaContentType": control.mediaContentType = try controlString(value)
                    case "mediaEtag": control.mediaETag = try controlString(value)
                    default: annotations.append(ODataAnnotation(term: term, value: value))
                    }
                } else if let atIndex = utf8.firstIndex(of: Self.at) {
                    let target = String(key[..<atIndex])
                    let term = String(key[key.index(after: atIndex)...])
                    let odata = Self.odataTerm(term)
                    if odata == "type" { continue }
                    if case .navigation(_, _, let isCollection)? = plan.index[target].map({ plan.members[$0] }) {
                        switch odata {
                        case "bind":
                            navigation.append(ODataNavigationValue(target, try decodeBind(value, isCollection: isCollection)))
                            continue
                        case "navigationLink":
                            navigation.append(ODataNavigationValue(target, .deferred(uri: try requiredString(value))))
                            continue
                        case "count", "nextLink":
                            pendingNavigationInfo.append((target, odata ?? term, value))
                            continue
                        default: break
                        }
                    } else if odata == "bind" {
                        if options.ignoreUnknownProperties { continue }
                        throw Failure(.unknownProperty, "\(plan.qualifiedName) has no navigation property \"\(ODataJSONText.clip(target))\" to bind")
                    }
                    annotations.append(ODataAnnotation(target: target, term: term, value: value))
                } else if key == "__metadata" {
                    try readV2Metadata(value, into: &control)
                } else if plan.isOpen {
                    properties.append(ODataProperty(key, try decodeDynamic(value, name: key, keys: keys, values: values, depth: depth)))
                } else if !options.ignoreUnknownProperties {
                    // A type annotation after the properties may declare this one: re-read with it.
                    if typeIndex == nil, let late = keys[(i + 1)...].firstIndex(where: { $0 == "@odata.type" || $0 == "@type" }) {
                        let derived: ODataStructuredPlan
                        do throws(Failure) {
                            derived = try derivedPlan(values[late], expected: expected, path: .key(keys[late]), inner: nil)
                        } catch {
                            var sibling = error
                            sibling.skipNext += 1
                            throw sibling
                        }
                        if derived.qualifiedName != plan.qualifiedName {
                            return try decodeMembers(keys, values, plan: derived, expected: expected, typeIndex: late, depth: depth)
                        }
                    }
                    throw Failure(.unknownProperty, "\(plan.qualifiedName) has no property \"\(ODataJSONText.clip(key))\" and is not open")
                }
            } catch {
                throw error.adding(.key(key))
            }
        }
        if !pendingNavigationInfo.isEmpty {
            try attach(pendingNavigationInfo, to: &navigation, annotations: &annotations)
        }
        if options.requireKeyProperties {
            for keyName in plan.keyNames where !properties.contains(where: { $0.name == keyName }) {
                throw Failure(.missingKeyProperty, "\(plan.qualifiedName) entity without its key property \"\(keyName)\"")
            }
        }
        return ODataEntity(typeName: plan.qualifiedName, properties: properties, control: control,
                           navigation: navigation, annotations: annotations)
    }

    /// `odata.id` → `id`; 4.01 short forms (`id`, no dot) → themselves; other terms → nil.
    static func odataTerm(_ term: String) -> String? {
        if term.hasPrefix("odata.") { return String(term.dropFirst(6)) }
        return term.contains(".") ? nil : term
    }

    private func attach(_ info: [(name: String, term: String, value: JSONValue)],
                        to navigation: inout [ODataNavigationValue],
                        annotations: inout [ODataAnnotation]) throws(Failure) {
        for item in info {
            guard let index = navigation.firstIndex(where: {
                if $0.name == item.name, case .entities = $0.content { return true }
                return false
            }), case .entities(let entities, var count, var nextLink) = navigation[index].content else {
                annotations.append(ODataAnnotation(target: item.name, term: "odata." + item.term, value: item.value))
                continue
            }
            do throws(Failure) {
                if item.term == "count" { count = try controlCount(item.value) } else { nextLink = try controlString(item.value) }
            } catch {
                throw error.adding(.key(item.name + "@odata." + item.term))
            }
            navigation[index].content = .entities(entities, count: count, nextLink: nextLink)
        }
    }

    private func readV2Metadata(_ value: JSONValue, into control: inout ODataControlInformation) throws(Failure) {
        guard case .object(let metadata) = value else {
            throw Failure(.invalidControlInformation, "__metadata must be an object, found \(ODataJSONText.describe(value))")
        }
        var uri: String?
        for (key, member) in metadata {
            do throws(Failure) {
                switch key {
                case "uri": uri = try controlString(member)
                case "id": control.id = try controlString(member)
                case "etag": control.etag = try controlString(member)
                case "media_src": control.mediaReadLink = try controlString(member)
                case "edit_media": control.mediaEditLink = try controlString(member)
                case "content_type": control.mediaContentType = try controlString(member)
                case "media_etag": control.mediaETag = try controlString(member)
                default: break
                }
            } catch {
                throw error.adding(.key(key))
            }
        }
        if let uri {
            if control.id == nil { control.id = uri } else if control.id != uri { control.editLink = uri }
        }
    }

    // MARK: Control information

    func controlString(_ value: JSONValue) throws(Failure) -> String? {
        switch value {
        case .string(let text): return text
        case .null: return nil
        default: throw Failure(.invalidControlInformation, "expected a string, found \(ODataJSONText.describe(value))")
        }
    }

    func requiredString(_ value: JSONValue) throws(Failure) -> String {
        guard case .string(let text) = value else {
            throw Failure(.invalidControlInformation, "expected a string, found \(ODataJSONText.describe(value))")
        }
        return text
    }

    /// `@odata.count` (a number) or V2 `__count` (a string of digits).
    func controlCount(_ value: JSONValue) throws(Failure) -> Int64? {
        switch value {
        case .null: return nil
        case .number(let number):
            if let count = number.int64Value, count >= 0 { return count }
        case .string(let text):
            if let count = Int64(text), count >= 0 { return count }
        default: break
        }
        throw Failure(.invalidControlInformation, "a count must be a non-negative integer, found \(ODataJSONText.describe(value))")
    }

    private func decodeBind(_ value: JSONValue, isCollection: Bool) throws(Failure) -> ODataNavigationContent {
        switch value {
        case .string(let reference): return .bind(reference)
        case .array(let elements):
            var references: [String] = []
            references.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                guard case .string(let reference) = element else {
                    throw Failure(.invalidControlInformation, "an entity reference must be a string, found \(ODataJSONText.describe(element))")
                        .adding(.index(index))
                }
                references.append(reference)
            }
            return .bindMany(references)
        default:
            throw Failure(.invalidControlInformation, "@odata.bind must be a string or an array of strings, found \(ODataJSONText.describe(value))")
        }
    }

    // MARK: Navigation

    private func decodeNavigation(_ value: JSONValue, target: String, isCollection: Bool,
                                  depth: Int) throws(Failure) -> ODataNavigationContent? {
        guard let plan = plans.plan(target) else {
            throw Failure(.unknownModelElement, "navigation target type \(target) is not in the model")
        }
        switch value {
        case .null:
            return .entity(nil)
        case .object(let object):
            if let deferred = object["__deferred"] {
                guard case .object(let inner) = deferred, case .string(let uri)? = inner["uri"] else {
                    throw Failure(.invalidPayloadShape, "__deferred must be an object with a string \"uri\"").adding(.key("__deferred"))
                }
                return .deferred(uri: uri)
            }
            if isCollection {
                guard case .array(let elements)? = object["results"] else {
                    throw Failure(.invalidPayloadShape, "a collection-valued navigation property needs an array (or V2 {\"results\":[…]})")
                }
                var count: Int64?
                var next: String?
                do throws(Failure) {
                    if let raw = object["__count"] { count = try controlCount(raw) }
                } catch { throw error.adding(.key("__count")) }
                do throws(Failure) {
                    if let raw = object["__next"] { next = try controlString(raw) }
                } catch { throw error.adding(.key("__next")) }
                do throws(Failure) {
                    return .entities(try decodeEntities(elements, plan: plan, depth: depth + 1), count: count, nextLink: next)
                } catch { throw error.adding(.key("results")) }
            }
            return .entity(try decodeEntity(object, plan: plan, depth: depth + 1))
        case .array(let elements):
            guard isCollection else {
                throw Failure(.invalidPayloadShape, "a single-valued navigation property needs an object or null, found an array")
            }
            return .entities(try decodeEntities(elements, plan: plan, depth: depth + 1), count: nil, nextLink: nil)
        default:
            throw Failure(.invalidPayloadShape, "a navigation property needs an object, an array or null, found \(ODataJSONText.describe(value))")
        }
    }

    func decodeEntities(_ elements: [JSONValue], plan: ODataStructuredPlan, depth: Int) throws(Failure) -> [ODataEntity] {
        var entities: [ODataEntity] = []
        entities.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            do throws(Failure) {
                entities.append(try decodeEntity(element, plan: plan, depth: depth))
            } catch {
                throw error.adding(.index(index))
            }
        }
        return entities
    }
}
