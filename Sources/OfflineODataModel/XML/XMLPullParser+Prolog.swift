extension XMLPullParser {
    /// Validates the whole buffer as UTF-8 and as XML characters (no C0 controls other than
    /// tab/LF/CR, no surrogates, no U+FFFE/U+FFFF), so later decoding never has to repair.
    mutating func validateUTF8() throws {
        var i = index
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b < 0x80 {
                if b < 0x20, b != 0x09, b != 0x0A, b != 0x0D {
                    throw XMLErrorCode.xmlInvalidUTF8.error(
                        "control character U+\(hex(UInt32(b))) is not allowed in XML",
                        at: position(of: i))
                }
                i += 1
                continue
            }
            var length = 0
            var scalar: UInt32 = 0
            if b & 0xE0 == 0xC0 {
                length = 2
                scalar = UInt32(b & 0x1F)
            } else if b & 0xF0 == 0xE0 {
                length = 3
                scalar = UInt32(b & 0x0F)
            } else if b & 0xF8 == 0xF0 {
                length = 4
                scalar = UInt32(b & 0x07)
            } else {
                throw XMLErrorCode.xmlInvalidUTF8.error(
                    "invalid UTF-8 byte 0x\(hex(UInt32(b)))", at: position(of: i))
            }
            guard i + length <= n else {
                throw XMLErrorCode.xmlInvalidUTF8.error(
                    "truncated UTF-8 sequence starting with 0x\(hex(UInt32(b)))",
                    at: position(of: i))
            }
            var j = 1
            while j < length {
                let c = bytes[i + j]
                guard c & 0xC0 == 0x80 else {
                    throw XMLErrorCode.xmlInvalidUTF8.error(
                        "invalid UTF-8 continuation byte 0x\(hex(UInt32(c)))",
                        at: position(of: i))
                }
                scalar = (scalar << 6) | UInt32(c & 0x3F)
                j += 1
            }
            let minimum: UInt32 = length == 2 ? 0x80 : (length == 3 ? 0x800 : 0x10000)
            if scalar < minimum || scalar > 0x10FFFF || (scalar >= 0xD800 && scalar <= 0xDFFF)
                || scalar == 0xFFFE || scalar == 0xFFFF {
                throw XMLErrorCode.xmlInvalidUTF8.error(
                    "invalid UTF-8 sequence for U+\(hex(scalar))", at: position(of: i))
            }
            i += length
        }
    }

    func hex(_ value: UInt32) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return text.count < 2 ? "0" + text : text
    }

    /// Reads `<?xml version=".." encoding=".." standalone=".."?>` at the very start.
    mutating func readDeclarationIfPresent() throws {
        guard matches("<?xml"), let after = peek(5), Self.isWhitespace(after) else { return }
        let start = index
        index += 5
        var sawVersion = false
        while true {
            skipWhitespace()
            guard index < bytes.count else {
                throw XMLErrorCode.xmlUnexpectedEnd.error(
                    "document ends inside the XML declaration", at: position(of: index))
            }
            if matches("?>") {
                index += 2
                break
            }
            let name = try readName(context: "an XML declaration attribute")
            skipWhitespace()
            guard peek(0) == UInt8(ascii: "=") else {
                throw XMLErrorCode.xmlSyntaxError.error(
                    "expected '=' after '\(name)' in the XML declaration", at: position(of: index))
            }
            index += 1
            skipWhitespace()
            let value = try readPlainQuoted(context: "XML declaration")
            switch name {
            case "version":
                guard value.hasPrefix("1.") else {
                    throw XMLErrorCode.xmlSyntaxError.error(
                        "unsupported XML version '\(value)'", at: position(of: start))
                }
                sawVersion = true
            case "encoding":
                let lower = value.lowercased()
                guard lower == "utf-8" || lower == "utf8" || lower == "us-ascii" else {
                    throw XMLErrorCode.xmlUnsupportedEncoding.error(
                        "unsupported encoding '\(value)'; only UTF-8 is read",
                        at: position(of: start))
                }
            case "standalone":
                guard value == "yes" || value == "no" else {
                    throw XMLErrorCode.xmlSyntaxError.error(
                        "standalone must be 'yes' or 'no', found '\(value)'",
                        at: position(of: start))
                }
            default:
                throw XMLErrorCode.xmlSyntaxError.error(
                    "unknown XML declaration attribute '\(name)'", at: position(of: start))
            }
        }
        if !sawVersion {
            throw XMLErrorCode.xmlSyntaxError.error(
                "XML declaration without version", at: position(of: start))
        }
    }

    /// A quoted value without reference expansion (XML declaration, DOCTYPE).
    mutating func readPlainQuoted(context: String) throws -> String {
        guard let quote = peek(0), quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
            throw XMLErrorCode.xmlSyntaxError.error(
                "expected a quoted value in the \(context)", at: position(of: index))
        }
        let start = index + 1
        var i = start
        while i < bytes.count, bytes[i] != quote { i += 1 }
        guard i < bytes.count else {
            throw XMLErrorCode.xmlUnexpectedEnd.error(
                "document ends inside a quoted value of the \(context)", at: position(of: index))
        }
        index = i + 1
        return String(decoding: bytes[start..<i], as: UTF8.self)
    }

    mutating func skipComment() throws {
        let start = index
        index += 4
        guard let dashes = find("--", from: index) else {
            throw XMLErrorCode.xmlUnexpectedEnd.error(
                "document ends inside a comment", at: position(of: start))
        }
        guard dashes + 2 < bytes.count else {
            throw XMLErrorCode.xmlUnexpectedEnd.error(
                "document ends inside a comment", at: position(of: start))
        }
        guard bytes[dashes + 2] == UInt8(ascii: ">") else {
            throw XMLErrorCode.xmlSyntaxError.error(
                "'--' is not allowed inside a comment", at: position(of: dashes))
        }
        index = dashes + 3
    }

    mutating func skipProcessingInstruction() throws {
        let start = index
        index += 2
        let target = try readName(context: "a processing instruction target")
        if target.lowercased() == "xml" {
            throw XMLErrorCode.xmlSyntaxError.error(
                "the XML declaration is only allowed at the start of the document",
                at: position(of: start))
        }
        guard let end = find("?>", from: index) else {
            throw XMLErrorCode.xmlUnexpectedEnd.error(
                "document ends inside processing instruction '\(target)'", at: position(of: start))
        }
        if end > index, !Self.isWhitespace(bytes[index]) {
            throw XMLErrorCode.xmlSyntaxError.error(
                "expected whitespace after processing instruction target '\(target)'",
                at: position(of: index))
        }
        index = end + 2
    }

    /// Skips `<!DOCTYPE ...>` including an internal subset; declarations are ignored, so no
    /// entity it declares is ever expanded (references to them are errors later).
    mutating func skipDoctype() throws {
        let start = index
        if seenRoot || seenDoctype {
            throw XMLErrorCode.xmlSyntaxError.error(
                "DOCTYPE is only allowed once, before the root element", at: position(of: start))
        }
        seenDoctype = true
        index += 9
        var bracketDepth = 0
        var quote: UInt8?
        while index < bytes.count {
            let b = bytes[index]
            if let q = quote {
                if b == q { quote = nil }
                index += 1
                continue
            }
            if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                quote = b
            } else if b == UInt8(ascii: "[") {
                bracketDepth += 1
            } else if b == UInt8(ascii: "]") {
                bracketDepth -= 1
                if bracketDepth < 0 {
                    throw XMLErrorCode.xmlSyntaxError.error(
                        "unbalanced ']' in DOCTYPE", at: position(of: index))
                }
            } else if bracketDepth > 0, matches("<!--") {
                try skipComment()
                continue
            } else if b == UInt8(ascii: ">"), bracketDepth == 0 {
                index += 1
                return
            }
            index += 1
        }
        throw XMLErrorCode.xmlUnexpectedEnd.error(
            "document ends inside the DOCTYPE", at: position(of: start))
    }
}
