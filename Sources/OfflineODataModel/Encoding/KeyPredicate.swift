/// One key property: its name and primitive kind.
public struct KeyProperty: Sendable, Hashable {
    public var name: String
    public var kind: EdmPrimitiveKind

    public init(_ name: String, _ kind: EdmPrimitiveKind) {
        self.name = name
        self.kind = kind
    }
}

/// Key predicates in resource paths (OData 4.01 URL Conventions §4.3.1, ABNF `keyPredicate`):
/// `(1)`, `('O''Neil')`, `(OrderID=1,ProductID=2)`, and key-as-segment (`Orders/10248`).
/// Input is already percent-decoded; output is not percent-encoded (the caller's job).
/// Parsing is strict per the ABNF: no blanks around `=` or `,`, every key exactly once, no
/// unknown names, the name=value form in any order.
public enum KeyPredicate {
    /// Parses `(…)` into the key values, ordered like `keys`.
    public static func parse(_ text: String, keys: [KeyProperty], version: ODataVersion = .v4) throws(ODataError) -> [ODataValue] {
        let bytes = Array(text.utf8)
        guard !keys.isEmpty else { throw .keyInvalidPredicate(text, "the entity type has no key", position: 0) }
        guard bytes.first == UInt8(ascii: "(") else { throw .keyInvalidPredicate(text, "expected '('", position: 0) }
        guard bytes.count >= 2, bytes.last == UInt8(ascii: ")") else {
            throw .keyInvalidPredicate(text, "expected ')' at the end", position: bytes.count)
        }
        let items = try splitItems(bytes, text)
        // Single value form: `(value)` for a single-property key.
        if items.count == 1, findEquals(bytes, items[0]) == nil {
            guard keys.count == 1 else {
                throw .keyInvalidPredicate(text, "a key of \(keys.count) properties needs name=value pairs", position: 1)
            }
            return [try value(bytes, items[0], keys[0], text, version)]
        }
        var values = [ODataValue?](repeating: nil, count: keys.count)
        for item in items {
            guard let equals = findEquals(bytes, item) else {
                throw .keyInvalidPredicate(text, "expected name=value", position: item.lowerBound)
            }
            let name = String(decoding: bytes[item.lowerBound..<equals], as: UTF8.self)
            guard let index = keys.firstIndex(where: { $0.name == name }) else {
                throw .keyInvalidPredicate(text, "'\(name)' is not a key property", position: item.lowerBound)
            }
            guard values[index] == nil else {
                throw .keyInvalidPredicate(text, "key property '\(name)' appears twice", position: item.lowerBound)
            }
            values[index] = try value(bytes, (equals + 1)..<item.upperBound, keys[index], text, version)
        }
        var result: [ODataValue] = []
        for (index, value) in values.enumerated() {
            guard let value else {
                throw .keyInvalidPredicate(text, "key property '\(keys[index].name)' is missing", position: bytes.count - 1)
            }
            result.append(value)
        }
        return result
    }

    /// The canonical predicate: `(value)` for one key property, `(A=1,B='x')` in key order otherwise.
    public static func format(_ values: [ODataValue], keys: [KeyProperty], version: ODataVersion = .v4) throws(ODataError) -> String {
        guard values.count == keys.count, !keys.isEmpty else {
            throw .encodingLayoutMismatch("\(values.count) key values for \(keys.count) key properties", path: "key")
        }
        var text = "("
        for (i, (value, key)) in zip(values, keys).enumerated() {
            guard !value.isNull, value.kind == key.kind || isEnumKey(value, key) else {
                throw .encodingLayoutMismatch("key value \(value) is not of kind \(key.kind.rawValue)", path: "key." + key.name)
            }
            if i > 0 { text += "," }
            if keys.count > 1 { text += key.name + "=" }
            text += try value.literal(version: version)
        }
        return text + ")"
    }

    /// Splits `Orders(10248)` into (`Orders`, `(10248)`); a segment without `(` has no predicate.
    public static func parseEntitySetKeySegment(_ segment: String) throws(ODataError) -> (entitySet: String, predicate: String?) {
        guard let open = segment.firstIndex(of: "(") else {
            guard EdmEnumValue.isIdentifier(Substring(segment)) else {
                throw .keyInvalidPredicate(segment, "'\(segment)' is not an identifier", position: 0)
            }
            return (segment, nil)
        }
        let name = segment[..<open]
        guard EdmEnumValue.isIdentifier(name) else {
            throw .keyInvalidPredicate(segment, "'\(name)' is not an identifier", position: 0)
        }
        guard segment.hasSuffix(")") else {
            throw .keyInvalidPredicate(segment, "expected ')' at the end", position: segment.utf8.count)
        }
        return (String(name), String(segment[open...]))
    }

    /// The entity set and key predicate an entity reference names: `Set(key)` or a URL ending in
    /// it (`https://host/service/Set(key)`, `$id`/`@odata.bind`/`@odata.id` values). The query is
    /// dropped, the path split at raw `/`, and the last segment percent-decoded once, so
    /// `Orders('a%2Fb')` names the key `a/b`.
    public static func parseEntityReference(_ reference: String) throws(ODataError) -> (entitySet: String, predicate: String?) {
        let path = reference.split(separator: "?", omittingEmptySubsequences: false).first.map(String.init) ?? reference
        guard let raw = path.split(separator: "/").last.map(String.init) else {
            throw .keyInvalidPredicate(reference, "names no entity", position: 0)
        }
        guard let segment = URLPercentEncoding.decode(raw) else {
            throw .keyInvalidPredicate(reference, "'%' must be followed by two hexadecimal digits, and the decoded text be UTF-8",
                                       position: path.utf8.count - raw.utf8.count)
        }
        return try parseEntitySetKeySegment(segment)
    }

    /// Key-as-segment (`Orders/10248`, `Customers/ALFKI`): the segment is the key value; a
    /// string key is the raw (unquoted) text, other kinds use their literal form.
    public static func parseKeyAsSegment(_ segment: String, key: KeyProperty, version: ODataVersion = .v4) throws(ODataError) -> ODataValue {
        guard !segment.isEmpty else { throw .keyInvalidPredicate(segment, "empty key segment", position: 0) }
        if key.kind == .string { return .string(segment) }
        let value: ODataValue
        do {
            value = try ODataValue.parseLiteral(segment, as: key.kind, version: version)
        } catch {
            throw .keyInvalidPredicate(segment, error.message, position: 0)
        }
        guard !value.isNull else { throw .keyInvalidPredicate(segment, "a key value cannot be null", position: 0) }
        return value
    }

    /// The key value as a segment (inverse of `parseKeyAsSegment`).
    public static func formatKeyAsSegment(_ value: ODataValue, key: KeyProperty, version: ODataVersion = .v4) throws(ODataError) -> String {
        if key.kind == .string, case .string(let text) = value { return text }
        guard !value.isNull, value.kind == key.kind else {
            throw .encodingLayoutMismatch("key value \(value) is not of kind \(key.kind.rawValue)", path: "key." + key.name)
        }
        return try value.literal(version: version)
    }

    // MARK: internals

    private static func isEnumKey(_ value: ODataValue, _ key: KeyProperty) -> Bool {
        if case .enumValue = value { return key.kind == .untyped }
        return false
    }

    /// Ranges of the comma-separated items between the parentheses (commas inside quotes kept).
    private static func splitItems(_ bytes: [UInt8], _ text: String) throws(ODataError) -> [Range<Int>] {
        var items: [Range<Int>] = []
        var start = 1
        var index = 1
        let end = bytes.count - 1
        var inQuote = false
        while index < end {
            let byte = bytes[index]
            if byte == UInt8(ascii: "'") {
                if inQuote, index + 1 < end, bytes[index + 1] == UInt8(ascii: "'") {
                    index += 2
                    continue
                }
                inQuote.toggle()
            } else if !inQuote {
                if byte == UInt8(ascii: ",") {
                    items.append(start..<index)
                    start = index + 1
                } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "(") || byte == UInt8(ascii: ")") {
                    throw .keyInvalidPredicate(text, "unexpected '\(Character(Unicode.Scalar(byte)))'", position: index)
                }
            }
            index += 1
        }
        guard !inQuote else { throw .keyInvalidPredicate(text, "unterminated quote", position: end) }
        items.append(start..<end)
        for item in items where item.isEmpty {
            throw .keyInvalidPredicate(text, "empty key value", position: item.lowerBound)
        }
        return items
    }

    /// The `=` of a name=value item (names are identifiers, so the first `=` before any quote).
    private static func findEquals(_ bytes: [UInt8], _ item: Range<Int>) -> Int? {
        for index in item {
            if bytes[index] == UInt8(ascii: "'") { return nil }
            if bytes[index] == UInt8(ascii: "=") { return index }
        }
        return nil
    }

    private static func value(
        _ bytes: [UInt8], _ range: Range<Int>, _ key: KeyProperty, _ text: String, _ version: ODataVersion
    ) throws(ODataError) -> ODataValue {
        guard !range.isEmpty else { throw .keyInvalidPredicate(text, "empty value for '\(key.name)'", position: range.lowerBound) }
        let literal = String(decoding: bytes[range], as: UTF8.self)
        let value: ODataValue
        do {
            value = try ODataValue.parseLiteral(literal, as: key.kind, version: version)
        } catch {
            throw .keyInvalidPredicate(text, "value of '\(key.name)': \(error.message)", position: range.lowerBound)
        }
        guard !value.isNull else {
            throw .keyInvalidPredicate(text, "key property '\(key.name)' cannot be null", position: range.lowerBound)
        }
        return value
    }
}
