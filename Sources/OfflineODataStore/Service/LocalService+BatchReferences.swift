import OfflineODataModel

/// `$<id>` references of a batch request (docs/LocalService.md §2.5.2): in its URL
/// (`$1/ToItems`) and in its JSON body (`"ToCustomer@odata.bind": "$1"`, collections
/// `["$1", …]`, also inside deep-inserted entities). Each names an earlier request of the
/// batch that created an entity; it is replaced by that entity's URL (its `Location`, with a
/// temporary local key when the back end computes the key), so the queued request carries
/// the resolved URL and body.
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
        if let body = request.body, Self.mayHaveReference(body) {
            request.body = try resolveBodyReferences(body, locations: locations, failed: failed, id: id, label: step.label)
        }
        return request
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
