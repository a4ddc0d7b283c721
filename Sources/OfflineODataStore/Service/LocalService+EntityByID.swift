import OfflineODataModel

/// `$entity?$id=…` (OData 4.01 URL Conventions §4.14, ABNF `entityOptions`,
/// docs/LocalService.md §2.1): an entity addressed by its id, read like the id's own URL with
/// the request's other options; `$entity/Namespace.Type?$id=…` also casts, and only then may
/// `$select`, `$expand` and `$compute` follow.
extension LocalService {
    /// The URL that `url` reads when it is `$entity?$id=…`, else nil. The `$id` value is
    /// percent-decoded once (it is a URL, whose key predicate keeps its own encoding); an
    /// absolute id (`https://host/service/Orders(1)`) is taken from the first segment that
    /// names an entity set or singleton of the model.
    func entityByIDURL(_ url: String) throws(ODataError) -> String? {
        guard Self.isEntityByIDURL(url) else { return nil }
        var text = Substring(url)
        if text.first == "/" { text = text.dropFirst() }
        let question = text.firstIndex(of: "?")
        let path = text[..<(question ?? text.endIndex)]
        let cast = path.dropFirst("$entity".count).drop { $0 == "/" }
        var id: String?
        var others: [Substring] = []
        if let question {
            for item in text[text.index(after: question)...].split(separator: "&") {
                let name = item.prefix { $0 != "=" }
                let decodedName = URLPercentEncoding.decode(String(name))?.lowercased()
                guard decodedName == "$id" || decodedName == "id" else {
                    // ABNF `entityOptions`: without the cast only `$format` and custom options.
                    let option = decodedName.map { $0.hasPrefix("$") ? String($0.dropFirst()) : $0 } ?? ""
                    if cast.isEmpty, Self.needsCast.contains(option), let decodedName {
                        throw .serviceMalformedRequest(
                            "'\(decodedName)' after $entity needs the type cast segment ($entity/Namespace.Type?$id=…&\(decodedName)=…)", url)
                    }
                    others.append(item)
                    continue
                }
                guard id == nil else { throw .serviceMalformedRequest("$entity has more than one $id", url) }
                guard let value = URLPercentEncoding.decode(String(item.dropFirst(name.count + 1))), !value.isEmpty else {
                    throw .serviceMalformedRequest("the $id of $entity is empty or not percent-encoded UTF-8", url)
                }
                id = value
            }
        }
        guard let id else { throw .serviceMalformedRequest("$entity needs $id, the id of the entity to read", url) }
        var resolved = entityPath(ofID: id)
        if !cast.isEmpty { resolved += "/" + cast }
        if !others.isEmpty { resolved += "?" + others.joined(separator: "&") }
        return resolved
    }

    /// Options that `$entity` takes only after a type cast (ABNF `entityCastOptions`).
    static let needsCast: Set<String> = ["select", "expand", "compute", "filter", "orderby", "top", "skip", "count", "search",
                                         "levels", "skiptoken", "apply", "deltatoken"]

    /// Whether the resource path is `$entity` (or `$entity/Type`).
    static func isEntityByIDURL(_ url: String) -> Bool {
        // Most URLs start with a name, not `$`: answered from the first bytes (every request
        // comes through here).
        var bytes = url.utf8.makeIterator()
        var first = bytes.next()
        if first == UInt8(ascii: "/") { first = bytes.next() }
        guard first == UInt8(ascii: "$") else { return false }
        var text = Substring(url)
        if text.first == "/" { text = text.dropFirst() }
        let path = text.prefix { $0 != "?" }
        return path == "$entity" || path.hasPrefix("$entity/")
    }

    /// The path of an entity id relative to the service root: its query dropped, an absolute
    /// URL from the first segment that names an entity set or singleton (else as written, and
    /// the binder reports what it does not know).
    func entityPath(ofID id: String) -> String {
        var path = Substring(id.prefix { $0 != "?" })
        if let colon = path.firstIndex(of: ":"), path[colon...].hasPrefix("://") {
            path = path[colon...].dropFirst(3)
            path = path[(path.firstIndex(of: "/") ?? path.endIndex)...]
        }
        if path.first == "/" { path = path.dropFirst() }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for (index, segment) in segments.enumerated() {
            let name = String(segment.prefix { $0 != "(" })
            if model.entitySet(named: name) != nil || model.singleton(named: name) != nil {
                return segments[index...].joined(separator: "/")
            }
        }
        return String(path)
    }
}
