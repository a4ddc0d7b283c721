extension JSONValue: CustomStringConvertible {
    /// The JSON text of this value. `JSONReader.parse(v.serialized()) == v` for every value:
    /// numbers are written as their literal text, object members in order.
    public func serialized(options: JSONWriter.Options = JSONWriter.Options()) -> [UInt8] {
        var writer = JSONWriter(options: options, reservingCapacity: 256)
        writer.value(self)
        return writer.bytes
    }

    /// The compact JSON text.
    public var description: String {
        String(decoding: serialized(), as: UTF8.self)
    }
}
