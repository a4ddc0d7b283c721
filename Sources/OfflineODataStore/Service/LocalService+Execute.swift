import OfflineODataModel
import OfflineODataQuery

/// `execute(_:)`: OData requests given as method + URL + headers + JSON body
/// (docs/LocalService.md §2.1).
extension LocalService {
    /// Which entity a `$ref` request names.
    enum RefTarget {
        /// A key segment after the navigation.
        case key([ODataValue])
        /// `$id=Set(key)`.
        case reference(String)
        /// The body's `@odata.id`.
        case body
        /// The current target of a single-valued navigation.
        case current
    }

    enum Route {
        case read
        case batch
        case create(set: String, from: (set: String, key: [ODataValue], navigation: String)?)
        case change(set: String, key: [ODataValue], replace: Bool)
        case delete(set: String, key: [ODataValue])
        case ref(set: String, key: [ODataValue], navigation: String, target: RefTarget, remove: Bool)
        /// `PATCH`/`PUT` of a singleton (its one stored entity).
        case changeSingleton(name: String, replace: Bool)
        /// `POST ActionImport` (or a V2 function import invoked with POST): queued, nothing
        /// changed locally (docs/LocalService.md §2.9).
        case action(name: String)
        case deleteArchiveEntry(Int64)
        /// `GET` of a stream (`Photos(1)/$value`, a stream property); property `""`: the media resource.
        case readMedia(set: String, key: [ODataValue], property: String)
        /// `PUT` of a stream.
        case putMedia(set: String, key: [ODataValue], property: String)
        /// `POST` of a media entity with its stream as the body.
        case createMedia(set: String)
    }

    /// Executes one request. Changes are applied and queued atomically; errors are thrown
    /// (`ODataResponse.error(_:)` turns one into an OData error response) and change nothing.
    /// The SAP option headers (`OfflineOData.TransactionID` …, `RequestOptions.applyingHeaders`)
    /// are read into `request.options`.
    @discardableResult
    public func execute(_ request: ODataRequest) throws(ODataError) -> ODataResponse {
        var request = request
        request.options = try request.options.applyingHeaders(request.headers)
        try request.options.validate()
        if let entityURL = try entityByIDURL(request.url) {
            guard request.method == .get else { throw .serviceMethodNotAllowed(request.method.rawValue, request.url) }
            request.url = entityURL
        }
        let route = try self.route(request)
        switch route {
        case .read:
            guard let readHandler else { throw .serviceNoReadHandler(request.url) }
            return try readHandler.read(request, reader: try storage.reader())
        case .batch:
            return try executeBatch(request)
        case .deleteArchiveEntry(let id):
            try deleteErrorArchiveEntry(requestID: id)
            return ODataResponse(status: 204)
        case .readMedia(let set, let key, let property):
            return try readMedia(request, set: set, key: key, property: property)
        case .putMedia, .createMedia:
            return try executeMediaWrite(route, request)
        default:
            return try perform { (tx: inout ServiceTransaction) throws(ODataError) -> ODataResponse in
                try self.apply(route, request, tx: &tx)
            }
        }
    }

    /// Resolves method and URL to what the request does.
    func route(_ request: ODataRequest) throws(ODataError) -> Route {
        let url: SyntaxURL
        let path: BoundResourcePath
        do {
            url = try ODataURLParser.parse(request.url, version: model.urlVersion)
            // An action import: queued for upload, as SAP's offline store does.
            if request.method == .post, url.path.segments.count == 1, case .identifier(let name, _) = url.path.segments[0],
               model.entitySet(named: name) == nil, model.operationImport(named: name) == .action {
                return .action(name: name)
            }
            path = try ResourcePathBinder(model: model, aliases: url.options.aliases).bind(url.path)
        }
        if let media = mediaTarget(path) {
            switch request.method {
            case .get: return .readMedia(set: media.set, key: media.key, property: media.property)
            case .put: return .putMedia(set: media.set, key: media.key, property: media.property)
            default: throw .serviceMethodNotAllowed(request.method.rawValue, request.url)
            }
        }
        if request.method == .get { return .read }
        // Changes through `/$filter(…)` (`…/$each`) are not offered: the subset is read-only.
        if path.hasFilterSegments { throw .serviceMethodNotAllowed(request.method.rawValue, request.url) }
        if case .batch = path.target {
            guard request.method == .post else { throw .serviceMethodNotAllowed(request.method.rawValue, request.url) }
            return .batch
        }
        let steps = path.steps.filter { if case .typeCast = $0 { return false } else { return true } }
        // `$ref` from a contained entity (`People('x')/Trips(0)/Photos/$ref`): the same as from
        // an entity of a set, with the contained set and its stored key.
        if path.suffix == .ref, let hop = steps.lastIndex(where: { if case .navigation = $0 { return true } else { return false } }),
           hop >= 2, let source = try containedChain(Array(steps[..<hop])), source.keyed,
           case .navigation(let name, _, _, let isCollection) = steps[hop] {
            let target: [BoundResourcePath.Step] = Array(steps[(hop + 1)...])
            switch (request.method, target.first) {
            case (.post, nil) where isCollection, (.put, nil) where !isCollection:
                return .ref(set: source.set, key: source.key, navigation: name, target: .body, remove: false)
            case (.delete, .key(let values)?) where target.count == 1:
                return .ref(set: source.set, key: source.key, navigation: name, target: .key(values), remove: true)
            case (.delete, nil):
                if let id = url.options.otherSystemOptions["$id"] ?? url.options.otherSystemOptions["id"] {
                    return .ref(set: source.set, key: source.key, navigation: name, target: .reference(id), remove: true)
                }
                if isCollection { throw .serviceMalformedRequest("DELETE of a collection's $ref needs $id or a key segment", request.url) }
                return .ref(set: source.set, key: source.key, navigation: name, target: .current, remove: true)
            default:
                throw .serviceMethodNotAllowed(request.method.rawValue, request.url)
            }
        }
        if path.suffix == .none, let contained = try containedChain(steps) {
            switch (request.method, contained.keyed) {
            case (.post, false):
                guard let parent = contained.parent else { break }
                return .create(set: contained.set, from: parent)
            case (.put, true), (.patch, true), (.merge, true):
                return .change(set: contained.set, key: contained.key, replace: request.method == .put)
            case (.delete, true):
                return .delete(set: contained.set, key: contained.key)
            default: break
            }
            throw .serviceMethodNotAllowed(request.method.rawValue, request.url)
        }
        switch (request.method, steps.count, path.suffix) {
        case (.post, 1, .none):
            guard case .entitySet(let set) = steps[0] else { break }
            if isMediaCreate(set: set, request) { return .createMedia(set: set) }
            return .create(set: set, from: nil)
        case (.post, 3, .none):
            guard case .entitySet(let set) = steps[0], case .key(let key) = steps[1],
                  case .navigation(let name, _, let target?, true) = steps[2] else { break }
            return .create(set: target, from: (set, key, name))
        case (.put, 1, .none), (.patch, 1, .none), (.merge, 1, .none):
            // A singleton's one entity (`PATCH Me`), kept as a set of one.
            guard case .singleton(let name) = steps[0] else { break }
            return .changeSingleton(name: name, replace: request.method == .put)
        case (.put, 2, .none), (.patch, 2, .none), (.merge, 2, .none):
            guard let (set, key) = path.directKey else { break }
            return .change(set: set, key: key, replace: request.method == .put)
        case (.delete, 2, .none):
            guard let (set, key) = path.directKey else { break }
            if set == OfflineSystemSets.errorArchive, key.count == 1, case .int64(let id) = key[0] { return .deleteArchiveEntry(id) }
            return .delete(set: set, key: key)
        case (.post, 3, .ref), (.put, 3, .ref), (.delete, 3, .ref), (.delete, 4, .ref):
            guard case .entitySet(let set) = steps[0], case .key(let key) = steps[1],
                  case .navigation(let name, _, _, let isCollection) = steps[2] else { break }
            if request.method == .post, !isCollection { break }
            if request.method == .put, isCollection { break }
            if steps.count == 4 {
                guard case .key(let target) = steps[3] else { break }
                return .ref(set: set, key: key, navigation: name, target: .key(target), remove: true)
            }
            if request.method == .delete {
                if let id = url.options.otherSystemOptions["$id"] ?? url.options.otherSystemOptions["id"] {
                    return .ref(set: set, key: key, navigation: name, target: .reference(id), remove: true)
                }
                if isCollection { throw .serviceMalformedRequest("DELETE of a collection's $ref needs $id or a key segment", request.url) }
                return .ref(set: set, key: key, navigation: name, target: .current, remove: true)
            }
            return .ref(set: set, key: key, navigation: name, target: .body, remove: false)
        default: break
        }
        throw .serviceMethodNotAllowed(request.method.rawValue, request.url)
    }

    /// A path through containment navigations (`People('x')/Trips(0)`, `Me/Trips`,
    /// `People('x')/Trips(0)/PlanItems`): the contained set it ends in, the stored key (the
    /// containers' keys, then the entity's own) when it ends with a key, and the container
    /// and navigation of the last hop. Nil for a path with no containment hop, or one that
    /// leaves the containment chain (those take the other routes).
    func containedChain(_ steps: [BoundResourcePath.Step]) throws(ODataError)
        -> (set: String, key: [ODataValue], keyed: Bool, parent: (set: String, key: [ODataValue], navigation: String)?)?
    {
        guard steps.contains(where: { if case .navigation = $0 { return true } else { return false } }) else { return nil }
        let catalog = storage.currentCatalog()
        var set: String?
        var key: [ODataValue] = []
        var keyed = false
        var parent: (set: String, key: [ODataValue], navigation: String)?
        var throughContainment = false
        for step in steps {
            switch step {
            case .entitySet(let name):
                set = name
            case .singleton(let name):
                // Its one stored entity's key is part of its contained entities' keys.
                guard let stored = Self.singletonKey(try storage.reader().scan(name)) else {
                    throw .serviceEntityNotFound(name, "")
                }
                set = name
                key = stored
                keyed = true
            case .key(let values):
                guard set != nil, !keyed else { return nil }
                key += values
                keyed = true
            case .navigation(let name, _, _, _):
                guard let current = set, keyed, case .keyPrefix(let target, _)? = catalog.navigation[current]?[name],
                      catalog.sets[target]?.containment?.parentSet == current else { return nil }
                parent = (current, key, name)
                set = target
                keyed = false
                throughContainment = true
            default:
                return nil
            }
        }
        guard throughContainment, let set else { return nil }
        return (set, key, keyed, parent)
    }

    /// Applies a change route inside a transaction (shared by `execute` and `$batch` change sets).
    func apply(_ route: Route, _ request: ODataRequest, tx: inout ServiceTransaction) throws(ODataError) -> ODataResponse {
        let ifMatch = request.header("If-Match")
        let prefer = request.header("Prefer")
        let bodyText = request.body.map { String(decoding: $0, as: UTF8.self) }
        switch route {
        case .create(let set, let from):
            try ServiceTransaction.checkWritable(set, "POST")
            var entity = try readBody(request, set: set)
            var plan: NavigationPlan?
            if let from {
                let parentKey = try tx.keyBytes(from.set, from.key)
                guard try tx.batch.storedValue(from.set, keyBytes: parentKey) != nil else {
                    throw .serviceEntityNotFound(from.set, try tx.keyText(from.set, parentKey))
                }
                let navigationPlan = try tx.batch.navigationPlan(from.set, from.navigation)
                try tx.prefillForeignKey(&entity, parentSet: from.set, parentKey: parentKey, plan: navigationPlan)
                plan = navigationPlan
            }
            let response = try create(entity, in: set, url: pathPart(request.url), body: bodyText, headers: request.headers,
                                      options: request.options, prefer: prefer, tx: &tx)
            if let from, case .link? = plan, let created = response.entity {
                let info = try tx.batch.setInfo(set)
                try tx.batch.link(from: from.set, key: from.key, navigation: from.navigation,
                                  to: info.keyNames.map { created[property: $0] ?? .null })
            }
            return response
        case .change(let set, let key, let replace):
            try ServiceTransaction.checkWritable(set, request.method.rawValue)
            let entity = try readBody(request, set: set)
            return try change(entity, in: set, key: key, replace: replace, ifMatch: ifMatch, url: pathPart(request.url),
                              body: bodyText, headers: request.headers, options: request.options, prefer: prefer, tx: &tx)
        case .delete(let set, let key):
            return try delete(set: set, key: key, ifMatch: ifMatch, url: pathPart(request.url), headers: request.headers,
                              options: request.options, tx: &tx)
        case .ref(let set, let key, let navigation, let targetKey, let remove):
            let target: EntityRef
            switch targetKey {
            case .key(let values):
                let plan = try tx.batch.navigationPlan(set, navigation)
                target = EntityRef(set: plan.target, keyBytes: try tx.keyBytes(plan.target, values))
            case .reference(let reference):
                target = try tx.resolveReference(reference, navigationFrom: set, navigation)
            case .current:
                guard let current = try tx.currentTarget(set, keyBytes: try tx.keyBytes(set, key), navigation: navigation) else {
                    throw .serviceEntityNotFound(set, (try tx.keyText(set, try tx.keyBytes(set, key))) + "/" + navigation)
                }
                target = current
            case .body:
                target = try tx.resolveReference(try referenceInBody(request), navigationFrom: set, navigation)
            }
            return try relate(set, key: key, navigation: navigation, target: target, remove: remove, headers: request.headers,
                              options: request.options, tx: &tx)
        case .changeSingleton(let name, let replace):
            try ServiceTransaction.checkWritable(name, request.method.rawValue)
            guard let stored = try tx.batch.allEntities(of: name).first else {
                throw .serviceEntityNotFound(name, "")
            }
            let entity = try readBody(request, set: name)
            return try change(entity, in: name, key: try stored.key(), replace: replace, ifMatch: ifMatch, url: pathPart(request.url),
                              body: bodyText, headers: request.headers, options: request.options, prefer: prefer, tx: &tx)
        case .action(let name):
            try checkActionParameters(name, request)
            let requestID = tx.nextRequestID()
            var url = request.url
            if url.hasPrefix("/") { url.removeFirst() }
            try tx.enqueue(QueuedRequest(requestID: requestID, status: QueuedRequest.pendingStatus, method: "POST", url: url,
                                         body: bodyText.flatMap { $0.isEmpty ? nil : $0 }, customHeaders: Self.custom(request.headers),
                                         options: request.options, affectedEntitySet: "", affectedEntityKey: "", serverETag: nil))
            return ODataResponse(status: 204, requestID: requestID)
        case .readMedia, .putMedia, .createMedia:
            throw .serviceNotSupported("a stream cannot be read or written inside $batch; send it as its own request", request.url)
        case .read, .batch, .deleteArchiveEntry:
            throw .serviceMethodNotAllowed(request.method.rawValue, request.url)
        }
    }

    /// An action's body: nothing, or a JSON object whose members are its parameters (V4; a V2
    /// function import takes them in the query string). What the back end does with them is
    /// its own; a name the action does not declare is refused here, before it is queued.
    func checkActionParameters(_ name: String, _ request: ODataRequest) throws(ODataError) {
        guard let body = request.body, !body.isEmpty else { return }
        let json: JSONValue
        do {
            json = try JSONReader.parse(body)
        } catch {
            throw .serviceInvalidBody("the body of action '\(name)' is not JSON: \(error.message)", error.location ?? "$")
        }
        guard case .object(let object) = json else {
            throw .serviceInvalidBody("the body of action '\(name)' must be a JSON object of its parameters", "$")
        }
        guard let parameters = model.operationImportParameters(named: name) else { return }
        let declared = Set(parameters.map(\.name))
        for (member, _) in object where !member.hasPrefix("@") && !member.contains("@") && !declared.contains(member) {
            throw .serviceInvalidBody("action '\(name)' has no parameter '\(member)' (it has \(parameters.map(\.name).joined(separator: ", ")))",
                                      "$." + member)
        }
    }

    /// The entity in a POST/PUT/PATCH body, read with the model (keys may be absent).
    func readBody(_ request: ODataRequest, set: String) throws(ODataError) -> ODataEntity {
        guard let body = request.body, !body.isEmpty else {
            throw .serviceInvalidBody("\(request.method.rawValue) '\(request.url)' needs a JSON body", request.url)
        }
        // Contained entities are read as their type (their set is a containment path).
        guard let info = storage.currentCatalog().sets[set], let containment = info.containment else {
            return try bodyReader.readEntity(body, entitySet: set)
        }
        let entity = try bodyReader.readEntity(body, entityType: info.typeName)
        // The container's key comes from the URL alone.
        if let name = Self.containerKeyName(in: entity) {
            throw .serviceInvalidBody("'\(name)' is not a property of \(info.typeName)", "\(containment.parentSet)/\(containment.navigation)")
        }
        return entity
    }

    /// A property named like a container key property, in the entity or what it expands.
    static func containerKeyName(in entity: ODataEntity) -> String? {
        if let property = entity.properties.first(where: { Containment.isContainerKey($0.name) }) { return property.name }
        for navigation in entity.navigation {
            switch navigation.content {
            case .entity(let nested?): if let name = containerKeyName(in: nested) { return name }
            case .entities(let list, _, _): for nested in list { if let name = containerKeyName(in: nested) { return name } }
            default: continue
            }
        }
        return nil
    }

    /// `{"@odata.id": "Products('X')"}` (V2: `{"uri": …}`).
    func referenceInBody(_ request: ODataRequest) throws(ODataError) -> String {
        guard let body = request.body, !body.isEmpty else {
            throw .serviceInvalidBody("a $ref request needs a body with @odata.id", request.url)
        }
        let json = try JSONReader.parse(body)
        guard case .object(let object) = json, let member = Self.referenceMember(object), let id = object[member]?.stringValue else {
            throw .serviceInvalidBody("the $ref body has no \"@odata.id\" string", "$")
        }
        return id
    }

    /// The member of a `$ref` body that names the entity: the first of `@odata.id`, `@id`
    /// (4.01) and `uri` (V2) present. Batch reference resolution reads the same member.
    static func referenceMember(_ object: JSONObject) -> String? {
        ["@odata.id", "@id", "uri"].first { object[$0] != nil }
    }

    func pathPart(_ url: String) -> String {
        var path = url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? url
        if path.hasPrefix("/") { path.removeFirst() }
        return path
    }
}
