/// A small, strict XML 1.0 pull parser over UTF-8 bytes (no Foundation).
///
/// Handles the XML declaration, a UTF-8 byte order mark, comments, CDATA sections, processing
/// instructions, a DOCTYPE (skipped; no external or internal entities are ever expanded), the five
/// predefined entities and numeric character references, namespaces with prefixes, attributes
/// in either quote, and CRLF/CR line ends. Malformed input of any kind throws `ODataError`
/// (`.invalidInput`, codes in `XMLErrorCode`, location "line L, column C"); it never traps.
public struct XMLPullParser: Sendable {
    public static let defaultMaxDepth = 256

    struct OpenElement: Sendable {
        var rawName: String
        var name: XMLName
        var position: XMLPosition
        var bindingCount: Int
    }

    let bytes: [UInt8]
    var index: Int
    public let maxDepth: Int
    var open: [OpenElement] = []
    var bindings: [(prefix: String, uri: String)] = []
    var pendingEnd: XMLEvent?
    var seenRoot = false
    var seenDoctype = false
    // Position cache: positions are asked for in increasing order, so scanning resumes.
    var cacheOffset = 0
    var cacheLine = 1
    var cacheColumn = 1

    /// Checks encoding (UTF-8 only, optional BOM), validates every byte as UTF-8 and XML
    /// characters, and reads the XML declaration if present.
    public init(bytes: [UInt8], maxDepth: Int = XMLPullParser.defaultMaxDepth) throws {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.index = 0
        if bytes.count >= 2,
           (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE) {
            throw XMLErrorCode.xmlUnsupportedEncoding.error(
                "UTF-16 documents are not supported; expected UTF-8", at: position(of: 0))
        }
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            index = 3
        }
        try validateUTF8()
        try readDeclarationIfPresent()
    }

    /// The current nesting depth (number of open elements).
    public var depth: Int { open.count }

    /// The next event, or nil at the end of a well-formed document.
    public mutating func next() throws -> XMLEvent? {
        if let pending = pendingEnd {
            pendingEnd = nil
            popElement()
            return pending
        }
        while true {
            guard index < bytes.count else {
                if let top = open.last {
                    throw XMLErrorCode.xmlUnexpectedEnd.error(
                        "document ends inside <\(top.rawName)> opened at \(top.position)",
                        at: position(of: bytes.count))
                }
                if !seenRoot {
                    throw XMLErrorCode.xmlUnexpectedEnd.error(
                        "document has no root element", at: position(of: bytes.count))
                }
                return nil
            }
            if bytes[index] != UInt8(ascii: "<") {
                if let event = try readText() { return event }
                continue
            }
            let next = peek(1)
            if next == UInt8(ascii: "/") { return try readEndTag() }
            if next == UInt8(ascii: "?") {
                try skipProcessingInstruction()
                continue
            }
            if next == UInt8(ascii: "!") {
                if matches("<!--") {
                    try skipComment()
                    continue
                }
                if matches("<![CDATA[") { return try readCDATA() }
                if matches("<!DOCTYPE") {
                    try skipDoctype()
                    continue
                }
                throw XMLErrorCode.xmlSyntaxError.error(
                    "unknown markup declaration '\(snippet(at: index))'", at: position(of: index))
            }
            return try readStartTag()
        }
    }

    // MARK: - Positions and small helpers

    mutating func position(of offset: Int) -> XMLPosition {
        let target = min(max(offset, 0), bytes.count)
        if target < cacheOffset {
            cacheOffset = 0
            cacheLine = 1
            cacheColumn = 1
        }
        var line = cacheLine
        var column = cacheColumn
        var i = cacheOffset
        while i < target {
            let b = bytes[i]
            if b == 0x0A {
                line += 1
                column = 1
            } else if b == 0x0D {
                if i + 1 < bytes.count, bytes[i + 1] == 0x0A {
                    // the LF that follows ends the line
                } else {
                    line += 1
                    column = 1
                }
            } else if b & 0xC0 != 0x80 {
                column += 1
            }
            i += 1
        }
        cacheOffset = target
        cacheLine = line
        cacheColumn = column
        return XMLPosition(line: line, column: column, offset: target)
    }

    func peek(_ ahead: Int) -> UInt8? {
        let i = index + ahead
        return i < bytes.count ? bytes[i] : nil
    }

    func matches(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return literal.withUTF8Buffer { buffer in
            var i = 0
            while i < count {
                if bytes[index + i] != buffer[i] { return false }
                i += 1
            }
            return true
        }
    }

    /// Index of the first occurrence of `literal` at or after `from`, or nil.
    func find(_ literal: StaticString, from: Int) -> Int? {
        literal.withUTF8Buffer { buffer -> Int? in
            let count = buffer.count
            guard count > 0, let first = buffer.first else { return nil }
            var i = from
            while i + count <= bytes.count {
                if bytes[i] == first {
                    var j = 1
                    while j < count, bytes[i + j] == buffer[j] { j += 1 }
                    if j == count { return i }
                }
                i += 1
            }
            return nil
        }
    }

    /// Up to 24 characters of the input at `offset`, for messages.
    func snippet(at offset: Int) -> String {
        guard offset < bytes.count else { return "" }
        var end = min(bytes.count, offset + 24)
        while end < bytes.count, end > offset, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return String(decoding: bytes[offset..<end], as: UTF8.self)
    }

    static func isWhitespace(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D
    }

    static func isNameStart(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || b == 0x5F || b == 0x3A || b >= 0x80
    }

    static func isNameChar(_ b: UInt8) -> Bool {
        isNameStart(b) || (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x2E
    }

    @discardableResult
    mutating func skipWhitespace() -> Bool {
        let start = index
        while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
        return index > start
    }

    /// Reads an XML Name at the current index. `context` is only for the error (built when one
    /// is thrown: attribute names pass an interpolated one, and a CSDL document has thousands).
    mutating func readName(context: @autoclosure () -> String) throws -> String {
        let start = index
        guard index < bytes.count else {
            throw XMLErrorCode.xmlUnexpectedEnd.error(
                "document ends where \(context()) was expected", at: position(of: index))
        }
        guard Self.isNameStart(bytes[index]) else {
            throw XMLErrorCode.xmlSyntaxError.error(
                "expected \(context()), found '\(snippet(at: index))'", at: position(of: index))
        }
        index += 1
        while index < bytes.count, Self.isNameChar(bytes[index]) { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    mutating func popElement() {
        guard let top = open.popLast() else { return }
        bindings.removeLast(min(top.bindingCount, bindings.count))
    }
}
