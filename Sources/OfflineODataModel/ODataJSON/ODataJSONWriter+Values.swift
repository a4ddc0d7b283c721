extension ODataJSONWriter {
    func writeProperties(_ properties: [ODataProperty], plan: ODataStructuredPlan?,
                         to writer: inout JSONWriter) throws(ODataError) {
        var cursor = 0
        for property in properties {
            if let plan, let index = plan.member(named: property.name, cursor: &cursor),
               case .property(let declared) = plan.members[index] {
                writer.key(property.name)
                try writeValue(property.value, type: declared.type, name: property.name, to: &writer)
            } else {
                if metadata != .none, let typeName = Self.dynamicTypeName(property.value) {
                    writer.key(property.name + "@odata.type")
                    writer.string("#" + typeName)
                }
                writer.key(property.name)
                try writeValue(property.value, type: nil, name: property.name, to: &writer)
            }
        }
    }

    /// The `@odata.type` a dynamic property needs: nil when the JSON value implies the type
    /// (string, boolean, decimal number, null, structured values carrying their own type).
    static func dynamicTypeName(_ value: ODataValue) -> String? {
        switch value {
        case .null, .string, .boolean, .decimal, .complex: return nil
        case .enumValue(let enumValue): return enumValue.typeName
        case .collection(let elements):
            guard let first = elements.first(where: { !$0.isNull }),
                  let element = dynamicTypeName(first) else { return nil }
            return "Collection(" + (element.contains(".") ? element : "Edm." + element) + ")"
        default:
            guard let kind = value.kind else { return nil }
            return String(kind.rawValue.dropFirst(4))
        }
    }

    func writeValue(_ value: ODataValue, type: ODataValueType?, name: String,
                    to writer: inout JSONWriter) throws(ODataError) {
        switch value {
        case .null:
            writer.null()
        case .collection(let elements):
            writer.beginArray()
            for element in elements { try writeValue(element, type: type, name: name, to: &writer) }
            writer.endArray()
        case .complex(let complex):
            var declared: ODataStructuredPlan?
            if case .complex(let typeName)? = type { declared = plans.plan(typeName) }
            let plan = complex.typeName.flatMap { plans.plan($0) } ?? declared
            writer.beginObject()
            if metadata != .none, let typeName = complex.typeName,
               declared == nil || declared?.qualifiedName != plan?.qualifiedName || metadata == .full {
                writer.key("@odata.type")
                writer.string("#" + (plan?.qualifiedName ?? typeName))
            }
            try writeProperties(complex.properties, plan: plan, to: &writer)
            writer.endObject()
        case .geo(let geo):
            do throws(ODataError) {
                writer.value(try JSONReader.parse(geo.geoJSON))
            } catch {
                throw ODataJSONErrorKind.unwritableValue.error(
                    "property \(name): GeoJSON text is not JSON: \(error.message)")
            }
        default:
            let form: JSONScalarForm
            do throws(ODataError) {
                form = try value.jsonScalarForm(version: .v4, ieee754Compatible: ieee754Compatible)
            } catch {
                throw ODataJSONErrorKind.unwritableValue.error("property \(name): \(error.message)")
            }
            switch form {
            case .null: writer.null()
            case .bool(let flag): writer.bool(flag)
            case .string(let text): writer.string(text)
            case .number(let text): writer.number(raw: text)
            }
        }
    }
}
