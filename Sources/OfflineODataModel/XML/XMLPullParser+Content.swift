extension XMLPullParser {
    /// Character data up to the next '<'. Outside the root element only whitespace is allowed
    /// and nothing is reported (returns nil).
    mutating func readText() throws -> XMLEvent? {
        let start = index
        var needsDecoding = false
        var i = index
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "<") { break }
            if b == UInt8(ascii: "&") || b == 0x0D { needsDecoding = true }
            if b == UInt8(ascii: "]"), i + 2 < bytes.count, bytes[i + 1] == UInt8(ascii: "]"),
               bytes[i + 2] == UInt8(ascii: ">") {
                throw XMLErrorCode.xmlSyntaxError.error(
                    "']]>' is not allowed in character data", at: position(of: i))
            }
            i += 1
        }
        if open.isEmpty {
            var j = start
            while j < i {
                if !Self.isWhitespace(bytes[j]) {
                    throw XMLErrorCode.xmlSyntaxError.error(
                        seenRoot ? "text after the root element: '\(snippet(at: j))'"
                            : "text before the root element: '\(snippet(at: j))'",
                        at: position(of: j))
                }
                j += 1
            }
            index = i
            return nil
        }
        let pos = position(of: start)
        if !needsDecoding {
            index = i
            return .text(String(decoding: bytes[start..<i], as: UTF8.self), position: pos)
        }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(i - start)
        while index < i {
            let b = bytes[index]
            if b == UInt8(ascii: "&") {
                try appendReference(to: &buffer)
            } else if b == 0x0D {
                buffer.append(0x0A)
                index += 1
                if index < i, bytes[index] == 0x0A { index += 1 }
            } else {
                buffer.append(b)
                index += 1
            }
        }
        return .text(String(decoding: buffer, as: UTF8.self), position: pos)
    }

    mutating func readCDATA() throws -> XMLEvent {
        let start = index
        if open.isEmpty {
            throw XMLErrorCode.xmlSyntaxError.error(
                "CDATA section outside the root element", at: position(of: start))
        }
        let contentStart = index + 9
        guard let end = find("]]>", from: contentStart) else {
            throw XMLErrorCode.xmlUnexpectedEnd.error(
                "document ends inside a CDATA section", at: position(of: start))
        }
        index = end + 3
        var buffer: [UInt8] = []
        buffer.reserveCapacity(end - contentStart)
        var i = contentStart
        while i < end {
            let b = bytes[i]
            if b == 0x0D {
                buffer.append(0x0A)
                if i + 1 < end, bytes[i + 1] == 0x0A { i += 1 }
            } else {
                buffer.append(b)
            }
            i += 1
        }
        return .text(String(decoding: buffer, as: UTF8.self), position: position(of: start))
    }

    /// Expands `&name;` or `&#N;`/`&#xH;` at the current index into `buffer`.
    mutating func appendReference(to buffer: inout [UInt8]) throws {
        let start = index
        var i = index + 1
        while i < bytes.count, i - start <= 12,
              Self.isNameChar(bytes[i]) || bytes[i] == UInt8(ascii: "#") { i += 1 }
        guard i < bytes.count, bytes[i] == UInt8(ascii: ";") else {
            if i >= bytes.count {
                throw XMLErrorCode.xmlUnexpectedEnd.error(
                    "document ends inside a reference", at: position(of: start))
            }
            throw XMLErrorCode.xmlUndefinedEntity.error(
                "'&' must start a reference ending in ';' (found '\(snippet(at: start))')",
                at: position(of: start))
        }
        let body = Array(bytes[(start + 1)..<i])
        index = i + 1
        switch body {
        case Array("lt".utf8): buffer.append(UInt8(ascii: "<"))
        case Array("gt".utf8): buffer.append(UInt8(ascii: ">"))
        case Array("amp".utf8): buffer.append(UInt8(ascii: "&"))
        case Array("apos".utf8): buffer.append(UInt8(ascii: "'"))
        case Array("quot".utf8): buffer.append(UInt8(ascii: "\""))
        default:
            guard body.first == UInt8(ascii: "#") else {
                throw XMLErrorCode.xmlUndefinedEntity.error(
                    "undefined entity '&\(String(decoding: body, as: UTF8.self));' (only the five predefined entities are expanded)",
                    at: position(of: start))
            }
            let scalar = try characterReference(body, at: start)
            buffer.append(contentsOf: Array(String(Character(scalar)).utf8))
        }
    }

    mutating func characterReference(_ body: [UInt8], at start: Int) throws -> Unicode.Scalar {
        var digits = body.dropFirst()
        var radix: UInt32 = 10
        if digits.first == UInt8(ascii: "x") {
            radix = 16
            digits = digits.dropFirst()
        }
        var value: UInt32 = 0
        var valid = !digits.isEmpty
        for d in digits {
            var v: UInt32
            switch d {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(d - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16:
                v = UInt32(d - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16:
                v = UInt32(d - UInt8(ascii: "A")) + 10
            default:
                valid = false
                v = 0
            }
            if !valid { break }
            value = value * radix + v
            if value > 0x10FFFF {
                valid = false
                break
            }
        }
        let isXMLChar = value == 0x09 || value == 0x0A || value == 0x0D
            || (value >= 0x20 && value <= 0xD7FF) || (value >= 0xE000 && value <= 0xFFFD)
            || (value >= 0x10000 && value <= 0x10FFFF)
        guard valid, isXMLChar, let scalar = Unicode.Scalar(value) else {
            throw XMLErrorCode.xmlUndefinedEntity.error(
                "invalid character reference '&\(String(decoding: body, as: UTF8.self));'",
                at: position(of: start))
        }
        return scalar
    }

    /// A quoted attribute value with references expanded and whitespace normalised.
    mutating func readAttributeValue(_ attribute: String, element: String) throws -> String {
        guard let quote = peek(0), quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
            if index >= bytes.count {
                throw XMLErrorCode.xmlUnexpectedEnd.error(
                    "document ends inside <\(element)>", at: position(of: index))
            }
            throw XMLErrorCode.xmlSyntaxError.error(
                "value of attribute '\(attribute)' on <\(element)> must be quoted",
                at: position(of: index))
        }
        let quoteAt = index
        index += 1
        // Fast path: no reference and no whitespace to normalise.
        var end = index
        while end < bytes.count {
            let b = bytes[end]
            if b == quote || b == UInt8(ascii: "<") || b == UInt8(ascii: "&") || b < 0x20 { break }
            end += 1
        }
        if end < bytes.count, bytes[end] == quote {
            let value = String(decoding: bytes[index..<end], as: UTF8.self)
            index = end + 1
            return value
        }
        var buffer: [UInt8] = []
        while true {
            guard index < bytes.count else {
                throw XMLErrorCode.xmlUnexpectedEnd.error(
                    "document ends inside the value of attribute '\(attribute)' on <\(element)>",
                    at: position(of: quoteAt))
            }
            let b = bytes[index]
            if b == quote {
                index += 1
                break
            }
            switch b {
            case UInt8(ascii: "<"):
                throw XMLErrorCode.xmlSyntaxError.error(
                    "'<' is not allowed in the value of attribute '\(attribute)' on <\(element)>",
                    at: position(of: index))
            case UInt8(ascii: "&"):
                try appendReference(to: &buffer)
            case 0x0D:
                buffer.append(0x20)
                index += 1
                if index < bytes.count, bytes[index] == 0x0A { index += 1 }
            case 0x09, 0x0A:
                buffer.append(0x20)
                index += 1
            default:
                buffer.append(b)
                index += 1
            }
        }
        return String(decoding: buffer, as: UTF8.self)
    }
}
