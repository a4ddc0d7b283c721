import OfflineODataModel

/// SAP's offline functions on the current entity (docs/OfflineStore.md §6): Boolean functions
/// without arguments, written namespace-qualified in `$filter`/`$orderby`
/// (`$filter=sap.islocal()`, `not sap.haspendingchanges()`). The parser reads them as a path
/// with one `.function` segment; the binder turns them into `BoundExprKind.localState`, the
/// evaluator asks the instance (`EvaluationInstance.localState()`).
public enum LocalStateFunction: String, Sendable, Hashable, CaseIterable {
    /// The entity was created or changed locally (or its change failed) and not yet confirmed.
    case isLocal = "sap.islocal"
    /// Requests for the entity are waiting in the RequestQueue.
    case hasPendingChanges = "sap.haspendingchanges"
    /// A request of the entity failed and is in the ErrorArchive.
    case inErrorState = "sap.inerrorstate"

    /// The function for a (case-insensitive) qualified name, nil for anything else.
    public init?(name: String) {
        guard let function = LocalStateFunction(rawValue: name.lowercased()) else { return nil }
        self = function
    }
}

/// The local state of one entity as the store knows it.
public struct LocalStateFlags: Sendable, Hashable {
    public var isLocal: Bool
    public var hasPendingChanges: Bool
    public var inErrorState: Bool

    public init(isLocal: Bool, hasPendingChanges: Bool, inErrorState: Bool) {
        self.isLocal = isLocal
        self.hasPendingChanges = hasPendingChanges
        self.inErrorState = inErrorState
    }

    public func value(of function: LocalStateFunction) -> Bool {
        switch function {
        case .isLocal: isLocal
        case .hasPendingChanges: hasPendingChanges
        case .inErrorState: inErrorState
        }
    }
}
