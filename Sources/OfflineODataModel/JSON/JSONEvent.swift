/// One token of a JSON document as `JSONStreamReader` reports it, in document order.
public enum JSONEvent: Sendable, Hashable {
    case startObject
    case endObject
    case startArray
    case endArray
    /// A member name; the member's value follows as the next event(s).
    case key(String)
    case string(String)
    /// A number with its exact literal text.
    case number(JSONNumber)
    case bool(Bool)
    case null
}
