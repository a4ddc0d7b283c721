/// A value of an enumeration type: the members as written (`Red,Blue` for a flags value) and,
/// when known (from the metadata, or because the value was written numerically), the numeric
/// value. Comparison uses the numeric value.
public struct EdmEnumValue: Sendable, Hashable, CustomStringConvertible {
    /// Qualified enum type name (`Ns.Color`), when known.
    public let typeName: String?
    /// Member names as written, in order; a numerically written value has its number here.
    public let members: [String]
    /// The underlying integer value, when known.
    public let numericValue: Int64?

    public init(typeName: String?, members: [String], numericValue: Int64? = nil) throws(ODataError) {
        guard !members.isEmpty, members.allSatisfy(Self.isValidMember) else {
            throw .valueInvalidFields("enum members '\(members.joined(separator: ","))' are not identifiers or integers")
        }
        if let typeName { guard Self.isQualifiedName(typeName) else {
            throw .valueInvalidFields("'\(typeName)' is not a qualified enum type name")
        } }
        self.typeName = typeName
        self.members = members
        var number = numericValue
        if number == nil, members.count == 1, let parsed = Int64(members[0]) { number = parsed }
        self.numericValue = number
    }

    /// Parses the member text of a literal or JSON string: `Red`, `Red,Blue`, `3`.
    public init(typeName: String?, memberText: String, numericValue: Int64? = nil) throws(ODataError) {
        let parts = memberText.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        do {
            try self.init(typeName: typeName, members: parts, numericValue: numericValue)
        } catch {
            throw .valueInvalidLiteral(memberText, "not a list of enum members")
        }
    }

    /// `Red,Blue`.
    public var memberText: String { members.joined(separator: ",") }

    /// `Ns.Color'Red,Blue'` (or `'Red,Blue'` when the type name is unknown).
    public var description: String { (typeName ?? "") + "'" + memberText + "'" }

    static func isValidMember(_ text: String) -> Bool {
        if Int64(text) != nil { return true }
        return isIdentifier(Substring(text))
    }

    static func isIdentifier(_ text: Substring) -> Bool {
        guard let first = text.unicodeScalars.first,
              first == "_" || first.properties.isAlphabetic else { return false }
        return text.unicodeScalars.allSatisfy {
            $0 == "_" || $0.properties.isAlphabetic || $0.properties.numericType != nil
                || $0.properties.generalCategory == .nonspacingMark
                || $0.properties.generalCategory == .spacingMark
                || $0.properties.generalCategory == .connectorPunctuation
        }
    }

    static func isQualifiedName(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 2 && parts.allSatisfy(isIdentifier)
    }
}
