/// A failure while converting a payload, with the JSON path collected on the way out
/// (innermost component first), so the success path pays nothing for path tracking.
struct ODataJSONFailure: Error {
    var kind: ODataJSONErrorKind
    var message: String
    var reversedPath: [JSONPathComponent] = []

    init(_ kind: ODataJSONErrorKind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// Path components still to be dropped (the member an annotation error is reported on
    /// replaces the member being read, which the caller adds next).
    var skipNext = 0

    func adding(_ component: JSONPathComponent) -> ODataJSONFailure {
        var copy = self
        if copy.skipNext > 0 {
            copy.skipNext -= 1
        } else {
            copy.reversedPath.append(component)
        }
        return copy
    }

    /// Located at a sibling member (`Name@odata.type`) instead of the member being read.
    func atSibling(_ key: String) -> ODataJSONFailure {
        var copy = adding(.key(key))
        copy.skipNext += 1
        return copy
    }

    /// The public error; `prefix` are the path components above the converted value.
    func error(prefix: [JSONPathComponent]) -> ODataError {
        kind.error(message, location: JSONPath.render(prefix + reversedPath.reversed()))
    }
}

enum ODataJSONText {
    /// A short rendering of a JSON value for messages (`"abc"`, `12.5`, `an object`).
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return clip(n.text)
        case .string(let s): return "\"" + clip(JSONScanner.escapedForMessage(s)) + "\""
        case .array: return "an array " + clip(String(decoding: value.serialized(), as: UTF8.self))
        case .object: return "an object " + clip(String(decoding: value.serialized(), as: UTF8.self))
        }
    }

    static func clip(_ text: String, limit: Int = 80) -> String {
        text.count <= limit ? text : String(text.prefix(limit)) + "…"
    }
}
