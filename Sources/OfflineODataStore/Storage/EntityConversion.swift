import OfflineODataModel

/// Conversion of OData entities to stored records (the way back is
/// `EntityCodec.decodeProperties`, used by `StoredEntity.toODataEntity`).
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
}
