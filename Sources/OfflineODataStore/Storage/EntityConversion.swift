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
        for (i, value) in record.values.enumerated() where i < info.layout.properties.count {
            if let value { properties.append(ODataProperty(info.layout.properties[i].name, value)) }
        }
        properties += record.dynamicProperties
        return ODataEntity(typeName: meta.typeName ?? info.typeName, properties: properties,
                           control: ODataControlInformation(etag: meta.etag))
    }
}
