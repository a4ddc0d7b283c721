import OfflineODataModel

/// The `continue-on-error` preference of a `$batch` request (OData 4.01 Part 1 §8.2.8.3; the
/// OData 4.0 name `odata.continue-on-error`), read from its `Prefer` header
/// (docs/LocalService.md §2.5.1).
///
/// Accepted (case-insensitive, preferences separated by `,`, parameters after `;` ignored):
/// `odata.continue-on-error`, `continue-on-error`, either with `=true` or `=false` (the value
/// may be quoted). Without it, or with `=false`, the batch stops at the first failed request or
/// change set. Other preferences are ignored here.
struct BatchPreference: Sendable, Hashable {
    /// Go on after a failed request or change set.
    var continueOnError: Bool
    /// The `Preference-Applied` value of the batch response (nil when not continuing).
    var applied: String?

    init(continueOnError: Bool = false, applied: String? = nil) {
        self.continueOnError = continueOnError
        self.applied = applied
    }

    /// Throws `invalidRequestOption` (3110, location `Prefer`) for a `continue-on-error` value
    /// other than true/false, or the preference given twice with different values.
    init(prefer: String?) throws(ODataError) {
        self.init()
        guard let prefer else { return }
        var seen: Bool?
        for item in prefer.split(separator: ",", omittingEmptySubsequences: true) {
            let preference = item.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let parts = preference.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = (parts.first.map(String.init) ?? "").trimmingSpaces.lowercased()
            guard name == "continue-on-error" || name == "odata.continue-on-error" else { continue }
            var value = true
            if parts.count == 2 {
                var text = String(parts[1]).trimmingSpaces
                if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = String(text.dropFirst().dropLast()) }
                switch text.lowercased() {
                case "true": value = true
                case "false": value = false
                default:
                    throw .serviceInvalidOption("Prefer", "\(name) has the value '\(RequestOptions.describe(text))', expected true or false")
                }
            }
            if let seen, seen != value {
                throw .serviceInvalidOption("Prefer", "\(name) is given twice with different values")
            }
            seen = value
            continueOnError = value
            applied = value ? (name == "odata.continue-on-error" ? "odata.continue-on-error" : "continue-on-error=true") : nil
        }
    }
}
