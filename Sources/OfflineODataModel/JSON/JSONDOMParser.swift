/// The iterative whole-document parser behind `JSONReader`.
///
/// Values of open containers are kept on one flat stack (`values`), member names on another
/// (`keys`); closing a container moves its slice into a new array or `JSONObject`. No recursion,
/// so nesting depth is limited only by `maxDepth`. The stacks also give the JSON path of an
/// error without any bookkeeping on the fast path.
struct JSONDOMParser {
    struct Frame {
        var isObject: Bool
        var valueStart: Int
        var keyStart: Int
        /// Every member name so far was read by `readPlainKey` (printable ASCII, no escapes).
        var plainNames = true
    }

    let input: UnsafeBufferPointer<UInt8>
    let options: JSONReaderOptions
    var index = 0
    var values: [JSONValue] = []
    var keys: [String] = []
    /// Offset of each name in `keys` (for duplicate-member errors).
    var keyOffsets: [Int] = []
    /// `JSONObject.keyHash` of each name in `keys` (for the duplicate check).
    var keyHashes: [UInt64] = []
    var frames: [Frame] = []
    var scratch: [UInt8] = []
    /// Recently read member names by hash (see `readPlainKey`).
    var keyCache: [(hash: UInt64, key: String)] = []
    static let keyCacheSize = 256
    /// Member-name arrays of recently closed objects by a hash of their names (see
    /// `closeObject`).
    var shapeCache: [(hash: UInt64, keys: [String])] = []
    static let shapeCacheSize = 64

    /// Whether names and shapes are cached: only in documents long enough to repeat them (a
    /// request body of a few properties paid more for setting up the caches than it parsed).
    let cachesNames: Bool
    static let cacheThreshold = 4096

    init(input: UnsafeBufferPointer<UInt8>, options: JSONReaderOptions) {
        self.input = input
        self.options = options
        cachesNames = input.count >= Self.cacheThreshold
    }

    mutating func run() throws(JSONScanFailure) -> JSONValue {
        let end = input.count
        if end >= 3 && input[0] == 0xEF && input[1] == 0xBB && input[2] == 0xBF {
            guard options.allowsByteOrderMark else {
                throw JSONScanFailure(.syntaxError, at: 0, "byte order mark not allowed")
            }
            index = 3
        }
        skipWhitespace()
        guard index < end else {
            throw JSONScanFailure(.unexpectedEnd, at: index, "empty document: expected a JSON value")
        }
        if cachesNames {
            values.reserveCapacity(64)
            keys.reserveCapacity(64)
            keyOffsets.reserveCapacity(64)
            keyHashes.reserveCapacity(64)
            frames.reserveCapacity(16)
        }

        outer: while true {
            guard index < end else {
                throw JSONScanFailure(.unexpectedEnd, at: index, "unexpected end of input: expected a value")
            }
            let byte = input[index]
            switch byte {
            case 0x7B:  // {
                try pushFrame(isObject: true)
                index += 1
                skipWhitespace()
                if index < end && input[index] == 0x7D {
                    index += 1
                    frames.removeLast()
                    values.append(.object(JSONObject()))
                } else {
                    try readKeyAndColon()
                    continue outer
                }
            case 0x5B:  // [
                try pushFrame(isObject: false)
                index += 1
                skipWhitespace()
                if index < end && input[index] == 0x5D {
                    index += 1
                    frames.removeLast()
                    values.append(.array([]))
                } else {
                    continue outer
                }
            case 0x22:
                values.append(.string(try readString()))
            case 0x2D, 0x30...0x39:
                let start = index
                index = try JSONScanner.scanNumber(input, from: start, isFinal: true) ?? end
                let text = String(decoding: UnsafeBufferPointer(rebasing: input[start..<index]), as: UTF8.self)
                values.append(.number(JSONNumber(unchecked: text)))
            case 0x74:
                try expectLiteral("true")
                values.append(.bool(true))
            case 0x66:
                try expectLiteral("false")
                values.append(.bool(false))
            case 0x6E:
                try expectLiteral("null")
                values.append(.null)
            default:
                throw JSONScanFailure(
                    .syntaxError, at: index, "unexpected \(JSONScanner.describeByte(byte)): expected a value")
            }

            // A value is complete: close containers until one expects another member or element.
            while true {
                skipWhitespace()
                guard let frame = frames.last else {
                    guard index == end else {
                        throw JSONScanFailure(
                            .syntaxError, at: index,
                            "unexpected \(JSONScanner.describeByte(input[index])) after the JSON value")
                    }
                    return values.removeLast()
                }
                guard index < end else {
                    throw JSONScanFailure(
                        .unexpectedEnd, at: index,
                        "unexpected end of input: expected ',' or '\(frame.isObject ? "}" : "]")'")
                }
                let c = input[index]
                if c == 0x2C {
                    index += 1
                    skipWhitespace()
                    if frame.isObject {
                        try readKeyAndColon()
                    } else if index < end && input[index] == 0x5D {
                        throw JSONScanFailure(.syntaxError, at: index, "trailing comma before ']'")
                    }
                    continue outer
                }
                if frame.isObject {
                    guard c == 0x7D else {
                        throw JSONScanFailure(
                            .syntaxError, at: index,
                            "unexpected \(JSONScanner.describeByte(c)): expected ',' or '}' after an object member")
                    }
                    index += 1
                    try closeObject(frame)
                } else {
                    guard c == 0x5D else {
                        throw JSONScanFailure(
                            .syntaxError, at: index,
                            "unexpected \(JSONScanner.describeByte(c)): expected ',' or ']' after an array element")
                    }
                    index += 1
                    let elements = JSONStack.popTail(&values, from: frame.valueStart, filler: .null)
                    frames.removeLast()
                    values.append(.array(elements))
                }
            }
        }
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        let end = input.count
        while index < end {
            let b = input[index]
            guard b <= 0x20, b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 else { return }
            index += 1
        }
    }

    private mutating func pushFrame(isObject: Bool) throws(JSONScanFailure) {
        guard frames.count < options.maxDepth else {
            throw JSONScanFailure(
                .depthLimitExceeded, at: index, "nesting deeper than the limit of \(options.maxDepth) levels")
        }
        frames.append(Frame(isObject: isObject, valueStart: values.count, keyStart: keys.count))
    }

    /// Reads `"name"` and `:` at `index`, leaving `index` at the member's value.
    private mutating func readKeyAndColon() throws(JSONScanFailure) {
        let end = input.count
        guard index < end else {
            throw JSONScanFailure(.unexpectedEnd, at: index, "unexpected end of input: expected a member name")
        }
        let c = input[index]
        guard c == JSONScanner.quote else {
            if c == 0x7D {
                throw JSONScanFailure(.syntaxError, at: index, "trailing comma before '}'")
            }
            throw JSONScanFailure(
                .syntaxError, at: index, "unexpected \(JSONScanner.describeByte(c)): expected a member name in quotes")
        }
        let open = index
        let key: String
        let hash: UInt64
        if let (cached, cachedHash) = readPlainKey() {
            key = cached
            hash = cachedHash
        } else {
            var decoded = try readString()
            hash = decoded.withUTF8 { JSONObject.keyHash($0) }
            key = decoded
            frames[frames.count - 1].plainNames = false
        }
        keyOffsets.append(open)
        keyHashes.append(hash)
        keys.append(key)
        skipWhitespace()
        guard index < end else {
            throw JSONScanFailure(.unexpectedEnd, at: index, "unexpected end of input: expected ':' after a member name")
        }
        guard input[index] == 0x3A else {
            throw JSONScanFailure(
                .syntaxError, at: index,
                "unexpected \(JSONScanner.describeByte(input[index])): expected ':' after a member name")
        }
        index += 1
        skipWhitespace()
    }

    /// Reads a member name of plain printable ASCII (no escapes) at `index`, reusing the String
    /// of an earlier equal name: payloads repeat the same names in every entity, and names
    /// longer than 15 bytes would otherwise cost an allocation each time. Nil (nothing read)
    /// for any other name.
    private mutating func readPlainKey() -> (String, UInt64)? {
        let start = index + 1
        let i = JSONScanner.skipPlainASCII(input, from: start)
        guard i < input.count, input[i] == JSONScanner.quote else { return nil }
        let raw = UnsafeBufferPointer(rebasing: input[start..<i])
        let hash = JSONObject.keyHash(raw)
        let slot = Int(truncatingIfNeeded: hash & UInt64(JSONDOMParser.keyCacheSize - 1))
        index = i + 1
        if !cachesNames { return (String(decoding: raw, as: UTF8.self), hash) }
        if keyCache.isEmpty {
            keyCache = Array(repeating: (0, ""), count: JSONDOMParser.keyCacheSize)
        } else if keyCache[slot].hash == hash {
            let cached = keyCache[slot].key
            if JSONScanner.utf8(of: cached, equals: raw) { return (cached, hash) }
        }
        let key = String(decoding: raw, as: UTF8.self)
        keyCache[slot] = (hash, key)
        return (key, hash)
    }

    /// Reads the string whose opening quote is at `index`.
    private mutating func readString() throws(JSONScanFailure) -> String {
        let open = index
        guard let (string, next) = try JSONScanner.scanString(input, from: open + 1, scratch: &scratch) else {
            throw JSONScanFailure(.unexpectedEnd, at: open, "unterminated string")
        }
        index = next
        return string
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONScanFailure) {
        let length = literal.utf8CodeUnitCount
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: length)
        var k = 0
        while k < length {
            guard index + k < input.count else {
                throw JSONScanFailure(.unexpectedEnd, at: index, "unexpected end of input in literal '\(literal)'")
            }
            guard input[index + k] == expected[k] else {
                throw JSONScanFailure(.syntaxError, at: index, "invalid literal: expected '\(literal)'")
            }
            k += 1
        }
        index += length
    }

    private mutating func closeObject(_ frame: Frame) throws(JSONScanFailure) {
        let memberKeys: [String]
        let shape = JSONObject.shapeHash(keyHashes[frame.keyStart...])
        let slot = Int(truncatingIfNeeded: shape & UInt64(JSONDOMParser.shapeCacheSize - 1))
        if frame.plainNames, !shapeCache.isEmpty, shapeCache[slot].hash == shape,
           Self.sameNames(shapeCache[slot].keys, keys[frame.keyStart...])
        {
            // The entities of a page share their member names: share one array of them (already
            // checked for duplicates) instead of allocating one per object.
            memberKeys = shapeCache[slot].keys
            keys.removeSubrange(frame.keyStart...)
        } else {
            if let duplicate = JSONObject.firstDuplicate(
                in: keys[frame.keyStart...], hashes: keyHashes[frame.keyStart...])
            {
                let offset = keyOffsets[duplicate]
                // Leave the duplicate as the current member so the error path names it.
                keys.removeSubrange((duplicate + 1)...)
                values.removeSubrange((frame.valueStart + duplicate - frame.keyStart)...)
                throw JSONScanFailure(
                    .duplicateMember, at: offset,
                    "duplicate member \"\(JSONScanner.escapedForMessage(keys[duplicate]))\"")
            }
            memberKeys = JSONStack.popTail(&keys, from: frame.keyStart, filler: "")
            if frame.plainNames, cachesNames {
                if shapeCache.isEmpty {
                    shapeCache = Array(repeating: (0, []), count: JSONDOMParser.shapeCacheSize)
                }
                shapeCache[slot] = (shape, memberKeys)
            }
        }
        let object = JSONObject(
            uncheckedKeys: memberKeys, values: JSONStack.popTail(&values, from: frame.valueStart, filler: .null))
        keyOffsets.removeSubrange(frame.keyStart...)
        keyHashes.removeSubrange(frame.keyStart...)
        frames.removeLast()
        values.append(.object(object))
    }

    /// True when both lists hold the same names. Only for names of printable ASCII (see
    /// `Frame.plainNames`), where `==` is byte equality: for other text it also equates
    /// canonically equivalent spellings, which are different member names.
    private static func sameNames(_ cached: [String], _ names: ArraySlice<String>) -> Bool {
        guard cached.count == names.count else { return false }
        var i = names.startIndex
        for name in cached {
            // Names read by readPlainKey are mostly the very strings in `keyCache`, which
            // compare without looking at their bytes.
            guard name == names[i] else { return false }
            i += 1
        }
        return true
    }

    // MARK: Errors

    /// The path of the value being read when parsing stopped.
    func currentPath() -> String {
        var components: [JSONPathComponent] = []
        components.reserveCapacity(frames.count)
        for (f, frame) in frames.enumerated() {
            let isLast = f + 1 == frames.count
            if frame.isObject {
                let keyEnd = isLast ? keys.count : frames[f + 1].keyStart
                if keyEnd > frame.keyStart { components.append(.key(keys[keyEnd - 1])) }
            } else {
                let valueEnd = isLast ? values.count : frames[f + 1].valueStart
                components.append(.index(valueEnd - frame.valueStart))
            }
        }
        return JSONPath.render(components)
    }

    func makeError(_ failure: JSONScanFailure) -> ODataError {
        let (line, column) = JSONPath.lineAndColumn(input, offset: failure.offset)
        var message = failure.message
        if failure.offset < input.count && failure.kind != .invalidUTF8 {
            message += " near \"\(JSONScanner.snippet(input, at: failure.offset))\""
        }
        return failure.kind.error(
            message, location: JSONPath.location(path: currentPath(), line: line, column: column, offset: failure.offset))
    }
}
