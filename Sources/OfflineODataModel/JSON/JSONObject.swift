/// A JSON object: members in document order, unique names, lookup by name.
///
/// Equality and hashing follow member order (a document read and written back compares equal;
/// `{"a":1,"b":2}` and `{"b":2,"a":1}` do not). Lookup is a linear scan over the names, which
/// is the fastest choice for OData entities (tens of members).
public struct JSONObject: Sendable, Hashable, RandomAccessCollection {
    public typealias Element = (key: String, value: JSONValue)
    public typealias Index = Int

    /// Member names, in order, unique.
    public private(set) var keys: [String]
    /// Member values, parallel to `keys`.
    public private(set) var values: [JSONValue]

    /// An empty object.
    public init() {
        keys = []
        values = []
    }

    /// Parallel arrays already checked for duplicate names.
    init(uncheckedKeys keys: [String], values: [JSONValue]) {
        self.keys = keys
        self.values = values
    }

    /// An object of the given members in order.
    /// - Throws: `jsonDuplicateMember` (1208) when a name occurs twice.
    public init(members: [(String, JSONValue)]) throws(ODataError) {
        keys = members.map(\.0)
        values = members.map(\.1)
        if let duplicate = JSONObject.firstDuplicate(in: keys[...]) {
            throw JSONErrorKind.duplicateMember.error(
                "duplicate member \"\(JSONScanner.escapedForMessage(keys[duplicate]))\"")
        }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { keys.count }
    public subscript(position: Int) -> (key: String, value: JSONValue) {
        (keys[position], values[position])
    }

    /// The index of the member named `key`.
    public func index(forKey key: String) -> Int? {
        keys.firstIndex(of: key)
    }

    /// The value of member `key`. Setting a value replaces the member in place or appends it;
    /// setting nil removes it.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let index = index(forKey: key) else { return nil }
            return values[index]
        }
        set {
            if let index = index(forKey: key) {
                if let newValue {
                    values[index] = newValue
                } else {
                    keys.remove(at: index)
                    values.remove(at: index)
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    /// Appends a member.
    /// - Throws: `jsonDuplicateMember` (1208) when the name is already present.
    public mutating func append(key: String, value: JSONValue) throws(ODataError) {
        guard index(forKey: key) == nil else {
            throw JSONErrorKind.duplicateMember.error(
                "duplicate member \"\(JSONScanner.escapedForMessage(key))\"")
        }
        keys.append(key)
        values.append(value)
    }

    /// Reserves room for `count` members.
    public mutating func reserveCapacity(_ count: Int) {
        keys.reserveCapacity(count)
        values.reserveCapacity(count)
    }

    /// The index of the first name that repeats an earlier one, or nil.
    static func firstDuplicate(in keys: ArraySlice<String>) -> Int? {
        let count = keys.count
        if count < 2 { return nil }
        if count <= 16 {
            var j = keys.startIndex + 1
            while j < keys.endIndex {
                var i = keys.startIndex
                while i < j {
                    if keys[i] == keys[j] { return j }
                    i += 1
                }
                j += 1
            }
            return nil
        }
        var seen = Set<String>(minimumCapacity: count)
        for index in keys.indices where !seen.insert(keys[index]).inserted {
            return index
        }
        return nil
    }
}
