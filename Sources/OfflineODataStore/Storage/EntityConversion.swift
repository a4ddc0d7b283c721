import OfflineODataModel

/// Conversion between OData entities and stored records.
enum EntityConversion {
    static func record(from entity: ODataEntity, info: SetInfo) -> EntityRecord {
        var values = [ODataValue?](repeating: nil, count: info.layout.properties.count)
        var dynamic: [ODataProperty] = []
        for property in entity.properties {
            if let i = info.propertyIndex[property.name], values[i] == nil {
                values[i] = property.value
            } else {
                dynamic.append(property)
            }
        }
        return EntityRecord(values: values, dynamicProperties: dynamic)
    }

    static func entity(from record: EntityRecord, meta: StoredValue.Meta, info: SetInfo) -> ODataEntity {
        var properties: [ODataProperty] = []
        properties.reserveCapacity(record.values.count + record.dynamicProperties.count)
        let layout = info.layout.properties
        for i in 0..<min(record.values.count, layout.count) {
            if case .some(let value) = record.values[i] { properties.append(ODataProperty(layout[i].name, value)) }
        }
        properties += record.dynamicProperties
        return ODataEntity(typeName: meta.typeName ?? info.typeName, properties: properties,
                           control: ODataControlInformation(etag: meta.etag))
    }
}
