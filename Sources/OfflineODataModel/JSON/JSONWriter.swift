/// Writes JSON text into a byte array, one token at a time, placing commas, colons and (when
/// pretty) line breaks and indentation itself.
///
/// Calls never throw: a call that does not fit the structure (a key outside an object, a value
/// where a key is due, an invalid raw number, a NaN) is remembered in `error`, every call after it
/// is ignored, and `finish()` throws it. For large payloads, `takeBytes()` hands over what was written
/// so far, so output can be streamed with bounded memory.
public struct JSONWriter: Sendable {
    public struct Options: Sendable, Hashable {
        /// Line breaks and indentation; `"key": value` with a space.
        public var pretty: Bool
        /// Spaces per level when pretty.
        public var indentWidth: Int
        /// Writes U+2028 and U+2029 as `\u2028`/`\u2029` (for JavaScript embedding).
        public var escapesLineSeparators: Bool

        public init(pretty: Bool = false, indentWidth: Int = 2, escapesLineSeparators: Bool = false) {
            self.pretty = pretty
            self.indentWidth = indentWidth
            self.escapesLineSeparators = escapesLineSeparators
        }
    }

    private struct Container: Sendable {
        var isObject: Bool
        var count: Int
        /// Inside an object: a key was written, its value is due.
        var hasKey: Bool
    }

    public let options: Options
    /// The text written (and not yet taken).
    public private(set) var bytes: [UInt8]
    /// The first misuse, if any; `finish()` throws it.
    public private(set) var error: ODataError?
    private var stack: [Container] = []
    private var wroteTopLevel = false

    public init(options: Options = Options(), reservingCapacity capacity: Int = 1024) {
        self.options = options
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// True once one complete top-level value has been written.
    public var isComplete: Bool { wroteTopLevel && stack.isEmpty }

    /// The finished document.
    /// - Throws: the first recorded misuse, or `jsonWriterMisuse` when containers are still open
    ///   or nothing was written.
    public func finish() throws(ODataError) -> [UInt8] {
        if let error { throw error }
        guard isComplete else {
            throw JSONErrorKind.writerMisuse.error(
                stack.isEmpty ? "no value was written" : "\(stack.count) container(s) still open")
        }
        return bytes
    }

    /// Hands over the bytes written so far and empties the buffer (structure state is kept).
    public mutating func takeBytes() -> [UInt8] {
        let taken = bytes
        bytes.removeAll(keepingCapacity: true)
        return taken
    }

    // MARK: Structure

    public mutating func beginObject() {
        guard beginValue("'{'") else { return }
        bytes.append(0x7B)
        stack.append(Container(isObject: true, count: 0, hasKey: false))
    }

    public mutating func endObject() {
        guard error == nil else { return }
        guard let top = stack.last, top.isObject, !top.hasKey else {
            return fail("endObject() outside an object or after a key without value")
        }
        stack.removeLast()
        if top.count > 0 { newline() }
        bytes.append(0x7D)
        endValue()
    }

    public mutating func beginArray() {
        guard beginValue("'['") else { return }
        bytes.append(0x5B)
        stack.append(Container(isObject: false, count: 0, hasKey: false))
    }

    public mutating func endArray() {
        guard error == nil else { return }
        guard let top = stack.last, !top.isObject else {
            return fail("endArray() outside an array")
        }
        stack.removeLast()
        if top.count > 0 { newline() }
        bytes.append(0x5D)
        endValue()
    }

    /// Writes a member name; the next call must write its value.
    public mutating func key(_ name: String) {
        guard error == nil else { return }
        guard let top = stack.last, top.isObject, !top.hasKey else {
            return fail("key \"\(JSONScanner.escapedForMessage(name))\" written outside an object or twice")
        }
        if top.count > 0 { bytes.append(0x2C) }
        newline()
        appendString(name)
        bytes.append(0x3A)
        if options.pretty { bytes.append(0x20) }
        stack[stack.count - 1].hasKey = true
    }

    // MARK: Values

    public mutating func string(_ value: String) {
        guard beginValue("a string") else { return }
        appendString(value)
        endValue()
    }

    public mutating func number(_ value: JSONNumber) {
        guard beginValue("a number") else { return }
        bytes.append(contentsOf: value.text.utf8)
        endValue()
    }

    /// Writes a number given as literal text, which must match the JSON number grammar.
    public mutating func number(raw text: String) {
        do {
            number(try JSONNumber(validating: text))
        } catch {
            record(error)
        }
    }

    public mutating func number(_ value: Int64) { number(JSONNumber(value)) }

    public mutating func number(_ value: Int) { number(JSONNumber(value)) }

    /// Writes the shortest text that reads back as `value`; NaN and ±infinity are recorded as
    /// `jsonNonFiniteNumber`.
    public mutating func number(_ value: Double) {
        guard let number = JSONNumber(value) else {
            return record(JSONErrorKind.nonFiniteNumber.error("\(value) has no JSON representation"))
        }
        self.number(number)
    }

    public mutating func bool(_ value: Bool) {
        guard beginValue("a Boolean") else { return }
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
        endValue()
    }

    public mutating func null() {
        guard beginValue("null") else { return }
        bytes.append(contentsOf: "null".utf8)
        endValue()
    }

    /// Writes a whole value.
    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let b): bool(b)
        case .number(let n): number(n)
        case .string(let s): string(s)
        case .array(let elements):
            beginArray()
            for element in elements { self.value(element) }
            endArray()
        case .object(let object):
            beginObject()
            for index in object.indices {
                key(object.keys[index])
                self.value(object.values[index])
            }
            endObject()
        }
    }

    // MARK: Internals

    /// Writes the separator before a value; false (and records misuse) when no value may come.
    private mutating func beginValue(_ what: String) -> Bool {
        guard error == nil else { return false }
        guard let top = stack.last else {
            if wroteTopLevel {
                fail("\(what) written after the complete top-level value")
                return false
            }
            return true
        }
        if top.isObject {
            guard top.hasKey else {
                fail("\(what) written in an object where a key is due")
                return false
            }
        } else {
            if top.count > 0 { bytes.append(0x2C) }
            newline()
        }
        return true
    }

    private mutating func endValue() {
        guard let top = stack.last else {
            wroteTopLevel = true
            return
        }
        stack[stack.count - 1].count = top.count + 1
        stack[stack.count - 1].hasKey = false
    }

    private mutating func newline() {
        guard options.pretty else { return }
        bytes.append(0x0A)
        let width = stack.count * options.indentWidth
        if width > 0 { bytes.append(contentsOf: repeatElement(0x20, count: width)) }
    }

    private mutating func fail(_ message: String) {
        record(JSONErrorKind.writerMisuse.error(message))
    }

    private mutating func record(_ newError: ODataError) {
        if error == nil { error = newError }
    }

    /// Appends `"…"` with the escapes JSON requires; runs of plain bytes are copied in bulk.
    private mutating func appendString(_ value: String) {
        var value = value
        let escapeSeparators = options.escapesLineSeparators
        value.withUTF8 { utf8 in
            bytes.append(0x22)
            var runStart = 0
            var i = 0
            let end = utf8.count
            while i < end {
                let b = utf8[i]
                let needsEscape: Bool
                if b < 0x20 || b == 0x22 || b == 0x5C {
                    needsEscape = true
                } else if b == 0xE2 && escapeSeparators && i + 2 < end && utf8[i + 1] == 0x80
                    && (utf8[i + 2] == 0xA8 || utf8[i + 2] == 0xA9)
                {
                    needsEscape = true
                } else {
                    needsEscape = false
                }
                guard needsEscape else {
                    i += 1
                    continue
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i]))
                switch b {
                case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
                case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
                case 0x08: bytes.append(contentsOf: [0x5C, 0x62])
                case 0x0C: bytes.append(contentsOf: [0x5C, 0x66])
                case 0x0A: bytes.append(contentsOf: [0x5C, 0x6E])
                case 0x0D: bytes.append(contentsOf: [0x5C, 0x72])
                case 0x09: bytes.append(contentsOf: [0x5C, 0x74])
                case 0xE2:
                    bytes.append(contentsOf: utf8[i + 2] == 0xA8 ? "\\u2028".utf8 : "\\u2029".utf8)
                    i += 2
                default:
                    bytes.append(contentsOf: "\\u00".utf8)
                    bytes.append(JSONWriter.hexDigit(b >> 4))
                    bytes.append(JSONWriter.hexDigit(b & 0xF))
                }
                i += 1
                runStart = i
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<end]))
            bytes.append(0x22)
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 + nibble : 0x61 + nibble - 10
    }
}
