/// A parsed element: name, attributes, child elements in document order, the concatenated
/// character data directly inside it, and where its start tag begins. Built by
/// `XMLTreeElement.parseDocument(_:)` on top of `XMLPullParser`.
public struct XMLTreeElement: Sendable, Hashable {
    public var name: XMLName
    public var attributes: [XMLAttribute]
    public var children: [XMLTreeElement]
    public var text: String
    public var position: XMLPosition

    public init(name: XMLName, attributes: [XMLAttribute] = [], children: [XMLTreeElement] = [],
                text: String = "", position: XMLPosition) {
        self.name = name
        self.attributes = attributes
        self.children = children
        self.text = text
        self.position = position
    }

    /// The value of the unprefixed attribute `local`, or of `local` in `namespace`.
    public func attribute(_ local: String, namespace: String = "") -> String? {
        for attribute in attributes
        where attribute.name.local == local && attribute.name.namespace == namespace {
            return attribute.value
        }
        return nil
    }

    /// Child elements with local name `local` (any namespace).
    public func children(named local: String) -> [XMLTreeElement] {
        children.filter { $0.name.local == local }
    }

    /// The first child element with local name `local` (any namespace).
    public func child(named local: String) -> XMLTreeElement? {
        children.first { $0.name.local == local }
    }

    /// Parses a whole document into its root element.
    public static func parseDocument(_ bytes: [UInt8],
                                     maxDepth: Int = XMLPullParser.defaultMaxDepth) throws
        -> XMLTreeElement
    {
        var parser = try XMLPullParser(bytes: bytes, maxDepth: maxDepth)
        var stack: [XMLTreeElement] = []
        var root: XMLTreeElement?
        while let event = try parser.next() {
            switch event {
            case let .startElement(name, attributes, position):
                stack.append(XMLTreeElement(name: name, attributes: attributes, position: position))
            case .endElement:
                guard let done = stack.popLast() else { continue }
                if stack.isEmpty {
                    root = done
                } else {
                    stack[stack.count - 1].children.append(done)
                }
            case let .text(text, _):
                if !stack.isEmpty { stack[stack.count - 1].text += text }
            }
        }
        guard let root else {
            throw XMLErrorCode.xmlUnexpectedEnd.error(
                "document has no root element", at: XMLPosition(line: 1, column: 1, offset: 0))
        }
        return root
    }
}
