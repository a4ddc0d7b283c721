extension ODataJSONReader {
    /// Checks an entity against its declared type's facets, which reading deliberately does not
    /// enforce on server data: `Nullable="false"` (on values built in code), `MaxLength` (strings in
    /// Unicode scalars, binaries in bytes), `Precision`/`Scale` of decimals, value kinds that do
    /// not match the declared type, and missing key properties. Expanded entities, complex values
    /// and collections are checked too. Each finding is a `facetViolation` (1270) whose
    /// location is the JSON path of the value; an empty result means valid.
    public func validate(entity: ODataEntity) -> [ODataError] {
        var issues: [ODataError] = []
        guard let plan = decoder.plans.plan(entity.typeName), plan.isEntity else {
            return [ODataJSONErrorKind.facetViolation.error("entity type \(entity.typeName) is not in the model", location: "$")]
        }
        validate(entity, plan: plan, path: [], into: &issues)
        return issues
    }

    private func validate(_ entity: ODataEntity, plan: ODataStructuredPlan, path: [JSONPathComponent],
                          into issues: inout [ODataError]) {
        for keyName in plan.keyNames where entity[property: keyName] == nil {
            issues.append(ODataJSONErrorKind.facetViolation.error(
                "\(plan.qualifiedName) entity without its key property \"\(keyName)\"", location: JSONPath.render(path)))
        }
        validateProperties(entity.properties, plan: plan, path: path, into: &issues)
        for navigation in entity.navigation {
            guard let index = plan.index[navigation.name], case .navigation(_, let target, _) = plan.members[index],
                  let targetPlan = decoder.plans.plan(target) else { continue }
            let navPath = path + [.key(navigation.name)]
            switch navigation.content {
            case .entity(let inner?):
                validate(inner, plan: decoder.plans.plan(inner.typeName) ?? targetPlan, path: navPath, into: &issues)
            case .entities(let list, _, _):
                for (i, inner) in list.enumerated() {
                    validate(inner, plan: decoder.plans.plan(inner.typeName) ?? targetPlan, path: navPath + [.index(i)], into: &issues)
                }
            default: break
            }
        }
    }

    private func validateProperties(_ properties: [ODataProperty], plan: ODataStructuredPlan,
                                    path: [JSONPathComponent], into issues: inout [ODataError]) {
        for property in properties {
            guard let index = plan.index[property.name], case .property(let declared) = plan.members[index] else {
                if !plan.isOpen {
                    issues.append(ODataJSONErrorKind.facetViolation.error(
                        "\(plan.qualifiedName) has no property \"\(property.name)\" and is not open",
                        location: JSONPath.render(path + [.key(property.name)])))
                }
                continue
            }
            let propertyPath = path + [.key(property.name)]
            if declared.isCollection, case .collection(let elements) = property.value {
                for (i, element) in elements.enumerated() {
                    validateValue(element, declared, path: propertyPath + [.index(i)], into: &issues)
                }
            } else if declared.isCollection, !property.value.isNull {
                issues.append(violation("a collection is declared, found a single value", propertyPath))
            } else {
                validateValue(property.value, declared, path: propertyPath, into: &issues)
            }
        }
    }

    private func violation(_ message: String, _ path: [JSONPathComponent]) -> ODataError {
        ODataJSONErrorKind.facetViolation.error(message, location: JSONPath.render(path))
    }

    private func validateValue(_ value: ODataValue, _ declared: ODataPropertyPlan, path: [JSONPathComponent],
                               into issues: inout [ODataError]) {
        let facets = declared.declaration
        switch (declared.type, value) {
        case (_, .null):
            if !declared.isNullable { issues.append(violation("null for a non-nullable property", path)) }
        case (.primitive(.string), .string(let text)):
            if case .length(let maxLength)? = facets.maxLength, text.unicodeScalars.count > maxLength {
                issues.append(violation("\(text.unicodeScalars.count) characters exceed MaxLength \(maxLength)", path))
            }
        case (.primitive(.binary), .binary(let bytes)):
            if case .length(let maxLength)? = facets.maxLength, bytes.count > maxLength {
                issues.append(violation("\(bytes.count) bytes exceed MaxLength \(maxLength)", path))
            }
        case (.primitive(.decimal), .decimal(let decimal)):
            if case .digits(let scale)? = facets.scale, decimal.scale > scale {
                issues.append(violation("\(decimal) has \(decimal.scale) fraction digits, Scale is \(scale)", path))
            }
            if let precision = facets.precision {
                let integerDigits = max(0, decimal.digitCount - decimal.scale)
                let allowedInteger = precision - {
                    if case .digits(let scale)? = facets.scale { return scale }
                    return 0
                }()
                if integerDigits > allowedInteger || max(decimal.digitCount, decimal.scale) > precision {
                    issues.append(violation("\(decimal) exceeds Precision \(precision)", path))
                }
            }
        case (.primitive(let kind), _):
            if value.kind != kind, !(kind == .untyped) {
                issues.append(violation("a \(value.kind?.rawValue ?? "structured") value for a \(kind.rawValue) property", path))
            }
        case (.enumeration(let name), .enumValue(let enumValue)):
            if let typeName = enumValue.typeName, typeName != name {
                issues.append(violation("a \(typeName) value for a \(name) property", path))
            }
        case (.enumeration(let name), _):
            issues.append(violation("a non-enum value for a \(name) property", path))
        case (.complex(let name), .complex(let complex)):
            let plan = complex.typeName.flatMap { decoder.plans.plan($0) } ?? decoder.plans.plan(name)
            if let plan {
                if !plan.lineage.contains(name) {
                    issues.append(violation("a \(plan.qualifiedName) value for a \(name) property", path))
                }
                validateProperties(complex.properties, plan: plan, path: path, into: &issues)
            }
        case (.complex(let name), _):
            issues.append(violation("a non-complex value for a \(name) property", path))
        case (.untyped, _):
            break
        }
    }
}
