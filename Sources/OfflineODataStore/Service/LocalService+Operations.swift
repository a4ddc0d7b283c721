import OfflineODataModel

/// The changes as steps of a `ServiceTransaction`: each applies the change and queues its
/// request in the same batch.
extension LocalService {
    func create(_ entity: ODataEntity, in set: String, url: String, body: String?, headers: [String: String],
                options: RequestOptions, prefer: String? = nil, tx: inout ServiceTransaction) throws(ODataError) -> ODataResponse {
        let requestID = tx.nextRequestID()
        let (key, _) = try tx.create(entity, in: set, requestID: requestID)
        try tx.enqueue(QueuedRequest(requestID: requestID, status: QueuedRequest.pendingStatus, method: "POST", url: url,
                                     body: body, customHeaders: Self.custom(headers), options: options,
                                     affectedEntitySet: set, affectedEntityKey: try tx.keyText(set, key), serverETag: nil))
        return try entityResponse(set, key, status: 201, tx: tx, requestID: requestID, location: true,
                                  minimal: Self.prefers(prefer, "return=minimal"))
    }

    func change(_ changes: ODataEntity, in set: String, key: [ODataValue], replace: Bool, ifMatch: String?, url: String,
                body: String?, headers: [String: String], options: RequestOptions, prefer: String?,
                tx: inout ServiceTransaction) throws(ODataError) -> ODataResponse {
        let requestID = tx.nextRequestID()
        let (keyBytes, serverETag) = try tx.update(changes, in: set, key: key, replace: replace, ifMatch: ifMatch, requestID: requestID)
        try tx.enqueue(QueuedRequest(requestID: requestID, status: QueuedRequest.pendingStatus,
                                     method: replace ? "PUT" : (version == .v2 ? "MERGE" : "PATCH"), url: url,
                                     body: body, customHeaders: Self.custom(headers), options: options,
                                     affectedEntitySet: set, affectedEntityKey: try tx.keyText(set, keyBytes), serverETag: serverETag))
        var response = try entityResponse(set, keyBytes, status: 200, tx: tx, requestID: requestID, location: false,
                                          minimal: !Self.prefers(prefer, "return=representation"))
        if response.status == 204 { response.headers["Preference-Applied"] = nil }
        return response
    }

    func delete(set: String, key: [ODataValue], ifMatch: String?, url: String, headers: [String: String],
                options: RequestOptions, tx: inout ServiceTransaction) throws(ODataError) -> ODataResponse {
        let requestID = tx.nextRequestID()
        let keyBytes = try tx.keyBytes(set, key)
        let serverETag = try tx.serverETag(set, keyBytes)
        _ = try tx.delete(in: set, key: key, ifMatch: ifMatch, requestID: requestID)
        try tx.enqueue(QueuedRequest(requestID: requestID, status: QueuedRequest.pendingStatus, method: "DELETE", url: url,
                                     body: nil, customHeaders: Self.custom(headers), options: options,
                                     affectedEntitySet: set, affectedEntityKey: try tx.keyText(set, keyBytes), serverETag: serverETag))
        return ODataResponse(status: 204, requestID: requestID)
    }

    func relate(_ set: String, key: [ODataValue], navigation: String, target: EntityRef, remove: Bool,
                headers: [String: String], options: RequestOptions, tx: inout ServiceTransaction) throws(ODataError) -> ODataResponse {
        let requestID = tx.nextRequestID()
        let keyBytes = try tx.keyBytes(set, key)
        let serverETag = try tx.serverETag(set, keyBytes)
        _ = try tx.relate(set, key: key, navigation: navigation, target: target, remove: remove, requestID: requestID)
        let keyText = try tx.keyText(set, keyBytes)
        // URLs: key predicates percent-encoded in the path, the target's URL encoded once
        // more as the `$id` value.
        let targetURL = try tx.entityPath(target.set, target.keyBytes)
        let base = try tx.entityPath(set, keyBytes) + "/" + navigation + "/$ref"
        let isCollection = model.entityType(qualifiedName: try tx.batch.setInfo(set).typeName)
            .flatMap { model.navigationProperty(navigation, of: $0) }?.isCollection ?? true
        let method = remove ? "DELETE" : (isCollection ? "POST" : "PUT")
        let url = remove && isCollection ? base + "?$id=" + URLPercentEncoding.queryValue(targetURL) : base
        let body: String? = remove ? nil
            : String(decoding: JSONValue.object(JSONObject.unique([("@odata.id", .string(targetURL))])).serialized(), as: UTF8.self)
        try tx.enqueue(QueuedRequest(requestID: requestID, status: QueuedRequest.pendingStatus, method: method, url: url,
                                     body: body, customHeaders: Self.custom(headers), options: options,
                                     affectedEntitySet: set, affectedEntityKey: keyText, serverETag: serverETag))
        return ODataResponse(status: 204, requestID: requestID)
    }

    static func custom(_ headers: [String: String]) -> [String: String] {
        let consumed: Set<String> = ["if-match", "prefer", "content-type", "accept", "content-length", "odata-version", "odata-maxversion"]
        return headers.filter {
            let name = $0.key.lowercased()
            return !consumed.contains(name) && !RequestOptions.consumedHeaderNames.contains(name)
        }
    }

    static func prefers(_ prefer: String?, _ token: String) -> Bool {
        guard let prefer else { return false }
        return prefer.lowercased().split(separator: ",").contains { $0.trimmingCharacters == token }
    }
}

extension Substring {
    var trimmingCharacters: String { String(self).trimmingSpaces }
}
