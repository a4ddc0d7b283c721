/// One annotation: a term applied to a model element, with an optional qualifier and a value.
public struct CSDLAnnotation: Sendable, Hashable {
    /// The term, namespace-qualified (aliases such as `UI.` or `Core.` are replaced by the
    /// namespace they stand for when the document declares them).
    public var term: String
    /// The term exactly as written in the document.
    public var termAsWritten: String
    public var qualifier: String?
    public var value: CSDLAnnotationValue
    /// Annotations of this annotation (e.g. `UI.TextArrangement` inside `Common.Text`).
    public var annotations: [CSDLAnnotation]
    public var position: CSDLSourcePosition

    public init(term: String, termAsWritten: String? = nil, qualifier: String? = nil,
                value: CSDLAnnotationValue, annotations: [CSDLAnnotation] = [],
                position: CSDLSourcePosition) {
        self.term = term
        self.termAsWritten = termAsWritten ?? term
        self.qualifier = qualifier
        self.value = value
        self.annotations = annotations
        self.position = position
    }

    /// The term with `#qualifier` when qualified, e.g. `com.sap.vocabularies.UI.v1.LineItem#Short`.
    public var termWithQualifier: String {
        guard let qualifier else { return term }
        return term + "#" + qualifier
    }
}

/// An annotation's value kept as a small tree of raw text (no evaluation).
public indirect enum CSDLAnnotationValue: Sendable, Hashable {
    /// No value given (for Boolean terms this means `true`).
    case empty
    /// A constant or path expression given as attribute (`String="USD"`) or element
    /// (`<String>USD</String>`): the expression kind (`String`, `Bool`, `Int`, `EnumMember`,
    /// `Path`, `PropertyPath`, ...) and the raw text.
    case constant(kind: String, text: String)
    case collection([CSDLAnnotationValue])
    case record(type: String?, properties: [CSDLPropertyValue])
    /// Any other expression element (`Apply`, `If`, `Null`, `LabeledElement`, ...), kept raw.
    case expression(kind: String, attributes: [String: String], text: String,
                    children: [CSDLAnnotationValue])

    /// The raw text of a constant, nil for other shapes.
    public var text: String? {
        if case let .constant(_, text) = self { return text }
        return nil
    }

    /// The elements of a collection, nil for other shapes.
    public var items: [CSDLAnnotationValue]? {
        if case let .collection(items) = self { return items }
        return nil
    }

    /// The value of a record's property, nil when absent or not a record.
    public func property(_ name: String) -> CSDLAnnotationValue? {
        guard case let .record(_, properties) = self else { return nil }
        return properties.first { $0.property == name }?.value
    }
}

/// One `PropertyValue` of a record expression.
public struct CSDLPropertyValue: Sendable, Hashable {
    public var property: String
    public var value: CSDLAnnotationValue

    public init(property: String, value: CSDLAnnotationValue) {
        self.property = property
        self.value = value
    }
}
