import OfflineODataModel

/// The SAP header forms of the request options (docs/LocalService.md §3.1): SAP Service and
/// Asset Manager sets them on a request instead of `OfflineODataRequestOptions`.
///
/// | header | option |
/// | --- | --- |
/// | `OfflineOData.TransactionID` (text) | `transactionID` |
/// | `OfflineOData.RemoveAfterUpload` (`true`/`false`) | `removeCreatedEntityAfterUpload` |
/// | `OfflineOData.NonMergeable` (`true`/`false`) | `unmodifiable` |
/// | `Transaction.Ignore` (`true`/`false`) | none: checked, then queued as a custom header for the back end |
///
/// Header names are matched case-insensitively. The three `OfflineOData.*` headers are consumed
/// (not queued as custom headers); `Transaction.Ignore` stays a custom header.
extension RequestOptions {
    /// `OfflineOData.TransactionID`: requests with the same ID go into one change set at upload.
    public static let transactionIDHeader = "OfflineOData.TransactionID"
    /// `OfflineOData.RemoveAfterUpload`: drop the locally created entity after the upload.
    public static let removeAfterUploadHeader = "OfflineOData.RemoveAfterUpload"
    /// `OfflineOData.NonMergeable`: an unmodifiable request (never merged with others).
    public static let nonMergeableHeader = "OfflineOData.NonMergeable"
    /// `Transaction.Ignore`: the mobile back end ignores the request (display-only changes).
    /// Validated as a Boolean and queued with the request as a custom header.
    public static let transactionIgnoreHeader = "Transaction.Ignore"

    /// Lower-cased names of the headers the options consume (never queued as custom headers).
    static let consumedHeaderNames: Set<String> = [transactionIDHeader.lowercased(), removeAfterUploadHeader.lowercased(),
                                                   nonMergeableHeader.lowercased()]

    /// These options with the header forms in `headers` applied. An option set both here and
    /// by a header must agree. Throws `invalidRequestOption` (3110, location = the header
    /// name) for a Boolean header that is not `true`/`false` (case-insensitive, SP/HT around
    /// it allowed), an empty, too long or control-character transaction ID, one header given
    /// twice (names differing in case) with different values, or a conflict with the option
    /// already set.
    public func applyingHeaders(_ headers: [String: String]) throws(ODataError) -> RequestOptions {
        var options = self
        if let text = try Self.headerValue(Self.transactionIDHeader, in: headers) {
            try Self.checkText(text, header: Self.transactionIDHeader)
            if let given = options.transactionID, given != text {
                throw .serviceInvalidOption(Self.transactionIDHeader,
                                            "is '\(Self.describe(text))' but the request's options say '\(Self.describe(given))'")
            }
            options.transactionID = text
        }
        if let remove = try Self.booleanHeader(Self.removeAfterUploadHeader, in: headers) {
            if options.removeCreatedEntityAfterUpload, !remove {
                throw .serviceInvalidOption(Self.removeAfterUploadHeader, "is false but the request's options say true")
            }
            options.removeCreatedEntityAfterUpload = remove
        }
        if let nonMergeable = try Self.booleanHeader(Self.nonMergeableHeader, in: headers) {
            if options.unmodifiable, !nonMergeable {
                throw .serviceInvalidOption(Self.nonMergeableHeader, "is false but the request's options say true")
            }
            options.unmodifiable = nonMergeable
        }
        _ = try Self.booleanHeader(Self.transactionIgnoreHeader, in: headers)
        return options
    }

    /// The value of a header (case-insensitive name); the same header twice must agree.
    static func headerValue(_ name: String, in headers: [String: String]) throws(ODataError) -> String? {
        let lower = name.lowercased()
        var found: String?
        for (key, value) in headers where key.lowercased() == lower {
            if let found, found != value {
                throw .serviceInvalidOption(name, "is given twice with different values ('\(describe(found))', '\(describe(value))')")
            }
            found = value
        }
        return found
    }

    /// `true` / `false` (case-insensitive, SP/HT trimmed); nil when the header is absent.
    static func booleanHeader(_ name: String, in headers: [String: String]) throws(ODataError) -> Bool? {
        guard let raw = try headerValue(name, in: headers) else { return nil }
        switch raw.trimmingSpaces.lowercased() {
        case "true": return true
        case "false": return false
        default: throw .serviceInvalidOption(name, "has the value '\(describe(raw))', expected true or false")
        }
    }

    static func checkText(_ value: String, header: String) throws(ODataError) {
        if value.isEmpty { throw .serviceInvalidOption(header, "is empty") }
        if value.utf8.count > maxTextBytes {
            throw .serviceInvalidOption(header, "has \(value.utf8.count) bytes (at most \(maxTextBytes))")
        }
        if value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw .serviceInvalidOption(header, "'\(describe(value))' contains a control character")
        }
    }

    /// A header value for a message: at most 60 characters, control characters as `\u{…}`.
    static func describe(_ value: String) -> String {
        var out = ""
        var count = 0
        for scalar in value.unicodeScalars {
            if count == 60 { out += "…"; break }
            if scalar.value < 0x20 || scalar.value == 0x7F {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
            count += 1
        }
        return out
    }
}
