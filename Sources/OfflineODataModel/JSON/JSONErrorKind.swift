/// The errors of the JSON layer (code range 1200–1299, see docs/JSON.md).
///
/// Every failure the readers and the writer report is an `ODataError` whose `name` and `code`
/// come from one of these kinds; `location` says where (JSON path, line:column, byte offset).
public enum JSONErrorKind: Int, Sendable, Hashable, CaseIterable {
    /// Unexpected character or structure: trailing comma, missing ':', trailing content, …
    case syntaxError = 1201
    /// The input ended inside a value (including empty or whitespace-only input).
    case unexpectedEnd = 1202
    /// A number that breaks the RFC 8259 grammar (leading zero, `1.`, `-`, `1e`).
    case invalidNumber = 1203
    /// A backslash escape that is not one of `\" \\ \/ \b \f \n \r \t`, or `\u` and four hex digits.
    case invalidEscape = 1204
    /// A `\uD800`–`\uDFFF` escape that is not part of a high/low surrogate pair.
    case invalidSurrogate = 1205
    /// Bytes that are not well-formed UTF-8 (overlong, truncated, surrogate, > U+10FFFF, 0xFF…).
    case invalidUTF8 = 1206
    /// An unescaped control character (U+0000–U+001F) inside a string.
    case controlCharacter = 1207
    /// An object with the same member name twice.
    case duplicateMember = 1208
    /// Nesting deeper than the configured limit.
    case depthLimitExceeded = 1209
    /// A document larger than the configured limit.
    case documentTooLarge = 1210
    /// A single token (string, number) larger than the streaming reader's limit.
    case tokenTooLarge = 1211
    /// A streaming reader used after `finish()`.
    case streamMisuse = 1212
    /// A payload that does not hold a collection where one was expected.
    case notACollection = 1213
    /// A writer call that does not fit the current structure (key outside an object, …).
    case writerMisuse = 1214
    /// A Double that JSON cannot represent (NaN, ±infinity).
    case nonFiniteNumber = 1215

    /// The stable error name, e.g. `jsonSyntaxError`.
    public var name: String {
        switch self {
        case .syntaxError: "jsonSyntaxError"
        case .unexpectedEnd: "jsonUnexpectedEnd"
        case .invalidNumber: "jsonInvalidNumber"
        case .invalidEscape: "jsonInvalidEscape"
        case .invalidSurrogate: "jsonInvalidSurrogate"
        case .invalidUTF8: "jsonInvalidUTF8"
        case .controlCharacter: "jsonControlCharacter"
        case .duplicateMember: "jsonDuplicateMember"
        case .depthLimitExceeded: "jsonDepthLimitExceeded"
        case .documentTooLarge: "jsonDocumentTooLarge"
        case .tokenTooLarge: "jsonTokenTooLarge"
        case .streamMisuse: "jsonStreamMisuse"
        case .notACollection: "jsonNotACollection"
        case .writerMisuse: "jsonWriterMisuse"
        case .nonFiniteNumber: "jsonNonFiniteNumber"
        }
    }

    /// The stable numeric code.
    public var code: Int { rawValue }

    /// The error category: misuse of the API is a failed precondition, everything else is bad input.
    public var category: ODataErrorCategory {
        switch self {
        case .streamMisuse, .writerMisuse: .preconditionFailed
        default: .invalidInput
        }
    }

    /// Makes the `ODataError` for this kind.
    public func error(_ message: String, location: String? = nil) -> ODataError {
        ODataError(category, name: name, code: code, message: message, location: location)
    }
}

/// A failure found by the byte scanner, before the reader adds the path and line:column.
struct JSONScanFailure: Error {
    var kind: JSONErrorKind
    /// Absolute byte offset of the offending byte (relative to the scanned buffer).
    var offset: Int
    var message: String

    init(_ kind: JSONErrorKind, at offset: Int, _ message: String) {
        self.kind = kind
        self.offset = offset
        self.message = message
    }
}
