import OfflineODataModel

/// Evaluates `$search` (docs/Query.md §3.7; URL §5.1.8). Whether an item matches is up to the
/// service; here a term or phrase matches when one of the instance's string properties
/// contains it, ignoring case (both sides lower-cased). `NOT`, `AND` and `OR` combine
/// matches with two-valued logic.
public struct SearchMatcher: Sendable {
    /// The string properties searched, as property steps of the entity type.
    public let properties: [BoundPropertyStep]

    /// Searches the declared `Edm.String` properties of the entity set's (or entity type's)
    /// type, and `Collection(Edm.String)` properties.
    public init(model: ServiceModel, entityType nameOrSet: String) throws(ODataError) {
        let binder = try ExpressionBinder(model: model, entityType: nameOrSet)
        guard let type = model.entityType(qualifiedName: binder.entityType) else {
            throw .bindUnknownEntityType(nameOrSet)
        }
        var steps: [BoundPropertyStep] = []
        for (index, property) in model.allProperties(of: type).enumerated() {
            let bound = binder.boundType(property.type)
            if bound == .string || bound == .collection(of: .string) {
                steps.append(BoundPropertyStep(name: property.name, access: .declared(index: index), type: bound))
            }
        }
        properties = steps
    }

    public init(properties: [BoundPropertyStep]) {
        self.properties = properties
    }

    public func matches(_ search: SyntaxSearch, on instance: any EvaluationInstance) throws(ODataError) -> Bool {
        var texts: [String] = []
        for property in properties {
            switch try instance.value(of: property) {
            case .string(let text)?: texts.append(text.lowercased())
            case .collection(let values)?:
                for case .string(let text) in values { texts.append(text.lowercased()) }
            default: break
            }
        }
        return Self.evaluate(search, texts)
    }

    static func evaluate(_ search: SyntaxSearch, _ texts: [String]) -> Bool {
        switch search {
        case .term(let word), .phrase(let word):
            let needle = word.lowercased()
            if needle.isEmpty { return true }
            return texts.contains { containsScalars($0, needle) }
        case .not(let inner): return !evaluate(inner, texts)
        case .and(let a, let b): return evaluate(a, texts) && evaluate(b, texts)
        case .or(let a, let b): return evaluate(a, texts) || evaluate(b, texts)
        }
    }

    static func containsScalars(_ text: String, _ needle: String) -> Bool {
        LinearSearch.firstScalarOffset(of: needle, in: text) != nil
    }
}
