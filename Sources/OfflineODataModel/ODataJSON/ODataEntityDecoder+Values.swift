extension ODataEntityDecoder {
    // MARK: Properties

    @inline(__always)
    func decodeProperty(_ value: JSONValue, _ property: ODataPropertyPlan, depth: Int) throws(Failure) -> ODataValue {
        if case .null = value {
            guard property.isNullable || property.isCollection else {
                throw Failure(.nullNotAllowed, "property \(property.name) is not nullable")
            }
            return .null
        }
        if property.isCollection {
            return try decodeCollection(value, type: property.type, elementsNullable: property.isNullable, depth: depth)
        }
        return try decodeSingle(value, type: property.type, depth: depth)
    }

    func decodeCollection(_ value: JSONValue, type: ODataValueType, elementsNullable: Bool,
                          depth: Int) throws(Failure) -> ODataValue {
        var elements: [JSONValue] = []
        switch value {
        case .array(let array): elements = array
        case .object(let object):
            // V2 verbose: {"__metadata":{…},"results":[…]}.
            if case .array(let array)? = object["results"] { elements = array; break }
            throw Failure(.invalidPropertyValue, "expected a collection (a JSON array), found \(ODataJSONText.describe(value))")
        default:
            throw Failure(.invalidPropertyValue, "expected a collection (a JSON array), found \(ODataJSONText.describe(value))")
        }
        var result: [ODataValue] = []
        result.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            do throws(Failure) {
                if case .null = element {
                    guard elementsNullable else { throw Failure(.nullNotAllowed, "collection elements are not nullable") }
                    result.append(.null)
                } else {
                    result.append(try decodeSingle(element, type: type, depth: depth))
                }
            } catch {
                throw error.adding(.index(index))
            }
        }
        return .collection(result)
    }

    func decodeSingle(_ value: JSONValue, type: ODataValueType, depth: Int) throws(Failure) -> ODataValue {
        switch type {
        case .primitive(let kind): return try decodePrimitive(value, kind: kind)
        case .enumeration(let name): return try decodeEnum(value, typeName: name)
        case .complex(let name):
            guard case .object(let object) = value else {
                throw Failure(.invalidPropertyValue, "expected a \(name) value (a JSON object), found \(ODataJSONText.describe(value))")
            }
            return .complex(try decodeComplex(object, declared: plans.plan(name), depth: depth + 1))
        case .untyped: return try decodeInferred(value, depth: depth)
        }
    }

    // MARK: Primitives

    func decodePrimitive(_ value: JSONValue, kind: EdmPrimitiveKind) throws(Failure) -> ODataValue {
        // Fast paths for the most common kinds; everything else goes through the value layer.
        switch (kind, value) {
        case (.string, .string(let text)): return .string(text)
        case (.string, .number(let number)) where version == .v2:
            // Seen in SAP-published V2 data: an Edm.String property sent as a JSON number.
            return .string(number.text)
        case (.boolean, .bool(let flag)): return .boolean(flag)
        case (.int32, .number(let number)):
            if let parsed = Int32(number.text) { return .int32(parsed) }
        case (.int64, .number(let number)):
            if let parsed = Int64(number.text) { return .int64(parsed) }
        case (.int16, .number(let number)):
            if let parsed = Int16(number.text) { return .int16(parsed) }
        case (.byte, .number(let number)):
            if let parsed = UInt8(number.text) { return .byte(parsed) }
        case (.decimal, .number(let number)):
            // The JSON reader has already checked the number grammar.
            if let parsed = try? EdmDecimal.parse(number.text) { return .decimal(parsed) }
        default: break
        }
        do throws(ODataError) {
            switch value {
            case .string(let text): return try ODataValue.fromJSONString(text, as: kind, version: version)
            case .number(let number): return try ODataValue.fromJSONNumber(rawText: number.text, as: kind, version: version)
            case .bool(let flag): return try ODataValue.fromJSONBool(flag, as: kind)
            case .object where kind.isGeo:
                let text = String(decoding: value.serialized(), as: UTF8.self)
                _ = try GeoShape.parseGeoJSON(text)
                return .geo(try EdmGeo(kind: kind, geoJSON: text))
            default:
                throw ODataError(.invalidInput, name: "jsonTypeMismatch", code: 1306,
                                 message: "a JSON \(value.arrayValue != nil ? "array" : "object") cannot represent \(kind.rawValue)")
            }
        } catch {
            throw Failure(.invalidPropertyValue,
                          "\(ODataJSONText.describe(value)) is not a valid \(kind.rawValue) value: \(error.message) (\(error.name) \(error.code))")
        }
    }

    // MARK: Enums

    func decodeEnum(_ value: JSONValue, typeName: String) throws(Failure) -> ODataValue {
        let plan = plans.enums[typeName]
        do {
            switch value {
            case .string(let text):
                guard let plan else { return .enumValue(try EdmEnumValue(typeName: typeName, memberText: text)) }
                var members: [String] = []
                var number: Int64 = 0
                for part in text.split(separator: ",", omittingEmptySubsequences: false) {
                    let name = part.drop { $0 == " " }
                    if let index = plan.names.firstIndex(where: { $0 == name }) {
                        members.append(plan.names[index])
                        number |= plan.values[index]
                    } else if let numeric = Int64(name) {
                        members.append(String(numeric))
                        number |= numeric
                    } else {
                        throw Failure(.invalidPropertyValue, "\"\(ODataJSONText.clip(text))\" is not a member of \(typeName)")
                    }
                }
                guard members.count == 1 || plan.isFlags else {
                    throw Failure(.invalidPropertyValue, "\"\(ODataJSONText.clip(text))\": \(typeName) is not a flags enum")
                }
                return .enumValue(try EdmEnumValue(typeName: typeName, members: members, numericValue: number))
            case .number(let raw):
                guard let number = raw.int64Value else {
                    throw Failure(.invalidPropertyValue, "\(raw.text) is not an integer value of \(typeName)")
                }
                if let plan, let index = plan.values.firstIndex(of: number) {
                    return .enumValue(try EdmEnumValue(typeName: typeName, members: [plan.names[index]], numericValue: number))
                }
                return .enumValue(try EdmEnumValue(typeName: typeName, members: [String(number)], numericValue: number))
            default:
                throw Failure(.invalidPropertyValue, "expected a \(typeName) member name or number, found \(ODataJSONText.describe(value))")
            }
        } catch let error as Failure {
            throw error
        } catch {
            throw Failure(.invalidPropertyValue, "\(ODataJSONText.describe(value)) is not a valid \(typeName) value: \(error)")
        }
    }

    // MARK: Complex values

    func decodeComplex(_ object: JSONObject, declared: ODataStructuredPlan?, depth: Int) throws(Failure) -> ODataComplexValue {
        guard depth < options.maxNesting else {
            throw Failure(.nestingTooDeep, "entities and complex values nested deeper than \(options.maxNesting) levels")
        }
        let keys = object.keys
        let values = object.values
        var plan = declared
        var typeName = declared?.qualifiedName
        for (i, key) in keys.enumerated() where key == "@odata.type" || key == "@type" || key == "__metadata" {
            var typeValue = values[i]
            if key == "__metadata" {
                guard case .object(let metadata) = values[i], let inner = metadata["type"] else { continue }
                typeValue = inner
            }
            do throws(Failure) {
                guard case .string(let text) = typeValue else {
                    throw Failure(.invalidControlInformation, "a type name must be a string, found \(ODataJSONText.describe(typeValue))")
                }
                let name = text.hasPrefix("#") ? String(text.dropFirst()) : text
                guard let found = plans.plan(name), !found.isEntity else {
                    throw Failure(.invalidTypeAnnotation, "\"\(ODataJSONText.clip(text))\" names no complex type of the model")
                }
                if let declared, !found.lineage.contains(declared.qualifiedName) {
                    throw Failure(.invalidTypeAnnotation, "\"\(ODataJSONText.clip(text))\" does not derive from \(declared.qualifiedName)")
                }
                plan = found
                typeName = found.qualifiedName
            } catch {
                throw error.adding(.key(key))
            }
        }
        var properties: [ODataProperty] = []
        properties.reserveCapacity(keys.count)
        var cursor = 0
        for i in keys.indices {
            let key = keys[i]
            do throws(Failure) {
                if let plan, let m = plan.member(named: key, cursor: &cursor) {
                    if case .property(let property) = plan.members[m] {
                        properties.append(ODataProperty(key, try decodeProperty(values[i], property, depth: depth)))
                    }
                    continue
                }
                if key.utf8.contains(Self.at) || key == "__metadata" { continue }
                if plan == nil || plan?.isOpen == true {
                    properties.append(ODataProperty(key, try decodeDynamic(values[i], name: key, keys: keys, values: values, depth: depth)))
                } else if !options.ignoreUnknownProperties, let plan {
                    throw Failure(.unknownProperty, "\(plan.qualifiedName) has no property \"\(ODataJSONText.clip(key))\" and is not open")
                }
            } catch {
                throw error.adding(.key(key))
            }
        }
        return ODataComplexValue(typeName: typeName, properties: properties)
    }

    // MARK: Dynamic properties

    /// A dynamic property: typed by its `Name@odata.type` annotation when there is one, else
    /// inferred from the JSON value.
    func decodeDynamic(_ value: JSONValue, name: String, keys: [String], values: [JSONValue],
                       depth: Int) throws(Failure) -> ODataValue {
        let annotationIndex = keys.firstIndex(of: name + "@odata.type") ?? keys.firstIndex(of: name + "@type")
        guard let annotationIndex else { return try decodeInferred(value, depth: depth) }
        let annotation = values[annotationIndex]
        guard case .string(let text) = annotation else {
            throw Failure(.invalidControlInformation, "a type name must be a string, found \(ODataJSONText.describe(annotation))")
                .atSibling(keys[annotationIndex])
        }
        guard let (type, isCollection) = plans.resolveTypeAnnotation(text) else {
            throw Failure(.invalidTypeAnnotation, "\"\(ODataJSONText.clip(text))\" names no primitive, enum or complex type")
                .atSibling(keys[annotationIndex])
        }
        if case .null = value { return .null }
        if isCollection { return try decodeCollection(value, type: type, elementsNullable: true, depth: depth) }
        return try decodeSingle(value, type: type, depth: depth)
    }

    /// A value without a declared type: string → Edm.String, number → Edm.Decimal (exact;
    /// Edm.Double when beyond the decimal limits), boolean → Edm.Boolean, object → an untyped
    /// complex value (or the type its `@odata.type` names), array → a collection.
    func decodeInferred(_ value: JSONValue, depth: Int) throws(Failure) -> ODataValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return .boolean(flag)
        case .string(let text): return .string(text)
        case .number(let number):
            if let decimal = try? ODataValue.fromJSONNumber(rawText: number.text, as: .decimal, version: version) {
                return decimal
            }
            return try decodePrimitive(value, kind: .double)
        case .object(let object):
            return .complex(try decodeComplex(object, declared: nil, depth: depth + 1))
        case .array(let elements):
            var result: [ODataValue] = []
            result.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                do throws(Failure) {
                    result.append(try decodeInferred(element, depth: depth))
                } catch {
                    throw error.adding(.index(index))
                }
            }
            return .collection(result)
        }
    }
}
