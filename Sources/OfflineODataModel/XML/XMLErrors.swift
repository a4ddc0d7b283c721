/// Error names and codes of the XML layer (range 1100–1199, shared with CSDL; listed in
/// docs/CSDL.md). Every error is `.invalidInput` with location "line L, column C".
public enum XMLErrorCode: Int, Sendable, Hashable, CaseIterable {
    /// Any malformed markup not covered by a more specific code.
    case xmlSyntaxError = 1101
    /// Bytes that are not well-formed UTF-8, or a character XML forbids.
    case xmlInvalidUTF8 = 1102
    /// An end tag that does not match the open element.
    case xmlMismatchedTag = 1103
    /// The document ends inside markup or with elements still open (truncated input).
    case xmlUnexpectedEnd = 1104
    /// Elements nested deeper than the parser's limit (256 by default).
    case xmlTooDeep = 1105
    /// An entity reference other than the five predefined ones, or a bad character reference.
    case xmlUndefinedEntity = 1106
    /// A prefix with no namespace declaration in scope.
    case xmlUndeclaredPrefix = 1107
    /// The same attribute twice on one element.
    case xmlDuplicateAttribute = 1108
    /// A declared encoding other than UTF-8, or a UTF-16 byte order mark.
    case xmlUnsupportedEncoding = 1109

    public var name: String {
        switch self {
        case .xmlSyntaxError: "xmlSyntaxError"
        case .xmlInvalidUTF8: "xmlInvalidUTF8"
        case .xmlMismatchedTag: "xmlMismatchedTag"
        case .xmlUnexpectedEnd: "xmlUnexpectedEnd"
        case .xmlTooDeep: "xmlTooDeep"
        case .xmlUndefinedEntity: "xmlUndefinedEntity"
        case .xmlUndeclaredPrefix: "xmlUndeclaredPrefix"
        case .xmlDuplicateAttribute: "xmlDuplicateAttribute"
        case .xmlUnsupportedEncoding: "xmlUnsupportedEncoding"
        }
    }

    func error(_ message: String, at position: XMLPosition) -> ODataError {
        ODataError(.invalidInput, name: name, code: rawValue, message: message,
                   location: position.description)
    }
}
