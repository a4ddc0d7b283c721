import OfflineODataModel
import OfflineODataQuery

/// The store's GET side for `LocalService` (docs/OfflineStore.md §4): runs the URL with a
/// `QueryExecutor` on the request's snapshot and writes OData JSON.
///
/// - collections: `{"@odata.context":"$metadata#Set","@odata.count":n,"value":[…],"@odata.nextLink":…}`
///   (`$metadata#Set(A,B)` with `$select=A,B`)
/// - one entity: the entity with `"@odata.context":"$metadata#Set/$entity"`, `ETag` header
/// - `/$count`: `text/plain`
/// - a property: `{"@odata.context":…,"value":…}`; a null property 204
/// - `/$ref`: `{"value":[{"@odata.id":…}]}`
/// - not found (`entityNotFound` and other notFound errors): a 404 error response.
///
/// `Prefer: odata.maxpagesize=n` overrides the store's page size for the request;
/// `Prefer: odata.include-annotations="sap.*"` (or `*`, or one naming
/// `com.sap.vocabularies.Offline.v1`) adds the local-state instance annotations to every
/// top-level entity.
struct StoreReadHandler: ReadHandler {
    let model: ServiceModel
    let pageSize: Int?
    /// Built once per model (it plans every type), not per response.
    let writer: ODataJSONWriter

    init(model: ServiceModel, pageSize: Int?, writer: ODataJSONWriter? = nil) {
        self.model = model
        self.pageSize = pageSize
        self.writer = writer ?? ODataJSONWriter(model: model)
    }

    func read(_ request: ODataRequest, reader: EntityReader) throws(ODataError) -> ODataResponse {
        let prefer = Preferences(request.header("Prefer") ?? "")
        let executor = QueryExecutor(reader: reader, model: model, pageSize: prefer.maxPageSize ?? pageSize)
        let (url, expandAffected) = Self.takeAffectedEntityExpand(request.url)
        let result: QueryResult
        do {
            result = try executor.execute(url)
        } catch where error.category == .notFound {
            return .error(error)
        }
        var response = try respond(result, prefer: prefer, reader: reader, selectList: Self.selectList(url, model: model))
        if expandAffected, response.status == 200, let body = response.body, let set = result.entitySet {
            response.body = try addAffectedEntities(body, set: set, reader: reader)
        }
        return response
    }

    /// The `$select` list of a URL as the context URL carries it (`(Name,Price)`, OData 4.01
    /// Protocol §10.9), or "" when the request selects no subset.
    static func selectList(_ url: String, model: ServiceModel) -> String {
        guard url.contains("select"),
              let items = (try? ODataURLParser.parse(url, version: model.urlVersion))?.options.select, !items.isEmpty else { return "" }
        let printed = items.map(SyntaxPrinter.print)
        if printed.contains("*") { return "" }
        return "(" + printed.joined(separator: ",") + ")"
    }

    private func respond(_ result: QueryResult, prefer: Preferences, reader: EntityReader, selectList: String = "") throws(ODataError) -> ODataResponse {
        let set = result.entitySet ?? ""
        var headers = ["Content-Type": "application/json", "OData-Version": "4.0"]
        if prefer.includeLocalState || prefer.maxPageSize != nil {
            headers["Preference-Applied"] = prefer.applied
        }
        switch result.payload {
        case .collection(let entities, let count, let nextLink):
            let annotated = try addMediaLinks(try annotate(entities, set: set, reader: reader, when: prefer.includeLocalState),
                                              set: set, type: try typeName(result), reader: reader)
            let collection = ODataEntityCollection(entities: annotated, count: count.map(Int64.init), nextLink: nextLink,
                                                   context: "$metadata#" + (result.containerPath ?? set) + selectList)
            let body = try writer.writeCollection(collection, entityType: try typeName(result))
            return ODataResponse(status: 200, headers: headers, body: body)
        case .entity(let entity):
            let annotated = try addMediaLinks(try annotate([entity], set: set, reader: reader, when: prefer.includeLocalState),
                                              set: set, type: try typeName(result), reader: reader)
            let one = annotated.first ?? entity
            // A singleton's context names it alone (JSON Format §10.7: `$metadata#Me`).
            let suffix = model.singleton(named: set) != nil ? "" : "/$entity"
            let body = try writer.writeEntity(one, entityType: try typeName(result),
                                              context: "$metadata#\(result.containerPath ?? set)\(selectList)\(suffix)")
            if let etag = entity.control.etag { headers["ETag"] = etag }
            return ODataResponse(status: 200, headers: headers, body: body, entity: one)
        case .count(let count):
            return ODataResponse(status: 200, headers: ["Content-Type": "text/plain", "OData-Version": "4.0"],
                                 body: Array(String(count).utf8))
        case .property(let name, let value):
            if value == .null { return ODataResponse(status: 204, headers: ["OData-Version": "4.0"]) }
            // Written inside its entity, along its path (each complex value of the path holding
            // only the next member), so that every value has its declared type; then taken out.
            let path = result.propertyPath.isEmpty ? [name] : result.propertyPath
            var wrapped = value
            for member in path.dropFirst().reversed() {
                wrapped = .complex(ODataComplexValue(typeName: nil, properties: [ODataProperty(member, wrapped)]))
            }
            let holder = ODataEntity(typeName: try typeName(result), properties: [ODataProperty(path[0], wrapped)])
            var member = try JSONReader.parse(try writer.writeEntity(holder, entityType: try typeName(result)))
            for step in path { member = member[step] ?? .null }
            if result.rawValue {
                // `/$value`: the value itself, as text (binary values as their bytes).
                if case .binary(let bytes) = value {
                    return ODataResponse(status: 200, headers: ["Content-Type": "application/octet-stream", "OData-Version": "4.0"], body: bytes)
                }
                let text: [UInt8]
                switch member {
                case .string(let s): text = Array(s.utf8)
                case .object, .array:
                    throw ODataError.serviceNotSupported("/$value of a complex or collection value (\(name)): it has no raw form", name)
                default: text = member.serialized()
                }
                return ODataResponse(status: 200, headers: ["Content-Type": "text/plain", "OData-Version": "4.0"], body: text)
            }
            var members: [(String, JSONValue)] = [("@odata.context", .string("$metadata#\(result.propertyOf ?? set)/\(path.joined(separator: "/"))"))]
            if let count = result.propertyCount { members.append(("@odata.count", .number(JSONNumber(count)))) }
            members.append(("value", member))
            let body = JSONValue.object(try JSONObject(members: members))
            return ODataResponse(status: 200, headers: headers, body: body.serialized())
        case .references(let ids, _, _) where result.singleReference:
            let members: [(String, JSONValue)] = [("@odata.context", .string("$metadata#$ref")), ("@odata.id", .string(ids.first ?? ""))]
            return ODataResponse(status: 200, headers: headers, body: JSONValue.object(try JSONObject(members: members)).serialized())
        case .references(let ids, let count, let nextLink):
            var members: [(String, JSONValue)] = [("@odata.context", .string("$metadata#Collection($ref)"))]
            if let count { members.append(("@odata.count", .number(JSONNumber(count)))) }
            var values: [JSONValue] = []
            for id in ids { values.append(.object(try JSONObject(members: [("@odata.id", .string(id))]))) }
            members.append(("value", .array(values)))
            if let nextLink { members.append(("@odata.nextLink", .string(nextLink))) }
            return ODataResponse(status: 200, headers: headers, body: JSONValue.object(try JSONObject(members: members)).serialized())
        }
    }

    private func typeName(_ result: QueryResult) throws(ODataError) -> String {
        if let type = result.entityType { return type }
        if let set = result.entitySet, let type = model.entityType(ofSet: set) { return type.qualifiedName }
        throw .queryNotSupported("the result has no entity type")
    }

    /// Media entities with their media control information (JSON Format §4.5.10–4.5.13):
    /// `@odata.mediaReadLink` and `@odata.mediaEditLink` (`Set(key)/$value`), and, when the
    /// store holds the stream, `@odata.mediaContentType` and the back end's `@odata.mediaEtag`;
    /// an `Edm.Stream` property the store holds a value of, the same as `Name@odata.…`
    /// (`Set(key)/Name`).
    private func addMediaLinks(_ entities: [ODataEntity], set: String, type: String, reader: EntityReader) throws(ODataError) -> [ODataEntity] {
        guard !set.isEmpty, model.entitySet(named: set) != nil || model.singleton(named: set) != nil,
              let entityType = model.entityType(qualifiedName: type) else { return entities }
        let isMedia = model.isMediaType(entityType)
        let streams = model.allProperties(of: entityType).filter { !$0.type.isCollection && $0.type.primitiveKind == .stream }.map(\.name)
        guard isMedia || !streams.isEmpty else { return entities }
        let keyNames = try reader.keyProperties(of: set)
        let info = try reader.catalog.set(set)
        let keys = info.keyProperties
        let version: ODataVersion = model.version == .v2 ? .v2 : .v4
        let singleton = model.singleton(named: set) != nil
        var out = entities
        for i in out.indices {
            let key = keyNames.compactMap { out[i][property: $0] }
            guard key.count == keyNames.count else { continue }
            let keyBytes = try EntityStorage.encodeKey(key, info: info)
            let path = singleton ? set : set + (try KeyPredicate.format(key, keys: keys, version: version))
            if isMedia {
                out[i].control.mediaReadLink = path + "/$value"
                out[i].control.mediaEditLink = path + "/$value"
                if let media = try reader.mediaInfo(set: set, keyBytes: keyBytes), !media.isAbsent {
                    out[i].control.mediaContentType = media.contentType
                    out[i].control.mediaETag = media.etag
                }
            }
            for name in streams {
                guard let media = try reader.mediaInfo(set: set, keyBytes: keyBytes, property: name), !media.isAbsent else { continue }
                out[i].annotations.append(ODataAnnotation(target: name, term: "odata.mediaReadLink", value: .string(path + "/" + name)))
                out[i].annotations.append(ODataAnnotation(target: name, term: "odata.mediaContentType", value: .string(media.contentType)))
                if let etag = media.etag {
                    out[i].annotations.append(ODataAnnotation(target: name, term: "odata.mediaEtag", value: .string(etag)))
                }
            }
        }
        return out
    }

    /// The entities with the local-state annotations, looked up by key in `set`.
    private func annotate(_ entities: [ODataEntity], set: String, reader: EntityReader, when enabled: Bool) throws(ODataError) -> [ODataEntity] {
        guard enabled, !set.isEmpty else { return entities }
        let keys = try reader.keyProperties(of: set)
        var out: [ODataEntity] = []
        out.reserveCapacity(entities.count)
        for entity in entities {
            let key = keys.compactMap { entity[property: $0] }
            guard key.count == keys.count, let stored = try reader.entity(in: set, key: key) else {
                out.append(entity)
                continue
            }
            out.append(entity.annotatingLocalState(stored.localState, all: true))
        }
        return out
    }
}

/// The `Prefer` header preferences the read side honours.
struct Preferences {
    var maxPageSize: Int?
    var includeLocalState = false
    var applied = ""

    init(_ header: String) {
        var applied: [String] = []
        for part in header.split(separator: ",") {
            let item = part.trimmingSpaces
            let pieces = item.split(separator: "=", maxSplits: 1).map { String($0).trimmingSpaces }
            guard let name = pieces.first?.lowercased() else { continue }
            let value = pieces.count > 1 ? pieces[1].trimmingCharacters("\"") : ""
            switch name {
            case "odata.maxpagesize", "maxpagesize":
                if let n = Int(value), n > 0 {
                    maxPageSize = RowCount.clamp(n)
                    applied.append("odata.maxpagesize=\(n)")
                }
            case "odata.include-annotations":
                let patterns = value.split(separator: ",").map { $0.trimmingSpaces.lowercased() }
                if patterns.contains(where: { $0 == "*" || $0 == "sap.*" || $0.hasPrefix("com.sap.vocabularies.offline.v1") }) {
                    includeLocalState = true
                    applied.append("odata.include-annotations=\"\(value)\"")
                }
            default:
                continue
            }
        }
        self.applied = applied.joined(separator: ",")
    }
}

fileprivate extension StringProtocol {
    var trimmingSpaces: String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }

    func trimmingCharacters(_ c: Character) -> String {
        var s = String(self)
        if s.first == c { s.removeFirst() }
        if s.last == c { s.removeLast() }
        return s
    }
}
