import OfflineODataModel

/// In-memory entities: properties by name (the declared index is not used), navigation from
/// expanded content (`.entity` / `.entities`); deferred or bind-only navigation counts as
/// absent (null / empty).
extension ODataEntity: EvaluationInstance {
    public func value(of property: BoundPropertyStep) throws(ODataError) -> ODataValue? {
        self[property: property.name]
    }

    public func navigate(_ navigation: BoundNavigationStep) throws(ODataError) -> EvaluationNavigation {
        switch self.navigation(navigation.name)?.content {
        case .entity(let target)?: return .single(target)
        case .entities(let targets, _, _)?: return .many(targets)
        default: return navigation.isCollection ? .many([]) : .single(nil)
        }
    }
}

/// A complex value as an instance (elements of complex collections in lambdas, `$it` of a
/// complex collection). `ODataComplexValue` cannot conform itself: its `typeName` is optional.
public struct ComplexValueInstance: EvaluationInstance, Sendable, Hashable {
    public var value: ODataComplexValue
    /// The value's own type name, else the declared one.
    public var typeName: String

    public init(_ value: ODataComplexValue, declaredType: String = "") {
        self.value = value
        self.typeName = value.typeName ?? declaredType
    }

    public func value(of property: BoundPropertyStep) throws(ODataError) -> ODataValue? {
        value[property.name]
    }

    public func navigate(_ navigation: BoundNavigationStep) throws(ODataError) -> EvaluationNavigation {
        throw .evalNotSupported("navigation property '\(navigation.name)' of a complex value", at: 0)
    }
}

extension ODataComplexValue {
    /// This value as an evaluation instance.
    public var evaluationInstance: ComplexValueInstance { ComplexValueInstance(self) }
}
