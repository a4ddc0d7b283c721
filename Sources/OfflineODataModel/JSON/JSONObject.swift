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
        if keys.count < 2 { return nil }
        let hashes = keys.map { key in
            var key = key
            return key.withUTF8 { keyHash($0) }
        }
        return firstDuplicate(in: keys, hashes: hashes[...])
    }

    /// The index (in `keys`) of the first name that repeats an earlier one, or nil, given the
    /// `keyHash` of every name (parallel slices). Only equal hashes cost a string comparison.
    static func firstDuplicate(in keys: ArraySlice<String>, hashes: ArraySlice<UInt64>) -> Int? {
        let count = hashes.count
        if count < 2 { return nil }
        let offset = keys.startIndex - hashes.startIndex
        if count <= 64 {
            // A 128-bit mask of hash bits finds candidates; only those are compared.
            var low: UInt64 = 0
            var high: UInt64 = 0
            var j = hashes.startIndex
            while j < hashes.endIndex {
                let hash = hashes[j]
                let bit: UInt64 = 1 << (hash & 63)
                let seen = hash & 64 == 0 ? low & bit != 0 : high & bit != 0
                if seen {
                    var i = hashes.startIndex
                    while i < j {
                        if hashes[i] == hash && keys[i + offset] == keys[j + offset] { return j + offset }
                        i += 1
                    }
                }
                if hash & 64 == 0 { low |= bit } else { high |= bit }
                j += 1
            }
            return nil
        }
        var seen = Set<UInt64>(minimumCapacity: count)
        for j in hashes.indices where !seen.insert(hashes[j]).inserted {
            let hash = hashes[j]
            for i in hashes.startIndex..<j where hashes[i] == hash && keys[i + offset] == keys[j + offset] {
                return j + offset
            }
        }
        return nil
    }

    /// A hash of a list of names given their `keyHash`es (equal lists, equal hashes).
    @inline(__always)
    static func shapeHash(_ hashes: ArraySlice<UInt64>) -> UInt64 {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var hash = UInt64(truncatingIfNeeded: hashes.count) &* multiplier
        for h in hashes {
            hash = (hash ^ h) &* multiplier
            hash ^= hash >> 29
        }
        return hash
    }

    /// A 64-bit hash of a name's UTF-8 bytes, eight bytes at a time (equal names, equal hashes).
    @inline(__always)
    static func keyHash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var hash = UInt64(truncatingIfNeeded: bytes.count) &* multiplier
        guard let base = bytes.baseAddress else { return hash }
        let raw = UnsafeRawPointer(base)
        var i = 0
        while i &+ 8 <= bytes.count {
            hash = (hash ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* multiplier
            hash ^= hash >> 29
            i &+= 8
        }
        var tail: UInt64 = 0
        while i < bytes.count {
            tail = tail << 8 | UInt64(bytes[i])
            i &+= 1
        }
        hash = (hash ^ tail) &* multiplier
        return hash ^ (hash >> 32)
    }
}
