import OfflineODataModel
import OfflineODataQuery

/// `$expand=AffectedEntity` on `RequestQueue` and `ErrorArchive` (docs/OfflineStore.md §4.1):
/// `AffectedEntity` is not a navigation property of the model, so the option is taken out of
/// the URL before binding, and each row's affected entity (`EntityReader.affectedEntity(of:)`)
/// is written into the row's JSON object as `"AffectedEntity"` (null after a local deletion).
extension StoreReadHandler {
    /// The URL without a `$expand=AffectedEntity` option when it reads a built-in queue set.
    static func takeAffectedEntityExpand(_ url: String) -> (url: String, expand: Bool) {
        guard let question = url.firstIndex(of: "?") else { return (url, false) }
        let path = url[..<question]
        let set = path.split(separator: "(").first.map(String.init) ?? ""
        guard set == OfflineSystemSets.requestQueue || set == OfflineSystemSets.errorArchive else { return (url, false) }
        let options = url[url.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false)
        let kept = options.filter { $0 != "$expand=AffectedEntity" && $0 != "%24expand=AffectedEntity" }
        guard kept.count < options.count else { return (url, false) }
        return (kept.isEmpty ? String(path) : String(path) + "?" + kept.joined(separator: "&"), true)
    }

    /// The body with `"AffectedEntity"` added to each row object (`value` members or the entity).
    func addAffectedEntities(_ body: [UInt8], set: String, reader: EntityReader) throws(ODataError) -> [UInt8] {
        let json = try JSONReader.parse(body)
        guard case .object(let top) = json else { return body }
        if let rows = top["value"]?.arrayValue {
            var out: [JSONValue] = []
            for row in rows { out.append(try withAffected(row, set: set, reader: reader)) }
            let members: [(String, JSONValue)] = top.map { member in
                switch member.key {
                case "value": return ("value", .array(out))
                case "@odata.nextLink":
                    // The executor saw the URL without the option: put it back for the next page.
                    return (member.key, member.value.stringValue.map { .string($0 + "&$expand=AffectedEntity") } ?? member.value)
                default: return (member.key, member.value)
                }
            }
            return JSONValue.object(try JSONObject(members: members)).serialized()
        }
        return try withAffected(json, set: set, reader: reader).serialized()
    }

    private func withAffected(_ row: JSONValue, set: String, reader: EntityReader) throws(ODataError) -> JSONValue {
        guard case .object(let object) = row, let id = object["RequestID"]?.numberValue.flatMap({ Int64($0.text) }),
              let stored = try reader.entity(in: set, key: [.int64(id)]) else { return row }
        var affected = JSONValue.null
        if let target = try reader.affectedEntity(of: stored) {
            let bytes = try writer.writeEntity(try target.toODataEntity(), entityType: target.info.typeName)
            affected = try JSONReader.parse(bytes)
        }
        return .object(try JSONObject(members: object.map { ($0.key, $0.value) } + [("AffectedEntity", affected)]))
    }
}
