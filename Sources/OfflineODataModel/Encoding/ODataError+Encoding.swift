/// Errors of key predicates and binary encodings (codes 1400–1499).
extension ODataError {
    /// A key predicate that does not match the key (syntax, missing/unknown/duplicate keys).
    static func keyInvalidPredicate(_ text: some StringProtocol, _ reason: String, position: Int) -> ODataError {
        ODataError(.invalidInput, name: "invalidKeyPredicate", code: 1400,
                   message: "invalid key predicate '\(valueClip(text))': \(reason)",
                   location: "position \(position)")
    }

    /// Encoded bytes that end before the structure they describe.
    static func encodingTruncated(_ what: String, offset: Int) -> ODataError {
        ODataError(.invalidInput, name: "truncatedEncoding", code: 1410,
                   message: "encoded \(what) is truncated", location: "offset \(offset)")
    }

    /// Encoded bytes that are not a valid encoding (unknown tag, bad UTF-8, inconsistent offsets).
    static func encodingInvalid(_ what: String, offset: Int) -> ODataError {
        ODataError(.invalidInput, name: "invalidEncoding", code: 1411,
                   message: "invalid encoding: \(what)", location: "offset \(offset)")
    }

    /// A format version this code does not read.
    static func encodingUnsupportedVersion(_ version: UInt8, offset: Int) -> ODataError {
        ODataError(.notSupported, name: "unsupportedEncodingVersion", code: 1412,
                   message: "encoding format version \(version) is not supported", location: "offset \(offset)")
    }

    /// A value that does not fit the layout or the key (wrong kind, null in a non-nullable
    /// property, a complex value as a key component).
    static func encodingLayoutMismatch(_ what: String, path: String) -> ODataError {
        ODataError(.invalidInput, name: "layoutMismatch", code: 1413, message: what, location: path)
    }

    /// Nesting deeper than the codecs allow.
    static func encodingNestingTooDeep(_ limit: Int, offset: Int) -> ODataError {
        ODataError(.invalidInput, name: "nestingTooDeep", code: 1414,
                   message: "values nested deeper than \(limit) levels", location: "offset \(offset)")
    }
}
