import OfflineODataModel

extension EntityReader {
    /// The entity a RequestQueue or ErrorArchive row names (`AffectedEntitySet` +
    /// `AffectedEntityKey`), for `$expand=AffectedEntity` (docs/LocalService.md §4.4). Nil when
    /// the row is not such a row or the entity no longer exists locally (a deletion).
    public func affectedEntity(of row: StoredEntity) throws(ODataError) -> StoredEntity? {
        guard row.entitySet == OfflineSystemSets.requestQueue || row.entitySet == OfflineSystemSets.errorArchive,
              case .string(let set)? = try row.value(named: "AffectedEntitySet"),
              case .string(let predicate)? = try row.value(named: "AffectedEntityKey"), !set.isEmpty else { return nil }
        let info = try catalog.set(set)
        let keys = info.keyProperties
        // The predicate as the store wrote it: V4 literals, or V2's for a V2 service (`guid'…'`).
        let values: [ODataValue]
        if let v4 = try? KeyPredicate.parse(predicate, keys: keys) { values = v4 } else {
            values = try KeyPredicate.parse(predicate, keys: keys, version: .v2)
        }
        return try entity(in: set, key: values)
    }
}

/// Instance annotations of the local state (SAP vocabulary `com.sap.vocabularies.Offline.v1`).
public enum LocalStateAnnotation {
    public static let namespace = "com.sap.vocabularies.Offline.v1"
    public static let isLocal = namespace + ".islocal"
    public static let hasPendingChanges = namespace + ".haspendingchanges"
    public static let inErrorState = namespace + ".inerrorstate"
}

extension ODataEntity {
    /// The entity with `@com.sap.vocabularies.Offline.v1.islocal` (and, when asked,
    /// `haspendingchanges` / `inerrorstate`) instance annotations set from `state`. Existing
    /// annotations with these terms are replaced.
    public func annotatingLocalState(_ state: LocalEntityState, all: Bool = false) -> ODataEntity {
        var copy = self
        let terms = [LocalStateAnnotation.isLocal, LocalStateAnnotation.hasPendingChanges, LocalStateAnnotation.inErrorState]
        copy.annotations.removeAll { $0.target == nil && terms.contains($0.term) }
        copy.annotations.append(ODataAnnotation(term: LocalStateAnnotation.isLocal, value: .bool(state.isLocal)))
        if all {
            copy.annotations.append(ODataAnnotation(term: LocalStateAnnotation.hasPendingChanges, value: .bool(state.hasPendingChanges)))
            copy.annotations.append(ODataAnnotation(term: LocalStateAnnotation.inErrorState, value: .bool(state.inErrorState)))
        }
        return copy
    }
}
