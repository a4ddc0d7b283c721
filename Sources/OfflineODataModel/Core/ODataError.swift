/// The category of an error, as SAP's Offline OData documents them.
public enum ODataErrorCategory: String, Sendable, Hashable, CaseIterable {
    case invalidInput
    case preconditionFailed
    case notFound
    case notSupported
    case communicationError
    case serverSideError
    case clientInternalError
}

/// Every error the OData layer raises: a category, a stable name and numeric code (listed in
/// docs/Errors.md), a message that says what was wrong, and where (a byte offset, line:column,
/// a JSON path or a URL position) when the input has a position.
///
/// Code ranges are owned by one area each, so codes never collide:
/// - 1000–1099 general, 1100–1199 CSDL/XML, 1200–1299 JSON, 1300–1399 values and literals,
/// - 1400–1499 key predicates and encodings, 1500–1599 fixtures.
public struct ODataError: Error, Sendable, Hashable, CustomStringConvertible {
    public var category: ODataErrorCategory
    /// Stable identifier, e.g. `xmlSyntaxError`, `jsonSyntaxError`, `invalidLiteral`.
    public var name: String
    /// Stable numeric code.
    public var code: Int
    /// What was wrong, including the offending text where there is one.
    public var message: String
    /// Where: "line 3, column 17", "$.value[4].Price", "offset 1234", or nil.
    public var location: String?
    /// The error this one reports, kept whole (an `EngineError` under a storage failure, a
    /// transport error under a communication failure), so a caller can inspect it instead of
    /// parsing the message. Not part of equality.
    public var underlying: (any Error & Sendable)?
    /// The character offset of an error in the expression it was found in, while the location is
    /// that bare offset (`"position 12"`): what moves the error into a larger text
    /// (`"$filter, position 40"`) without reading its `location` back; nil once placed, and for
    /// every other location. Not part of equality (the location carries it).
    public var position: Int?

    public init(
        _ category: ODataErrorCategory, name: String, code: Int, message: String,
        location: String? = nil, underlying: (any Error & Sendable)? = nil, position: Int? = nil
    ) {
        self.category = category
        self.name = name
        self.code = code
        self.message = message
        self.location = location
        self.underlying = underlying
        self.position = position
    }

    public static func == (a: ODataError, b: ODataError) -> Bool {
        a.category == b.category && a.name == b.name && a.code == b.code && a.message == b.message && a.location == b.location
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(category)
        hasher.combine(name)
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(location)
    }

    public var description: String {
        var text = "[\(category.rawValue)] \(name) (\(code)): \(message)"
        if let location { text += " at \(location)" }
        return text
    }
}
