/// A position in an XML document: 1-based line and column (columns count Unicode scalars),
/// plus the byte offset. Line ends are LF, CRLF or a lone CR.
public struct XMLPosition: Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var offset: Int

    public init(line: Int, column: Int, offset: Int) {
        self.line = line
        self.column = column
        self.offset = offset
    }

    /// "line L, column C", the form used in `ODataError.location`.
    public var description: String { "line \(line), column \(column)" }
}

/// An expanded XML name: the namespace URI bound to the prefix ("" when none), the local name
/// and the prefix as written.
public struct XMLName: Sendable, Hashable, CustomStringConvertible {
    public var namespace: String
    public var local: String
    public var prefix: String

    public init(namespace: String, local: String, prefix: String = "") {
        self.namespace = namespace
        self.local = local
        self.prefix = prefix
    }

    /// The qualified name as written: `prefix:local` or `local`.
    public var qualified: String { prefix.isEmpty ? local : prefix + ":" + local }
    public var description: String { qualified }
}

/// One attribute of a start tag with its value after reference expansion and
/// attribute-value normalisation (tab, CR, LF become spaces).
public struct XMLAttribute: Sendable, Hashable {
    public var name: XMLName
    public var value: String

    public init(name: XMLName, value: String) {
        self.name = name
        self.value = value
    }
}

/// What `XMLPullParser.next()` reports. Comments, processing instructions, the XML declaration
/// and the DOCTYPE are consumed silently. Namespace declarations (`xmlns`, `xmlns:p`) are applied
/// to names and not reported as attributes.
public enum XMLEvent: Sendable, Hashable {
    case startElement(name: XMLName, attributes: [XMLAttribute], position: XMLPosition)
    case endElement(name: XMLName, position: XMLPosition)
    /// Character data (references expanded, line ends normalised to LF) or a CDATA section.
    case text(String, position: XMLPosition)
}

/// Well-known namespace URIs.
public enum XMLNamespaces {
    public static let xml = "http://www.w3.org/XML/1998/namespace"
    public static let xmlns = "http://www.w3.org/2000/xmlns/"
}
