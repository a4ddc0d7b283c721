extension XMLPullParser {
    mutating func readStartTag() throws -> XMLEvent {
        let start = index
        let pos = position(of: start)
        if open.isEmpty, seenRoot {
            throw XMLErrorCode.xmlSyntaxError.error(
                "a second root element starts here: '\(snippet(at: start))'", at: pos)
        }
        index += 1
        let rawName = try readName(context: "an element name")
        var rawAttributes: [(name: String, value: String, offset: Int)] = []
        var selfClosing = false
        var manyNames = Set<String>()
        while true {
            let hadSpace = skipWhitespace()
            guard index < bytes.count else {
                throw XMLErrorCode.xmlUnexpectedEnd.error(
                    "document ends inside start tag <\(rawName)>", at: pos)
            }
            let b = bytes[index]
            if b == UInt8(ascii: ">") {
                index += 1
                break
            }
            if b == UInt8(ascii: "/") {
                guard let next = peek(1) else {
                    throw XMLErrorCode.xmlUnexpectedEnd.error(
                        "document ends inside start tag <\(rawName)>", at: pos)
                }
                guard next == UInt8(ascii: ">") else {
                    throw XMLErrorCode.xmlSyntaxError.error(
                        "expected '/>' to close <\(rawName)>", at: position(of: index))
                }
                index += 2
                selfClosing = true
                break
            }
            guard hadSpace else {
                throw XMLErrorCode.xmlSyntaxError.error(
                    "expected whitespace, '>' or '/>' in <\(rawName)>, found '\(snippet(at: index))'",
                    at: position(of: index))
            }
            let attributeOffset = index
            let attributeName = try readName(context: "an attribute name in <\(rawName)>")
            skipWhitespace()
            guard index < bytes.count else {
                throw XMLErrorCode.xmlUnexpectedEnd.error(
                    "document ends inside start tag <\(rawName)>", at: pos)
            }
            guard bytes[index] == UInt8(ascii: "=") else {
                throw XMLErrorCode.xmlSyntaxError.error(
                    "attribute '\(attributeName)' on <\(rawName)> has no '=' and value",
                    at: position(of: attributeOffset))
            }
            index += 1
            skipWhitespace()
            let value = try readAttributeValue(attributeName, element: rawName)
            // Linear for the usual handful of attributes, hashed for pathological counts.
            let duplicate: Bool
            if rawAttributes.count < 32 {
                duplicate = rawAttributes.contains { $0.name == attributeName }
            } else {
                if manyNames.isEmpty { manyNames = Set(rawAttributes.map(\.name)) }
                duplicate = !manyNames.insert(attributeName).inserted
            }
            if duplicate {
                throw XMLErrorCode.xmlDuplicateAttribute.error(
                    "attribute '\(attributeName)' appears twice on <\(rawName)>",
                    at: position(of: attributeOffset))
            }
            rawAttributes.append((attributeName, value, attributeOffset))
        }
        if open.count >= maxDepth {
            throw XMLErrorCode.xmlTooDeep.error(
                "element <\(rawName)> nests deeper than \(maxDepth) levels", at: pos)
        }
        // Namespace declarations first, then resolve names.
        var declared = 0
        var attributes: [XMLAttribute] = []
        attributes.reserveCapacity(rawAttributes.count)

        for attribute in rawAttributes {
            if attribute.name == "xmlns" {
                bindings.append(("", attribute.value))
                declared += 1
            } else if attribute.name.hasPrefix("xmlns:") {
                let prefix = String(attribute.name.dropFirst(6))
                guard !prefix.isEmpty, !prefix.contains(":"), !attribute.value.isEmpty,
                      prefix != "xmlns",
                      (prefix == "xml") == (attribute.value == XMLNamespaces.xml) else {
                    bindings.removeLast(declared)
                    throw XMLErrorCode.xmlSyntaxError.error(
                        "invalid namespace declaration '\(attribute.name)=\"\(attribute.value)\"' on <\(rawName)>",
                        at: position(of: attribute.offset))
                }
                bindings.append((prefix, attribute.value))
                declared += 1
            }
        }
        do {
            let name = try resolve(rawName, isAttribute: false, offset: start + 1)
            for attribute in rawAttributes
            where attribute.name != "xmlns" && !attribute.name.hasPrefix("xmlns:") {
                let attributeName = try resolve(attribute.name, isAttribute: true,
                                                offset: attribute.offset)
                // Only prefixed names can collide after expansion (raw names are unique).
                if !attributeName.prefix.isEmpty, attributes.contains(where: {
                    $0.name.local == attributeName.local
                        && $0.name.namespace == attributeName.namespace
                }) {
                    throw XMLErrorCode.xmlDuplicateAttribute.error(
                        "attribute '\(attribute.name)' duplicates another attribute of <\(rawName)> in the same namespace",
                        at: position(of: attribute.offset))
                }
                attributes.append(XMLAttribute(name: attributeName, value: attribute.value))
            }
            seenRoot = true
            open.append(OpenElement(rawName: rawName, name: name, position: pos,
                                    bindingCount: declared))
            if selfClosing {
                pendingEnd = .endElement(name: name, position: pos)
            }
            return .startElement(name: name, attributes: attributes, position: pos)
        } catch {
            bindings.removeLast(declared)
            throw error
        }
    }

    /// Splits `prefix:local` and binds the prefix. Unprefixed attributes have no namespace.
    mutating func resolve(_ raw: String, isAttribute: Bool, offset: Int) throws -> XMLName {
        let utf8 = raw.utf8
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")) else {
            if isAttribute { return XMLName(namespace: "", local: raw) }
            return XMLName(namespace: lookup("") ?? "", local: raw)
        }
        let afterColon = utf8.index(after: colon)
        guard colon != utf8.startIndex, afterColon != utf8.endIndex,
              !utf8[afterColon...].contains(UInt8(ascii: ":")) else {
            throw XMLErrorCode.xmlSyntaxError.error(
                "'\(raw)' is not a valid qualified name", at: position(of: offset))
        }
        let prefix = String(raw[..<colon])
        let local = String(raw[afterColon...])
        if prefix == "xml" {
            return XMLName(namespace: XMLNamespaces.xml, local: local, prefix: prefix)
        }
        guard let uri = lookup(prefix), !uri.isEmpty else {
            throw XMLErrorCode.xmlUndeclaredPrefix.error(
                "namespace prefix '\(prefix)' of '\(raw)' is not declared", at: position(of: offset))
        }
        return XMLName(namespace: uri, local: local, prefix: prefix)
    }

    func lookup(_ prefix: String) -> String? {
        var i = bindings.count - 1
        while i >= 0 {
            if bindings[i].prefix == prefix { return bindings[i].uri }
            i -= 1
        }
        return nil
    }

    mutating func readEndTag() throws -> XMLEvent {
        let start = index
        let pos = position(of: start)
        index += 2
        let rawName = try readName(context: "an element name in an end tag")
        skipWhitespace()
        guard index < bytes.count else {
            throw XMLErrorCode.xmlUnexpectedEnd.error(
                "document ends inside end tag </\(rawName)>", at: pos)
        }
        guard bytes[index] == UInt8(ascii: ">") else {
            throw XMLErrorCode.xmlSyntaxError.error(
                "expected '>' to close end tag </\(rawName)>, found '\(snippet(at: index))'",
                at: position(of: index))
        }
        index += 1
        guard let top = open.last else {
            throw XMLErrorCode.xmlMismatchedTag.error(
                "end tag </\(rawName)> has no matching start tag", at: pos)
        }
        guard top.rawName == rawName else {
            throw XMLErrorCode.xmlMismatchedTag.error(
                "end tag </\(rawName)> does not match <\(top.rawName)> opened at \(top.position)",
                at: pos)
        }
        let name = top.name
        popElement()
        return .endElement(name: name, position: pos)
    }
}
