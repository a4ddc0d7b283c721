import OfflineODataModel
import OfflineODataQuery

/// `$<id>` references of a batch request (docs/LocalService.md §2.5.2): in its URL
/// (`$1/ToItems`), in its JSON body (`"ToCustomer@odata.bind": "$1"`, collections
/// `["$1", …]`, also inside deep-inserted entities) and, for a `$ref` request, in the entity
/// its body names (`{"@odata.id": "$1"}`, `@id`, V2 `uri`) or its `$id` query option names
/// (`DELETE …/ToItems/$ref?$id=$1`, also `GET $entity?$id=$1`). Each names an earlier
/// request of the batch that created an entity; it is replaced by that entity's URL (its
/// `Location`, key predicate percent-encoded, with a temporary local key when the back end
/// computes the key), so the queued request carries the resolved URL and body.
extension LocalService {
    /// The step's request with every reference resolved. Throws `dependencyFailed` (3116,
    /// HTTP 424) when a reference or a `dependsOn` entry names a failed request or group,
    /// `unknownContentID` (3118) when a reference names no entity created earlier.
    func resolveReferences(_ step: BatchStep, locations: [String: String], failed: Set<String>) throws(ODataError) -> ODataRequest {
        let id = step.contentID ?? step.label
        if let dependency = step.dependsOn.first(where: { failed.contains($0) }) {
            throw .serviceDependencyFailed(id, on: dependency)
        }
        var request = step.request
        if let name = Self.referenceName(request.url) {
            if failed.contains(name) { throw .serviceDependencyFailed(id, on: name) }
            guard locations[name] != nil else { throw .serviceUnknownContentID("$" + name, step.label) }
            request.url = resolveContentID(request.url, locations)
        }
        let idOption = Self.idOptionRange(request.url)
        let mayHaveBodyReference = request.body.map(Self.mayHaveReference) ?? false
        guard idOption != nil || mayHaveBodyReference else { return request }
        let isRef = Self.isRefURL(request.url)
        if isRef || Self.isEntityByIDURL(request.url), let idOption {
            request.url = try resolveIDOption(request.url, idOption, locations: locations, failed: failed, id: id, label: step.label)
        }
        if mayHaveBodyReference, let body = request.body {
            if isRef {
                request.body = try resolveRefBody(body, locations: locations, failed: failed, id: id, label: step.label)
            } else {
                request.body = try resolveBodyReferences(body, locations: locations, failed: failed, id: id, label: step.label)
            }
        }
        return request
    }

    /// Whether the URL's resource path ends with `$ref` (as the route reads it; a URL that
    /// does not parse is not, its request then fails with the parser's error).
    static func isRefURL(_ url: String) -> Bool {
        let path = String(url.prefix { $0 != "?" })
        guard path.hasSuffix("ref"), let resource = try? ODataURLParser.parseResourcePath(path) else { return false }
        if case .ref? = resource.segments.last { return true }
        return false
    }

    /// The range of the value of the URL's `$id` (or `id`, any case, `%24id`) query option, the
    /// one a `DELETE …/$ref` reads, when it is there and may be a reference (`$…` or `%24…`).
    static func idOptionRange(_ url: String) -> Range<String.Index>? {
        guard let question = url.firstIndex(of: "?") else { return nil }
        var start = url.index(after: question)
        while start < url.endIndex {
            let end = url[start...].firstIndex(of: "&") ?? url.endIndex
            if let equals = url[start..<end].firstIndex(of: "=") {
                let name = url[start..<equals].lowercased()
                let value = url[url.index(after: equals)..<end]
                if name == "$id" || name == "id" || name == "%24id", value.hasPrefix("$") || value.hasPrefix("%24") {
                    return url.index(after: equals)..<end
                }
            }
            start = end < url.endIndex ? url.index(after: end) : end
        }
        return nil
    }

    /// The URL with the `$id` value (at `range`) resolved when it is a reference; the value is
    /// percent-encoded as a query value (`URLPercentEncoding.queryValue`), so the route reads
    /// the entity's URL back.
    private func resolveIDOption(_ url: String, _ range: Range<String.Index>, locations: [String: String], failed: Set<String>,
                                 id: String, label: String) throws(ODataError) -> String {
        guard let options = try? ODataURLParser.parseQueryOptions("$id=" + String(url[range])),
              let value = options.otherSystemOptions["id"], let name = Self.referenceName(value) else { return url }
        if failed.contains(name) { throw .serviceDependencyFailed(id, on: name) }
        guard locations[name] != nil else { throw .serviceUnknownContentID("$" + name, label + " $id") }
        var resolved = url
        resolved.replaceSubrange(range, with: URLPercentEncoding.queryValue(resolveContentID(value, locations)))
        return resolved
    }

    /// A `$ref` body with the reference in the member that names the entity (`@odata.id`, `@id`
    /// or `uri`, `referenceMember`) resolved; other members and bodies that are not a JSON
    /// object are left as they are (the `$ref` handler reports those).
    private func resolveRefBody(_ body: [UInt8], locations: [String: String], failed: Set<String>,
                                id: String, label: String) throws(ODataError) -> [UInt8] {
        let json: JSONValue
        do { json = try JSONReader.parse(body) } catch { return body }
        guard case .object(var object) = json, let member = Self.referenceMember(object),
              case .string(let reference)? = object[member] else { return body }
        var changed = false
        let resolved = try resolveBind(reference, label + " $." + member, locations, failed, id, &changed)
        guard changed else { return body }
        object[member] = .string(resolved)
        return JSONValue.object(object).serialized()
    }

    /// `name` of a URL or reference `$name[/…][?…]`; nil for other text and for system
    /// resources (`$batch`, `$metadata`, `$root` …).
    static func referenceName(_ text: String) -> String? {
        guard text.hasPrefix("$") else { return nil }
        let rest = text.dropFirst()
        let name = String(rest[..<(rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex)])
        if name.isEmpty || MultipartBatchRequest.reservedSegments.contains(name) || name == "id" { return nil }
        return name
    }

    /// Whether the body has the bytes `"$` (the only way a JSON string can start with `$`
    /// without an escape); bodies without it are not parsed here.
    static func mayHaveReference(_ body: [UInt8]) -> Bool {
        var previous: UInt8 = 0
        for byte in body {
            if byte == UInt8(ascii: "$"), previous == UInt8(ascii: "\"") { return true }
            previous = byte
        }
        return false
    }

    /// The body with references in `@odata.bind` / `@bind` annotations resolved; the body
    /// unchanged when it is not JSON (the entity reader reports that) or has no reference.
    func resolveBodyReferences(_ body: [UInt8], locations: [String: String], failed: Set<String>,
                               id: String, label: String) throws(ODataError) -> [UInt8] {
        let json: JSONValue
        do { json = try JSONReader.parse(body) } catch { return body }
        var changed = false
        let resolved = try resolveBinds(json, path: label + " $", locations: locations, failed: failed, id: id, changed: &changed)
        return changed ? resolved.serialized() : body
    }

    private func resolveBinds(_ value: JSONValue, path: String, locations: [String: String], failed: Set<String>, id: String,
                              changed: inout Bool) throws(ODataError) -> JSONValue {
        switch value {
        case .object(let object):
            var members: [(String, JSONValue)] = []
            members.reserveCapacity(object.count)
            for (key, member) in object {
                let memberPath = path + "." + key
                if Self.isBindAnnotation(key) {
                    switch member {
                    case .string(let reference):
                        members.append((key, .string(try resolveBind(reference, memberPath, locations, failed, id, &changed))))
                    case .array(let elements):
                        var out: [JSONValue] = []
                        out.reserveCapacity(elements.count)
                        for (n, element) in elements.enumerated() {
                            guard case .string(let reference) = element else { out.append(element); continue }
                            out.append(.string(try resolveBind(reference, memberPath + "[\(n)]", locations, failed, id, &changed)))
                        }
                        members.append((key, .array(out)))
                    default:
                        members.append((key, member))
                    }
                } else {
                    members.append((key, try resolveBinds(member, path: memberPath, locations: locations, failed: failed, id: id,
                                                          changed: &changed)))
                }
            }
            return .object(JSONObject.unique(members))
        case .array(let elements):
            var out: [JSONValue] = []
            out.reserveCapacity(elements.count)
            for (n, element) in elements.enumerated() {
                out.append(try resolveBinds(element, path: path + "[\(n)]", locations: locations, failed: failed, id: id,
                                            changed: &changed))
            }
            return .array(out)
        default:
            return value
        }
    }

    private func resolveBind(_ reference: String, _ path: String, _ locations: [String: String], _ failed: Set<String>,
                             _ id: String, _ changed: inout Bool) throws(ODataError) -> String {
        guard let name = Self.referenceName(reference) else { return reference }
        if failed.contains(name) { throw .serviceDependencyFailed(id, on: name) }
        guard locations[name] != nil else { throw .serviceUnknownBodyReference("$" + name, path) }
        changed = true
        return resolveContentID(reference, locations)
    }

    /// `Nav@odata.bind` or `Nav@bind` (OData 4.01 allows omitting the `odata.` prefix).
    static func isBindAnnotation(_ key: String) -> Bool {
        guard let at = key.lastIndex(of: "@") else { return false }
        let term = key[key.index(after: at)...].lowercased()
        return term == "odata.bind" || term == "bind"
    }
}
