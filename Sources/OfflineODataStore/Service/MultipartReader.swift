import OfflineODataModel

/// RFC 2046 `multipart/mixed` bodies as OData `$batch` uses them (docs/LocalService.md §2.5,
/// docs/MultipartBatch.md): the boundary parameter, the split into body parts, and header
/// blocks. Works on byte offsets into the whole batch body so that every error names the
/// offset where it happened. Lines end with CRLF; a bare LF is accepted too.
struct MultipartReader {
    /// Longest header line (bytes, without its line break): `oversizeBatchHeader` (3117) beyond.
    static let maxHeaderLineBytes = 8_192
    /// Most header fields in one block (MIME part headers or the HTTP headers of a request).
    static let maxHeaderCount = 128
    /// RFC 2046: a boundary has 1…70 characters.
    static let maxBoundaryBytes = 70

    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A

    /// One header field as written (name case kept; look-ups ignore case).
    struct Field: Sendable, Hashable {
        var name: String
        var value: String
    }

    /// A header block: its fields, where the block started, and the index after its blank line
    /// (or the end of the range when the block was not closed by a blank line).
    struct Headers: Sendable, Hashable {
        var fields: [Field] = []
        var offset: Int
        var next: Int
        /// False when the range ended before the blank line.
        var closed: Bool

        func value(_ name: String) -> String? {
            fields.first { MultipartReader.equalsIgnoringASCIICase($0.name, name) }?.value
        }
    }

    let body: [UInt8]

    // MARK: content type

    /// The media type (lowercased) and the parameters (names lowercased) of a Content-Type value:
    /// `multipart/mixed; boundary="b 1"` → ("multipart/mixed", ["boundary": "b 1"]).
    static func mediaType(_ text: String, at location: @autoclosure () -> String?) throws(ODataError) -> (type: String, parameters: [String: String]) {
        // No parameters (`application/http`): the type alone.
        if !text.utf8.contains(UInt8(ascii: ";")) { return (trim(text).lowercased(), [:]) }
        // No quoted value (the usual `multipart/mixed; boundary=b`): split on `;` and `=`, as
        // the loop below reads such a text, without a string built scalar by scalar (a
        // `$batch` answer has one such Content-Type per change set).
        if !text.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            // Split on the bytes (ASCII `;` and `=` never occur inside another character's
            // UTF-8), as the loop below does on scalars.
            let pieces = text.utf8.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)
            let string = { (bytes: Substring.UTF8View.SubSequence) in String(decoding: bytes, as: UTF8.self) }
            var parameters: [String: String] = [:]
            for piece in pieces.dropFirst() {
                guard let equals = piece.firstIndex(of: UInt8(ascii: "=")) else {
                    let name = trim(string(piece)).lowercased()
                    if name.isEmpty { continue }
                    throw .serviceInvalidBatch("Content-Type parameter '\(name)' has no value in '\(text)'", location())
                }
                let name = trim(string(piece[..<equals])).lowercased()
                guard !name.isEmpty else { throw .serviceInvalidBatch("a Content-Type parameter without a name in '\(text)'", location()) }
                parameters[name] = trim(string(piece[piece.index(after: equals)...]))
            }
            return (trim(pieces.first.map(string) ?? "").lowercased(), parameters)
        }
        return try mediaTypeByScalars(text, at: location())
    }

    /// `mediaType` read scalar by scalar: any text, quoted values too.
    static func mediaTypeByScalars(_ text: String, at location: @autoclosure () -> String?) throws(ODataError) -> (type: String, parameters: [String: String]) {
        let location = location()
        let scalars = Array(text.unicodeScalars)
        var i = 0
        var type = ""
        while i < scalars.count, scalars[i] != ";" { type.unicodeScalars.append(scalars[i]); i += 1 }
        var parameters: [String: String] = [:]
        while i < scalars.count {
            i += 1  // the ";"
            var name = ""
            while i < scalars.count, scalars[i] != "=", scalars[i] != ";" { name.unicodeScalars.append(scalars[i]); i += 1 }
            name = trim(name).lowercased()
            guard i < scalars.count, scalars[i] == "=" else {
                if name.isEmpty { continue }
                throw .serviceInvalidBatch("Content-Type parameter '\(name)' has no value in '\(text)'", location)
            }
            i += 1
            while i < scalars.count, scalars[i] == " " || scalars[i] == "\t" { i += 1 }
            var value = ""
            if i < scalars.count, scalars[i] == "\"" {
                i += 1
                var closed = false
                while i < scalars.count {
                    if scalars[i] == "\\", i + 1 < scalars.count { value.unicodeScalars.append(scalars[i + 1]); i += 2; continue }
                    if scalars[i] == "\"" { closed = true; i += 1; break }
                    value.unicodeScalars.append(scalars[i]); i += 1
                }
                guard closed else { throw .serviceInvalidBatch("unterminated quoted parameter '\(name)' in '\(text)'", location) }
                while i < scalars.count, scalars[i] != ";" {
                    guard scalars[i] == " " || scalars[i] == "\t" else {
                        throw .serviceInvalidBatch("text after the quoted parameter '\(name)' in '\(text)'", location)
                    }
                    i += 1
                }
            } else {
                while i < scalars.count, scalars[i] != ";" { value.unicodeScalars.append(scalars[i]); i += 1 }
                value = trim(value)
            }
            guard !name.isEmpty else { throw .serviceInvalidBatch("a Content-Type parameter without a name in '\(text)'", location) }
            parameters[name] = value
        }
        return (trim(type).lowercased(), parameters)
    }

    /// The boundary of a `multipart/mixed` Content-Type; nil when the type is another one.
    static func multipartBoundary(_ contentType: String, at location: @autoclosure () -> String?) throws(ODataError) -> String? {
        let (type, parameters) = try mediaType(contentType, at: location())
        guard type == "multipart/mixed" else { return nil }
        guard let boundary = parameters["boundary"] else {
            throw .serviceInvalidBatch("'\(contentType)' has no boundary parameter", location())
        }
        try validateBoundary(boundary, at: location())
        return boundary
    }

    /// RFC 2046 bchars: 1…70 of `0-9 A-Z a-z '()+_,-./:=?` and space, not ending in a space.
    static func validateBoundary(_ boundary: String, at location: @autoclosure () -> String?) throws(ODataError) {
        let bytes = boundary.utf8
        guard !bytes.isEmpty, bytes.count <= maxBoundaryBytes else {
            throw .serviceInvalidBatch("the boundary '\(boundary)' must have 1 to \(maxBoundaryBytes) characters", location())
        }
        for byte in bytes {
            let alphanumeric = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            guard alphanumeric || boundarySymbols.contains(byte) else {
                throw .serviceInvalidBatch("the boundary '\(boundary)' contains a character RFC 2046 does not allow", location())
            }
        }
        guard bytes.last != 0x20 else { throw .serviceInvalidBatch("the boundary '\(boundary)' ends with a space", location()) }
    }

    /// RFC 2046 bchars besides letters and digits.
    private static let boundarySymbols: [UInt8] = Array("'()+_,-./:=? ".utf8)

    /// ASCII letters compared without case (header names, media types), with no allocation.
    static func equalsIgnoringASCIICase(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        for (x, y) in zip(a.utf8, b.utf8) where x != y {
            let lx = (0x41...0x5A).contains(x) ? x | 0x20 : x
            let ly = (0x41...0x5A).contains(y) ? y | 0x20 : y
            if lx != ly { return false }
        }
        return true
    }

    // MARK: body parts

    /// The content ranges of the body parts of `range` (a multipart entity with this boundary):
    /// the preamble before the first delimiter and the epilogue after the close delimiter are
    /// ignored; a part's content excludes the line break before the next delimiter.
    func parts(in range: Range<Int>, boundary: String) throws(ODataError) -> [Range<Int>] {
        let dash = Array(("--" + boundary).utf8)
        guard var current = delimiter(from: range.lowerBound, in: range, dash) else {
            throw .serviceInvalidBatch("no delimiter '--\(boundary)' in the multipart body", "offset \(range.lowerBound)")
        }
        var parts: [Range<Int>] = []
        while !current.close {
            let start = current.next
            guard let next = delimiter(from: start, in: range, dash) else {
                throw .serviceInvalidBatch("the multipart body ends without the close delimiter '--\(boundary)--'",
                                           "offset \(range.upperBound)")
            }
            var end = next.lineStart
            if end > start, body[end - 1] == Self.lf {
                end -= 1
                if end > start, body[end - 1] == Self.cr { end -= 1 }
            }
            parts.append(start..<end)
            current = next
        }
        return parts
    }

    /// The next delimiter line at or after `from` (which is a line start): where the line starts,
    /// the index after it, and whether it is the close delimiter.
    private func delimiter(from: Int, in range: Range<Int>, _ dash: [UInt8]) -> (lineStart: Int, next: Int, close: Bool)? {
        var lineStart = from
        while lineStart < range.upperBound {
            if let found = delimiter(at: lineStart, in: range, dash) { return found }
            var i = lineStart
            while i < range.upperBound, body[i] != Self.lf { i += 1 }
            lineStart = i + 1
        }
        return nil
    }

    private func delimiter(at start: Int, in range: Range<Int>, _ dash: [UInt8]) -> (lineStart: Int, next: Int, close: Bool)? {
        guard range.upperBound - start >= dash.count else { return nil }
        for (k, byte) in dash.enumerated() where body[start + k] != byte { return nil }
        var i = start + dash.count
        var close = false
        if i + 1 < range.upperBound, body[i] == 0x2D, body[i + 1] == 0x2D { close = true; i += 2 }
        while i < range.upperBound, body[i] == 0x20 || body[i] == 0x09 { i += 1 }  // transport padding
        if i == range.upperBound { return (start, i, close) }
        if body[i] == Self.lf { return (start, i + 1, close) }
        if body[i] == Self.cr, i + 1 < range.upperBound, body[i + 1] == Self.lf { return (start, i + 2, close) }
        return nil  // `--boundary` followed by other text is content, not a delimiter
    }

    // MARK: lines and headers

    /// The line starting at `start`: its text range (without the line break) and the next line's start.
    func line(from start: Int, end: Int) -> (text: Range<Int>, next: Int) {
        var i = start
        while i < end, body[i] != Self.lf { i += 1 }
        let next = i < end ? i + 1 : end
        var textEnd = i
        if textEnd > start, body[textEnd - 1] == Self.cr { textEnd -= 1 }
        return (start..<textEnd, next)
    }

    /// A line as text: valid UTF-8 without control characters other than tab.
    func text(_ range: Range<Int>, what: @autoclosure () -> String) throws(ODataError) -> String {
        guard range.count <= Self.maxHeaderLineBytes else {
            throw .serviceOversizeBatchHeader("\(what()) has \(range.count) bytes (at most \(Self.maxHeaderLineBytes))",
                                             "offset \(range.lowerBound)")
        }
        guard let text = String(validating: body[range], as: UTF8.self) else {
            throw .serviceInvalidBatch("\(what()) is not valid UTF-8", "offset \(range.lowerBound)")
        }
        if let bad = body[range].firstIndex(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
            throw .serviceInvalidBatch("\(what()) '\(text.prefix(80))' contains a control character", "offset \(bad)")
        }
        return text
    }

    /// Header fields from `start` up to a blank line (or `end`). A line starting with a space or
    /// tab continues the previous field (obsolete folding). Read byte by byte: the name is a
    /// token (ASCII), the value is trimmed of blanks before it becomes a string.
    func headers(from start: Int, end: Int, what: @autoclosure () -> String) throws(ODataError) -> Headers {
        var result = Headers(offset: start, next: end, closed: false)
        var position = start
        while position < end {
            let (range, next) = line(from: position, end: end)
            if range.isEmpty {
                result.next = next
                result.closed = true
                return result
            }
            guard range.count <= Self.maxHeaderLineBytes else {
                throw .serviceOversizeBatchHeader("a header line of \(what()) has \(range.count) bytes (at most \(Self.maxHeaderLineBytes))",
                                                 "offset \(range.lowerBound)")
            }
            if let bad = body[range].firstIndex(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
                let shown = String(decoding: body[range].prefix(80), as: UTF8.self)
                throw .serviceInvalidBatch("a header line of \(what()) '\(shown)' contains a control character", "offset \(bad)")
            }
            if body[range.lowerBound] == 0x20 || body[range.lowerBound] == 0x09 {
                // Length and control characters are checked above.
                guard let continued = String(validating: body[range], as: UTF8.self) else {
                    throw .serviceInvalidBatch("a header line of \(what()) is not valid UTF-8", "offset \(range.lowerBound)")
                }
                guard !result.fields.isEmpty else {
                    throw .serviceInvalidBatch("\(what()) starts with a continuation line '\(continued.prefix(80))'", "offset \(range.lowerBound)")
                }
                result.fields[result.fields.count - 1].value += " " + Self.trim(continued)
                position = next
                continue
            }
            guard let colon = body[range].firstIndex(of: 0x3A) else {
                let shown = String(decoding: body[range].prefix(80), as: UTF8.self)
                throw .serviceInvalidBatch("'\(shown)' in \(what()) is not a header field (no ':')", "offset \(range.lowerBound)")
            }
            guard colon > range.lowerBound, body[range.lowerBound..<colon].allSatisfy(Self.isTokenByte) else {
                let shown = String(decoding: body[range.lowerBound..<colon].prefix(80), as: UTF8.self)
                throw .serviceInvalidBatch("'\(shown)' in \(what()) is not a header name", "offset \(range.lowerBound)")
            }
            guard result.fields.count < Self.maxHeaderCount else {
                throw .serviceOversizeBatchHeader("\(what()) has more than \(Self.maxHeaderCount) header fields", "offset \(range.lowerBound)")
            }
            var lower = colon + 1, upper = range.upperBound
            while lower < upper, body[lower] == 0x20 || body[lower] == 0x09 { lower += 1 }
            while upper > lower, body[upper - 1] == 0x20 || body[upper - 1] == 0x09 { upper -= 1 }
            guard let value = String(validating: body[lower..<upper], as: UTF8.self) else {
                throw .serviceInvalidBatch("a header line of \(what()) is not valid UTF-8", "offset \(range.lowerBound)")
            }
            result.fields.append(Field(name: String(decoding: body[range.lowerBound..<colon], as: UTF8.self), value: value))
            position = next
        }
        return result
    }

    /// RFC 9110 token characters, as bytes.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        byte < 0x80 && isTokenCharacter(Unicode.Scalar(byte))
    }

    /// RFC 9110 token characters.
    static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "0"..."9", "A"..."Z", "a"..."z": return true
        case "!", "#", "$", "%", "&", "'", "*", "+", "-", ".", "^", "_", "`", "|", "~": return true
        default: return false
        }
    }

    static func trim(_ text: String) -> String {
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard let first = text.utf8.first, let last = text.utf8.last, blank(first) || blank(last) else { return text }
        let view = text.utf8
        var lower = view.startIndex, upper = view.endIndex
        while lower < upper, blank(view[lower]) { lower = view.index(after: lower) }
        while upper > lower, blank(view[view.index(before: upper)]) { upper = view.index(before: upper) }
        return String(text[lower..<upper])
    }

    /// True when the range holds nothing but spaces, tabs and line breaks.
    func isBlank(_ range: Range<Int>) -> Bool {
        body[range].allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == Self.cr || $0 == Self.lf }
    }
}
