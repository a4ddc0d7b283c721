import OfflineODataModel
import OfflineODataQuery

/// What the evaluator needs to follow navigation from stored entities: the snapshot and the model.
/// A class so that instances and the evaluator share it by reference (one retain, no copies of
/// the reader's catalog and snapshot per row).
final class EvaluationContext: EvaluationRootResolver, @unchecked Sendable {
    let reader: EntityReader
    let model: ServiceModel

    init(reader: EntityReader, model: ServiceModel) {
        self.reader = reader
        self.model = model
    }

    func entity(set: String, entityType: String, key: [ODataValue]) throws(ODataError) -> (any EvaluationInstance)? {
        guard let stored = try reader.entity(in: set, key: key) else { return nil }
        return StoredInstance(stored, context: self)
    }
}

/// A stored entity as the evaluator sees it: single properties are read straight out of the
/// encoded bytes by their declared index (no full decode), navigation goes through the
/// store's navigation indexes and links.
///
/// A class: an existential of a struct this size would be boxed on the heap at every use; a
/// class reference fits the existential inline, and one instance can be reused for the next
/// candidate (`reset`).
final class StoredInstance: EvaluationInstance {
    private(set) var entity: StoredEntity
    let context: EvaluationContext

    init(_ entity: StoredEntity, context: EvaluationContext) {
        self.entity = entity
        self.context = context
    }

    /// Points the instance at the next candidate (the scan loop reuses one instance).
    func reset(_ entity: StoredEntity) {
        self.entity = entity
    }

    var typeName: String { entity.typeName }

    func value(of property: BoundPropertyStep) throws(ODataError) -> ODataValue? {
        switch property.access {
        case .declared(let index):
            // The binder's index is the model's declaration order; the stored layout equals it
            // unless the metadata changed since the set was created (then look up by name).
            let layout = entity.layout.properties
            if index < layout.count, layout[index].name == property.name {
                return try entity.value(atDeclaredIndex: index)
            }
            return try entity.value(named: property.name)
        case .complex, .dynamic:
            return try entity.value(named: property.name)
        }
    }

    func navigate(_ navigation: BoundNavigationStep) throws(ODataError) -> EvaluationNavigation {
        var cursor = try context.reader.navigationTargets(from: entity.entitySet, key: try entity.key(), navigation: navigation.name)
        var targets: [any EvaluationInstance] = []
        while let key = try cursor.next() {
            if let target = try context.reader.entity(in: cursor.targetSet, keyBytes: key) {
                targets.append(StoredInstance(target, context: context))
            }
        }
        if navigation.isCollection { return .many(targets) }
        return .single(targets.first)
    }

    func navigationCount(_ navigation: BoundNavigationStep) throws(ODataError) -> Int? {
        var cursor = try context.reader.navigationTargets(from: entity.entitySet, key: try entity.key(), navigation: navigation.name)
        var count = 0
        while try cursor.next() != nil { count += 1 }
        return count
    }
}

extension StoredInstance {
    /// `sap.islocal()` & co. from the stored flags (docs/LocalService.md §6).
    func localState() throws(ODataError) -> LocalStateFlags? {
        let state = entity.localState
        return LocalStateFlags(isLocal: state.isLocal, hasPendingChanges: state.hasPendingChanges, inErrorState: state.inErrorState)
    }
}
