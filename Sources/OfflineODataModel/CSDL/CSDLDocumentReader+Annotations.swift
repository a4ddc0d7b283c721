extension CSDLDocumentReader {
    /// Expression kinds that are constants or paths, written as attribute or element.
    static let constantKinds: Set<String> = [
        "Binary", "Bool", "Date", "DateTimeOffset", "Decimal", "Duration", "EnumMember", "Float",
        "Guid", "Int", "String", "TimeOfDay", "AnnotationPath", "ModelElementPath",
        "NavigationPropertyPath", "PropertyPath", "Path", "UrlRef",
    ]

    /// The `Annotation` children of an element (in any namespace: V2 documents carry V4
    /// annotations).
    func annotations(of element: XMLTreeElement) throws -> [CSDLAnnotation] {
        try element.children.filter { $0.name.local == "Annotation" }.map(annotation)
    }

    /// The annotations of an `<Annotations Target>` element; its `Qualifier`, if any, applies
    /// to each annotation that has none of its own.
    func outOfLineAnnotations(_ element: XMLTreeElement) throws -> [CSDLAnnotation] {
        var result = try annotations(of: element)
        if let qualifier = element.attribute("Qualifier") {
            for i in result.indices where result[i].qualifier == nil {
                result[i].qualifier = qualifier
            }
        }
        return result
    }

    func annotation(_ element: XMLTreeElement) throws -> CSDLAnnotation {
        let term = try required(element, "Term")
        return CSDLAnnotation(term: qualify(term), termAsWritten: term,
                              qualifier: element.attribute("Qualifier"),
                              value: try annotationValue(of: element),
                              annotations: try annotations(of: element),
                              position: CSDLSourcePosition(element))
    }

    /// The value of an `Annotation` or `PropertyValue`: an attribute constant or the first
    /// expression child.
    func annotationValue(of element: XMLTreeElement) throws -> CSDLAnnotationValue {
        for attribute in element.attributes
        where attribute.name.namespace.isEmpty && Self.constantKinds.contains(attribute.name.local) {
            return .constant(kind: attribute.name.local, text: attribute.value)
        }
        for child in element.children where child.name.local != "Annotation" {
            return try expression(child)
        }
        return .empty
    }

    func expression(_ element: XMLTreeElement) throws -> CSDLAnnotationValue {
        let kind = element.name.local
        if Self.constantKinds.contains(kind), element.children.isEmpty {
            return .constant(kind: kind, text: element.text)
        }
        switch kind {
        case "Collection":
            return .collection(try element.children.filter { $0.name.local != "Annotation" }
                .map(expression))
        case "Record":
            var properties: [CSDLPropertyValue] = []
            for child in element.children where child.name.local == "PropertyValue" {
                properties.append(CSDLPropertyValue(
                    property: try required(child, "Property"),
                    value: try annotationValue(of: child)))
            }
            return .record(type: element.attribute("Type").map(qualify), properties: properties)
        default:
            var attributes: [String: String] = [:]
            for attribute in element.attributes where attribute.name.namespace.isEmpty {
                attributes[attribute.name.local] = attribute.value
            }
            return .expression(kind: kind, attributes: attributes, text: element.text,
                               children: try element.children.map(expression))
        }
    }

    /// Replaces aliases in every qualified segment of a target path
    /// (`UI.Foo/Bar`, `Alias.Func(Alias.Type)/Param`).
    func normalizeTarget(_ target: String) -> String {
        ServiceModel.normalizeTarget(target, aliases: aliases)
    }
}

extension ServiceModel {
    static func normalizeTarget(_ target: String, aliases: [String: String]) -> String {
        let segments = target.split(separator: "/", omittingEmptySubsequences: false)
        return segments.map { segment -> String in
            guard let open = segment.firstIndex(of: "(") else {
                return segment.contains(".") ? resolveAlias(String(segment), aliases: aliases)
                    : String(segment)
            }
            let head = resolveAlias(String(segment[..<open]), aliases: aliases)
            let inside = segment[segment.index(after: open)...].dropLast()
            let parameters = inside.split(separator: ",", omittingEmptySubsequences: false).map {
                parameter -> String in
                var text = Substring(parameter)
                if text.hasPrefix("Collection("), text.hasSuffix(")") {
                    text = text.dropFirst(11).dropLast()
                    return "Collection(" + resolveAlias(String(text), aliases: aliases) + ")"
                }
                return resolveAlias(String(text), aliases: aliases)
            }
            return head + "(" + parameters.joined(separator: ",") + ")"
        }.joined(separator: "/")
    }
}
