import OfflineODataModel

extension ServiceTransaction {
    /// Reverts entities to their server images (docs/LocalService.md §2.6): the closure of the
    /// given entities and requests — every queued or archived request affecting a reverted
    /// entity, the request that created it, and every entity first changed by a reverted
    /// request — then restores each image (server version back, local creation removed) and
    /// removes the requests from RequestQueue and ErrorArchive. Returns what was reverted.
    @discardableResult
    mutating func revert(entities start: [EntityRef], requests startRequests: Set<Int64>) throws(ODataError)
        -> (entities: [EntityRef], requests: [Int64]) {
        var affected: [Int64: EntityRef] = [:]
        // Actions name no entity: reverted only when named themselves.
        for request in try queuedRequests() where !request.isAction {
            affected[request.requestID] = EntityRef(set: request.affectedEntitySet,
                                                    keyBytes: try keyBytes(request.affectedEntitySet, predicate: request.affectedEntityKey))
        }
        for entry in try archiveEntries() where !entry.affectedEntitySet.isEmpty {
            affected[entry.requestID] = EntityRef(set: entry.affectedEntitySet,
                                                  keyBytes: try keyBytes(entry.affectedEntitySet, predicate: entry.affectedEntityKey))
        }
        var images: [EntityRef: ServerImage] = [:]
        for (key, value) in try batch.allRecords(in: try batch.systemTreeHandle(ServiceFormat.imageTree)) {
            guard let (set, keyBytes) = ServiceFormat.splitImageKey(key) else {
                throw .queueCorrupted("odata.s.image", "a key without its set name")
            }
            images[EntityRef(set: set, keyBytes: keyBytes)] = try ServerImage.decode(value, what: "server image of \(set)")
        }
        // A contained entity goes with its container (docs/StoreFormat.md §2.1): reverting the
        // container's creation or deletion reverts what was created or deleted inside it.
        var containers: [EntityRef: EntityRef] = [:]
        for ref in images.keys {
            guard let containment = try batch.setInfo(ref.set).containment else { continue }
            let values = try OrderedKeyEncoding.decode(ref.keyBytes)
            let outer = Array(values.prefix(containment.containerKeyCount))
            containers[ref] = EntityRef(set: containment.parentSet,
                                        keyBytes: try EntityStorage.encodeKey(outer, info: try batch.setInfo(containment.parentSet)))
        }
        var entities = Set(start)
        var requests = startRequests
        var changed = true
        while changed {
            changed = false
            for (ref, container) in containers where entities.contains(container) && !entities.contains(ref) {
                entities.insert(ref)
                changed = true
            }
            for (id, ref) in affected {
                if entities.contains(ref), !requests.contains(id) { requests.insert(id); changed = true }
                if requests.contains(id), !entities.contains(ref) { entities.insert(ref); changed = true }
            }
            for (ref, image) in images {
                if requests.contains(image.firstRequestID), !entities.contains(ref) { entities.insert(ref); changed = true }
                if entities.contains(ref), image.kind == ServiceFormat.kindCreated, !requests.contains(image.firstRequestID) {
                    requests.insert(image.firstRequestID)
                    changed = true
                }
            }
        }
        let ordered = entities.sorted()
        // Local creations go first (children before parents would not matter: deletes drop links).
        for ref in ordered {
            guard let image = images[ref] else { continue }
            if image.kind == ServiceFormat.kindCreated {
                _ = try batch.delete(keyBytes: ref.keyBytes, in: ref.set)
            }
        }
        for ref in ordered {
            guard let image = images[ref] else { continue }
            if image.kind == ServiceFormat.kindServer, image.deletedOnServer {
                // The back end deleted it meanwhile: nothing to return to.
                _ = try batch.delete(keyBytes: ref.keyBytes, in: ref.set)
            } else if image.kind == ServiceFormat.kindServer {
                try batch.restore(ref.set, keyBytes: ref.keyBytes, stored: image.newest)
                // A stream written locally replaced the back end's, which is not kept: it goes,
                // and the next download brings the back end's again (docs/StoreFormat.md §11).
                if try batch.setInfo(ref.set).hasStreams {
                    for (property, info) in try batch.mediaOfEntity(set: ref.set, keyBytes: ref.keyBytes) where info.isLocal {
                        try batch.removeMedia(set: ref.set, keyBytes: ref.keyBytes, property: property)
                    }
                }
            }
            try dropImage(ref.set, ref.keyBytes)
        }
        // Recorded links back as they were (after every entity is back).
        for ref in ordered {
            guard let image = images[ref], image.kind == ServiceFormat.kindServer, !image.deletedOnServer else { continue }
            for (navigation, plan) in batch.navigationPlans(of: ref.set) {
                guard case .link(_, let forward, _, _, _) = plan else { continue }
                for target in try batch.suffixes(in: forward, prefix: ref.keyBytes) {
                    try batch.unlinkRecorded(ref.set, navigation, ref.keyBytes, target)
                }
            }
            let key = try OrderedKeyEncoding.decode(ref.keyBytes)
            for link in image.links {
                try batch.link(from: ref.set, key: key, navigation: link.navigation, to: try OrderedKeyEncoding.decode(link.targetKey))
            }
        }
        let ids = requests.sorted()
        for id in ids {
            queuedAfterSnapshot = nil   // the queue changes: the memo of its tail goes
            _ = try batch.delete(key: [.int64(id)], in: OfflineSystemSets.requestQueue)
            _ = try batch.delete(key: [.int64(id)], in: OfflineSystemSets.errorArchive)
        }
        return (ordered.filter { images[$0] != nil || affected.values.contains($0) }, ids)
    }

    /// Moves a queued request to the ErrorArchive; its entity gets `.inError` (and loses
    /// `.pending` when no other request of it is queued).
    mutating func markFailed(requestID: Int64, httpStatus: Int, code: String?, message: String?, innerError: String?,
                             domain: String?) throws(ODataError) -> ErrorArchiveEntry {
        guard (100...599).contains(httpStatus) else {
            throw .queueInvalidFailure("HTTP status \(httpStatus) is not in 100…599")
        }
        let key = try keyBytes(OfflineSystemSets.requestQueue, [.int64(requestID)])
        guard let stored = try batch.storedEntity(OfflineSystemSets.requestQueue, keyBytes: key) else {
            throw .queueRequestNotFound(OfflineSystemSets.requestQueue, requestID)
        }
        let request = try QueuedRequest(stored: stored)
        let entry = ErrorArchiveEntry(failed: request, httpStatusCode: httpStatus, code: code, message: message,
                                      innerError: innerError, domain: domain)
        queuedAfterSnapshot = nil   // the queue changes: the memo of its tail goes
        _ = try batch.delete(keyBytes: key, in: OfflineSystemSets.requestQueue)
        try batch.put(entry.entity(), in: OfflineSystemSets.errorArchive)
        if request.isAction { return entry }  // no entity to mark
        let entityKey = try keyBytes(request.affectedEntitySet, predicate: request.affectedEntityKey)
        if let meta = try batch.storedMeta(request.affectedEntitySet, keyBytes: entityKey) {
            let stillQueued = try queuedRequests().contains {
                $0.affectedEntitySet == request.affectedEntitySet && $0.affectedEntityKey == request.affectedEntityKey
            }
            var flags = meta.flags.union(.inError)
            if !stillQueued { flags.remove(.pending) }
            try batch.restamp(request.affectedEntitySet, keyBytes: entityKey, etag: meta.etag, flags: flags)
        }
        return entry
    }
}

extension ServiceTransaction {
    /// A download found the back end no longer has this entity, which local changes keep:
    /// its server image remembers it (undo and revert then remove the entity).
    mutating func markDeletedOnServer(_ set: String, _ keyBytes: [UInt8]) throws(ODataError) {
        guard var image = try image(set, keyBytes), image.kind == ServiceFormat.kindServer, !image.deletedOnServer else { return }
        image.deletedOnServer = true
        image.fresh = nil
        try putImage(set, keyBytes, image)
    }
}
