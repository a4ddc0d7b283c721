/// A strict, incremental JSON reader: feed it chunks of bytes, pull `JSONEvent`s.
///
/// Memory is bounded: bytes are dropped as soon as their token is reported, so the reader holds
/// at most the unfinished token plus the last chunk, and one small frame per open container
/// (`maxTokenSize` and `maxDepth` bound both). Tokens may be split anywhere across chunks.
///
/// ```swift
/// var reader = JSONStreamReader()
/// for chunk in chunks {
///     try reader.feed(chunk)
///     while let event = try reader.next() { handle(event) }
/// }
/// try reader.finish()
/// while let event = try reader.next() { handle(event) }
/// // reader.isComplete == true
/// ```
///
/// It checks the same grammar as `JSONReader` and reports the same errors (name, message,
/// location), except duplicate member names, which need the whole object (`JSONCollectionStream`
/// and `JSONReader` check them). After an error every call throws that error again.
public struct JSONStreamReader: Sendable {
    enum State: Sendable {
        case start, value, arrayValueOrEnd, elementAfterComma, keyOrEnd, key, colon, commaOrEnd, done
    }

    struct Frame: Sendable {
        var isObject: Bool
        var index: Int
        var key: String?
    }

    public let options: JSONReaderOptions
    private var buffer: [UInt8] = []
    /// Index in `buffer` of the first unconsumed byte.
    private var pos = 0
    /// Absolute offset of `buffer[0]` in the document.
    private var base = 0
    private var totalFed = 0
    private var finished = false
    private var reachedEnd = false
    private var line = 1
    private var lineStart = 0
    private var state = State.start
    private var frames: [Frame] = []
    /// Absolute offset where scanning of an unfinished string resumes (-1: none).
    private var stringResume = -1
    private var scratch: [UInt8] = []
    private var failure: ODataError?

    public init(options: JSONReaderOptions = JSONReaderOptions()) {
        self.options = options
    }

    /// True once `finish()` was called and the whole document has been reported.
    public var isComplete: Bool { reachedEnd }

    /// Bytes held that were fed but not yet reported (the unfinished token and what follows it).
    public var bufferedByteCount: Int { buffer.count - pos }

    /// Containers currently open.
    public var depth: Int { frames.count }

    /// Absolute offset of the next unread byte.
    public var offset: Int { base + pos }

    /// The JSON path of the value being read, e.g. `$.value[4].Price`.
    public var path: String {
        JSONPath.render(frames.compactMap { frame in
            frame.isObject ? frame.key.map(JSONPathComponent.key) : .index(frame.index)
        })
    }

    /// The path of the value whose last event was just reported (an array's index is not yet
    /// advanced to the next element).
    var completedValuePath: String {
        var components: [JSONPathComponent] = []
        for (f, frame) in frames.enumerated() {
            if frame.isObject {
                if let key = frame.key { components.append(.key(key)) }
            } else {
                let isLast = f + 1 == frames.count
                components.append(.index(isLast && state == .commaOrEnd ? frame.index - 1 : frame.index))
            }
        }
        return JSONPath.render(components)
    }

    /// Adds the next bytes of the document.
    /// - Throws: `jsonStreamMisuse` after `finish()`, `jsonDocumentTooLarge` past `maxDocumentSize`,
    ///   or an earlier error again.
    public mutating func feed(_ chunk: [UInt8]) throws(ODataError) {
        try chunk.withUnsafeBufferPointer { (bytes) throws(ODataError) in try feed(bytes) }
    }

    /// Adds the next bytes of the document.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer) throws(ODataError) {
        try feed(chunk.assumingMemoryBound(to: UInt8.self))
    }

    /// Adds the next bytes of the document.
    public mutating func feed(_ chunk: UnsafeBufferPointer<UInt8>) throws(ODataError) {
        if let failure { throw failure }
        guard !finished else {
            throw JSONErrorKind.streamMisuse.error("feed() called after finish()")
        }
        totalFed += chunk.count
        guard totalFed <= options.maxDocumentSize else {
            // Line and column of that offset are unknown: the bytes before it are not all read yet.
            let error = JSONErrorKind.documentTooLarge.error(
                "document exceeds the limit of \(options.maxDocumentSize) bytes",
                location: "\(path) (offset \(options.maxDocumentSize))")
            failure = error
            throw error
        }
        if pos == buffer.count {
            buffer.removeAll(keepingCapacity: true)
        } else if pos > 0 {
            buffer.removeSubrange(0..<pos)
        }
        base += pos
        pos = 0
        buffer.append(contentsOf: chunk)
    }

    /// Marks the end of the input; `next()` then reports the remaining events or the error of
    /// a truncated document.
    public mutating func finish() throws(ODataError) {
        if let failure { throw failure }
        finished = true
    }

    /// The next event, or nil when more input is needed (before `finish()`) or the document is
    /// complete (after `finish()`; see `isComplete`).
    public mutating func next() throws(ODataError) -> JSONEvent? {
        if let failure { throw failure }
        // Borrow the buffer without a retain per event: swap it out while scanning.
        var storage: [UInt8] = []
        swap(&storage, &buffer)
        defer { swap(&storage, &buffer) }
        do {
            return try storage.withUnsafeBufferPointer { (buf) throws(JSONScanFailure) in try step(buf) }
        } catch {
            let made = storage.withUnsafeBufferPointer { buf in makeError(error, buf) }
            failure = made
            throw made
        }
    }

    // MARK: Scanning

    private mutating func step(_ buf: UnsafeBufferPointer<UInt8>) throws(JSONScanFailure) -> JSONEvent? {
        if state == .start && base + pos == 0 && !buf.isEmpty && buf[0] == 0xEF {
            // A leading byte order mark, possibly split across chunks.
            if buf.count < 3 && !finished && (buf.count < 2 || buf[1] == 0xBB) { return nil }
            if buf.count >= 3 && buf[1] == 0xBB && buf[2] == 0xBF {
                guard options.allowsByteOrderMark else {
                    throw JSONScanFailure(.syntaxError, at: 0, "byte order mark not allowed")
                }
                pos = 3
            }
        }
        let end = buf.count
        while pos < end {
            let b = buf[pos]
            if b == 0x20 || b == 0x09 || b == 0x0D {
                pos += 1
            } else if b == 0x0A {
                pos += 1
                line += 1
                lineStart = base + pos
            } else {
                break
            }
        }
        guard pos < end else {
            guard finished else { return nil }
            try endOfInput()
            return nil
        }
        let c = buf[pos]
        switch state {
        case .start:
            state = .value
            return try readValue(buf)
        case .value:
            return try readValue(buf)
        case .arrayValueOrEnd:
            if c == 0x5D { return closeContainer(.endArray) }
            state = .value
            return try readValue(buf)
        case .elementAfterComma:
            if c == 0x5D { throw JSONScanFailure(.syntaxError, at: pos, "trailing comma before ']'") }
            state = .value
            return try readValue(buf)
        case .keyOrEnd, .key:
            if c == 0x7D && state == .keyOrEnd { return closeContainer(.endObject) }
            guard c == JSONScanner.quote else {
                if c == 0x7D { throw JSONScanFailure(.syntaxError, at: pos, "trailing comma before '}'") }
                throw JSONScanFailure(
                    .syntaxError, at: pos,
                    "unexpected \(JSONScanner.describeByte(c)): expected a member name in quotes")
            }
            guard let name = try readString(buf) else { return nil }
            frames[frames.count - 1].key = name
            state = .colon
            return .key(name)
        case .colon:
            guard c == 0x3A else {
                throw JSONScanFailure(
                    .syntaxError, at: pos, "unexpected \(JSONScanner.describeByte(c)): expected ':' after a member name")
            }
            pos += 1
            state = .value
            return try step(buf)
        case .commaOrEnd:
            let isObject = frames[frames.count - 1].isObject
            if c == 0x2C {
                pos += 1
                if isObject {
                    state = .key
                } else {
                    state = .elementAfterComma
                }
                return try step(buf)
            }
            if isObject {
                guard c == 0x7D else {
                    throw JSONScanFailure(
                        .syntaxError, at: pos,
                        "unexpected \(JSONScanner.describeByte(c)): expected ',' or '}' after an object member")
                }
                return closeContainer(.endObject)
            }
            guard c == 0x5D else {
                throw JSONScanFailure(
                    .syntaxError, at: pos,
                    "unexpected \(JSONScanner.describeByte(c)): expected ',' or ']' after an array element")
            }
            return closeContainer(.endArray)
        case .done:
            throw JSONScanFailure(.syntaxError, at: pos, "unexpected \(JSONScanner.describeByte(c)) after the JSON value")
        }
    }

    /// The input ended (after `finish()`) with only whitespace left.
    private mutating func endOfInput() throws(JSONScanFailure) {
        let at = pos
        switch state {
        case .done:
            reachedEnd = true
        case .start:
            throw JSONScanFailure(.unexpectedEnd, at: at, "empty document: expected a JSON value")
        case .value, .arrayValueOrEnd, .elementAfterComma:
            throw JSONScanFailure(.unexpectedEnd, at: at, "unexpected end of input: expected a value")
        case .keyOrEnd, .key:
            throw JSONScanFailure(.unexpectedEnd, at: at, "unexpected end of input: expected a member name")
        case .colon:
            throw JSONScanFailure(.unexpectedEnd, at: at, "unexpected end of input: expected ':' after a member name")
        case .commaOrEnd:
            let close = frames[frames.count - 1].isObject ? "}" : "]"
            throw JSONScanFailure(.unexpectedEnd, at: at, "unexpected end of input: expected ',' or '\(close)'")
        }
    }

    private mutating func closeContainer(_ event: JSONEvent) -> JSONEvent {
        pos += 1
        frames.removeLast()
        return valueDone(event)
    }

    /// A value is complete: an array's index moves on to the next element (as in
    /// `JSONDOMParser`, where the index is the count of completed elements).
    private mutating func valueDone(_ event: JSONEvent) -> JSONEvent {
        if frames.isEmpty {
            state = .done
        } else {
            state = .commaOrEnd
            if !frames[frames.count - 1].isObject { frames[frames.count - 1].index += 1 }
        }
        return event
    }

    private mutating func readValue(_ buf: UnsafeBufferPointer<UInt8>) throws(JSONScanFailure) -> JSONEvent? {
        let c = buf[pos]
        switch c {
        case 0x7B, 0x5B:
            guard frames.count < options.maxDepth else {
                throw JSONScanFailure(
                    .depthLimitExceeded, at: pos, "nesting deeper than the limit of \(options.maxDepth) levels")
            }
            pos += 1
            let isObject = c == 0x7B
            frames.append(Frame(isObject: isObject, index: 0, key: nil))
            state = isObject ? .keyOrEnd : .arrayValueOrEnd
            return isObject ? .startObject : .startArray
        case 0x22:
            guard let string = try readString(buf) else { return nil }
            return valueDone(.string(string))
        case 0x2D, 0x30...0x39:
            guard let end = try JSONScanner.scanNumber(buf, from: pos, isFinal: finished) else {
                try checkTokenSize(buf)
                return nil
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: buf[pos..<end]), as: UTF8.self)
            pos = end
            return valueDone(.number(JSONNumber(unchecked: text)))
        case 0x74:
            guard try readLiteral("true", buf) else { return nil }
            return valueDone(.bool(true))
        case 0x66:
            guard try readLiteral("false", buf) else { return nil }
            return valueDone(.bool(false))
        case 0x6E:
            guard try readLiteral("null", buf) else { return nil }
            return valueDone(.null)
        default:
            throw JSONScanFailure(.syntaxError, at: pos, "unexpected \(JSONScanner.describeByte(c)): expected a value")
        }
    }

    /// Reads the string whose opening quote is at `pos`; nil when it is not complete yet.
    private mutating func readString(_ buf: UnsafeBufferPointer<UInt8>) throws(JSONScanFailure) -> String? {
        let contentStart = pos + 1
        let from = stringResume >= 0 ? max(contentStart, stringResume - base) : contentStart
        let (close, resume, isBroken) = JSONScanner.findStringEnd(buf, from: from)
        guard close != nil else {
            stringResume = base + resume
            if finished || isBroken {
                // Scan what there is, as JSONReader would: the first error in the string wins.
                _ = try JSONScanner.scanString(buf, from: contentStart, scratch: &scratch)
                if finished { throw JSONScanFailure(.unexpectedEnd, at: pos, "unterminated string") }
            }
            try checkTokenSize(buf)
            return nil
        }
        stringResume = -1
        guard let (string, next) = try JSONScanner.scanString(buf, from: contentStart, scratch: &scratch) else {
            throw JSONScanFailure(.unexpectedEnd, at: pos, "unterminated string")
        }
        pos = next
        return string
    }

    /// Reads `true`/`false`/`null` at `pos`; false when the buffer ends inside it.
    private mutating func readLiteral(
        _ literal: StaticString, _ buf: UnsafeBufferPointer<UInt8>
    ) throws(JSONScanFailure) -> Bool {
        let length = literal.utf8CodeUnitCount
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: length)
        var k = 0
        while k < length {
            guard pos + k < buf.count else {
                if finished {
                    throw JSONScanFailure(.unexpectedEnd, at: pos, "unexpected end of input in literal '\(literal)'")
                }
                return false
            }
            guard buf[pos + k] == expected[k] else {
                throw JSONScanFailure(.syntaxError, at: pos, "invalid literal: expected '\(literal)'")
            }
            k += 1
        }
        pos += length
        return true
    }

    private func checkTokenSize(_ buf: UnsafeBufferPointer<UInt8>) throws(JSONScanFailure) {
        guard buf.count - pos <= options.maxTokenSize else {
            throw JSONScanFailure(
                .tokenTooLarge, at: pos, "token longer than the limit of \(options.maxTokenSize) bytes")
        }
    }

    /// The location text for `offset` on the current line, under `path`.
    func location(path: String, offset: Int) -> String {
        JSONPath.location(path: path, line: line, column: offset - lineStart + 1, offset: offset)
    }

    private func makeError(_ failure: JSONScanFailure, _ buf: UnsafeBufferPointer<UInt8>) -> ODataError {
        let offset = base + failure.offset
        var message = failure.message
        if failure.offset < buf.count && failure.kind != .invalidUTF8 && failure.kind != .tokenTooLarge {
            message += " near \"\(JSONScanner.snippet(buf, at: failure.offset))\""
        }
        return failure.kind.error(
            message,
            location: JSONPath.location(path: path, line: line, column: offset - lineStart + 1, offset: offset))
    }
}
