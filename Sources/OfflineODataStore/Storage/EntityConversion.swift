import OfflineODataModel

/// Conversion of OData entities to stored records (the way back is
/// `EntityCodec.decodeProperties`, used by `StoredEntity.toODataEntity`).
enum EntityConversion {
    static func record(from entity: ODataEntity, info: SetInfo) -> EntityRecord {
        var values = [ODataValue?](repeating: nil, count: info.layout.properties.count)
        var dynamic: [ODataProperty] = []
        let declared = info.layout.properties
        // Payloads usually list the declared properties in declaration order: try the slot after
        // the last one matched before hashing the name.
        var next = 0
        for property in entity.properties {
            let slot: Int?
            if next < declared.count, declared[next].name == property.name {
                slot = next
            } else {
                slot = info.propertyIndex[property.name]
            }
            if let i = slot, values[i] == nil {
                next = i + 1
                values[i] = property.value
            } else {
                dynamic.append(property)
            }
        }
        return EntityRecord(values: values, dynamicProperties: dynamic)
    }
}
