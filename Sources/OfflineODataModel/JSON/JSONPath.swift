/// One step of a JSON path: a member name or an array index.
enum JSONPathComponent: Sendable, Hashable {
    case key(String)
    case index(Int)
}

/// Renders JSON paths and error locations.
enum JSONPath {
    /// `$`, `$.value[4].Price`, `$["@odata.nextLink"]` (bracket form when a name is not an identifier).
    static func render(_ components: [JSONPathComponent]) -> String {
        var text = "$"
        for component in components { append(component, to: &text) }
        return text
    }

    static func append(_ component: JSONPathComponent, to text: inout String) {
        switch component {
        case .index(let index):
            text += "[\(index)]"
        case .key(let key):
            if isIdentifier(key) {
                text += ".\(key)"
            } else {
                text += "[\"\(JSONScanner.escapedForMessage(key))\"]"
            }
        }
    }

    private static func isIdentifier(_ key: String) -> Bool {
        guard let first = key.utf8.first, !(first >= 0x30 && first <= 0x39) else { return false }
        return key.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F
        }
    }

    /// `$.value[4].Price (line 3, column 17, offset 1234)`; line and column are 1-based,
    /// the column counts bytes.
    static func location(path: String, line: Int, column: Int, offset: Int) -> String {
        "\(path) (line \(line), column \(column), offset \(offset))"
    }

    /// Line and column (1-based, bytes) of `offset` in a whole document.
    static func lineAndColumn(_ buf: UnsafeBufferPointer<UInt8>, offset: Int) -> (Int, Int) {
        var line = 1
        var lineStart = 0
        var i = 0
        let end = min(offset, buf.count)
        while i < end {
            if buf[i] == 0x0A {
                line += 1
                lineStart = i + 1
            }
            i += 1
        }
        return (line, offset - lineStart + 1)
    }
}
