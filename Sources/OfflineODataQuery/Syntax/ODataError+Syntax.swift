import OfflineODataModel

/// Errors of the URL parser (codes 1600–1649, docs/Query.md §1.6 and docs/Errors.md).
/// Every error names the offending text and carries a location such as
/// `"$filter, position 12"` (a 0-based UTF-8 offset into the percent-decoded option value or
/// path segment).
extension ODataError {
    /// Codes of the syntax errors, stable.
    enum SyntaxCode: Int {
        case urlSyntaxError = 1600
        case unexpectedEnd = 1601
        case invalidKeyPredicate = 1602
        case duplicateQueryOption = 1604
        case invalidQueryOptionValue = 1605
        case unsupportedQueryOption = 1606
        case expressionTooDeep = 1607
        case invalidPercentEncoding = 1608
        case unterminatedString = 1609
        case invalidSearch = 1610
        case invalidListOperand = 1611
        case invalidLambda = 1612
        case invalidNestedOption = 1613
        case invalidSelectItem = 1614
        case invalidResourcePath = 1615
        case unsupportedSyntax = 1616
        case invalidExpandItem = 1617

        var name: String {
            switch self {
            case .urlSyntaxError: return "urlSyntaxError"
            case .unexpectedEnd: return "unexpectedEndOfInput"
            case .invalidKeyPredicate: return "invalidKeyPredicate"
            case .duplicateQueryOption: return "duplicateQueryOption"
            case .invalidQueryOptionValue: return "invalidQueryOptionValue"
            case .unsupportedQueryOption: return "unsupportedQueryOption"
            case .expressionTooDeep: return "expressionTooDeep"
            case .invalidPercentEncoding: return "invalidPercentEncoding"
            case .unterminatedString: return "unterminatedString"
            case .invalidSearch: return "invalidSearch"
            case .invalidListOperand: return "invalidListOperand"
            case .invalidLambda: return "invalidLambda"
            case .invalidNestedOption: return "invalidNestedOption"
            case .invalidSelectItem: return "invalidSelectItem"
            case .invalidResourcePath: return "invalidResourcePath"
            case .unsupportedSyntax: return "unsupportedSyntax"
            case .invalidExpandItem: return "invalidExpandItem"
            }
        }

        var category: ODataErrorCategory {
            switch self {
            case .unsupportedQueryOption, .unsupportedSyntax: return .notSupported
            default: return .invalidInput
            }
        }
    }

    /// A syntax error at `position` of the text parsed for `option` (nil: a bare expression).
    static func syntax(_ code: SyntaxCode, _ message: String, option: String?, position: Int) -> ODataError {
        ODataError(code.category, name: code.name, code: code.rawValue, message: message,
                   location: syntaxLocation(option: option, position: position), position: option == nil ? position : nil)
    }

    static func syntaxLocation(option: String?, position: Int) -> String {
        if let option { return "\(option), position \(position)" }
        return "position \(position)"
    }

    /// Shortens offending text for messages.
    static func syntaxClip(_ text: some StringProtocol) -> String {
        let limit = 60
        if text.count <= limit { return String(text) }
        return String(text.prefix(limit)) + "…"
    }
}
