/// Limits and choices of the JSON readers.
public struct JSONReaderOptions: Sendable, Hashable {
    /// Deepest nesting of arrays and objects accepted (a top-level array is depth 1).
    /// Deeper input fails with `jsonDepthLimitExceeded` (1209), never with a stack overflow:
    /// the readers are iterative.
    public var maxDepth: Int
    /// Largest document, in bytes, `JSONReader` accepts (`jsonDocumentTooLarge`, 1210).
    /// `JSONStreamReader` counts every byte fed against it.
    public var maxDocumentSize: Int
    /// Largest single token (string or number, in bytes) `JSONStreamReader` buffers
    /// (`jsonTokenTooLarge`, 1211). This bounds the stream's memory.
    public var maxTokenSize: Int
    /// RFC 8259 §8.1 lets a parser ignore a leading UTF-8 byte order mark (EF BB BF). When true
    /// (the default) one leading BOM is skipped; when false it is a `jsonSyntaxError`.
    /// A BOM anywhere else is always an error.
    public var allowsByteOrderMark: Bool

    public init(
        maxDepth: Int = 512, maxDocumentSize: Int = Int.max, maxTokenSize: Int = 64 << 20,
        allowsByteOrderMark: Bool = true
    ) {
        self.maxDepth = maxDepth
        self.maxDocumentSize = maxDocumentSize
        self.maxTokenSize = maxTokenSize
        self.allowsByteOrderMark = allowsByteOrderMark
    }
}

/// Strict RFC 8259 reader of a whole document into a `JSONValue`.
///
/// Rejects trailing commas, comments, leading zeros, `+1`, `.5`, `NaN`, single quotes, bad or
/// incomplete escapes, lone surrogates, ill-formed UTF-8, unescaped control characters,
/// duplicate member names and trailing content. Numbers keep their literal text.
public enum JSONReader {
    /// Parses a whole document.
    /// - Throws: `ODataError` with a `json…` name (codes 1201–1210) whose `location` gives the
    ///   JSON path of the enclosing value, line, column and byte offset, and whose message names
    ///   the offending text.
    public static func parse(
        _ bytes: UnsafeRawBufferPointer, options: JSONReaderOptions = JSONReaderOptions()
    ) throws(ODataError) -> JSONValue {
        try parse(bytes.assumingMemoryBound(to: UInt8.self), options: options)
    }

    /// Parses a whole document.
    public static func parse(
        _ bytes: [UInt8], options: JSONReaderOptions = JSONReaderOptions()
    ) throws(ODataError) -> JSONValue {
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(ODataError) -> JSONValue in try parse(buffer, options: options) }
        }
        return try result.get()
    }

    /// Parses a whole document held in a String (its UTF-8).
    public static func parse(
        _ text: String, options: JSONReaderOptions = JSONReaderOptions()
    ) throws(ODataError) -> JSONValue {
        var text = text
        let result = text.withUTF8 { buffer in
            Result { () throws(ODataError) -> JSONValue in try parse(buffer, options: options) }
        }
        return try result.get()
    }

    /// Parses a whole document.
    public static func parse(
        _ buffer: UnsafeBufferPointer<UInt8>, options: JSONReaderOptions = JSONReaderOptions()
    ) throws(ODataError) -> JSONValue {
        guard buffer.count <= options.maxDocumentSize else {
            throw JSONErrorKind.documentTooLarge.error(
                "document of \(buffer.count) bytes exceeds the limit of \(options.maxDocumentSize) bytes",
                location: JSONPath.location(path: "$", line: 1, column: 1, offset: 0))
        }
        var parser = JSONDOMParser(input: buffer, options: options)
        do {
            return try parser.run()
        } catch {
            throw parser.makeError(error)
        }
    }
}
