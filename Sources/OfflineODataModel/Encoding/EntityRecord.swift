/// The values of one entity, laid out by an `EntityLayout`.
public struct EntityRecord: Sendable, Hashable {
    /// One slot per declared property: nil = absent (not known, e.g. not selected),
    /// `.null` = known to be null.
    public var values: [ODataValue?]
    /// Properties not in the layout (dynamic properties of open types), in order.
    public var dynamicProperties: [ODataProperty]

    public init(values: [ODataValue?], dynamicProperties: [ODataProperty] = []) {
        self.values = values
        self.dynamicProperties = dynamicProperties
    }

    /// Representation equality (see `ODataValue.isIdentical`).
    public func isIdentical(to other: EntityRecord) -> Bool {
        values.count == other.values.count
            && zip(values, other.values).allSatisfy { left, right in
                switch (left, right) {
                case (nil, nil): return true
                case let (l?, r?): return l.isIdentical(to: r)
                default: return false
                }
            }
            && dynamicProperties.count == other.dynamicProperties.count
            && zip(dynamicProperties, other.dynamicProperties).allSatisfy {
                $0.name == $1.name && $0.value.isIdentical(to: $1.value)
            }
    }
}
