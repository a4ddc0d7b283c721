/// How a primitive value is written as a JSON scalar. `.number` carries the exact JSON number
/// text (so Int64 and Decimal stay exact); `.string` carries the unescaped string content.
public enum JSONScalarForm: Sendable, Hashable {
    case string(String)
    case number(String)
    case bool(Bool)
    case null
}
