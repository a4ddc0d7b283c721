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
/// The bytes are either owned (`StoredEntity`) or lent by a scan (`BorrowedEntity`, valid
/// until the next `reset`); a borrowed row is copied only when something needs the whole
/// entity (`entity()`: navigation, the evaluator's fallbacks for dynamic properties).
///
/// A class: an existential of a struct this size would be boxed on the heap at every use; a
/// class reference fits the existential inline, and one instance can be reused for the next
/// candidate (`reset`).
final class StoredInstance: EvaluationInstance {
    private enum Source {
        case owned(StoredEntity)
        case borrowed(BorrowedEntity)
    }

    private var source: Source
    let context: EvaluationContext

    init(_ entity: StoredEntity, context: EvaluationContext) {
        self.source = .owned(entity)
        self.context = context
    }

    /// An instance over borrowed bytes, valid until the next `reset` or the end of the callback.
    init(borrowing row: BorrowedEntity, context: EvaluationContext) {
        self.source = .borrowed(row)
        self.context = context
    }

    /// Points the instance at the next candidate (the scan loop reuses one instance).
    func reset(_ entity: StoredEntity) {
        source = .owned(entity)
    }

    /// Points the instance at borrowed bytes; valid until the next `reset`.
    func reset(borrowing row: BorrowedEntity) {
        source = .borrowed(row)
    }

    /// The entity, copied out of borrowed bytes on first use (the copy is kept for the row).
    func entity() throws(ODataError) -> StoredEntity {
        switch source {
        case .owned(let entity): return entity
        case .borrowed(let row):
            let entity = try row.owned()
            source = .owned(entity)
            return entity
        }
    }

    var typeName: String {
        switch source {
        case .owned(let entity): return entity.typeName
        case .borrowed(let row): return row.typeName
        }
    }

    private var info: SetInfo {
        switch source {
        case .owned(let entity): return entity.info
        case .borrowed(let row): return row.info
        }
    }

    /// The layout index of a declared property when the stored layout still has it there.
    @inline(__always)
    private func layoutIndex(_ property: BoundPropertyStep, _ info: SetInfo) -> Int? {
        guard case .declared(let index) = property.access else { return nil }
        // The binder's index is the model's declaration order; the stored layout equals it
        // unless the metadata changed since the set was created (then look up by name).
        let layout = info.layout.properties
        return index < layout.count && layout[index].name == property.name ? index : nil
    }

    func value(of property: BoundPropertyStep) throws(ODataError) -> ODataValue? {
        switch source {
        case .owned(let entity):
            if let index = layoutIndex(property, entity.info) { return try entity.value(atDeclaredIndex: index) }
            return try entity.value(named: property.name)
        case .borrowed(let row):
            if let index = layoutIndex(property, row.info) ?? row.info.propertyIndex[property.name] {
                // In place when the reader can (no copy of the entity), else decoded from a copy.
                switch try row.info.codec.scalar(at: index, from: row.codec) {
                case nil: return nil
                case .other?: return try row.info.codec.readProperty(at: index, from: row.codec)
                case let scalar?: return scalar.decodedValue
                }
            }
            // Not a declared slot: a dynamic property of the record.
            return try entity().value(named: property.name)
        }
    }

    /// Applies `body` to a declared property read in place (`EncodedScalar`, nil when absent).
    /// Returns nil without calling `body` when the property is not a declared slot of the
    /// stored layout (the caller then uses `value(of:)`).
    func withScalar<R>(_ property: BoundPropertyStep, _ body: (EncodedScalar?) -> R) throws(ODataError) -> R? {
        let info = self.info
        guard let index = layoutIndex(property, info) else { return nil }
        switch source {
        case .borrowed(let row):
            return body(try info.codec.scalar(at: index, from: row.codec))
        case .owned(let entity):
            let result: Result<R, ODataError> = entity.bytes.withUnsafeBytes { raw in
                do throws(ODataError) {
                    return .success(body(try info.codec.scalar(at: index, from: raw)))
                } catch {
                    return .failure(error)
                }
            }
            return try result.get()
        }
    }

    /// Compares the encoded key with `other` (-1, 0, 1), without copying borrowed bytes.
    func compareKey(_ other: [UInt8]) -> Int {
        switch source {
        case .owned(let entity): return Self.compareBytes(entity.keyBytes, other)
        case .borrowed(let row): return Self.compareBytes(row.key, other)
        }
    }

    static func compareBytes<A: Collection<UInt8>>(_ a: A, _ b: [UInt8]) -> Int {
        if a.lexicographicallyPrecedes(b) { return -1 }
        return a.elementsEqual(b) ? 0 : 1
    }

    func navigate(_ navigation: BoundNavigationStep) throws(ODataError) -> EvaluationNavigation {
        let entity = try entity()
        var cursor = try context.reader.navigationTargets(from: entity, navigation: navigation.name)
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
        let entity = try entity()
        var cursor = try context.reader.navigationTargets(from: entity, navigation: navigation.name)
        var count = 0
        while try cursor.next() != nil { count += 1 }
        return count
    }
}

extension StoredInstance {
    /// `sap.islocal()` & co. from the stored flags (docs/LocalService.md §6).
    func localState() throws(ODataError) -> LocalStateFlags? {
        let state: LocalEntityState
        switch source {
        case .owned(let entity): state = entity.localState
        case .borrowed(let row): state = LocalEntityState(flags: row.flags)
        }
        return LocalStateFlags(isLocal: state.isLocal, hasPendingChanges: state.hasPendingChanges, inErrorState: state.inErrorState)
    }
}
