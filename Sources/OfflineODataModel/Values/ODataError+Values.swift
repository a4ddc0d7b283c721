/// Errors raised by the value layer (codes 1300–1399) and the key/encoding layer (1400–1499).
/// The names and codes are stable; docs/EntityEncoding.md lists the encoding ones.
extension ODataError {
    // MARK: values and literals (1300–1399)

    /// Text that is not a valid literal (URL or JSON scalar) of the requested type.
    static func valueInvalidLiteral(_ text: some StringProtocol, _ reason: String, offset: Int? = nil) -> ODataError {
        ODataError(.invalidInput, name: "invalidLiteral", code: 1300,
                   message: "invalid literal '\(valueClip(text))': \(reason)",
                   location: offset.map { "offset \($0)" })
    }

    /// A syntactically fine literal whose value does not fit the type (Int32 overflow, Byte 256, 1e400).
    static func valueOutOfRange(_ text: some StringProtocol, _ kind: String) -> ODataError {
        ODataError(.invalidInput, name: "literalOutOfRange", code: 1301,
                   message: "'\(valueClip(text))' is out of range for \(kind)")
    }

    /// Calendar fields that do not form a date/time (2021-02-30, 24:00, offset +25:00).
    static func valueInvalidDateTime(_ text: some StringProtocol, _ reason: String) -> ODataError {
        ODataError(.invalidInput, name: "invalidDateTime", code: 1302,
                   message: "invalid date/time '\(valueClip(text))': \(reason)")
    }

    /// Binary text (base64, base64url, hex) that does not decode.
    static func valueInvalidBinary(_ text: some StringProtocol, _ reason: String, offset: Int? = nil) -> ODataError {
        ODataError(.invalidInput, name: "invalidBinary", code: 1303,
                   message: "invalid binary '\(valueClip(text))': \(reason)",
                   location: offset.map { "offset \($0)" })
    }

    /// A GUID that is not 8-4-4-4-12 hex digits.
    static func valueInvalidGuid(_ text: some StringProtocol) -> ODataError {
        ODataError(.invalidInput, name: "invalidGuid", code: 1304,
                   message: "invalid guid '\(valueClip(text))': expected 8-4-4-4-12 hexadecimal digits")
    }

    /// A decimal beyond the supported size (EdmDecimal.maxDigits digits or scale).
    static func valueDecimalTooLarge(_ text: some StringProtocol) -> ODataError {
        ODataError(.invalidInput, name: "decimalTooLarge", code: 1305,
                   message: "decimal '\(valueClip(text))' exceeds \(EdmDecimal.maxDigits) digits or scale")
    }

    /// A JSON scalar of the wrong JSON type for the EDM type (a number for Edm.Guid, ...).
    static func valueJSONTypeMismatch(_ text: some StringProtocol, _ expected: String) -> ODataError {
        ODataError(.invalidInput, name: "jsonTypeMismatch", code: 1306,
                   message: "JSON value '\(valueClip(text))' cannot represent \(expected)")
    }

    /// A literal or type the value layer does not support (geo WKT literals, Edm.Stream).
    static func valueUnsupported(_ what: String) -> ODataError {
        ODataError(.notSupported, name: "unsupportedValue", code: 1307, message: what)
    }

    /// A complex or collection value where a single primitive scalar is required.
    static func valueNotAScalar(_ what: String) -> ODataError {
        ODataError(.invalidInput, name: "notAScalar", code: 1308,
                   message: "\(what) has no scalar (literal or JSON scalar) form")
    }

    /// Fields that do not make a value (invalid struct construction, e.g. 17 guid bytes).
    static func valueInvalidFields(_ reason: String) -> ODataError {
        ODataError(.invalidInput, name: "invalidValue", code: 1309, message: reason)
    }

    /// Shortens offending text for messages, so a 10 MB literal does not become a 10 MB message.
    static func valueClip(_ text: some StringProtocol) -> String {
        let limit = 120
        if text.count <= limit { return String(text) }
        return String(text.prefix(limit)) + "…"
    }
}
