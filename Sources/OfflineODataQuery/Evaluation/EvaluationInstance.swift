import OfflineODataModel

/// An instance that `Evaluator` can read while filtering or sorting (docs/Query.md §3.1):
/// an entity of the store (which reads single properties straight out of its encoded bytes
/// by `BoundPropertyStep.declaredIndex`, and follows navigation through its indexes), an
/// in-memory `ODataEntity`, or a complex value.
public protocol EvaluationInstance {
    /// Namespace-qualified type name of the instance (the most derived type).
    var typeName: String { get }

    /// The value of a structural property; nil when absent (evaluates to null). For
    /// `.declared(index)` the index is the position in `ServiceModel.allProperties(of:)` of
    /// the entity type the binder saw (base-type properties come first, so it is valid for
    /// derived instances too). Complex values are returned whole (`.complex`); the evaluator
    /// reads their members.
    func value(of property: BoundPropertyStep) throws(ODataError) -> ODataValue?

    /// Follows a navigation property.
    func navigate(_ navigation: BoundNavigationStep) throws(ODataError) -> EvaluationNavigation

    /// The number of related instances, when it is cheaper than `navigate` (an index count);
    /// nil lets the evaluator navigate and count. Only asked for `Nav/$count` without filter.
    func navigationCount(_ navigation: BoundNavigationStep) throws(ODataError) -> Int?

    /// The local state for `sap.islocal()` & co. (docs/OfflineStore.md §6); nil (the default)
    /// for instances that have none (in-memory entities, complex values): the functions are false.
    func localState() throws(ODataError) -> LocalStateFlags?
}

extension EvaluationInstance {
    public func navigationCount(_ navigation: BoundNavigationStep) throws(ODataError) -> Int? { nil }
    public func localState() throws(ODataError) -> LocalStateFlags? { nil }
}

/// The result of following a navigation property.
public enum EvaluationNavigation {
    /// Single-valued: the target, or nil when there is none (the path is then null).
    case single((any EvaluationInstance)?)
    /// Collection-valued.
    case many([any EvaluationInstance])
}

/// Resolves `$root/Set(key)` paths for the evaluator (the store implements it).
public protocol EvaluationRootResolver {
    func entity(set: String, entityType: String, key: [ODataValue]) throws(ODataError) -> (any EvaluationInstance)?
}
