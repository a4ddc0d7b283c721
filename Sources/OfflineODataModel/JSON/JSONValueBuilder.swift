/// Assembles `JSONValue`s from `JSONEvent`s (iteratively, like `JSONDOMParser`), checking
/// member names for duplicates.
struct JSONValueBuilder: Sendable {
    private struct Frame: Sendable {
        var isObject: Bool
        var valueStart: Int
        var keyStart: Int
    }

    /// A duplicate member name found when an object closed.
    struct Duplicate: Error {
        var name: String
    }

    private var values: [JSONValue] = []
    private var keys: [String] = []
    private var frames: [Frame] = []

    /// True when no value is under construction.
    var isIdle: Bool { frames.isEmpty }

    /// Adds one event; returns the value once the event completes a whole value.
    mutating func add(_ event: JSONEvent) throws(Duplicate) -> JSONValue? {
        let value: JSONValue
        switch event {
        case .startObject, .startArray:
            frames.append(Frame(isObject: event == .startObject, valueStart: values.count, keyStart: keys.count))
            return nil
        case .key(let name):
            keys.append(name)
            return nil
        case .endArray:
            guard let frame = frames.popLast() else { return nil }
            value = .array(JSONStack.popTail(&values, from: frame.valueStart, filler: .null))
        case .endObject:
            guard let frame = frames.popLast() else { return nil }
            if let duplicate = JSONObject.firstDuplicate(in: keys[frame.keyStart...]) {
                throw Duplicate(name: keys[duplicate])
            }
            value = .object(JSONObject(
                uncheckedKeys: JSONStack.popTail(&keys, from: frame.keyStart, filler: ""),
                values: JSONStack.popTail(&values, from: frame.valueStart, filler: .null)))
        case .string(let string): value = .string(string)
        case .number(let number): value = .number(number)
        case .bool(let bool): value = .bool(bool)
        case .null: value = .null
        }
        if frames.isEmpty { return value }
        values.append(value)
        return nil
    }
}
